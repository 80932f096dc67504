package yield

import "golang.org/x/sys/unix"

// lowerThreadPriority sets the calling OS thread's nice value (Linux
// schedules threads on their own: PRIO_PROCESS with a thread id sets that
// thread only).
func lowerThreadPriority(nice int) error {
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), nice)
}

// threadNice is the calling OS thread's nice value.
func threadNice() (int, error) {
	// The raw system call returns 20 - nice (getpriority(2), "C library/kernel differences").
	p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	return 20 - p, err
}
