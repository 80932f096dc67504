package assistant

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/textcalls"
)

// newServerHarness is newHarness with options for the scripted server.
func newServerHarness(t *testing.T, script modelserver.Script, server []modelserver.Option, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, server: modelserver.New(script, server...), history: newMemoryHistory(), rec: events.NewRecorder()}
	qcfg := questions.Config{Timeout: time.Minute, Logger: quiet}
	o := Options{
		History: h.history,
		Events:  writeBeforeShow(t, h.history, h.rec),
		Model: func(string) (llm.Model, error) {
			return llm.NewOpenAI(llm.Config{BaseURL: h.server.URL(), Model: "test-model"})
		},
		Tools:  BuiltinTools(func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }),
		Logger: quiet,
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

func textCall(form, name, args string) string {
	return modelserver.FormatCall(form, modelserver.ToolCall{Name: name, Arguments: args})
}

// deltas is everything streamed as message:delta, one entry per event.
func (h *harness) deltas() []string {
	var out []string
	for _, e := range h.rec.Events() {
		if e.Name == events.MessageDelta {
			out = append(out, e.Payload.(events.MessageDeltaPayload).Delta)
		}
	}
	return out
}

// defaultTools are the definitions the default profile offers.
func (h *harness) defaultTools() []llm.Tool {
	return (&runLoop{rt: h.rt, profile: DefaultProfile()}).tools(false)
}

type sentMessage struct{ Role, Content, ToolCallID string }

func sent(req modelserver.ChatRequest) []sentMessage {
	out := []sentMessage{}
	for _, m := range req.Messages {
		require.Empty(nil, m.ToolCalls, "native tool calls sent in text form")
		out = append(out, sentMessage{m.Role, m.Content, m.ToolCallID})
	}
	return out
}

func TestModelWithoutToolsAsksThroughATextFormCall(t *testing.T) {
	args := askArgs(colourQuestion)
	for _, form := range []string{modelserver.FormTag, modelserver.FormFence} {
		t.Run(form, func(t *testing.T) {
			h := newServerHarness(t, modelserver.Turns(
				modelserver.Turn{Text: "Let me ask first.\n\n" + textCall(form, ToolAskUser, args) + "\n", ChunkSize: 3},
				modelserver.Turn{Text: "Red it is.", ChunkSize: 3},
			), []modelserver.Option{modelserver.WithoutTools()})
			h.start("paint my room")
			card := h.waitCard()
			require.Equal(t, "Which colour?", card.Questions[0].Question)
			_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
				Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
			require.NoError(t, err)
			st := h.waitDone()
			require.Equal(t, chat.StateIdle, st.State, "state %+v", st)

			reqs := h.server.Requests()
			require.Len(t, reqs, 3)
			assert.NotEmpty(t, reqs[0].Tools, "first asked natively")
			assert.Empty(t, reqs[1].Tools, "then in text form")
			assert.Empty(t, reqs[2].Tools)

			// The stored history: the visible text with the call, its result, the reply.
			msgs := h.messages()
			require.Len(t, msgs, 4, "history %+v", msgs)
			assert.Equal(t, "Let me ask first.", msgs[1].Content)
			require.Len(t, msgs[1].ToolCalls, 1)
			call := msgs[1].ToolCalls[0]
			assert.Equal(t, ToolAskUser, call.Name)
			assert.JSONEq(t, args, call.Arguments)
			assert.Equal(t, card.ToolCallID, call.ID)
			assert.Equal(t, sentMessage{chat.RoleTool, `{"answers":{"Which colour?":"Red"}}`, call.ID}, sentMessage{msgs[2].Role, msgs[2].Content, msgs[2].ToolCallID})
			assert.Equal(t, "Red it is.", msgs[3].Content)
			assertConsistent(t, msgs)

			// Exactly what the model got next.
			system := DefaultProfile().SystemPrompt + "\n\n" + textcalls.ToolPrompt(h.defaultTools())
			assert.Equal(t, []sentMessage{
				{"system", system, ""},
				{"user", "paint my room", ""},
				{"assistant", "Let me ask first.\n\n<tool_call>\n{\"name\": \"ask_user_question\", \"arguments\": " + call.Arguments + "}\n</tool_call>", ""},
				{"tool", `{"answers":{"Which colour?":"Red"}}`, call.ID},
			}, sent(reqs[2]))

			// The call text never reached the screen.
			for _, d := range h.deltas() {
				assert.NotContains(t, d, "tool_call")
				assert.NotContains(t, d, "```")
				assert.NotContains(t, d, "questions")
			}
			assert.Equal(t, "Let me ask first.\n\n\nRed it is.", strings.Join(h.deltas(), ""), "the text around the call")
		})
	}
}

func TestTwoTextCallsWithTextAroundThemBothRun(t *testing.T) {
	h := newServerHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Two things first.\n" + textCall(modelserver.FormTag, ToolCalculator, `{"expression":"6*7"}`) +
			"\n" + textCall(modelserver.FormFence, ToolCurrentTime, `{}`) + "\nBack soon.", ChunkSize: 2},
		modelserver.Turn{Text: "It is 42 on Sunday."},
	), []modelserver.Option{modelserver.WithoutTools()})
	h.start("what is 6*7 and what day is it?")
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	msgs := h.messages()
	require.Len(t, msgs, 5, "history %+v", msgs)
	assert.Equal(t, "Two things first.\n\n\nBack soon.", msgs[1].Content)
	require.Len(t, msgs[1].ToolCalls, 2)
	assert.Equal(t, "42", msgs[2].Content)
	assert.Contains(t, msgs[3].Content, `"weekday":"Sunday"`)
	assertConsistent(t, msgs)
	next := sent(h.server.Requests()[2])
	require.Len(t, next, 5)
	assert.Equal(t, sentMessage{"tool", "42", msgs[1].ToolCalls[0].ID}, next[3])
	assert.Equal(t, msgs[1].ToolCalls[1].ID, next[4].ToolCallID)
}

func TestExampleCodeBlockIsShownNotRun(t *testing.T) {
	reply := "You can call the calculator yourself, for example:\n\n```json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1+1\"}}\n```\n\nThat is all."
	h := newServerHarness(t, modelserver.Turns(modelserver.Turn{Text: reply, ChunkSize: 4}),
		[]modelserver.Option{modelserver.WithoutTools()})
	h.start("how do tools work?")
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State)
	msgs := h.messages()
	require.Len(t, msgs, 2, "history %+v", msgs)
	assert.Equal(t, reply, msgs[1].Content)
	assert.Empty(t, msgs[1].ToolCalls)
	assert.Equal(t, reply, strings.Join(h.deltas(), ""))
	assert.Len(t, h.server.Requests(), 2, "asked natively, then once in text form")
}

func TestServerRefusingToolMessagesGetsResultsAsUserMessages(t *testing.T) {
	h := newServerHarness(t, modelserver.Turns(
		modelserver.Turn{Text: textCall(modelserver.FormTag, ToolCalculator, `{"expression":"2+2"}`)},
		modelserver.Turn{Text: "Four."},
	), []modelserver.Option{modelserver.WithoutTools(), modelserver.WithoutToolRole()})
	h.start("2+2?")
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	reqs := h.server.Requests()
	// Native (refused), text form, text form with a tool message (refused), text form with a user message.
	require.Len(t, reqs, 4)
	msgs := h.messages()
	require.Len(t, msgs, 4, "history %+v", msgs)
	assert.Equal(t, chat.RoleTool, msgs[2].Role, "stored as a tool result")
	assert.Equal(t, "4", msgs[2].Content)
	next := sent(reqs[3])
	require.Len(t, next, 4)
	assert.Equal(t, sentMessage{"user", "<tool_response name=\"calculator\">\n4\n</tool_response>", ""}, next[3])
	assert.Equal(t, "Four.", msgs[3].Content)

	// Remembered: the next run goes straight to the form that works.
	h.start("and 3+3?")
	h.waitDone()
	assert.Len(t, h.server.Requests(), 5)
	assert.Empty(t, h.server.Requests()[4].Tools)
}

func TestNativeModelWritingItsCallIntoTheTextStillAsks(t *testing.T) {
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Sure.<tool_call>{\"name\": \"ask_user_question\", \"arguments\": " + askArgs(colourQuestion) + "}</tool_call>", ChunkSize: 5},
		modelserver.Turn{Text: "ok"},
	))
	h.start("paint")
	card := h.waitCard()
	assert.Equal(t, "Which colour?", card.Questions[0].Question)
	require.NotEmpty(t, h.server.Requests()[0].Tools, "native tools offered")
	h.rt.Cancel(conv)
	for _, d := range h.deltas() {
		assert.NotContains(t, d, "<tool")
	}
}

func TestProfileCanChooseTextFormOrNoTools(t *testing.T) {
	for _, mode := range []string{ToolCallingText, ToolCallingOff} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "hi"}), func(o *Options, _ *questions.Config) {
				o.Profile = func(string) Profile { p := DefaultProfile(); p.ToolCalling = mode; return p }
			})
			h.start("hello")
			h.waitDone()
			req := h.server.Requests()[0]
			assert.Empty(t, req.Tools)
			assert.Equal(t, mode == ToolCallingText, strings.Contains(req.Messages[0].Content, "<tool_call>"), "tools described in the system prompt")
		})
	}
}

func TestRepairedTextCallMakesTheRightCard(t *testing.T) {
	h := newServerHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "<tool_call>{'name': 'ask_user_question', 'arguments': {'questions': [{'question': 'Which colour?', 'options': ['Red', 'Blue',]}]}}</tool_call>"},
	), []modelserver.Option{modelserver.WithoutTools()})
	h.start("paint")
	card := h.waitCard()
	assert.Equal(t, "Which colour?", card.Questions[0].Question)
	assert.Equal(t, []questions.Option{{Label: "Red"}, {Label: "Blue"}}, card.Questions[0].Options)
	h.rt.Cancel(conv)
}

func TestInvalidCallsAreRefusedThenTheRunStops(t *testing.T) {
	bad := modelserver.Turn{Text: "<tool_call>{\"name\": \"ask_user_question\", \"arguments\": {\"questions\": [}</tool_call>"}
	unreadable := modelserver.Turn{Text: "<tool_call>please ask the user</tool_call>"}
	h := newServerHarness(t, modelserver.Turns(bad, unreadable, bad, modelserver.Turn{Text: "never"}),
		[]modelserver.Option{modelserver.WithoutTools()})
	h.start("paint")
	st := h.waitDone()
	require.Equal(t, chat.StateError, st.State, "state %+v", st)
	assert.Contains(t, st.Error, "The model made 3 invalid tool calls")
	msgs := h.messages()
	require.Len(t, msgs, 7, "history %+v", msgs)
	assert.True(t, strings.HasPrefix(msgs[2].Content, "invalid input: arguments are not valid JSON"), msgs[2].Content)
	assert.Equal(t, unreadableCallResult, msgs[4].Content)
	assertConsistent(t, msgs)
	reqs := h.server.Requests()
	require.Len(t, reqs, 4, "no model call after the third invalid call")
	// The model got each refusal to correct itself.
	assert.Equal(t, msgs[2].Content, sent(reqs[2])[3].Content)
}

func TestStatsCountCardsAndRepairs(t *testing.T) {
	var mu sync.Mutex
	got := map[string]StatDelta{}
	record := func(model string, d StatDelta) {
		mu.Lock()
		defer mu.Unlock()
		s := got[model]
		s.CardsAsked += d.CardsAsked
		s.Answered += d.Answered
		s.Declined += d.Declined
		s.Repaired += d.Repaired
		s.Refused += d.Refused
		s.Corrected += d.Corrected
		if d.AnswerTime > 0 {
			s.AnswerTime = d.AnswerTime
		}
		got[model] = s
	}
	h := newServerHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "<tool_call>{\"name\": \"ask_user_question\", \"arguments\": " + askArgs(colourQuestion) + ",}</tool_call>"},
		modelserver.Turn{Text: "Red."},
		modelserver.Turn{Text: "It is blue."},
		modelserver.Turn{Text: "Sorry."},
	), []modelserver.Option{modelserver.WithoutTools()}, func(o *Options, _ *questions.Config) { o.Stats = record })
	h.start("paint")
	card := h.waitCard()
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionDecline})
	require.NoError(t, err)
	h.waitDone()
	h.start("what colour is the sky?")
	h.waitDone()
	h.start("No, it is grey here.")
	h.waitDone()
	mu.Lock()
	defer mu.Unlock()
	s := got["test-model"]
	assert.Equal(t, 1, s.CardsAsked)
	assert.Equal(t, 1, s.Declined)
	assert.Equal(t, 1, s.Repaired, "the trailing comma")
	assert.Equal(t, 1, s.Corrected, "a reply without asking, then 'No, ...'")
}
