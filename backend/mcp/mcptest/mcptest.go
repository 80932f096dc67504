// Package mcptest gives tests real MCP servers: the misbehaving testserver
// (built from backend/mcp/testserver) and the npm servers pinned in
// tests/mcp (installed by scripts/setup.sh).
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// RepoRoot is the folder holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's folder")
		}
		dir = parent
	}
}

// BuildTestServer builds the testserver into the test's temp folder and
// returns its path.
func BuildTestServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testserver")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "./backend/mcp/testserver")
	cmd.Dir = RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build testserver: %v\n%s", err, out)
	}
	return bin
}

// NodeServer returns the command and arguments that start one of the
// pinned npm servers ("everything" or "filesystem") over stdio with node.
func NodeServer(t testing.TB, name string, args ...string) (string, []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed for the MCP integration tests: " + err.Error())
	}
	pkg := filepath.Join(RepoRoot(t), "tests", "mcp", "node_modules", "@modelcontextprotocol", "server-"+name, "dist", "index.js")
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("%s is missing: run scripts/setup.sh (npm ci in tests/mcp): %v", pkg, err)
	}
	return node, append([]string{pkg}, args...)
}
