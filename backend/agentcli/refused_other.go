//go:build !windows

package agentcli

import "syscall"

var errConnRefused error = syscall.ECONNREFUSED
