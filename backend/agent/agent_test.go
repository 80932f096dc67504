package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const conv = "conv-1"

type harness struct {
	t       *testing.T
	server  *modelserver.Server
	history *chat.MemoryHistory
	rec     *events.Recorder
	qm      *questions.Manager
	rt      *Runtime
}

type harnessOption func(*Options, *questions.Config)

func newHarness(t *testing.T, script modelserver.Script, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, server: modelserver.New(script), history: chat.NewMemoryHistory(), rec: events.NewRecorder()}
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
			t.Error(p)
		}
	})
	return events.EmitterFunc(func(name string, payload any) {
		if name == events.MessageDone {
			m := payload.(map[string]any)["message"].(*chat.Message)
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
			if results[tc.ID] != 1 {
				t.Fatalf("tool call %s (%s) has %d results: %+v", tc.ID, tc.Name, results[tc.ID], msgs)
			}
		}
		if len(results) != len(m.ToolCalls) {
			t.Fatalf("tool results without a call after message %d: %+v", i, msgs)
		}
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
	if err != nil {
		h.t.Fatalf("start: %v", err)
	}
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
			h.t.Fatalf("timed out waiting for %s; events: %v", what, h.rec.Names())
		}
	}
}

// waitDone waits for the conversation's run to end and returns its state.
func (h *harness) waitDone() StateInfo {
	h.t.Helper()
	select {
	case <-h.rt.Done(conv):
	case <-time.After(15 * time.Second):
		h.t.Fatalf("timed out waiting for the run to end; events: %v", h.rec.Names())
	}
	return h.rt.State(conv)
}

// waitRequests waits until the model server has received n requests.
func (h *harness) waitRequests(n int) []modelserver.ChatRequest {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	reqs, err := h.server.WaitRequests(ctx, n)
	if err != nil {
		h.t.Fatal(err)
	}
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
	t.Fatalf("no tool message in request: %+v", req.Messages)
	return modelserver.Message{}
}

func toolNames(req modelserver.ChatRequest) []string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestTextStreamsAsDeltasAndIsSaved(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Hello there, how can I help you today?"}))
	h.start("hi")
	st := h.waitDone()
	if st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
	var streamed strings.Builder
	for _, e := range h.rec.Events() {
		if e.Name == events.MessageDelta {
			d := e.Payload.(map[string]any)["delta"].(string)
			if d == "" || strings.HasPrefix(d, "[{") {
				t.Fatalf("non-text delta %q", d)
			}
			streamed.WriteString(d)
		}
	}
	if streamed.String() != "Hello there, how can I help you today?" {
		t.Fatalf("streamed %q", streamed.String())
	}
	msgs := h.messages()
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Role != "assistant" || msgs[1].Content != streamed.String() {
		t.Fatalf("history %+v", msgs)
	}
	// States in order: requesting, streaming, idle.
	var states []string
	for _, e := range h.rec.Events() {
		if e.Name == events.ConversationState {
			states = append(states, e.Payload.(StateInfo).State)
		}
	}
	want := []string{chat.StateRequesting, chat.StateStreaming, chat.StateIdle}
	if strings.Join(states, ",") != strings.Join(want, ",") {
		t.Fatalf("states %v, want %v", states, want)
	}
	req := h.server.Requests()[0]
	if req.Messages[0].Role != "system" || !contains(toolNames(req), ToolAskUser) || !contains(toolNames(req), ToolSpawnAgents) {
		t.Fatalf("first request lacks the system prompt or default tools: %+v", req)
	}
}

func TestCardAnsweredReachesModelAsExactToolMessage(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Let me check.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "Red it is."},
	))
	h.start("paint my room")
	card := h.waitCard()
	if card.ToolCallID != "call_1" || card.Questions[0].Question != "Which colour?" {
		t.Fatalf("card %+v", card)
	}
	if _, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}}); err != nil {
		t.Fatal(err)
	}
	if st := h.waitDone(); st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
	reqs := h.server.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	tm := lastToolMessage(t, reqs[1])
	if tm.Content != `{"answers":{"Which colour?":"Red"}}` || tm.ToolCallID != "call_1" {
		t.Fatalf("tool message %+v", tm)
	}
	// Byte for byte, as the model server receives it.
	const wire = `{"role":"tool","content":"{\"answers\":{\"Which colour?\":\"Red\"}}","tool_call_id":"call_1"}`
	if raw := string(h.server.RawRequests()[1]); !strings.Contains(raw, wire) {
		t.Fatalf("request body lacks %s:\n%s", wire, raw)
	}
	want := []string{chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting, chat.StateAwaitingUserResponse,
		chat.StateToolExecuting, chat.StateRequesting, chat.StateStreaming, chat.StateIdle}
	if got := h.states(); !slices.Equal(got, want) {
		t.Fatalf("states %v, want %v", got, want)
	}
	assertConsistent(t, h.messages())
	if r, _ := h.history.Run(card.RunID); r.Status != chat.RunCompleted || r.EndedAt == nil {
		t.Fatalf("run saved as %+v", r)
	}
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
			if e.Payload.(StateInfo).PendingQuestion == nil {
				t.Fatal("awaiting state without the card")
			}
		}
	}
	if ask < 0 || awaiting < ask {
		t.Fatalf("question:ask at %d, awaiting state at %d: %v", ask, awaiting, names)
	}
}

func TestMultiSelectWithFreeText(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(toppingsQuestion)}}},
		modelserver.Turn{Text: "ok"},
	))
	h.start("pizza")
	card := h.waitCard()
	if _, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers:  map[string]questions.AnswerInput{"Which toppings?": {Selected: []string{"Cheese", "Basil"}, Custom: "  chili  "}},
		Comments: "thin crust"}); err != nil {
		t.Fatal(err)
	}
	h.waitDone()
	tm := lastToolMessage(t, h.server.Requests()[1])
	if tm.Content != `{"answers":{"Which toppings?":"Cheese, Basil, chili"},"comments":"thin crust"}` {
		t.Fatalf("tool content %s", tm.Content)
	}
}

func TestDeclineContinuesTheRun(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "I'll pick blue."},
	))
	h.start("paint")
	card := h.waitCard()
	if _, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionDecline}); err != nil {
		t.Fatal(err)
	}
	h.waitDone()
	reqs := h.server.Requests()
	if len(reqs) != 2 || !strings.Contains(lastToolMessage(t, reqs[1]).Content, "declined") {
		t.Fatalf("requests %d, tool %q", len(reqs), lastToolMessage(t, reqs[len(reqs)-1]).Content)
	}
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
	if _, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionCancel}); err != nil {
		t.Fatal(err)
	}
	if st := h.waitDone(); st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
	if n := len(h.server.Requests()); n != 1 {
		t.Fatalf("%d model requests after cancel, want 1", n)
	}
	msgs := h.messages()
	if len(msgs) != 4 || msgs[2].Content != questions.CancelledResult || msgs[3].ToolCallID != "call_2" || msgs[3].Content != cancelledToolResult {
		t.Fatalf("history %+v", msgs)
	}
}

func TestTimeoutContinuesWithTimedOutResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		modelserver.Turn{Text: "Going with a default."},
	), func(_ *Options, q *questions.Config) { q.Timeout = 50 * time.Millisecond })
	h.start("paint")
	h.waitDone()
	reqs := h.server.Requests()
	if len(reqs) != 2 || !strings.Contains(lastToolMessage(t, reqs[1]).Content, "timed out") {
		t.Fatalf("requests %d", len(reqs))
	}
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
	if len(tools) != 2 || tools[0].ToolCallID != "call_a" || tools[0].Content != "20" ||
		tools[1].ToolCallID != "call_b" || !strings.Contains(tools[1].Content, "2026-11-22T10:00:00Z") {
		t.Fatalf("tool messages %+v", tools)
	}
}

func TestUnknownToolGetsErrorResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_x", Name: "rm_rf", Arguments: `{}`}}},
		modelserver.Turn{Text: "sorry"},
	))
	h.start("x")
	h.waitDone()
	if c := lastToolMessage(t, h.server.Requests()[1]).Content; c != `unknown tool "rm_rf"` {
		t.Fatalf("tool result %q", c)
	}
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
	if st := h.waitDone(); st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
	var subReqs []modelserver.ChatRequest
	for _, r := range h.server.Requests() {
		for _, m := range r.Messages {
			if m.Role == "user" && m.Content == task {
				subReqs = append(subReqs, r)
			}
		}
	}
	if len(subReqs) != 2 {
		t.Fatalf("%d sub-agent requests, want 2", len(subReqs))
	}
	names := toolNames(subReqs[0])
	if contains(names, ToolAskUser) || contains(names, ToolSpawnAgents) || !contains(names, ToolCalculator) {
		t.Fatalf("sub-agent tools %v", names)
	}
	if c := lastToolMessage(t, subReqs[1]).Content; c != "ask_user_question is not available to sub-agents" {
		t.Fatalf("sub-agent got %q", c)
	}
	msgs := h.messages()
	var result string
	for _, m := range msgs {
		if m.Role == "tool" && m.ToolCallID == "call_1" {
			result = m.Content
		}
	}
	if result != `{"results":[{"name":"agent-1","result":"Lisbon facts: hills, trams, tiles."}]}` {
		t.Fatalf("spawn result %s", result)
	}
	if _, ok := h.qm.LatestPending(conv); ok {
		t.Fatal("a sub-agent created a card")
	}
}

func TestProfileThatOptsOutDoesNotListTheTool(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "ok"}), func(o *Options, _ *questions.Config) {
		o.Profile = func(string) Profile { return Profile{Name: "plain", Tools: []string{ToolCalculator}} }
	})
	h.start("hi")
	h.waitDone()
	names := toolNames(h.server.Requests()[0])
	if contains(names, ToolAskUser) || contains(names, ToolSpawnAgents) || !contains(names, ToolCalculator) {
		t.Fatalf("tools %v", names)
	}
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
		{"no tool support", modelserver.Turn{Fault: modelserver.NoToolSupport}, "does not support tool", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, modelserver.Turns(c.turn))
			h.start("hi")
			st := h.waitDone()
			if st.State != chat.StateError || !strings.Contains(st.Error, c.want) {
				t.Fatalf("state %+v, want error containing %q", st, c.want)
			}
			found := false
			for _, e := range h.rec.Events() {
				if e.Name == events.RunError && strings.Contains(e.Payload.(map[string]any)["error"].(string), c.want) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no run:error event: %v", h.rec.Names())
			}
			msgs := h.messages()
			if c.partial != "" && (len(msgs) != 2 || !strings.HasPrefix(msgs[1].Content, c.partial)) {
				t.Fatalf("partial text not kept: %+v", msgs)
			}
			if c.partial == "" && len(msgs) != 1 {
				t.Fatalf("history %+v", msgs)
			}
			if states := h.states(); states[len(states)-1] != chat.StateError {
				t.Fatalf("states %v", states)
			}
			if r, _ := h.history.Run(st.RunID); r.Status != chat.RunFailed || r.Error != st.Error {
				t.Fatalf("run saved as %+v", r)
			}
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
	if st.State != chat.StateError || !strings.Contains(st.Error, "Cannot reach") {
		t.Fatalf("state %+v", st)
	}
}

func TestCancelDuringSlowStreamStopsPromptly(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "never", FirstTokenDelay: time.Minute}))
	h.start("hi")
	h.waitRequests(1)
	began := time.Now()
	if !h.rt.Cancel(conv) {
		t.Fatal("no run to cancel")
	}
	if time.Since(began) > 10*time.Second {
		t.Fatal("cancel took too long")
	}
	if st := h.rt.State(conv); st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
	if msgs := h.messages(); len(msgs) != 1 || msgs[0].Role != "user" {
		t.Fatalf("history %+v", msgs)
	}
}

func TestCancelWhileCardWaitsSavesCancelResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
	))
	h.start("paint")
	card := h.waitCard()
	h.rt.Cancel(conv)
	msgs := h.messages()
	if len(msgs) != 3 || msgs[2].Content != questions.CancelledResult || msgs[2].ToolCallID != "call_1" {
		t.Fatalf("history %+v", msgs)
	}
	if c, _ := h.qm.Get(card.ID); c != nil && c.Status != questions.StatusCancelled {
		t.Fatalf("card status %s", c.Status)
	}
	if st := h.rt.State(conv); st.State != chat.StateIdle {
		t.Fatalf("state %+v", st)
	}
}

func TestStepLimit(t *testing.T) {
	h := newHarness(t, func(modelserver.ChatRequest) modelserver.Turn {
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "c", Name: ToolCurrentTime, Arguments: `{}`}}}
	}, func(o *Options, _ *questions.Config) { o.MaxSteps = 3 })
	h.start("loop forever")
	st := h.waitDone()
	if st.State != chat.StateError || !strings.Contains(st.Error, "after 3 model calls") || len(h.server.Requests()) != 3 {
		t.Fatalf("state %+v after %d requests", st, len(h.server.Requests()))
	}
}

func TestResumeWaitsOnRestoredCardThenContinues(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Blue, noted."}))
	ctx := context.Background()
	// The history a previous process left: user turn, assistant tool call.
	_ = h.history.AppendMessage(ctx, &chat.Message{ConversationID: conv, Role: "user", Content: "paint"})
	_ = h.history.AppendMessage(ctx, &chat.Message{ConversationID: conv, Role: "assistant",
		ToolCalls: []chat.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}})
	qs, err := questions.ParseInput([]byte(askArgs(colourQuestion)))
	if err != nil {
		t.Fatal(err)
	}
	card := &questions.Card{ID: "11111111-1111-4111-8111-111111111111", ConversationID: conv, RunID: "run-old", ToolCallID: "call_1",
		Status: questions.StatusPending, Questions: qs, CreatedAt: time.Now()}
	if err := h.qm.Restore([]*questions.Card{card}); err != nil {
		t.Fatal(err)
	}
	runID, err := h.rt.Start(StartRequest{ConversationID: conv, AwaitCard: card})
	if err != nil || runID != "run-old" {
		t.Fatalf("start %q %v", runID, err)
	}
	h.waitCard()
	if _, err := h.qm.Respond(ctx, conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}}); err != nil {
		t.Fatal(err)
	}
	h.waitDone()
	reqs := h.server.Requests()
	if len(reqs) != 1 || lastToolMessage(t, reqs[0]).Content != `{"answers":{"Which colour?":"Blue"}}` {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestSecondStartWhileActiveIsRefused(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "slow", FirstTokenDelay: time.Minute}))
	h.start("one")
	if _, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: "two"}); err != ErrRunActive {
		t.Fatalf("err = %v, want ErrRunActive", err)
	}
	h.rt.Cancel(conv)
}

func TestCalculator(t *testing.T) {
	cases := map[string]string{"1+2*3": "7", "(1+2)*3": "9", "2^3^2": "512", "-4+10/4": "-1.5", "sqrt(16)+abs(-2)": "6",
		"max(1, 7, 3)": "7", "10 % 4": "2", "2**10": "1024", "1e3/8": "125"}
	for expr, want := range cases {
		v, err := Evaluate(expr)
		if err != nil || formatNumber(v) != want {
			t.Errorf("Evaluate(%q) = %v, %v; want %s", expr, formatNumber(v), err, want)
		}
	}
	for _, bad := range []string{"", "1/0", "2+", "foo(1)", "(1", "sqrt(-1)", "1 2", strings.Repeat("(", 500) + "1"} {
		if _, err := Evaluate(bad); err == nil {
			t.Errorf("Evaluate(%q) succeeded", bad)
		}
	}
}
