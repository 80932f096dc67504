package assistant

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

func TestInvalidCardInputGoesBackToTheModel(t *testing.T) {
	bad := askArgs(map[string]any{"question": "Pick", "options": []string{"a", "b", "c", "d", "e"}})
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: bad}}},
		modelserver.Turn{Text: "I'll answer directly."},
	))
	h.start("x")
	h.waitDone()
	require.Equal(t, "invalid input: questions[0].options must have 2-4 items (got 5)", lastToolMessage(t, h.server.Requests()[1]).Content, "tool result")
	require.Empty(t, h.qm.Cards(conv), "cards")
}

func TestSecondCardInOneResponseIsRateLimited(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{
			{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)},
			{ID: "call_2", Name: ToolAskUser, Arguments: askArgs(toppingsQuestion)},
		}},
		modelserver.Turn{Text: "ok"},
	), func(_ *Options, q *questions.Config) { q.RateInterval = time.Hour })
	h.start("x")
	card := h.waitCard()
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionDecline})
	require.NoError(t, err)
	h.waitDone()
	msgs := h.messages()
	require.Len(t, msgs, 5, "history %+v", msgs)
	require.Contains(t, msgs[2].Content, "declined", "history %+v", msgs)
	require.True(t, strings.HasPrefix(msgs[3].Content, "rate limited: wait"), "history %+v", msgs)
}

// fakeAsker answers every card at once with a fixed outcome, and records
// the moment it was called.
type fakeAsker struct {
	outcome questions.Outcome
	waitErr error
	asked   chan questions.AskRequest
}

func (f *fakeAsker) Create(_ context.Context, req questions.AskRequest) (*questions.Card, error) {
	f.asked <- req
	return &questions.Card{ID: "card-" + req.ToolCallID, ConversationID: req.ConversationID, RunID: req.RunID,
		ToolCallID: req.ToolCallID, Status: questions.StatusPending, Questions: req.Questions}, nil
}

func (f *fakeAsker) Wait(context.Context, string) (questions.Outcome, error) {
	return f.outcome, f.waitErr
}

func fakeAskerRuntime(t *testing.T, srv *modelserver.Server, asker Asker, rec *events.Recorder) (*Runtime, *memoryHistory) {
	history := newMemoryHistory()
	rt := New(Options{History: history, Events: rec, Asker: asker, Model: func(string) (llm.Model, error) {
		return llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), Model: "m"})
	}})
	t.Cleanup(rt.Close)
	return rt, history
}

func TestFakeAskerOutcomesReachTheModel(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "ok"},
	))
	defer srv.Close()
	asker := &fakeAsker{outcome: questions.Outcome{Status: questions.StatusAnswered, Result: `{"answers":{"Which colour?":"Blue"}}`},
		asked: make(chan questions.AskRequest, 1)}
	rec := events.NewRecorder()
	rt, _ := fakeAskerRuntime(t, srv, asker, rec)
	runID, err := rt.Start(StartRequest{ConversationID: conv, UserText: "paint"})
	require.NoError(t, err)
	<-rt.Done(conv)
	req := <-asker.asked
	require.Equal(t, conv, req.ConversationID, "asked %+v", req)
	require.Equal(t, runID, req.RunID, "asked %+v", req)
	require.Equal(t, "call_1", req.ToolCallID, "asked %+v", req)
	require.Equal(t, "Which colour?", req.Questions[0].Question, "asked %+v", req)
	require.Equal(t, asker.outcome.Result, lastToolMessage(t, srv.Requests()[1]).Content, "tool result")
}

func TestAskerFailureBecomesToolError(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "ok"},
	))
	defer srv.Close()
	asker := &fakeAsker{waitErr: errors.New("disk full"), asked: make(chan questions.AskRequest, 1)}
	rt, history := fakeAskerRuntime(t, srv, asker, events.NewRecorder())
	_, err := rt.Start(StartRequest{ConversationID: conv, UserText: "paint"})
	require.NoError(t, err)
	<-rt.Done(conv)
	require.Equal(t, "error: disk full", lastToolMessage(t, srv.Requests()[1]).Content, "tool result")
	msgs, _ := history.Messages(context.Background(), conv)
	assertConsistent(t, msgs)
}

func TestNoAskerMeansNoAskTool(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "ok"},
	))
	defer srv.Close()
	rt, _ := fakeAskerRuntime(t, srv, nil, events.NewRecorder())
	_, err := rt.Start(StartRequest{ConversationID: conv, UserText: "x"})
	require.NoError(t, err)
	<-rt.Done(conv)
	reqs := srv.Requests()
	require.NotContains(t, toolNames(reqs[0]), ToolAskUser, "tools")
	require.Equal(t, `unknown tool "ask_user_question"`, lastToolMessage(t, reqs[1]).Content, "tool result")
}

func TestEventPayloads(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Hi there"}))
	runID := h.start("hi")
	h.waitDone()
	for _, e := range h.rec.Events() {
		switch e.Name {
		case events.MessageDelta:
			p := e.Payload.(events.MessageDeltaPayload)
			require.Equal(t, conv, p.ConversationID, "delta payload %v", p)
			require.Equal(t, runID, p.RunID, "delta payload %v", p)
			require.NotEqual(t, "", p.MessageID, "delta payload %v", p)
			require.NotEqual(t, "", p.Delta, "delta payload %v", p)
		case events.MessageDone:
			p := e.Payload.(events.MessageDonePayload)
			m := p.Message
			require.Equal(t, conv, p.ConversationID, "done payload %v", p)
			require.Equal(t, runID, p.RunID, "done payload %v", p)
			require.Equal(t, runID, m.RunID, "done payload %v", p)
		case events.ConversationState:
			s := e.Payload.(StateInfo)
			require.Equal(t, conv, s.ConversationID, "state payload %+v", s)
			require.Equal(t, runID, s.RunID, "state payload %+v", s)
		}
	}
}
