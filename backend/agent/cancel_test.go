package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// cancelled checks what every cancellation must leave: the run stopped and
// saved as cancelled, the conversation idle, no run:error, a history the
// model can be sent again.
func (h *harness) cancelled(runID string, requests int) []chat.Message {
	h.t.Helper()
	if st := h.rt.State(conv); st.State != chat.StateIdle || st.Error != "" {
		h.t.Fatalf("state after cancel %+v", st)
	}
	if slices.Contains(h.rec.Names(), events.RunError) {
		h.t.Fatalf("run:error after a cancel: %v", h.rec.Names())
	}
	if r, _ := h.history.Run(runID); r.Status != chat.RunCancelled || r.EndedAt == nil {
		h.t.Fatalf("run saved as %+v", r)
	}
	if n := len(h.server.Requests()); n != requests {
		h.t.Fatalf("%d model requests, want %d", n, requests)
	}
	msgs := h.messages()
	assertConsistent(h.t, msgs)
	return msgs
}

func (h *harness) cancel() {
	h.t.Helper()
	if !h.rt.Cancel(conv) {
		h.t.Fatal("no run to cancel")
	}
	select {
	case <-h.rt.Done(conv):
	default:
		h.t.Fatal("Cancel returned before the run ended")
	}
}

func TestCancelMidStreamKeepsPartialText(t *testing.T) {
	const text = "The first half arrives and then the server stalls forever"
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: text, Fault: modelserver.StallMidStream}))
	runID := h.start("hi")
	h.waitFor("streamed text", func() bool { return h.rt.State(conv).State == chat.StateStreaming })
	h.cancel()
	msgs := h.cancelled(runID, 1)
	if len(msgs) != 2 || msgs[1].Role != chat.RoleAssistant || msgs[1].Content == "" ||
		!strings.HasPrefix(text, msgs[1].Content) || len(msgs[1].ToolCalls) != 0 {
		t.Fatalf("history %+v", msgs)
	}
	// The saved message is the streamed one: same id as the deltas.
	for _, e := range h.rec.Events() {
		if e.Name == events.MessageDelta && e.Payload.(map[string]any)["messageId"] != msgs[1].ID {
			t.Fatalf("delta %v for message %s", e.Payload, msgs[1].ID)
		}
	}
}

func TestCancelWhileStreamingToolCallsLeavesNoCall(t *testing.T) {
	// Text streamed, tool calls never complete: nothing half-made is kept.
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Let me ask you something first", Fault: modelserver.StallMidStream,
		ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}))
	runID := h.start("paint")
	h.waitFor("streamed text", func() bool { return h.rt.State(conv).State == chat.StateStreaming })
	h.cancel()
	msgs := h.cancelled(runID, 1)
	if len(msgs) != 2 || len(msgs[1].ToolCalls) != 0 {
		t.Fatalf("history %+v", msgs)
	}
	if _, ok := h.qm.LatestPending(conv); ok {
		t.Fatal("a card was created")
	}
}

func TestCancelDuringToolExecution(t *testing.T) {
	started := make(chan struct{})
	slow := Tool{Name: "slow_lookup", Description: "looks something up slowly",
		Run: func(ctx context.Context, _ string) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		}}
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{
			{ID: "call_slow", Name: "slow_lookup", Arguments: `{}`},
			{ID: "call_time", Name: ToolCurrentTime, Arguments: `{}`},
		}},
		modelserver.Turn{Text: "never requested"},
	), func(o *Options, _ *questions.Config) {
		o.Tools = append(o.Tools, slow)
		o.Profile = func(string) Profile {
			p := DefaultProfile()
			p.Tools = append(p.Tools, "slow_lookup")
			return p
		}
	})
	runID := h.start("look it up")
	select {
	case <-started:
	case <-time.After(15 * time.Second):
		t.Fatalf("the tool never ran; events %v", h.rec.Names())
	}
	if st := h.rt.State(conv); st.State != chat.StateToolExecuting {
		t.Fatalf("state while the tool runs %+v", st)
	}
	h.cancel()
	msgs := h.cancelled(runID, 1)
	if len(msgs) != 4 || msgs[2].ToolCallID != "call_slow" || msgs[2].Content != interruptedToolResult ||
		msgs[3].ToolCallID != "call_time" || msgs[3].Content != cancelledToolResult {
		t.Fatalf("history %+v", msgs)
	}
}

func TestCancelDuringSubAgents(t *testing.T) {
	h := newHarness(t, func(req modelserver.ChatRequest) modelserver.Turn {
		if isSubAgentRequest(req) {
			return modelserver.Turn{Text: "never", FirstTokenDelay: time.Minute}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_spawn", Name: ToolSpawnAgents,
			Arguments: `{"agents":[{"name":"a","task":"first task"},{"name":"b","task":"second task"}]}`}}}
	})
	runID := h.start("research")
	h.waitRequests(3) // the parent's and both sub-agents'
	h.cancel()
	msgs := h.cancelled(runID, 3)
	if len(msgs) != 3 || msgs[2].ToolCallID != "call_spawn" || msgs[2].Content != interruptedToolResult {
		t.Fatalf("history %+v", msgs)
	}
}

func TestCancelDuringFollowUpRequest(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolCalculator, Arguments: `{"expression":"6*7"}`}}},
		modelserver.Turn{Text: "never", FirstTokenDelay: time.Minute},
	))
	runID := h.start("compute")
	h.waitRequests(2)
	h.cancel()
	msgs := h.cancelled(runID, 2)
	if len(msgs) != 3 || msgs[2].Content != "42" {
		t.Fatalf("history %+v", msgs)
	}
}

func TestCancelWithoutRunAndAfterEnd(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "done quickly"}))
	if h.rt.Cancel(conv) {
		t.Fatal("Cancel reported a run where there was none")
	}
	h.start("hi")
	h.waitDone()
	if h.rt.Cancel(conv) {
		t.Fatal("Cancel reported a run that had ended")
	}
	if st := h.rt.State(conv); st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
}

// isSubAgentRequest tells a sub-agent's request by its system prompt.
func isSubAgentRequest(req modelserver.ChatRequest) bool {
	return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "You are a sub-agent")
}
