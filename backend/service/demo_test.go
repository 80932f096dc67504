package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/questions"
)

// enableDemo switches the service to its built-in demo model.
func (e *env) enableDemo() {
	e.t.Helper()
	st := e.svc.GetSettings()
	st.DemoMode = true
	_, err := e.svc.SaveSettings(context.Background(), st)
	require.NoError(e.t, err)
}

// waitReplyAfter waits until the run started by the user turn matching
// isTurn has ended (idle, or waiting on a card) and returns the conversation
// and the index of that turn.
func (e *env) waitReplyAfter(id string, isTurn func(chat.Message) bool) (*api.ConversationDetail, int) {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		d := e.waitState(id, chat.StateIdle, chat.StateAwaitingUserResponse)
		turn := -1
		for i, m := range d.Messages {
			if m.Role == chat.RoleUser && isTurn(m) {
				turn = i
			}
		}
		if turn >= 0 && turn < len(d.Messages)-1 {
			return d, turn
		}
		select {
		case <-e.rec.Changed():
		case <-time.After(20 * time.Millisecond):
		}
	}
	require.Failf(e.t, "no reply", "no reply to the user turn in conversation %s", id)
	return nil, -1
}

// The demo model recognises a late answer (a card that timed out, then
// "Answer anyway") and replies with it, in the order of the questions,
// instead of showing the same card again.
func TestDemoRepliesToALateAnswerInsteadOfAskingAgain(t *testing.T) {
	e := newEnv(t, askThenAnswer(), 50*time.Millisecond)
	e.enableDemo()
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Write a cover letter for a design job"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateIdle)
	require.Contains(t, d.Messages[len(d.Messages)-1].Content, "I didn't hear back")
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	require.Equal(t, questions.StatusTimedOut, cards[0].Status)

	qs := cards[0].Questions
	require.GreaterOrEqual(t, len(qs), 2)
	answers := map[string]questions.AnswerInput{}
	var picked []string
	for _, q := range qs {
		require.NotEmpty(t, q.Options, "question %q has options", q.Question)
		label := q.Options[len(q.Options)-1].Label
		answers[q.Question] = questions.AnswerInput{Selected: []string{label}}
		picked = append(picked, label)
	}
	card, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit, Answers: answers})
	require.NoError(t, err)
	require.Equal(t, questions.StatusAnsweredLate, card.Status)

	d, turn := e.waitReplyAfter(c.ID, func(m chat.Message) bool { return strings.Contains(m.Content, "Q: "+qs[0].Question) })
	assert.Equal(t, chat.StateIdle, d.State, "the late answer gets a reply, not another card")
	cards, err = e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err)
	assert.Len(t, cards, 1, "no new card after the late answer")

	var reply strings.Builder
	for _, m := range d.Messages[turn+1:] {
		if m.Role == chat.RoleAssistant {
			reply.WriteString(m.Content)
		}
	}
	text := reply.String()
	assert.Contains(t, text, "earlier questions")
	at := -1
	for i, q := range qs {
		line := "**" + q.Question + "** " + picked[i]
		j := strings.Index(text, line)
		assert.Greater(t, j, at, "the reply lists %q after the answers before it:\n%s", line, text)
		at = j
	}
}

// A skipped card in one run and a cancelled one in the next, both asked with
// the same tool call id (as the demo model does): the Markdown export shows
// each card once, with the assistant turn that asked it, and a JSON round
// trip keeps each card with its run.
func TestExportPlacesEachCardWithItsRun(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	e.enableDemo()
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)

	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Write a cover letter"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateAwaitingUserResponse)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionDecline})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)

	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Now make it shorter"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateAwaitingUserResponse)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionCancel})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateIdle)

	// Both runs asked with the same call id: the case the export must tell apart.
	var callIDs []string
	for _, m := range d.Messages {
		for _, tc := range m.ToolCalls {
			callIDs = append(callIDs, tc.ID)
		}
	}
	require.Len(t, callIDs, 2)
	require.Equal(t, callIDs[0], callIDs[1])

	md, err := e.svc.ExportConversation(ctx, c.ID, "markdown")
	require.NoError(t, err)
	checkCardPlacement(t, md)

	js, err := e.svc.ExportConversation(ctx, c.ID, "json")
	require.NoError(t, err)
	imported, err := e.svc.ImportConversation(ctx, []byte(js))
	require.NoError(t, err)
	importedMD, err := e.svc.ExportConversation(ctx, imported.ID, "markdown")
	require.NoError(t, err)
	checkCardPlacement(t, importedMD)
	body := func(s string) string { return s[strings.Index(s, "\n"):] } // without the title line
	assert.Equal(t, body(md), body(importedMD), "the imported conversation exports the same transcript")
}

func checkCardPlacement(t *testing.T, md string) {
	t.Helper()
	const header = "**Questions from the assistant**"
	assert.Equal(t, 2, strings.Count(md, header), "each card once:\n%s", md)
	second := strings.Index(md, "Now make it shorter")
	require.Positive(t, second, md)
	first, later := md[:second], md[second:]
	assert.Equal(t, 1, strings.Count(first, header), "one card in the first turn:\n%s", md)
	assert.Contains(t, first, header+" (skipped by the user)")
	assert.Equal(t, 1, strings.Count(later, header), "one card in the second turn:\n%s", md)
	assert.Contains(t, later, header+" (cancelled)")
	assert.Less(t, strings.Index(first, "Happy to help"), strings.Index(first, header), "the card follows the turn that asked it")
}

// The Wails binding path (Service.Respond) takes "skip" as "decline".
func TestRespondSkipIsDecline(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateAwaitingUserResponse)
	card, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: "skip"})
	require.NoError(t, err)
	assert.Equal(t, questions.StatusDeclined, card.Status)
	d := e.waitState(c.ID, chat.StateIdle)
	assert.Contains(t, d.Messages[len(d.Messages)-1].Content, "declined", "the model got the decline result")
}

// An imported conversation is marked as a copy, so it is not confused with
// the original in the sidebar.
func TestImportedConversationTitleIsMarked(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "Trip to Lisbon", "")
	require.NoError(t, err)
	js, err := e.svc.ExportConversation(ctx, c.ID, "json")
	require.NoError(t, err)
	first, err := e.svc.ImportConversation(ctx, []byte(js))
	require.NoError(t, err)
	assert.Equal(t, "Trip to Lisbon (imported)", first.Title)
	second, err := e.svc.ImportConversation(ctx, []byte(js))
	require.NoError(t, err)
	assert.Equal(t, "Trip to Lisbon (imported 2)", second.Title)
	stored, err := e.svc.GetConversation(ctx, second.ID)
	require.NoError(t, err)
	assert.Equal(t, "Trip to Lisbon (imported 2)", stored.Title)
	orig, err := e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "Trip to Lisbon", orig.Title, "the original keeps its title")
}

// `parley serve --demo` (PARLEY_DEMO=1): the demo assistant answers for this
// process, with no model server anywhere, and the saved demo mode setting
// stays off, even when the settings are saved meanwhile.
func TestDemoFlagAnswersWithoutAModelServerOrSavingTheSetting(t *testing.T) {
	e := &env{t: t, dbPath: filepath.Join(t.TempDir(), "parley.db")}
	e.cfg = config.Config{BaseURL: "http://127.0.0.1:1/v1", QuestionTimeout: time.Minute, Demo: true,
		Set: map[string]bool{"base-url": true, "question-timeout": true, "demo": true}}
	e.open() // saves the settings once (rate limit 0)
	t.Cleanup(e.close)
	ctx := context.Background()
	require.True(t, e.svc.GetSettings().DemoMode, "the effective settings show demo mode")
	saved := func() Settings {
		st := DefaultSettings()
		found, err := e.db.GetSetting(ctx, settingsKey, &st)
		require.NoError(t, err)
		require.True(t, found)
		return st
	}
	require.False(t, saved().DemoMode, "the saved setting is unchanged")

	c, err := e.svc.CreateConversation(ctx, "Demo", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Write me a poem"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion, "the demo assistant asks its card")
	require.Len(t, d.PendingQuestion.Questions, 2, "demo card %+v", d.PendingQuestion)
	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionDecline})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	require.Contains(t, d.Messages[len(d.Messages)-1].Content, "sensible defaults", "demo reply %+v", d.Messages[len(d.Messages)-1])

	st := e.svc.GetSettings()
	st.DemoMode = true
	_, err = e.svc.SaveSettings(ctx, st)
	require.NoError(t, err)
	assert.False(t, saved().DemoMode, "saving while --demo keeps the saved demo mode")
	assert.True(t, e.svc.GetSettings().DemoMode, "demo mode holds for the process")
}
