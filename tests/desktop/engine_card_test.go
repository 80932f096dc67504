//go:build desktop

package desktop

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/ggufgen"
)

// storedMessage is a row of the app's messages table.
type storedMessage struct{ role, content, toolCalls string }

// storedMessages reads the app's conversation from its database, read-only
// (the window cannot be inspected from outside; the app writes each step
// there).
func storedMessages(t *testing.T, dbPath string) []storedMessage {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=ro&_busy_timeout=5000")
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT role, content, COALESCE(tool_calls, '') FROM messages ORDER BY seq`)
	if err != nil { // the app has not made its tables yet
		return nil
	}
	defer rows.Close()
	var out []storedMessage
	for rows.Next() {
		var m storedMessage
		require.NoError(t, rows.Scan(&m.role, &m.content, &m.toolCalls))
		out = append(out, m)
	}
	return out
}

// waitStored waits until the stored conversation satisfies ok.
func waitStored(t *testing.T, dbPath, what string, ok func([]storedMessage) bool) []storedMessage {
	t.Helper()
	deadline := time.Now().Add(restDeadline)
	for {
		msgs := storedMessages(t, dbPath)
		if ok(msgs) {
			return msgs
		}
		if time.Now().After(deadline) {
			require.FailNow(t, what, "messages %+v; see %s", msgs, shoot(t, "desktop-engine-card-stuck.png"))
		}
		time.Sleep(100 * time.Millisecond) // the interval between two reads, not a wait for the app
	}
}

// TestDesktopBuiltinEngineCard: the real window on Parley's built-in
// engine (SPEC §12; its own process on llama.cpp's libraries) with the
// generated card.gguf chosen: a message brings the model's question card,
// answered with the keyboard, and the run goes on to the model's sentence
// that follows the answer.
func TestDesktopBuiltinEngineCard(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	data, models := t.TempDir(), t.TempDir()
	require.NoError(t, ggufgen.Write(filepath.Join(models, "card.gguf"), enginetest.CardSpec("Parley card fixture")))
	dbPath := filepath.Join(data, "parley.db")

	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data-dir", data, "--engine", "builtin", "--models-dir", models,
		"--model", "card", "--question-timeout", "0")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+noBlinkConfig(t))
	_, stop := startLogged(t, cmd, "desktop-engine-card.log")
	defer stop()

	win, x, y, w, h := startWindow(t, "desktop-engine-card-0-start.png")
	composer := func() { click(t, x+w*3/5, y+h-65) }
	composer()
	xdotool(t, "type", "--delay", "20", "Pick a colour for my bedroom")
	waitRest(t, win, "the message is typed")
	xdotool(t, "key", "Return")

	waitStored(t, dbPath, "the engine's card is asked", func(m []storedMessage) bool {
		return len(m) > 0 && strings.Contains(m[len(m)-1].toolCalls, "ask_user_question")
	})
	// The card takes the focus: option 2 (Blue), Enter submits.
	waitRest(t, win, "the card shows")
	shoot(t, "desktop-engine-card-1-card.png")
	keyAndWait(t, win, "2", "option 2 on the card")
	xdotool(t, "key", "Return")

	msgs := waitStored(t, dbPath, "the run goes on after the answer", func(m []storedMessage) bool {
		return len(m) > 0 && m[len(m)-1].role == "assistant" && m[len(m)-1].content == enginetest.CardFollowUp
	})
	var tool *storedMessage
	for i := range msgs {
		if msgs[i].role == "tool" {
			tool = &msgs[i]
		}
	}
	require.NotNil(t, tool, "the answer reached the model as the tool's result")
	assert.Contains(t, tool.content, `"Which colour?":"Blue"`)
	waitRest(t, win, "the reply lands")
	shoot(t, "desktop-engine-card-2-answered.png")
}
