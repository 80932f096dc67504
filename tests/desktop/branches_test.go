//go:build desktop

package desktop

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// seenHistory is the user and assistant texts of a request to the model.
func seenHistory(req modelserver.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" || m.Role == "assistant" {
			out = append(out, m.Role+": "+m.Content)
		}
	}
	return out
}

// TestDesktopEditAndSwitchBranch drives conversation control (SPEC §7) in
// the real window with the keyboard: edit a sent message in place (the
// model then gets only the edited branch), switch back to the first
// version with "Previous version", and send: the model gets the first
// branch again. The page cannot be inspected from outside the window, so
// the model's requests show what each step did.
func TestDesktopEditAndSwitchBranch(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	srv := modelserver.New(modelserver.EchoHistory(modelserver.Demo()))
	defer srv.Close()

	defer launchApp(t, bin, srv.URL(), "desktop-branches.log")()

	win, x, y, w, h := startWindow(t, "desktop-branches-0-start.png")
	composer := func() { click(t, x+w*3/5, y+h-65) }

	sendMessage(t, win, srv, 1, "echo one", composer)

	// Up in the empty composer opens the last message for editing (refused
	// while the run is still ending: then nothing changes, and Up again).
	composer()
	untilChanged(t, win, "Up opens the editor", func() { xdotool(t, "key", "Up") })
	shoot(t, "desktop-branches-1-editing.png")
	xdotool(t, "key", "ctrl+a")
	xdotool(t, "type", "--delay", "20", "echo uno")
	xdotool(t, "key", "Return")
	waitRequests(t, srv, 2, "after the edit")
	assert.Equal(t, []string{"user: echo uno"}, seenHistory(srv.Requests()[1]), "the edited branch has neither the old message nor its reply")
	waitRest(t, win, "the edited branch's reply lands")
	shoot(t, "desktop-branches-2-edited.png")

	// Back from the composer: past the attach button, the knowledge
	// picker, the reply's three buttons and the message's Edit and Copy
	// (the disabled "Next version" takes no focus) to "Previous version".
	composer()
	for range 8 {
		xdotool(t, "key", "shift+Tab")
	}
	untilChanged(t, win, "Previous version shows the first version", func() { xdotool(t, "key", "Return") })
	shoot(t, "desktop-branches-3-switched.png")
	sendMessage(t, win, srv, 3, "echo again", composer)
	assert.Equal(t, []string{"user: echo one", "assistant: Reply 1. I received: [user: echo one]", "user: echo again"},
		seenHistory(srv.Requests()[2]), "after the switch the conversation goes on from the first version")
	shoot(t, "desktop-branches-4-continued.png")
}
