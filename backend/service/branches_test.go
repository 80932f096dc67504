package service

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// newEnvModel is newEnv with the app's model and the model server's options.
func newEnvModel(t *testing.T, script modelserver.Script, model string, opts ...modelserver.Option) *env {
	t.Helper()
	e := &env{t: t, dbPath: filepath.Join(t.TempDir(), "parley.db"), model: modelserver.New(script, opts...)}
	t.Cleanup(e.model.Close)
	e.cfg = config.Config{BaseURL: e.model.URL(), Model: model, QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	e.open()
	t.Cleanup(e.close)
	return e
}

// history is what one request gave the model, without the system prompt:
// "role: content" per message (tool calls as "-> name").
func history(req modelserver.ChatRequest) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "system" {
			continue
		}
		line := m.Role + ": " + m.Content
		for _, tc := range m.ToolCalls {
			line += " -> " + tc.Function.Name
		}
		out = append(out, line)
	}
	return out
}

func lastRequest(t *testing.T, e *env) modelserver.ChatRequest {
	t.Helper()
	reqs := e.model.Requests()
	require.NotEmpty(t, reqs)
	return reqs[len(reqs)-1]
}

// echo answers "re: <the last user message>", or "said: <tool result>".
func echo() modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		last := req.LastMessage()
		if last.Role == "tool" {
			return modelserver.Turn{Text: "said: " + last.Content}
		}
		if strings.Contains(last.Content, "ask me") {
			return modelserver.Turn{Text: "One question.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: colourCard}}}
		}
		return modelserver.Turn{Text: "re: " + last.Content}
	}
}

func (e *env) send(id string, req api.SendRequest) *api.ConversationDetail {
	e.t.Helper()
	_, err := e.svc.Send(context.Background(), id, req)
	require.NoError(e.t, err)
	return e.waitState(id, chat.StateIdle, chat.StateAwaitingUserResponse)
}

func shapeOf(msgs []chat.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
		if m.Siblings > 1 {
			out[i] += " <" + string(rune('1'+m.SiblingIndex)) + "/" + string(rune('0'+m.Siblings)) + ">"
		}
	}
	return out
}

func TestEditGivesTheModelOnlyTheEditedBranch(t *testing.T) {
	e := newEnv(t, echo(), time.Minute)
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	e.send(c.ID, api.SendRequest{Content: "first"})
	d := e.send(c.ID, api.SendRequest{Content: "second"})
	require.Equal(t, []string{"first", "re: first", "second", "re: second"}, shapeOf(d.Messages))
	second := d.Messages[2]

	// Edit "second": a sibling under its parent.
	d = e.send(c.ID, api.SendRequest{Content: "second, edited", ParentID: &second.ParentID})
	assert.Equal(t, []string{"user: first", "assistant: re: first", "user: second, edited"}, history(lastRequest(t, e)),
		"the edited branch must not carry the old message")
	assert.Equal(t, []string{"first", "re: first", "second, edited <2/2>", "re: second, edited"}, shapeOf(d.Messages))
	assert.Equal(t, second.ParentID, d.Messages[2].ParentID)

	// Edit the first message: a new first message, with nothing before it.
	root := ""
	d = e.send(c.ID, api.SendRequest{Content: "first, edited", ParentID: &root})
	assert.Equal(t, []string{"user: first, edited"}, history(lastRequest(t, e)))
	assert.Equal(t, []string{"first, edited <2/2>", "re: first, edited"}, shapeOf(d.Messages))

	// Back to the original: its branch as it was left (the edit of "second").
	d, err = e.svc.SelectBranch(ctx, c.ID, second.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"first <1/2>", "re: first", "second <1/2>", "re: second"}, shapeOf(d.Messages))
	// A message sent now continues that branch.
	e.send(c.ID, api.SendRequest{Content: "third"})
	assert.Equal(t, []string{"user: first", "assistant: re: first", "user: second", "assistant: re: second", "user: third"},
		history(lastRequest(t, e)))
	assert.Equal(t, "first", d.Title, "the title comes from the first message")
}

func TestRegenerateGetsTheHistoryUpToTheUserMessage(t *testing.T) {
	e := newEnv(t, echo(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Regen", "")
	e.send(c.ID, api.SendRequest{Content: "first"})
	d := e.send(c.ID, api.SendRequest{Content: "second"})
	firstReply := d.Messages[1]

	_, err := e.svc.Regenerate(ctx, c.ID, firstReply.ID, "another-model")
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	req := lastRequest(t, e)
	assert.Equal(t, []string{"user: first"}, history(req))
	assert.Equal(t, "another-model", req.Model)
	assert.Equal(t, []string{"first", "re: first <2/2>"}, shapeOf(d.Messages))
	assert.Equal(t, d.Messages[0].ID, d.Messages[1].ParentID)
	require.NotNil(t, d.Messages[1].Stats)
	assert.Equal(t, "another-model", d.Messages[1].Stats.Model)

	// Without a model: the conversation's own.
	_, err = e.svc.Regenerate(ctx, c.ID, d.Messages[1].ID, "")
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	assert.Equal(t, "scripted", lastRequest(t, e).Model)
	assert.Equal(t, []string{"first", "re: first <3/3>"}, shapeOf(d.Messages))

	// The first reply's branch is still there, with the rest of it.
	d, err = e.svc.SelectBranch(ctx, c.ID, firstReply.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"first", "re: first <1/3>", "second", "re: second"}, shapeOf(d.Messages))

	// Errors change nothing.
	n := len(e.model.Requests())
	_, err = e.svc.Regenerate(ctx, c.ID, d.Messages[0].ID, "")
	assert.Equal(t, fault.Input, fault.KindOf(err), "a user message: %v", err)
	_, err = e.svc.Regenerate(ctx, c.ID, "no-such-message", "")
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
	_, err = e.svc.Regenerate(ctx, "no-such-conversation", firstReply.ID, "")
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
	_, err = e.svc.SelectBranch(ctx, c.ID, "no-such-message")
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
	after, err := e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, shapeOf(d.Messages), shapeOf(after.Messages))
	assert.Equal(t, n, len(e.model.Requests()))
}

func TestChangeAnswerForksAtTheCard(t *testing.T) {
	e := newEnv(t, echo(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Fork", "")
	d := e.send(c.ID, api.SendRequest{Content: "ask me"})
	require.NotNil(t, d.PendingQuestion)
	card := d.PendingQuestion

	// While the card waits, the run is active: no fork, no branch switch, no edit.
	_, err := e.svc.ForkQuestion(ctx, c.ID, card.ID, api.ForkRequest{Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	assert.Equal(t, fault.Conflict, fault.KindOf(err), "fork while pending: %v", err)
	_, err = e.svc.SelectBranch(ctx, c.ID, d.Messages[0].ID)
	assert.Equal(t, fault.Conflict, fault.KindOf(err))
	_, err = e.svc.Regenerate(ctx, c.ID, d.Messages[1].ID, "")
	assert.Equal(t, fault.Conflict, fault.KindOf(err))

	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	require.Equal(t, []string{"ask me", "One question.", `{"answers":{"Which colour?":"Red"}}`, `said: {"answers":{"Which colour?":"Red"}}`}, shapeOf(d.Messages))

	// Bad answers, unknown cards: 422 and 404, nothing changes.
	n := len(e.model.Requests())
	_, err = e.svc.ForkQuestion(ctx, c.ID, card.ID, api.ForkRequest{Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Green"}}}})
	assert.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
	_, err = e.svc.ForkQuestion(ctx, c.ID, "no-such-card", api.ForkRequest{})
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
	other, _ := e.svc.CreateConversation(ctx, "Other", "")
	_, err = e.svc.ForkQuestion(ctx, other.ID, card.ID, api.ForkRequest{Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	assert.Equal(t, fault.NotFound, fault.KindOf(err), "a card of another conversation")
	assert.Equal(t, n, len(e.model.Requests()))

	_, err = e.svc.ForkQuestion(ctx, c.ID, card.ID, api.ForkRequest{Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}, Comments: "changed my mind"})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	assert.Equal(t, []string{"user: ask me", "assistant: One question. -> ask_user_question", `tool: {"answers":{"Which colour?":"Blue"},"comments":"changed my mind"}`},
		history(lastRequest(t, e)), "the new branch carries the new answer as the tool result")
	assert.Equal(t, []string{"ask me", "One question.", `{"answers":{"Which colour?":"Blue"},"comments":"changed my mind"} <2/2>`,
		`said: {"answers":{"Which colour?":"Blue"},"comments":"changed my mind"}`}, shapeOf(d.Messages))
	stored, err := e.db.Card(ctx, card.ID)
	require.NoError(t, err)
	assert.Equal(t, questions.StatusAnswered, stored.Status, "the card keeps its answer")
	assert.Equal(t, "Red", stored.Answers["Which colour?"])
	cards, _ := e.svc.ConversationQuestions(ctx, c.ID)
	assert.Len(t, cards, 1, "no new card")

	// The old branch stays.
	d, err = e.svc.SelectBranch(ctx, c.ID, d.Messages[2].ID)
	require.NoError(t, err)
	all, err := e.db.AllMessages(ctx, c.ID)
	require.NoError(t, err)
	d, err = e.svc.SelectBranch(ctx, c.ID, all[2].ID)
	require.NoError(t, err)
	assert.Equal(t, `said: {"answers":{"Which colour?":"Red"}}`, d.Messages[3].Content)
}

func TestPendingCardOnAnEditedBranchSurvivesARestart(t *testing.T) {
	e := newEnv(t, echo(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Restart", "")
	d := e.send(c.ID, api.SendRequest{Content: "hello"})
	root := ""
	d = e.send(c.ID, api.SendRequest{Content: "ask me instead", ParentID: &root})
	require.NotNil(t, d.PendingQuestion)
	card := d.PendingQuestion
	e.close()

	e.open()
	d = e.waitState(c.ID, chat.StateAwaitingUserResponse)
	require.NotNil(t, d.PendingQuestion)
	_, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle)
	assert.Equal(t, []string{"user: ask me instead", "assistant: One question. -> ask_user_question", `tool: {"answers":{"Which colour?":"Blue"}}`},
		history(lastRequest(t, e)))
	assert.Equal(t, []string{"ask me instead <2/2>", "One question.", `{"answers":{"Which colour?":"Blue"}}`, `said: {"answers":{"Which colour?":"Blue"}}`}, shapeOf(d.Messages))
}

// Issue 23: a regenerate whose model fails before the new reply arrives (or
// that the user stops) leaves the old reply on the visible path, not a path
// ending at the user's message; a later message continues after it.
func TestRegenerateThatStoresNothingLeavesTheOldReplyShown(t *testing.T) {
	var fail atomic.Int32 // 1: fail with 500; 2: no first token until stopped
	e := newEnv(t, func(req modelserver.ChatRequest) modelserver.Turn {
		switch fail.Load() {
		case 1:
			return modelserver.Turn{Fault: modelserver.HTTPError, Status: 500, Body: `{"error":"model crashed"}`}
		case 2:
			return modelserver.Turn{Text: "never sent", FirstTokenDelay: time.Hour}
		}
		return echo()(req)
	}, time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Regen fails", "")
	d := e.send(c.ID, api.SendRequest{Content: "first"})
	require.Equal(t, []string{"first", "re: first"}, shapeOf(d.Messages))
	reply := d.Messages[1]

	fail.Store(1)
	_, err := e.svc.Regenerate(ctx, c.ID, reply.ID, "")
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateError)
	assert.Equal(t, []string{"first", "re: first"}, shapeOf(d.Messages), "the old reply is shown after the failure")

	fail.Store(2)
	asked := len(e.model.Requests())
	_, err = e.svc.Regenerate(ctx, c.ID, reply.ID, "")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(e.model.Requests()) > asked }, time.Minute, 10*time.Millisecond, "the model is asked")
	require.NoError(t, e.svc.Cancel(ctx, c.ID))
	d = e.waitState(c.ID, chat.StateIdle)
	assert.Equal(t, []string{"first", "re: first"}, shapeOf(d.Messages), "the old reply is shown after a stop")

	fail.Store(0)
	d = e.send(c.ID, api.SendRequest{Content: "second"})
	assert.Equal(t, []string{"first", "re: first", "second", "re: second"}, shapeOf(d.Messages))
}
