package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/chat"
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
	if c := lastToolMessage(t, h.server.Requests()[1]).Content; c != "invalid input: questions[0].options must have 2-4 items (got 5)" {
		t.Fatalf("tool result %q", c)
	}
	if cards := h.qm.Cards(conv); len(cards) != 0 {
		t.Fatalf("cards %+v", cards)
	}
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
	if _, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionDecline}); err != nil {
		t.Fatal(err)
	}
	h.waitDone()
	msgs := h.messages()
	if len(msgs) != 5 || !strings.Contains(msgs[2].Content, "declined") || !strings.HasPrefix(msgs[3].Content, "rate limited: wait") {
		t.Fatalf("history %+v", msgs)
	}
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

func fakeAskerRuntime(t *testing.T, srv *modelserver.Server, asker Asker, rec *events.Recorder) (*Runtime, *chat.MemoryHistory) {
	history := chat.NewMemoryHistory()
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
	if err != nil {
		t.Fatal(err)
	}
	<-rt.Done(conv)
	req := <-asker.asked
	if req.ConversationID != conv || req.RunID != runID || req.ToolCallID != "call_1" || req.Questions[0].Question != "Which colour?" {
		t.Fatalf("asked %+v", req)
	}
	if c := lastToolMessage(t, srv.Requests()[1]).Content; c != asker.outcome.Result {
		t.Fatalf("tool result %q", c)
	}
}

func TestAskerFailureBecomesToolError(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "ok"},
	))
	defer srv.Close()
	asker := &fakeAsker{waitErr: errors.New("disk full"), asked: make(chan questions.AskRequest, 1)}
	rt, history := fakeAskerRuntime(t, srv, asker, events.NewRecorder())
	if _, err := rt.Start(StartRequest{ConversationID: conv, UserText: "paint"}); err != nil {
		t.Fatal(err)
	}
	<-rt.Done(conv)
	if c := lastToolMessage(t, srv.Requests()[1]).Content; c != "error: disk full" {
		t.Fatalf("tool result %q", c)
	}
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
	if _, err := rt.Start(StartRequest{ConversationID: conv, UserText: "x"}); err != nil {
		t.Fatal(err)
	}
	<-rt.Done(conv)
	reqs := srv.Requests()
	if contains(toolNames(reqs[0]), ToolAskUser) || lastToolMessage(t, reqs[1]).Content != `unknown tool "ask_user_question"` {
		t.Fatalf("tools %v, result %q", toolNames(reqs[0]), lastToolMessage(t, reqs[1]).Content)
	}
}

func TestEventPayloads(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Hi there"}))
	runID := h.start("hi")
	h.waitDone()
	for _, e := range h.rec.Events() {
		switch e.Name {
		case events.MessageDelta:
			p := e.Payload.(map[string]any)
			if p["conversationId"] != conv || p["runId"] != runID || p["messageId"] == "" || p["delta"] == "" {
				t.Fatalf("delta payload %v", p)
			}
		case events.MessageDone:
			p := e.Payload.(map[string]any)
			if m := p["message"].(*chat.Message); p["conversationId"] != conv || p["runId"] != runID || m.RunID != runID {
				t.Fatalf("done payload %v", p)
			}
		case events.ConversationState:
			if s := e.Payload.(StateInfo); s.ConversationID != conv || s.RunID != runID {
				t.Fatalf("state payload %+v", s)
			}
		}
	}
}
