// Package ram reads how much memory the machine has (SPEC §12: the model
// library marks the models that need more, and the engine refuses to load
// one unless the user insists). Linux reads /proc/meminfo, Windows asks
// GlobalMemoryStatusEx, macOS sysctl hw.memsize.
package ram

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Machine is the machine's memory, in bytes.
type Machine struct {
	// Total is the physical memory.
	Total uint64 `json:"total"`
	// Available is what new work can take without swapping (Linux's
	// MemAvailable: free memory plus reclaimable caches); 0 when the
	// system does not say.
	Available uint64 `json:"available"`
}

// Read reads the machine's memory.
func Read() (Machine, error) { return read() }

// ParseMeminfo reads /proc/meminfo's text: MemTotal and MemAvailable (in
// kB, as the kernel writes them; see proc(5)). A kernel older than 3.14 has
// no MemAvailable: then MemFree + Buffers + Cached stands in for it.
func ParseMeminfo(r io.Reader) (Machine, error) {
	fields := map[string]uint64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return Machine{}, fmt.Errorf("meminfo %s: %w", name, err)
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		fields[name] = n
	}
	if err := sc.Err(); err != nil {
		return Machine{}, fmt.Errorf("meminfo: %w", err)
	}
	total, ok := fields["MemTotal"]
	if !ok || total == 0 {
		return Machine{}, fmt.Errorf("meminfo: no MemTotal")
	}
	avail, ok := fields["MemAvailable"]
	if !ok {
		avail = fields["MemFree"] + fields["Buffers"] + fields["Cached"]
	}
	return Machine{Total: total, Available: min(avail, total)}, nil
}
