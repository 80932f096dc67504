package agentcli

import "syscall"

// WSAECONNREFUSED: syscall.ECONNREFUSED is not what Windows' sockets return.
var errConnRefused error = syscall.Errno(10061)
