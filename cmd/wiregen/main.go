// Command wiregen writes what comes from Go's declarations: the frontend's
// wire types (frontend/src/api/wire.gen.ts), its client of every call
// (frontend/src/api/calls.gen.ts) and the window's bound methods
// (desktop/calls.gen.go), from backend/wire and backend/calls. Run it from
// the repository root: go run ./cmd/wiregen
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parley-app/parley/backend/wire"
)

func main() {
	files, err := wire.Files()
	for path, src := range files {
		if err != nil {
			break
		}
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
}
