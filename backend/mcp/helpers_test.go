package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
)

// testServerBin is the built testserver (see testserver/main.go).
var testServerBin string

// No goroutine of the host, its sessions or its processes may outlive the
// tests (each test stops its host and checks too, see newTestHost).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "parley-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServerBin = filepath.Join(dir, "testserver")
	if runtime.GOOS == "windows" {
		testServerBin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", testServerBin, "./testserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build testserver: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// logBuffer captures slog output (safe for concurrent writers).
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type testHost struct {
	*Host
	dir  string
	rec  *events.Recorder
	logs *logBuffer
}

// newTestHost writes mcp.json with the servers, starts a host on it and
// stops it (checking that no goroutine is left) when the test ends.
func newTestHost(t *testing.T, servers map[string]ServerConfig, tune ...func(*Options)) *testHost {
	t.Helper()
	leaks := goleak.IgnoreCurrent()
	dir := t.TempDir()
	path := filepath.Join(dir, ConfigFile)
	if servers != nil {
		data, err := json.Marshal(map[string]any{"mcpServers": servers})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o600))
	}
	rec := events.NewRecorder()
	logs := &logBuffer{}
	opt := Options{Path: path, Events: rec, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Terminate: 500 * time.Millisecond,
		// A bound for a broken run only: a 5 MB result takes over 20 s with -race on a busy machine.
		CallTimeout: 2 * time.Minute}
	for _, f := range tune {
		f(&opt)
	}
	h := New(opt)
	h.Start()
	t.Cleanup(func() {
		h.Stop()
		goleak.VerifyNone(t, leaks)
	})
	return &testHost{Host: h, dir: dir, rec: rec, logs: logs}
}

// testServer is the configuration of a testserver process.
func testServer(args ...string) ServerConfig {
	return ServerConfig{Command: testServerBin, Args: args}
}

// waitStatus waits until the server has the status (and returns it).
func (h *testHost) waitStatus(t *testing.T, name, status string) api.MCPServer {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s, err := h.Server(name)
		require.NoError(t, err)
		if s.Status == status {
			return s
		}
		select {
		case <-h.rec.Changed():
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("server %s never became %s (last: %s %q)", name, status, s.Status, s.Error)
		}
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func call(h *Host, server, tool, args string) Result {
	return h.Call(context.Background(), Call{Server: server, Tool: tool, Arguments: json.RawMessage(args)})
}
