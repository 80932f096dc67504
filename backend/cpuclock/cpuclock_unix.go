//go:build unix

// Package cpuclock reads the CPU time the process has used, for benchmarks:
// unlike wall time, other processes on a busy machine do not inflate it.
package cpuclock

import (
	"syscall"
	"time"
)

// Process is the CPU time the process has used so far (user + system, all
// threads); 0 when it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
