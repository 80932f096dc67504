package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const conv = "conv-1"

type harness struct {
	t       *testing.T
	server  *modelserver.Server
	history *memoryHistory
	rec     *events.Recorder
	qm      *questions.Manager
	rt      *Runtime
}

type harnessOption func(*Options, *questions.Config)

func newHarness(t *testing.T, script modelserver.Script, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, server: modelserver.New(script), history: newMemoryHistory(), rec: events.NewRecorder()}
	qcfg := questions.Config{Timeout: time.Minute, Logger: quiet}
	o := Options{
		History: h.history,
		Events:  writeBeforeShow(t, h.history, h.rec),
		Model: func(string) (llm.Model, error) {
			return llm.NewOpenAI(llm.Config{BaseURL: h.server.URL(), Model: "test-model"})
		},
		Tools: BuiltinTools(func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }),
	}
	for _, opt := range opts {
		opt(&o, &qcfg)
	}
	h.qm = questions.NewManager(qcfg, nil, h.rec)
	o.Asker = h.qm
	h.rt = New(o)
	t.Cleanup(func() {
		h.rt.Close()
		h.qm.Close()
		h.server.Close()
	})
	return h
}

// writeBeforeShow passes events on to rec and fails the test if a
// message:done announces a message that is not stored yet.
func writeBeforeShow(t *testing.T, history chat.History, rec *events.Recorder) events.Emitter {
	var mu sync.Mutex
	var problems []string
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			assert.Fail(t, p)
		}
	})
	return events.EmitterFunc(func(name string, payload any) {
		if name == events.MessageDone {
			m := payload.(events.MessageDonePayload).Message
			stored, _ := history.Messages(context.Background(), m.ConversationID)
			if !slices.ContainsFunc(stored, func(s chat.Message) bool { return s.ID == m.ID }) {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("message:done for %s message %s before it was stored", m.Role, m.ID))
				mu.Unlock()
			}
		}
		rec.Emit(name, payload)
	})
}

// assertConsistent checks the history a model would be sent next: every
// assistant tool call has exactly one tool result right after it.
func assertConsistent(t *testing.T, msgs []chat.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != chat.RoleAssistant {
			continue
		}
		results := map[string]int{}
		for _, r := range msgs[i+1:] {
			if r.Role != chat.RoleTool {
				break
			}
			results[r.ToolCallID]++
		}
		for _, tc := range m.ToolCalls {
			require.Equal(t, 1, results[tc.ID], "results of tool call %s (%s): %+v", tc.ID, tc.Name, msgs)
		}
		require.Len(t, results, len(m.ToolCalls), "tool results without a call after message %d: %+v", i, msgs)
	}
}

// states returns the conversation:state values emitted, in order.
func (h *harness) states() []string {
	var out []string
	for _, e := range h.rec.Events() {
		if e.Name == events.ConversationState {
			out = append(out, e.Payload.(StateInfo).State)
		}
	}
	return out
}

func (h *harness) start(text string) string {
	h.t.Helper()
	id, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: text})
	require.NoError(h.t, err, "start")
	return id
}

// waitFor waits until cond holds, re-checking after every event. cond must
// depend only on things that change before an event is emitted.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond() {
		select {
		case <-h.rec.Changed():
		case <-deadline:
			require.FailNow(h.t, "timed out waiting for "+what, "events: %v", h.rec.Names())
		}
	}
}

// waitDone waits for the conversation's run to end and returns its state.
func (h *harness) waitDone() StateInfo {
	h.t.Helper()
	select {
	case <-h.rt.Done(conv):
	case <-time.After(15 * time.Second):
		require.FailNow(h.t, "timed out waiting for the run to end", "events: %v", h.rec.Names())
	}
	return h.rt.State(conv)
}

// waitRequests waits until the model server has received n requests.
func (h *harness) waitRequests(n int) []modelserver.ChatRequest {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	reqs, err := h.server.WaitRequests(ctx, n)
	require.NoError(h.t, err)
	return reqs
}

func (h *harness) waitCard() *questions.Card {
	var card *questions.Card
	h.waitFor("a card", func() bool {
		c, ok := h.qm.LatestPending(conv)
		if ok && c.Status == questions.StatusPending && h.rt.State(conv).State == chat.StateAwaitingUserResponse {
			card = c
			return true
		}
		return false
	})
	return card
}

func (h *harness) messages() []chat.Message {
	msgs, _ := h.history.Messages(context.Background(), conv)
	return msgs
}

func askArgs(qs ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"questions": qs})
	return string(b)
}

var colourQuestion = map[string]any{
	"question": "Which colour?", "header": "Colour",
	"options": []map[string]string{{"label": "Red", "description": "warm"}, {"label": "Blue"}},
}

var toppingsQuestion = map[string]any{
	"question": "Which toppings?", "multiSelect": true,
	"options": []string{"Cheese", "Olives", "Basil"},
}

func lastToolMessage(t *testing.T, req modelserver.ChatRequest) modelserver.Message {
	t.Helper()
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i]
		}
	}
	require.FailNow(t, "no tool message in request", "%+v", req.Messages)
	return modelserver.Message{}
}

func toolNames(req modelserver.ChatRequest) []string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

func TestTextStreamsAsDeltasAndIsSaved(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Hello there, how can I help you today?"}))
	h.start("hi")
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	var streamed strings.Builder
	for _, e := range h.rec.Events() {
		if e.Name == events.MessageDelta {
			d := e.Payload.(events.MessageDeltaPayload).Delta
			require.NotEmpty(t, d, "empty delta")
			require.False(t, strings.HasPrefix(d, "[{"), "non-text delta %q", d)
			streamed.WriteString(d)
		}
	}
	require.Equal(t, "Hello there, how can I help you today?", streamed.String(), "streamed")
	msgs := h.messages()
	require.Len(t, msgs, 2, "history %+v", msgs)
	require.Equal(t, "user", msgs[0].Role, "history %+v", msgs)
	require.Equal(t, "assistant", msgs[1].Role, "history %+v", msgs)
	require.Equal(t, streamed.String(), msgs[1].Content, "history %+v", msgs)
	// States in order: requesting, streaming, idle.
	var states []string
	for _, e := range h.rec.Events() {
		if e.Name == events.ConversationState {
			states = append(states, e.Payload.(StateInfo).State)
		}
	}
	want := []string{chat.StateRequesting, chat.StateStreaming, chat.StateIdle}
	require.Equal(t, strings.Join(want, ","), strings.Join(states, ","), "states")
	req := h.server.Requests()[0]
	require.Equal(t, "system", req.Messages[0].Role, "first request lacks the system prompt: %+v", req)
	require.Contains(t, toolNames(req), ToolAskUser, "first request lacks a default tool")
	require.Contains(t, toolNames(req), ToolSpawnAgents, "first request lacks a default tool")
}

func TestCardAnsweredReachesModelAsExactToolMessage(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Let me check.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "Red it is."},
	))
	h.start("paint my room")
	card := h.waitCard()
	require.Equal(t, "call_1", card.ToolCallID, "card %+v", card)
	require.Equal(t, "Which colour?", card.Questions[0].Question, "card %+v", card)
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err)
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	reqs := h.server.Requests()
	require.Len(t, reqs, 2, "model requests")
	tm := lastToolMessage(t, reqs[1])
	require.Equal(t, `{"answers":{"Which colour?":"Red"}}`, tm.Content, "tool message %+v", tm)
	require.Equal(t, "call_1", tm.ToolCallID, "tool message %+v", tm)
	// Byte for byte, as the model server receives it.
	const wire = `{"role":"tool","content":"{\"answers\":{\"Which colour?\":\"Red\"}}","tool_call_id":"call_1"}`
	require.Contains(t, string(h.server.RawRequests()[1]), wire, "request body")
	want := []string{chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting, chat.StateAwaitingUserResponse,
		chat.StateToolExecuting, chat.StateRequesting, chat.StateStreaming, chat.StateIdle}
	require.Equal(t, want, h.states(), "states")
	assertConsistent(t, h.messages())
	r, _ := h.history.Run(card.RunID)
	require.Equal(t, chat.RunCompleted, r.Status, "run saved as %+v", r)
	require.NotNil(t, r.EndedAt, "run saved as %+v", r)
	names := h.rec.Names()
	ask, awaiting := -1, -1
	for i, n := range names {
		if n == events.QuestionAsk && ask < 0 {
			ask = i
		}
	}
	for i, e := range h.rec.Events() {
		if e.Name == events.ConversationState && e.Payload.(StateInfo).State == chat.StateAwaitingUserResponse {
			awaiting = i
			require.NotNil(t, e.Payload.(StateInfo).PendingQuestion, "awaiting state without the card")
		}
	}
	require.GreaterOrEqual(t, ask, 0, "no question:ask: %v", names)
	require.GreaterOrEqual(t, awaiting, ask, "question:ask at %d, awaiting state at %d: %v", ask, awaiting, names)
}

func TestMultiSelectWithFreeText(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(toppingsQuestion)}}},
		modelserver.Turn{Text: "ok"},
	))
	h.start("pizza")
	card := h.waitCard()
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers:  map[string]questions.AnswerInput{"Which toppings?": {Selected: []string{"Cheese", "Basil"}, Custom: "  chili  "}},
		Comments: "thin crust"})
	require.NoError(t, err)
	h.waitDone()
	tm := lastToolMessage(t, h.server.Requests()[1])
	require.Equal(t, `{"answers":{"Which toppings?":"Cheese, Basil, chili"},"comments":"thin crust"}`, tm.Content, "tool content")
}

func TestDeclineContinuesTheRun(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "I'll pick blue."},
	))
	h.start("paint")
	card := h.waitCard()
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionDecline})
	require.NoError(t, err)
	h.waitDone()
	reqs := h.server.Requests()
	require.Len(t, reqs, 2, "requests")
	require.Contains(t, lastToolMessage(t, reqs[1]).Content, "declined", "tool result")
}

func TestCancelCardStopsRunWithoutAnotherRequest(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{
			{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)},
			{ID: "call_2", Name: ToolCurrentTime, Arguments: `{}`},
		}},
		modelserver.Turn{Text: "should never be requested"},
	))
	h.start("paint")
	card := h.waitCard()
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionCancel})
	require.NoError(t, err)
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	require.Len(t, h.server.Requests(), 1, "model requests after cancel")
	msgs := h.messages()
	require.Len(t, msgs, 4, "history %+v", msgs)
	require.Equal(t, questions.CancelledResult, msgs[2].Content, "history %+v", msgs)
	require.Equal(t, "call_2", msgs[3].ToolCallID, "history %+v", msgs)
	require.Equal(t, cancelledToolResult, msgs[3].Content, "history %+v", msgs)
}

func TestTimeoutContinuesWithTimedOutResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "Going with a default."},
	), func(_ *Options, q *questions.Config) { q.Timeout = 50 * time.Millisecond })
	h.start("paint")
	h.waitDone()
	reqs := h.server.Requests()
	require.Len(t, reqs, 2, "requests")
	require.Contains(t, lastToolMessage(t, reqs[1]).Content, "timed out", "tool result")
}

func TestTwoToolCallsRunInOrder(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{
			{ID: "call_a", Name: ToolCalculator, Arguments: `{"expression":"(2+3)*4"}`},
			{ID: "call_b", Name: ToolCurrentTime, Arguments: `{}`},
		}},
		modelserver.Turn{Text: "20, and it is Sunday."},
	))
	h.start("compute")
	h.waitDone()
	req := h.server.Requests()[1]
	var tools []modelserver.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			tools = append(tools, m)
		}
	}
	require.Len(t, tools, 2, "tool messages %+v", tools)
	require.Equal(t, "call_a", tools[0].ToolCallID, "tool messages %+v", tools)
	require.Equal(t, "20", tools[0].Content, "tool messages %+v", tools)
	require.Equal(t, "call_b", tools[1].ToolCallID, "tool messages %+v", tools)
	require.Contains(t, tools[1].Content, "2026-11-22T10:00:00Z", "tool messages %+v", tools)
}

func TestUnknownToolGetsErrorResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_x", Name: "rm_rf", Arguments: `{}`}}},
		modelserver.Turn{Text: "sorry"},
	))
	h.start("x")
	h.waitDone()
	require.Equal(t, `unknown tool "rm_rf"`, lastToolMessage(t, h.server.Requests()[1]).Content, "tool result")
}

func TestSubAgentsCannotAskAndDoNotSeeParentOnlyTools(t *testing.T) {
	const task = "Find three facts about Lisbon"
	script := func(req modelserver.ChatRequest) modelserver.Turn {
		first := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				first = m.Content
				break
			}
		}
		hasTool := false
		for _, m := range req.Messages {
			if m.Role == "tool" {
				hasTool = true
			}
		}
		switch {
		case first == task && !hasTool: // the sub-agent tries to ask anyway
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "sub_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}
		case first == task:
			return modelserver.Turn{Text: "Lisbon facts: hills, trams, tiles."}
		case !hasTool:
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolSpawnAgents, Arguments: `{"agents":[{"task":"` + task + `"}]}`}}}
		default:
			return modelserver.Turn{Text: "Here is what the researcher found."}
		}
	}
	h := newHarness(t, script)
	h.start("tell me about Lisbon")
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	var subReqs []modelserver.ChatRequest
	for _, r := range h.server.Requests() {
		for _, m := range r.Messages {
			if m.Role == "user" && m.Content == task {
				subReqs = append(subReqs, r)
			}
		}
	}
	require.Len(t, subReqs, 2, "sub-agent requests")
	names := toolNames(subReqs[0])
	require.NotContains(t, names, ToolAskUser, "sub-agent tools")
	require.NotContains(t, names, ToolSpawnAgents, "sub-agent tools")
	require.Contains(t, names, ToolCalculator, "sub-agent tools")
	require.Equal(t, "ask_user_question is not available to sub-agents", lastToolMessage(t, subReqs[1]).Content, "what the sub-agent got")
	msgs := h.messages()
	var result string
	for _, m := range msgs {
		if m.Role == "tool" && m.ToolCallID == "call_1" {
			result = m.Content
		}
	}
	require.Equal(t, `{"results":[{"name":"agent-1","result":"Lisbon facts: hills, trams, tiles."}]}`, result, "spawn result")
	_, ok := h.qm.LatestPending(conv)
	require.False(t, ok, "a sub-agent created a card")
}

func TestProfileThatOptsOutDoesNotListTheTool(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "ok"}), func(o *Options, _ *questions.Config) {
		o.Profile = func(string) Profile { return Profile{Name: "plain", Tools: []string{ToolCalculator}} }
	})
	h.start("hi")
	h.waitDone()
	names := toolNames(h.server.Requests()[0])
	require.NotContains(t, names, ToolAskUser, "tools")
	require.NotContains(t, names, ToolSpawnAgents, "tools")
	require.Contains(t, names, ToolCalculator, "tools")
}

func TestModelServerFaultsEndWithReadableRunError(t *testing.T) {
	cases := []struct {
		name    string
		turn    modelserver.Turn
		want    string
		partial string
	}{
		{"http 500", modelserver.Turn{Fault: modelserver.HTTPError, Status: 500, Body: `{"error":{"message":"out of memory"}}`}, "out of memory", ""},
		{"drops mid-stream", modelserver.Turn{Text: "Partial answer that gets cut", Fault: modelserver.DropMidStream}, "closed the connection", "Partial"},
		{"error frame", modelserver.Turn{Fault: modelserver.ErrorFrame, Body: "model crashed"}, "model crashed", ""},
		{"error frame after text", modelserver.Turn{Text: "Half of an answer before it", Fault: modelserver.ErrorFrame, Body: "KV cache full"}, "KV cache full", "Half"},
		{"http 503 plain text", modelserver.Turn{Fault: modelserver.HTTPError, Status: 503, Body: "server busy"}, "HTTP 503): server busy", ""},
		{"model not found", modelserver.Turn{Fault: modelserver.HTTPError, Status: 404, Body: `{"error":{"message":"model \"test-model\" not found"}}`}, "ollama pull test-model", ""},
		// Only with native tool calling chosen in the profile; otherwise the
		// run goes on in text form (textform_test.go).
		{"no tool support", modelserver.Turn{Fault: modelserver.NoToolSupport}, "does not support tool", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, modelserver.Turns(c.turn), func(o *Options, _ *questions.Config) {
				o.Profile = func(string) Profile { p := DefaultProfile(); p.ToolCalling = ToolCallingNative; return p }
			})
			h.start("hi")
			st := h.waitDone()
			require.Equal(t, chat.StateError, st.State, "state %+v, want error containing %q", st, c.want)
			require.Contains(t, st.Error, c.want, "state %+v", st)
			found := false
			for _, e := range h.rec.Events() {
				if e.Name == events.RunError && strings.Contains(e.Payload.(events.RunErrorPayload).Error, c.want) {
					found = true
				}
			}
			require.True(t, found, "no run:error event: %v", h.rec.Names())
			msgs := h.messages()
			if c.partial != "" {
				require.Len(t, msgs, 2, "partial text not kept: %+v", msgs)
				require.True(t, strings.HasPrefix(msgs[1].Content, c.partial), "partial text not kept: %+v", msgs)
			}
			if c.partial == "" {
				require.Len(t, msgs, 1, "history %+v", msgs)
			}
			states := h.states()
			require.Equal(t, chat.StateError, states[len(states)-1], "states %v", states)
			r, _ := h.history.Run(st.RunID)
			require.Equal(t, chat.RunFailed, r.Status, "run saved as %+v", r)
			require.Equal(t, st.Error, i18n.ShowStored(r.Error, i18n.Current()), "run saved as %+v", r)
			require.True(t, strings.HasPrefix(r.Error, "i18n:"), "kept as the catalogue's message, to be said in the language chosen later: %q", r.Error)
		})
	}
}

func TestUnreachableServer(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "x"}), func(o *Options, _ *questions.Config) {
		o.Model = func(string) (llm.Model, error) {
			return llm.NewOpenAI(llm.Config{BaseURL: "http://127.0.0.1:9/v1", Model: "m"})
		}
	})
	h.start("hi")
	st := h.waitDone()
	require.Equal(t, chat.StateError, st.State, "state %+v", st)
	require.Contains(t, st.Error, "Cannot reach", "state %+v", st)
}

func TestCancelDuringSlowStreamStopsPromptly(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "never", FirstTokenDelay: time.Minute}))
	h.start("hi")
	h.waitRequests(1)
	began := time.Now()
	require.True(t, h.rt.Cancel(conv), "no run to cancel")
	require.LessOrEqual(t, time.Since(began), 10*time.Second, "cancel took too long")
	st := h.rt.State(conv)
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	msgs := h.messages()
	require.Len(t, msgs, 1, "history %+v", msgs)
	require.Equal(t, "user", msgs[0].Role, "history %+v", msgs)
}

func TestCancelWhileCardWaitsSavesCancelResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
	))
	h.start("paint")
	card := h.waitCard()
	h.rt.Cancel(conv)
	msgs := h.messages()
	require.Len(t, msgs, 3, "history %+v", msgs)
	require.Equal(t, questions.CancelledResult, msgs[2].Content, "history %+v", msgs)
	require.Equal(t, "call_1", msgs[2].ToolCallID, "history %+v", msgs)
	if c, _ := h.qm.Get(card.ID); c != nil {
		require.Equal(t, questions.StatusCancelled, c.Status, "card status")
	}
	st := h.rt.State(conv)
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
}

func TestStepLimit(t *testing.T) {
	h := newHarness(t, func(modelserver.ChatRequest) modelserver.Turn {
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "c", Name: ToolCurrentTime, Arguments: `{}`}}}
	}, func(o *Options, _ *questions.Config) { o.MaxSteps = 3 })
	h.start("loop forever")
	st := h.waitDone()
	require.Equal(t, chat.StateError, st.State, "state %+v", st)
	require.Contains(t, st.Error, "after 3 model calls", "state %+v", st)
	require.Len(t, h.server.Requests(), 3, "requests")
}

func TestResumeWaitsOnRestoredCardThenContinues(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Blue, noted."}))
	ctx := context.Background()
	// The history a previous process left: user turn, assistant tool call.
	_ = h.history.AppendMessage(ctx, &chat.Message{ConversationID: conv, Role: "user", Content: "paint"})
	_ = h.history.AppendMessage(ctx, &chat.Message{ConversationID: conv, Role: "assistant",
		ToolCalls: []chat.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}})
	qs, err := questions.ParseInput([]byte(askArgs(colourQuestion)))
	require.NoError(t, err)
	card := &questions.Card{ID: "11111111-1111-4111-8111-111111111111", ConversationID: conv, RunID: "run-old", ToolCallID: "call_1",
		Status: questions.StatusPending, Questions: qs, CreatedAt: time.Now()}
	require.NoError(t, h.qm.Restore([]*questions.Card{card}))
	runID, err := h.rt.Start(StartRequest{ConversationID: conv, AwaitCard: card})
	require.NoError(t, err, "start")
	require.Equal(t, "run-old", runID, "start")
	h.waitCard()
	_, err = h.qm.Respond(ctx, conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	h.waitDone()
	reqs := h.server.Requests()
	require.Len(t, reqs, 1, "requests %+v", reqs)
	require.Equal(t, `{"answers":{"Which colour?":"Blue"}}`, lastToolMessage(t, reqs[0]).Content, "requests %+v", reqs)
}

func TestSecondStartWhileActiveIsRefused(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "slow", FirstTokenDelay: time.Minute}))
	h.start("one")
	_, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: "two"})
	require.Same(t, ErrRunActive, err, "err = %v, want ErrRunActive", err)
	h.rt.Cancel(conv)
}

func TestCalculator(t *testing.T) {
	cases := map[string]string{"1+2*3": "7", "(1+2)*3": "9", "2^3^2": "512", "-4+10/4": "-1.5", "sqrt(16)+abs(-2)": "6",
		"max(1, 7, 3)": "7", "10 % 4": "2", "2**10": "1024", "1e3/8": "125"}
	for expr, want := range cases {
		v, err := Evaluate(expr)
		if assert.NoError(t, err, "Evaluate(%q)", expr) {
			assert.Equal(t, want, formatNumber(v), "Evaluate(%q)", expr)
		}
	}
	for _, bad := range []string{"", "1/0", "2+", "foo(1)", "(1", "sqrt(-1)", "1 2", strings.Repeat("(", 500) + "1"} {
		_, err := Evaluate(bad)
		assert.Error(t, err, "Evaluate(%q) succeeded", bad)
	}
}
