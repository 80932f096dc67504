//go:build desktop

package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// TestDesktopNotifiesWhenUnfocused: a card that arrives while the window is
// not focused gives a native notification (through the DesktopService
// binding and beeep). With no session D-Bus here, beeep falls back to
// notify-send, which a script on PATH records. The model holds its answer
// until the window is in the background.
func TestDesktopNotifiesWhenUnfocused(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.NotEmpty(t, bin, "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	require.NotEmpty(t, os.Getenv("DISPLAY"), "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	// The model answers (with the card) once the window is in the background.
	background := make(chan struct{})
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{Text: "One thing first.", Hold: background, ToolCalls: []modelserver.ToolCall{{
			ID: "call_notify_1", Name: "ask_user_question",
			Arguments: `{"questions":[{"question":"Which <b>city</b> & when?","options":["Paris","Rome"]}]}`,
		}}},
		modelserver.Turn{Text: "Thanks."},
	))
	defer srv.Close()
	released := false
	defer func() {
		if !released {
			close(background)
		}
	}()

	record, env := notificationEnv(t)
	defer launchApp(t, bin, srv.URL(), "desktop-notify.log", env...)()

	win, x, y, w, h := startWindow(t, "desktop-notify-0-start.png")
	click(t, x+w*3/5, y+h-65)
	xdotool(t, "type", "--delay", "20", "Plan a trip")
	xdotool(t, "key", "Return")
	waitRequests(t, srv, 1, "after sending")

	// Parley goes to the background: with no window manager under Xvfb the
	// window is unmapped (as when minimised), which WebKit reports as a
	// hidden page. Then the model answers with the card.
	xdotool(t, "windowunmap", "--sync", win)
	close(background)
	released = true

	got := waitNotification(record, restDeadline)
	// The window asks for attention (the X urgency hint) until the user
	// comes back to it.
	waitUrgency(t, win, true)
	_ = exec.Command("xdotool", "windowmap", "--sync", win).Run()
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run()
	waitRest(t, win, "the window is shown again")
	shoot(t, "desktop-notify-card.png")
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) < 2 {
		name, _ := exec.Command("xdotool", "getwindowname", win).Output()
		require.FailNow(t, "no native notification was sent for the card",
			"notify-send got %q; window title %q; app log in desktop-notify.log", got, strings.TrimSpace(string(name)))
	}
	require.Equal(t, cardTitle, lines[0], "notification title")
	require.Equal(t, "Which &lt;b&gt;city&lt;/b&gt; &amp; when?", lines[1], "notification body")
	require.Equal(t, 1, strings.Count(string(got), "--\n"), "notifications for one card:\n%s", got)
	waitUrgency(t, win, false)
}

// recordNotifications makes the app's native notifications land in a file,
// whose path it returns: with no session D-Bus, beeep falls back to
// notify-send, and a script of that name first on PATH appends each
// argument as a line, then "--".
func recordNotifications(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	record, env := notificationEnv(t)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	return record
}

// notificationEnv is the environment that makes the app's native
// notifications land in a file (see recordNotifications), and that file.
func notificationEnv(t *testing.T) (record string, env []string) {
	t.Helper()
	tools := t.TempDir()
	record = filepath.Join(tools, "notifications.txt")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '" + record + "'; done\nprintf -- '--\\n' >> '" + record + "'\n"
	require.NoError(t, os.WriteFile(filepath.Join(tools, "notify-send"), []byte(script), 0o755))
	return record, []string{"PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH"),
		"DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(tools, "no-bus")}
}

// Titles of the app's notifications: the assistant's card, an agent's card
// (it names the agent, SPEC §10: deploy-bot in agent_notify_test.go), and an
// agent's notice.
const (
	cardTitle      = "Parley has a question"
	agentCardTitle = "deploy-bot has a question"
	noticeTitle    = "Parley: a message from an agent"
)

// waitNotification waits up to timeout for the first complete recorded
// notification and returns what the file holds then (empty when none came).
func waitNotification(record string, timeout time.Duration) []byte {
	var got []byte
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got, _ = os.ReadFile(record); strings.Contains(string(got), "--\n") {
			break
		}
	}
	return got
}

// notifications are the complete notifications recorded so far, each as
// its title and body (notify-send's first two arguments; its options such
// as -a and -u follow them).
func notifications(record string) [][]string {
	b, _ := os.ReadFile(record)
	var out [][]string
	for _, e := range strings.SplitAfter(string(b), "--\n") {
		if !strings.HasSuffix(e, "--\n") {
			break // still being written
		}
		args := append(strings.Split(strings.TrimSuffix(e, "\n--\n"), "\n"), "")
		out = append(out, args[:2])
	}
	return out
}

// waitTitled waits up to timeout for a recorded notification with the
// title and returns its lines (nil when none came).
func waitTitled(record, title string, timeout time.Duration) []string {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, n := range notifications(record) {
			if n[0] == title {
				return n
			}
		}
	}
	return nil
}

// waitUrgency waits until the window's WM_HINTS urgency flag is want.
func waitUrgency(t *testing.T, win string, want bool) {
	t.Helper()
	const urgencyHint = 1 << 8 // XUrgencyHint
	var out []byte
	for deadline := time.Now().Add(restDeadline); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var err error
		out, err = exec.Command("xprop", "-id", win, "-notype", "-f", "WM_HINTS", "32c", "=$0", "WM_HINTS").Output()
		require.NoError(t, err, "xprop")
		var flags int
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "WM_HINTS=%d", &flags); err == nil && (flags&urgencyHint != 0) == want {
			return
		}
	}
	require.FailNow(t, fmt.Sprintf("window urgency never became %v", want), "WM_HINTS %q", strings.TrimSpace(string(out)))
}

func itoa(n int) string { return strconv.Itoa(n) }

// parseGeometry reads `xdotool getwindowgeometry --shell` output.
func parseGeometry(t *testing.T, geo string) (x, y, w, h int) {
	t.Helper()
	for _, line := range strings.Split(geo, "\n") {
		fmt.Sscanf(line, "X=%d", &x)
		fmt.Sscanf(line, "Y=%d", &y)
		fmt.Sscanf(line, "WIDTH=%d", &w)
		fmt.Sscanf(line, "HEIGHT=%d", &h)
	}
	require.NotZero(t, w, "window geometry %q", geo)
	require.NotZero(t, h, "window geometry %q", geo)
	return x, y, w, h
}
