package assistant

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	st := h.rt.State(conv)
	require.Equal(h.t, chat.StateIdle, st.State, "state after cancel %+v", st)
	require.Empty(h.t, st.Error, "state after cancel %+v", st)
	require.NotContains(h.t, h.rec.Names(), events.RunError, "run:error after a cancel")
	r, _ := h.history.Run(runID)
	require.Equal(h.t, chat.RunCancelled, r.Status, "run saved as %+v", r)
	require.NotNil(h.t, r.EndedAt, "run saved as %+v", r)
	require.Len(h.t, h.server.Requests(), requests, "model requests")
	msgs := h.messages()
	assertConsistent(h.t, msgs)
	return msgs
}

func (h *harness) cancel() {
	h.t.Helper()
	require.True(h.t, h.rt.Cancel(conv), "no run to cancel")
	select {
	case <-h.rt.Done(conv):
	default:
		require.FailNow(h.t, "Cancel returned before the run ended")
	}
}

func TestCancelMidStreamKeepsPartialText(t *testing.T) {
	const text = "The first half arrives and then the server stalls forever"
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: text, Fault: modelserver.StallMidStream}))
	runID := h.start("hi")
	h.waitFor("streamed text", func() bool { return h.rt.State(conv).State == chat.StateStreaming })
	h.cancel()
	msgs := h.cancelled(runID, 1)
	require.Len(t, msgs, 2, "history %+v", msgs)
	require.Equal(t, chat.RoleAssistant, msgs[1].Role, "history %+v", msgs)
	require.NotEmpty(t, msgs[1].Content, "history %+v", msgs)
	require.True(t, strings.HasPrefix(text, msgs[1].Content), "history %+v", msgs)
	require.Empty(t, msgs[1].ToolCalls, "history %+v", msgs)
	// The saved message is the streamed one: same id as the deltas.
	for _, e := range h.rec.Events() {
		if e.Name == events.MessageDelta {
			require.Equal(t, msgs[1].ID, e.Payload.(events.MessageDeltaPayload).MessageID, "delta %v", e.Payload)
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
	require.Len(t, msgs, 2, "history %+v", msgs)
	require.Empty(t, msgs[1].ToolCalls, "history %+v", msgs)
	_, ok := h.qm.LatestPending(conv)
	require.False(t, ok, "a card was created")
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
		require.FailNow(t, "the tool never ran", "events %v", h.rec.Names())
	}
	st := h.rt.State(conv)
	require.Equal(t, chat.StateToolExecuting, st.State, "state while the tool runs %+v", st)
	h.cancel()
	msgs := h.cancelled(runID, 1)
	require.Len(t, msgs, 4, "history %+v", msgs)
	require.Equal(t, "call_slow", msgs[2].ToolCallID, "history %+v", msgs)
	require.Equal(t, interruptedToolResult, msgs[2].Content, "history %+v", msgs)
	require.Equal(t, "call_time", msgs[3].ToolCallID, "history %+v", msgs)
	require.Equal(t, cancelledToolResult, msgs[3].Content, "history %+v", msgs)
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
	require.Len(t, msgs, 3, "history %+v", msgs)
	require.Equal(t, "call_spawn", msgs[2].ToolCallID, "history %+v", msgs)
	require.Equal(t, interruptedToolResult, msgs[2].Content, "history %+v", msgs)
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
	require.Len(t, msgs, 3, "history %+v", msgs)
	require.Equal(t, "42", msgs[2].Content, "history %+v", msgs)
}

func TestCancelWithoutRunAndAfterEnd(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "done quickly"}))
	require.False(t, h.rt.Cancel(conv), "Cancel reported a run where there was none")
	h.start("hi")
	h.waitDone()
	require.False(t, h.rt.Cancel(conv), "Cancel reported a run that had ended")
	st := h.rt.State(conv)
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
}

// isSubAgentRequest tells a sub-agent's request by its system prompt.
func isSubAgentRequest(req modelserver.ChatRequest) bool {
	return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "You are a sub-agent")
}
