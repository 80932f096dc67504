package ram

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// memoryStatusEx is MEMORYSTATUSEX
// (https://learn.microsoft.com/windows/win32/api/sysinfoapi/ns-sysinfoapi-memorystatusex);
// golang.org/x/sys/windows does not declare it.
type memoryStatusEx struct {
	Length               uint32
	MemoryLoad           uint32
	TotalPhys            uint64
	AvailPhys            uint64
	TotalPageFile        uint64
	AvailPageFile        uint64
	TotalVirtual         uint64
	AvailVirtual         uint64
	AvailExtendedVirtual uint64
}

var globalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// read asks GlobalMemoryStatusEx: ullTotalPhys and ullAvailPhys.
func read() (Machine, error) {
	st := memoryStatusEx{}
	st.Length = uint32(unsafe.Sizeof(st))
	if ok, _, err := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&st))); ok == 0 {
		return Machine{}, fmt.Errorf("read the machine's memory: GlobalMemoryStatusEx: %w", err)
	}
	return Machine{Total: st.TotalPhys, Available: st.AvailPhys}, nil
}
