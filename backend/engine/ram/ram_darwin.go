package ram

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// read asks sysctl hw.memsize (the physical memory). macOS has no one
// figure like Linux's MemAvailable (it compresses memory before it swaps),
// so Available stays 0: unknown.
func read() (Machine, error) {
	total, err := unix.SysctlUint64("hw.memsize")
	if err != nil {
		return Machine{}, fmt.Errorf("read the machine's memory: sysctl hw.memsize: %w", err)
	}
	return Machine{Total: total}, nil
}
