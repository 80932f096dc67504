//go:build windows

package update

import (
	"os"
	"os/exec"
	"syscall"
)

// withWaitFD: Windows passes no extra descriptors (and Parley never
// restarts itself there: the installer replaces it).
func withWaitFD(*exec.Cmd, *os.File) bool { return false }

// rawCommandLine sets the command line as it is (NSIS's /D= unquoted).
func rawCommandLine(cmd *exec.Cmd, line string) {
	if line != "" {
		cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: line}
	}
}
