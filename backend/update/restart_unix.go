//go:build !windows

package update

import (
	"os"
	"os/exec"
)

// withWaitFD passes r to the child as its descriptor 3 + its index.
func withWaitFD(cmd *exec.Cmd, r *os.File) bool {
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return true
}

func rawCommandLine(*exec.Cmd, string) {}
