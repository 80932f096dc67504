//go:build desktop

package desktop

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// toolAnswers are the answers of a request's last message, the card's tool result.
func toolAnswers(t *testing.T, req modelserver.ChatRequest) map[string]string {
	t.Helper()
	last := req.LastMessage()
	var got struct {
		Answers map[string]string `json:"answers"`
	}
	require.Equal(t, "tool", last.Role, "the request ends with %+v, want the card's tool result", last)
	require.NoError(t, json.Unmarshal([]byte(last.Content), &got), "the request ends with %+v, want the card's tool result", last)
	return got.Answers
}

// TestDesktopRememberedAnswer drives memory (SPEC §14, issue #41) in the real
// window with the keyboard: answer a card, ticking "Remember my answer" and
// "Answer like this next time" for both questions on its review step; in a
// new conversation (Ctrl+N) the same card is answered from memory at once
// (the model gets the answers without a key pressed, and the memories in
// its system prompt); "Ask me instead" reopens the card and the new answer
// goes to the model. The page cannot be inspected from outside the window,
// so the model's requests show what each step did.
func TestDesktopRememberedAnswer(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	srv := modelserver.New(modelserver.Demo())
	defer srv.Close()

	defer launchApp(t, bin, srv.URL(), "desktop-memory.log")()

	win, x, y, w, h := startWindow(t, "desktop-memory-0-start.png")
	composer := func() { click(t, x+w*3/5, y+h-65) }
	const tone, include = "What tone should the answer have?", "What should it include?"

	sendMessage(t, win, srv, 1, "Plan a team lunch", composer)
	// Option 1 (Friendly), Next; option 1 (Examples), Review: focus is on the review's heading.
	for _, key := range []string{"1", "Return", "1", "Return"} {
		keyAndWait(t, win, key, "key "+key+" on the card")
	}
	// The review: Edit, Remember my answer (Space), Answer like this next
	// time (Space), for each question; Enter on a checkbox submits.
	for _, key := range []string{"Tab", "Tab", "space", "Tab", "space", "Tab", "Tab", "space", "Tab", "space"} {
		keyAndWait(t, win, key, "key "+key+" on the review")
	}
	shoot(t, "desktop-memory-1-review.png")
	keyAndWait(t, win, "Return", "submitting the answers")
	waitRequests(t, srv, 2, "after answering")
	assert.Equal(t, map[string]string{tone: "Friendly", include: "Examples"}, toolAnswers(t, srv.Requests()[1]))
	waitRest(t, win, "the reply lands")
	shoot(t, "desktop-memory-2-remembered.png")

	// A new conversation where the same card comes: answered from memory, no key pressed.
	untilChanged(t, win, "Ctrl+N opens a new chat", func() { xdotool(t, "key", "ctrl+n") })
	sendMessage(t, win, srv, 3, "Plan a team lunch", composer)
	system := srv.Requests()[2].Messages[0]
	require.Equal(t, "system", system.Role)
	assert.Contains(t, system.Content, "Tone: "+tone+" — Friendly", "the memories are in the new run's system prompt")
	waitRequests(t, srv, 4, "the card answered from memory")
	assert.Equal(t, map[string]string{tone: "Friendly", include: "Examples"}, toolAnswers(t, srv.Requests()[3]), "the answers from memory")
	waitRest(t, win, "the reply to the answers from memory lands")
	shoot(t, "desktop-memory-3-from-memory.png")

	// "Ask me instead": back from the composer past the attach button, the
	// knowledge picker and the reply's three buttons.
	composer()
	for range 6 {
		xdotool(t, "key", "shift+Tab")
	}
	untilChanged(t, win, "Ask me instead reopens the card", func() { xdotool(t, "key", "Return") })
	shoot(t, "desktop-memory-4-ask-instead.png")
	// Option 2 (Formal), Next, Review, Submit.
	for _, key := range []string{"2", "Return", "Return", "Return"} {
		keyAndWait(t, win, key, "key "+key+" on the reopened card")
	}
	waitRequests(t, srv, 5, "after the new answer")
	got := toolAnswers(t, srv.Requests()[4])
	assert.Equal(t, map[string]string{tone: "Formal", include: "Examples"}, got, "the new answer goes to the model")
	for _, m := range srv.Requests()[4].Messages {
		assert.False(t, m.Role == "tool" && strings.Contains(m.Content, `"Friendly"`), "the new branch holds no answer from memory: %s", m.Content)
	}
	waitRest(t, win, "the reply to the new answer lands")
	shoot(t, "desktop-memory-5-asked.png")
}
