//go:build windows

package mcp

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup stops the server; Windows has no SIGTERM, so it is killed.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
