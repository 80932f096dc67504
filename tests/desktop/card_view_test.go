//go:build desktop

package desktop

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
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

	win, _, _, _, _ := startWindow(t, "desktop-card-view-0-start.png")
	xdotool(t, "windowsize", "--sync", win, "1100", "700")
	waitRest(t, win, "the page lays out the new size")
	x, y, w, h := parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))
	require.Equal(t, 700, h, "window height")
	composer := func() { click(t, x+w*3/5, y+h-65) }
	send := func(text string, n int) { sendMessage(t, win, srv, n, text, composer) }

	// The first card: answer both questions with the keyboard.
	send("Plan a team lunch", 1)
	for i, key := range []string{"1", "Return", "1", "Return", "Return"} {
		keyAndWait(t, win, key, fmt.Sprintf("key %d (%s) on the first card", i+1, key))
	}
	waitRequests(t, srv, 2, "after answering the first card")

	// The second card.
	send("Plan a team dinner", 3)
	shot := shoot(t, "desktop-card-view-second.png")

	// The chat column, below the window's header: right of the sidebar.
	column := image.Rect(x+w*3/10, y+60, x+w, y+h)
	rows := accentBlockRows(t, shot, column)
	assert.GreaterOrEqual(t, rows, 20,
		"the second card's buttons are in view: an accent-coloured button (Next) in the chat column; see %s", shot)
}

// waitForUI waits until the screen shows a rendered page (many colours;
// a blank or black window has one or two).
func waitForUI(t *testing.T, name string) {
	t.Helper()
	for deadline := time.Now().Add(restDeadline); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if distinctColours(t, shoot(t, name)) > 50 {
			return
		}
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
