//go:build desktop

// Package desktop holds the smoke test of the real Parley window under Xvfb.
// scripts/test.sh runs it with PARLEY_BIN set and DISPLAY pointing at Xvfb.
package desktop

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func artifactsDir(t *testing.T) string {
	dir := os.Getenv("PARLEY_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// waitForWindow polls xdotool until the app's window, with exactly this
// title, is shown. GTK also gives the title to a 10x10 helper window (which
// can be the only match for a moment) and to windows that go away again at
// start-up: only a visible window of at least 100x100 found on two polls in
// a row counts. An app started with startLogged that exits meanwhile ends
// the test at once.
func waitForWindow(t *testing.T, title string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	seen := ""
	for time.Now().Before(deadline) {
		failIfAppExited(t)
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$").Output()
		found := ""
		for _, id := range strings.Fields(string(out)) {
			geo, err := exec.Command("xdotool", "getwindowgeometry", "--shell", id).Output()
			if err != nil {
				continue // gone meanwhile
			}
			var w, h int
			for _, line := range strings.Split(string(geo), "\n") {
				fmt.Sscanf(line, "WIDTH=%d", &w)
				fmt.Sscanf(line, "HEIGHT=%d", &h)
			}
			if w >= 100 && h >= 100 {
				found = id
			}
		}
		if found != "" && found == seen {
			return found
		}
		seen = found
		time.Sleep(250 * time.Millisecond)
	}
	require.FailNow(t, fmt.Sprintf("no window titled %q within %s", title, timeout))
	return ""
}

// distinctColours counts the colours of a screenshot: a blank or black
// window has one or two, a rendered UI has many.
func distinctColours(t *testing.T, png string) int {
	out, err := exec.Command("convert", png, "-format", "%k", "info:").Output()
	require.NoError(t, err, "read %s", png)
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err, "colour count %q", out)
	return n
}

func TestDesktopWindowStartsShowsUIAndQuitsCleanly(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.NotEmpty(t, bin, "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	require.NotEmpty(t, os.Getenv("DISPLAY"), "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	dataDir := t.TempDir()
	logPath := filepath.Join(artifactsDir(t), "desktop-smoke.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	defer logFile.Close()

	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--base-url", "http://127.0.0.1:9/v1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	waitForWindow(t, "Parley", restDeadline)

	// The page renders (the screenshot is kept).
	waitForUI(t, "desktop-smoke.png")

	select {
	case err := <-exited:
		require.FailNow(t, "app exited early", "%v (log: %s)", err, logPath)
	case <-time.After(5 * time.Second):
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		var exitErr *exec.ExitError
		require.False(t, errors.As(err, &exitErr), "app did not exit cleanly on SIGTERM: %v (log: %s)", err, logPath)
		require.NoError(t, err)
	case <-time.After(restDeadline):
		require.FailNow(t, "app still running after SIGTERM", "%s later; log: %s", restDeadline, logPath)
	}
}
