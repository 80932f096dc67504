//go:build desktop

package desktop

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDesktopNotifiesForAnAgentsCard: an agent on the machine (SPEC §10)
// asks through `parley ask` while the window is in the background; the app
// listens for agents by default, so the card arrives, and the user gets the
// native notification, naming the agent, and the attention request. The
// agent keeps waiting for the answer meanwhile.
func TestDesktopNotifiesForAnAgentsCard(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	data := t.TempDir()
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data-dir", data)
	record := recordNotifications(t, cmd)
	_, stop := startLogged(t, cmd, "desktop-agent-notify.log")
	defer stop()

	win := waitForWindow(t, "Parley", 60*time.Second)
	waitForUI(t, "desktop-agent-notify-start.png")
	listener := filepath.Join(data, "agents-listener.json")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(listener); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the app wrote no %s: is it listening for agents? (desktop-agent-notify.log)", listener)
	}

	// The window goes to the background (unmapped, as when minimised), then the agent asks.
	xdotool(t, "windowunmap", "--sync", win)
	var out, errOut bytes.Buffer
	ask := exec.Command(bin, "ask", "Deploy <b>build 7</b> & tag it?", "--option", "Yes", "--option", "No",
		"--agent", "deploy-bot", "--context", "The build is **green**.", "--data-dir", data)
	ask.Stdout, ask.Stderr = &out, &errOut
	require.NoError(t, ask.Start())
	asked := make(chan struct{}) // closed when parley ask has ended, with askErr
	var askErr error
	go func() { askErr = ask.Wait(); close(asked) }()
	defer func() { _ = ask.Process.Kill(); <-asked }()

	got := waitNotification(record, 30*time.Second)
	waitUrgency(t, win, true)
	_ = exec.Command("xdotool", "windowmap", "--sync", win).Run()
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run()
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) < 2 {
		shoot(t, "desktop-agent-notify-none.png")
		select {
		case <-asked:
			require.FailNow(t, "no native notification for the agent's card", "parley ask ended (%v): %s%s", askErr, out.String(), errOut.String())
		default:
		}
		require.FailNow(t, "no native notification for the agent's card", "notify-send got %q; app log in desktop-agent-notify.log", got)
	}
	require.Equal(t, "Parley has a question", lines[0], "notification title")
	require.Equal(t, "deploy-bot: Deploy &lt;b&gt;build 7&lt;/b&gt; &amp; tag it?", lines[1], "notification body")
	require.Equal(t, 1, strings.Count(string(got), "--\n"), "notifications for one card:\n%s", got)

	// Nobody answered: the agent is still waiting for the answer.
	select {
	case <-asked:
		require.FailNow(t, "parley ask returned without an answer", "%v: %s%s", askErr, out.String(), errOut.String())
	default:
	}
}
