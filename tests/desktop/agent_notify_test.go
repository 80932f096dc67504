//go:build desktop

package desktop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestDesktopNotifiesForAnAgentsCard: agents on the machine (SPEC §10)
// reach the app, which listens for them by default, while its window is in
// the background: a notice (notify_user through `parley mcp`) and a card
// (`parley ask`) each raise the native notification naming the agent, and
// the card the attention request; the agent keeps waiting for the answer.
//
// The page learns that the window went to the background a moment after
// the unmap (GTK, then WebKit's web process); a card arriving before that
// was seen by the user and rightly notifies nobody. So the agent first sends
// notices until one notifies, and only then asks.
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

	// The window goes to the background (unmapped, as when minimised); the
	// agent's notices notify once the page knows.
	xdotool(t, "windowunmap", "--sync", win)
	agent, err := sdk.NewClient(&sdk.Implementation{Name: "deploy-bot", Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: exec.Command(bin, "mcp", "--data-dir", data)}, nil)
	require.NoError(t, err, "parley mcp")
	defer agent.Close()
	var notice []string
	for i := 1; notice == nil; i++ {
		require.LessOrEqual(t, i, 20, "no native notification for 20 notices of an agent (desktop-agent-notify.log)")
		res, err := agent.CallTool(context.Background(), &sdk.CallToolParams{Name: "notify_user",
			Arguments: map[string]any{"message": fmt.Sprintf("Build %d is green", i), "level": "success"}})
		require.NoError(t, err)
		require.False(t, res.IsError, "notify_user: %s", toolText(res))
		notice = waitTitled(record, noticeTitle, 3*time.Second)
	}
	require.Len(t, notice, 2, "notice: %q", notice)
	require.Regexp(t, `^deploy-bot: Build \d+ is green$`, notice[1], "notice body")

	// The agent asks.
	var out, errOut bytes.Buffer
	ask := exec.Command(bin, "ask", "Deploy <b>build 7</b> & tag it?", "--option", "Yes", "--option", "No",
		"--agent", "deploy-bot", "--context", "The build is **green**.", "--data-dir", data)
	ask.Stdout, ask.Stderr = &out, &errOut
	require.NoError(t, ask.Start())
	asked := make(chan struct{}) // closed when parley ask has ended, with askErr
	var askErr error
	go func() { askErr = ask.Wait(); close(asked) }()
	defer func() { _ = ask.Process.Kill(); <-asked }()

	card := waitTitled(record, agentCardTitle, 30*time.Second)
	if card == nil {
		shoot(t, "desktop-agent-notify-none.png")
		select {
		case <-asked:
			require.FailNow(t, "no native notification for the agent's card", "parley ask ended (%v): %s%s", askErr, out.String(), errOut.String())
		default:
		}
		require.FailNow(t, "no native notification for the agent's card", "notifications %q; app log in desktop-agent-notify.log", notifications(record))
	}
	require.Equal(t, []string{agentCardTitle, "deploy-bot: Deploy &lt;b&gt;build 7&lt;/b&gt; &amp; tag it?"}, card, "the card's notification")
	waitUrgency(t, win, true)
	_ = exec.Command("xdotool", "windowmap", "--sync", win).Run()
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run()
	cards := 0
	for _, n := range notifications(record) {
		if n[0] == agentCardTitle {
			cards++
		}
	}
	require.Equal(t, 1, cards, "notifications for one card: %q", notifications(record))

	// Nobody answered: the agent is still waiting for the answer.
	select {
	case <-asked:
		require.FailNow(t, "parley ask returned without an answer", "%v: %s%s", askErr, out.String(), errOut.String())
	default:
	}
}

// toolText is the text of a tool result.
func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
