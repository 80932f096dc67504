// Command wiregen writes the frontend's wire types (frontend/src/api/wire.gen.ts)
// from backend/wire.Wire. Run it from the repository root: go run ./cmd/wiregen
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parley-app/parley/backend/api"

	"github.com/parley-app/parley/backend/wire"
)

func main() {
	out := flag.String("o", api.GeneratedPath, "file to write")
	flag.Parse()
	src, err := wire.Generate(wire.Wire)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(*out), 0o755)
	}
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
}
