// Package architecture checks the arrows between Parley's packages: the
// domain packages under backend/ never reach the Wails runtime or the window
// layer (package desktop), so each is tested without a window; only desktop
// (and the root's App) import Wails; the repository root holds main.go and
// app.go only.
package architecture

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/parley-app/parley"

type goPackage struct {
	ImportPath string
	Dir        string
	Imports    []string
	Deps       []string
}

// listPackages runs `go list -deps=false -json` over the module, for the
// build the app ships (so build-tagged files are included as in the app).
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-json", "-tags", "webkit2_41", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	pkgs := map[string]goPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs[p.ImportPath] = p
	}
	require.Contains(t, pkgs, module+"/backend/service", "go list did not list the backend")
	require.Contains(t, pkgs, module+"/desktop", "go list did not list the window layer")
	return pkgs
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err, "tests/architecture must sit two levels below the module root")
	return dir
}

// forbidden reports which of deps are the Wails runtime or the window layer.
func forbidden(deps []string) []string {
	var bad []string
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/wailsapp/wails") || d == module+"/desktop" || d == module {
			bad = append(bad, d)
		}
	}
	sort.Strings(bad)
	return bad
}

func TestBackendNeverReachesWailsOrTheWindow(t *testing.T) {
	for path, p := range listPackages(t) {
		if !strings.HasPrefix(path, module+"/backend/") && !strings.HasPrefix(path, module+"/cmd/") {
			continue
		}
		assert.Empty(t, forbidden(p.Deps), "%s depends on the window layer (directly or through its imports)", path)
	}
}

func TestOnlyTheWindowLayerImportsWails(t *testing.T) {
	for path, p := range listPackages(t) {
		// bench/windowfloor is a bare Wails app by design: the floor of the
		// window's card latency, nothing of Parley in it.
		if path == module || path == module+"/desktop" || path == module+"/bench/windowfloor" {
			continue
		}
		for _, imp := range p.Imports {
			assert.False(t, strings.HasPrefix(imp, "github.com/wailsapp/wails"), "%s imports %s: only package desktop may", path, imp)
		}
	}
}

func TestTheRootHoldsMainAndApp(t *testing.T) {
	entries, err := os.ReadDir(repoRoot(t))
	require.NoError(t, err)
	var goFiles []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			goFiles = append(goFiles, e.Name())
		}
	}
	assert.ElementsMatch(t, []string{"main.go", "app.go"}, goFiles, "the repository root is for main.go and app.go; the window layer lives in desktop/, shared wiring in backend/core")
}

// The checks must be able to fail: a package list with a backend package
// that reaches Wails through another is caught.
func TestForbiddenCatchesIndirectWails(t *testing.T) {
	assert.Equal(t, []string{"github.com/wailsapp/wails/v2/pkg/runtime"},
		forbidden([]string{module + "/backend/store", "github.com/wailsapp/wails/v2/pkg/runtime", "fmt"}))
	assert.Equal(t, []string{module + "/desktop"}, forbidden([]string{module + "/desktop", "context"}))
	assert.Empty(t, forbidden([]string{module + "/backend/core", "net/http"}))
}
