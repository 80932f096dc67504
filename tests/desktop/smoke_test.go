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
)

func artifactsDir(t *testing.T) string {
	dir := os.Getenv("PARLEY_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitForWindow polls xdotool until the app's window, with exactly this
// title, is shown. GTK also gives the title to a 10x10 helper window (which
// can be the only match for a moment) and to windows that go away again at
// start-up: only a visible window of at least 100x100 found on two polls in
// a row counts.
func waitForWindow(t *testing.T, title string, timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	seen := ""
	for time.Now().Before(deadline) {
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
	t.Fatalf("no window titled %q within %s", title, timeout)
	return ""
}

// distinctColours counts the colours of a screenshot: a blank or black
// window has one or two, a rendered UI has many.
func distinctColours(t *testing.T, png string) int {
	out, err := exec.Command("convert", png, "-format", "%k", "info:").Output()
	if err != nil {
		t.Fatalf("read %s: %v", png, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("colour count %q: %v", out, err)
	}
	return n
}

func TestDesktopWindowStartsShowsUIAndQuitsCleanly(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	if bin == "" || os.Getenv("DISPLAY") == "" {
		t.Fatal("PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	}
	dataDir := t.TempDir()
	logPath := filepath.Join(artifactsDir(t), "desktop-smoke.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()

	cmd := exec.Command(bin, "--data-dir", dataDir, "--base-url", "http://127.0.0.1:9/v1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	waitForWindow(t, "Parley", 60*time.Second)

	// Give the page time to render, then keep a screenshot.
	shot := filepath.Join(artifactsDir(t), "desktop-smoke.png")
	var colours int
	for i := 0; i < 40; i++ {
		time.Sleep(250 * time.Millisecond)
		if err := exec.Command("import", "-display", os.Getenv("DISPLAY"), "-window", "root", shot).Run(); err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if colours = distinctColours(t, shot); colours > 50 {
			break
		}
	}
	if colours <= 50 {
		t.Fatalf("window shows no UI: %d colours in %s", colours, shot)
	}

	select {
	case err := <-exited:
		t.Fatalf("app exited early: %v (log: %s)", err, logPath)
	case <-time.After(5 * time.Second):
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			t.Fatalf("app did not exit cleanly on SIGTERM: %v (log: %s)", err, logPath)
		}
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("app still running 15 s after SIGTERM (log: %s)", logPath)
	}
}
