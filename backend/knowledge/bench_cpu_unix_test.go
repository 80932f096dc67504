//go:build unix

package knowledge

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user + system), which
// other processes on a busy machine do not inflate the way they do wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
