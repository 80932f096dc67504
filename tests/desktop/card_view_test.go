//go:build desktop

package desktop

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/modelserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDesktopSecondCardInView: in the real window (WebKitGTK), a second card
// in a conversation comes fully into view, its buttons included. Before the
// fix, focusing the card's first option scrolled only part of the card into
// view and Skip / Cancel / Next stayed below the visible area. The window is
// 700 px high, where the card fits in the message list with little to spare.
//
// The page cannot be inspected from outside the window, so the screenshot
// is: the card's primary button (Next) is the only solid block of the accent
// colour in the chat column while the card waits, and it must be on screen.
func TestDesktopSecondCardInView(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	srv := modelserver.New(modelserver.Demo())
	defer srv.Close()

	defer launchApp(t, bin, srv.URL(), "desktop-card-view.log")()

	waitForWindow(t, "Parley", 60*time.Second)
	waitForUI(t, "desktop-card-view-0-start.png")
	win := waitForWindow(t, "Parley", 10*time.Second) // the one showing the page
	xdotool(t, "windowsize", "--sync", win, "1100", "700")
	time.Sleep(time.Second) // the page loads its first data and lays out the new size
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run()
	x, y, w, h := parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))
	require.Equal(t, 700, h, "window height")
	composer := func() { click(t, x+w*3/5, y+h-65) }

	// The first card: answer both questions with the keyboard.
	composer()
	xdotool(t, "type", "--delay", "20", "Plan a team lunch")
	xdotool(t, "key", "Return")
	waitRequests(t, srv, 1, "after the first message")
	time.Sleep(2 * time.Second) // the card renders and takes focus
	for _, key := range []string{"1", "Return", "1", "Return", "Return"} {
		xdotool(t, "key", key)
		time.Sleep(400 * time.Millisecond)
	}
	waitRequests(t, srv, 2, "after answering the first card")
	time.Sleep(1500 * time.Millisecond)

	// The second card.
	composer()
	xdotool(t, "type", "--delay", "20", "Plan a team dinner")
	xdotool(t, "key", "Return")
	waitRequests(t, srv, 3, "after the second message")
	time.Sleep(2 * time.Second)
	shot := shoot(t, "desktop-card-view-second.png")

	// The chat column, below the window's header: right of the sidebar.
	column := image.Rect(x+w*3/10, y+60, x+w, y+h)
	rows := accentBlockRows(t, shot, column)
	assert.GreaterOrEqual(t, rows, 20,
		"the second card's buttons are in view: an accent-coloured button (Next) in the chat column; see %s", shot)
}

// waitForUI waits until the window shows a rendered page.
func waitForUI(t *testing.T, name string) {
	t.Helper()
	for i := 0; i < 80; i++ {
		if distinctColours(t, shoot(t, name)) > 50 {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	require.FailNow(t, "the window shows no UI; see "+name)
}

// accentBlockRows returns the height of the tallest run of consecutive rows
// in area that each hold at least 30 pixels of the light theme's accent
// colour (#4f46e5): a filled button is such a block, accent text and lines
// are not.
func accentBlockRows(t *testing.T, path string, area image.Rectangle) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, "decode %s", path)
	area = area.Intersect(img.Bounds())
	near := func(v uint32, want int) bool {
		d := int(v>>8) - want
		return d >= -8 && d <= 8
	}
	best, run := 0, 0
	for py := area.Min.Y; py < area.Max.Y; py++ {
		n := 0
		for px := area.Min.X; px < area.Max.X; px++ {
			r, g, b, _ := img.At(px, py).RGBA()
			if near(r, 0x4f) && near(g, 0x46) && near(b, 0xe5) {
				n++
			}
		}
		if n >= 30 {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
