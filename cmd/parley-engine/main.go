// Command parley-engine is the built-in engine's process on its own
// (backend/engine/sidecar), the same as `parley engine`: an installer may
// put it in the engine folder beside the libraries, where the supervisor
// prefers it. It does not load the window's libraries (GTK, WebKitGTK), so
// it starts with ~60 MB less resident memory than `parley engine`.
package main

import (
	"os"

	"github.com/parley-app/parley/backend/engine/sidecar"
)

func main() {
	os.Exit(sidecar.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
