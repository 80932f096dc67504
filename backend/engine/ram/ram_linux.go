package ram

import (
	"fmt"
	"os"
)

func read() (Machine, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return Machine{}, fmt.Errorf("read the machine's memory: %w", err)
	}
	defer f.Close()
	return ParseMeminfo(f)
}
