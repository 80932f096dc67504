package update

import (
	"os"
	"os/exec"
	"strconv"
	"time"
)

// WaitFDEnv names the descriptor a Parley started by StartUpdated reads
// until the Parley that started it has exited (the write end closes with
// that process): the new version never runs beside the old one, which has
// closed the database and its listener, and on the desktop releases the
// single-instance lock only as it exits.
const WaitFDEnv = "PARLEY_UPDATE_WAIT_FD"

// WaitLimit bounds that wait.
const WaitLimit = 30 * time.Second

// keepOpen holds the write ends StartUpdated keeps open until this process
// exits (a reference, so that no finalizer closes them earlier).
var keepOpen []*os.File

// StartUpdated starts binary (the updated Parley, or the one rolled back
// to) with args; the caller exits right after, having closed everything.
func StartUpdated(binary string, args []string) error {
	cmd := exec.Command(binary, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	r, w, err := os.Pipe()
	if err == nil {
		if withWaitFD(cmd, r) {
			cmd.Env = append(cmd.Env, WaitFDEnv+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
		} else {
			w.Close()
			w = nil
		}
		defer r.Close()
	}
	if err := cmd.Start(); err != nil {
		if w != nil {
			w.Close()
		}
		return err
	}
	if w != nil {
		keepOpen = append(keepOpen, w)
	}
	return cmd.Process.Release()
}

// WaitForPrevious is called first thing at start: when this Parley was
// started by StartUpdated, it waits (at most WaitLimit) until the one that
// started it has exited.
func WaitForPrevious(getenv func(string) string) {
	v := getenv(WaitFDEnv)
	if v == "" {
		return
	}
	os.Unsetenv(WaitFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return
	}
	f := os.NewFile(uintptr(fd), "update-wait")
	if f == nil {
		return
	}
	defer f.Close()
	done := make(chan struct{})
	go func() {
		var b [1]byte
		for {
			if _, err := f.Read(b[:]); err != nil {
				break
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(WaitLimit):
	}
}
