//go:build desktop

package desktop

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The window cannot be inspected from outside, so the desktop tests wait
// for what the screen shows instead of for a fixed time: a step is done
// when the window's picture changed and then came to rest (two captures in
// a row the same). The deadlines only bound a broken run; on a busy machine
// a step may take many seconds.

// restDeadline bounds one wait for the window.
const restDeadline = 90 * time.Second

// noBlinkConfig is an XDG_CONFIG_HOME whose GTK settings turn the text
// caret's blinking off (WebKitGTK follows gtk-cursor-blink): a blinking
// caret would keep the window from ever being at rest.
func noBlinkConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "gtk-3.0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gtk-3.0", "settings.ini"), []byte("[Settings]\ngtk-cursor-blink=false\n"), 0o644))
	return dir
}

// capture is the window's picture (PNG bytes; the same picture gives the
// same bytes).
func capture(t *testing.T, win string) []byte {
	t.Helper()
	out, err := exec.Command("import", "-display", os.Getenv("DISPLAY"), "-window", win, "png:-").Output()
	require.NoError(t, err, "capture window %s", win)
	return out
}

// waitRest waits until two captures of the window in a row (250 ms apart)
// are the same picture, and returns it.
func waitRest(t *testing.T, win, what string) []byte {
	t.Helper()
	deadline := time.Now().Add(restDeadline)
	prev := capture(t, win)
	for {
		time.Sleep(250 * time.Millisecond) // the interval between two captures, not a wait for the app
		cur := capture(t, win)
		if bytes.Equal(prev, cur) {
			return cur
		}
		if time.Now().After(deadline) {
			require.FailNow(t, "the window never came to rest: "+what, "see %s", shoot(t, "desktop-restless.png"))
		}
		prev = cur
	}
}

// waitChangeAndRest waits until the window shows something other than
// before, then until it is at rest, and returns that picture. It reports
// false when nothing changed within within (the action may have been
// refused: the caller can repeat it).
func waitChangeAndRest(t *testing.T, win string, before []byte, within time.Duration, what string) ([]byte, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for bytes.Equal(capture(t, win), before) {
		if time.Now().After(deadline) {
			return nil, false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return waitRest(t, win, what), true
}

// waitChange waits until the window shows something other than before and
// is at rest again, and returns that picture; nothing changing within
// restDeadline fails the test. A step that starts a run ends here only
// once the run stopped: the run status pulses while a run is active.
func waitChange(t *testing.T, win string, before []byte, what string) []byte {
	t.Helper()
	now, ok := waitChangeAndRest(t, win, before, restDeadline, what)
	if !ok {
		require.FailNow(t, "the window did not change: "+what, "see %s", shoot(t, "desktop-unchanged.png"))
	}
	return now
}

// keyAndWait presses key once the window is at rest and waits until the
// window changed and came to rest again.
func keyAndWait(t *testing.T, win, key, what string) []byte {
	t.Helper()
	before := waitRest(t, win, "before "+what)
	xdotool(t, "key", key)
	return waitChange(t, win, before, what)
}

// untilChanged does act, then waits for the window to change and rest;
// while nothing changes within 5 s it does act again, until restDeadline.
func untilChanged(t *testing.T, win, what string, act func()) {
	t.Helper()
	deadline := time.Now().Add(restDeadline)
	for {
		before := waitRest(t, win, "before "+what)
		act()
		if _, ok := waitChangeAndRest(t, win, before, 5*time.Second, what); ok {
			return
		}
		if time.Now().After(deadline) {
			require.FailNow(t, "the window did not change after "+what, "see %s", shoot(t, "desktop-unchanged.png"))
		}
		t.Logf("nothing changed after %s: again", what)
	}
}

// startWindow waits for the app's window to show its page with its first
// data, at rest, and focuses it; it returns the window and its geometry.
func startWindow(t *testing.T, shotName string) (win string, x, y, w, h int) {
	t.Helper()
	waitForWindow(t, "Parley", restDeadline)
	waitForUI(t, shotName)
	win = waitForWindow(t, "Parley", restDeadline) // the one showing the page
	waitRest(t, win, "the page loads its first data")
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run() // no window manager under Xvfb: focus directly
	x, y, w, h = parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))
	return win, x, y, w, h
}
