//go:build unix

package assistant

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user + system): unlike
// wall time, other processes on a busy machine do not inflate it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
