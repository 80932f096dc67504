package service

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// thinkingTurns answers each user message "<n>" with a thinking turn that
// calls the calculator, then, after the result, a thinking reply: the
// thinking names the run ("plan 1", "answer 1").
func thinkingTurns(shape modelserver.Shape) modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		n := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				n++
			}
		}
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Reasoning: fmt.Sprintf("answer %d", n), ReasoningShape: shape, Text: fmt.Sprintf("It is %s.", req.LastMessage().Content)}
		}
		return modelserver.Turn{Reasoning: fmt.Sprintf("plan %d", n), ReasoningShape: shape,
			ToolCalls: []modelserver.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: "calculator", Arguments: `{"expression":"6*7"}`}}}
	}
}

// sentThinking is the thinking each message of a request carried, "-" for
// none, with the field it was in.
func sentThinking(req modelserver.ChatRequest) []string {
	out := []string{}
	for _, m := range req.Messages {
		switch {
		case m.Reasoning != "":
			out = append(out, m.Role+" reasoning="+m.Reasoning)
		case m.ReasoningContent != "":
			out = append(out, m.Role+" reasoning_content="+m.ReasoningContent)
		default:
			out = append(out, m.Role+" -")
		}
	}
	return out
}

// SPEC §9 history: within a run, the assistant turn that called a tool
// goes back with its thinking, in the field the server sent it in; the
// turns of the run before (its call and its finished reply) do not.
func TestThinkingGoesBackBetweenToolCallsOfTheSameRunOnly(t *testing.T) {
	for _, c := range []struct {
		name   string
		shape  modelserver.Shape
		field  string
		ollama bool
	}{
		{"ollama", modelserver.ShapeReasoning, "reasoning", true},
		{"llama.cpp", modelserver.ShapeReasoningContent, "reasoning_content", false},
		{"think tags", modelserver.ShapeThinkTags, "reasoning_content", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := []modelserver.Option{modelserver.WithModels([]string{"qwen3:8b"}), modelserver.WithThinkingModels("qwen3:8b")}
			if !c.ollama {
				opts = append(opts, modelserver.WithoutOllamaAPI())
			}
			srv := modelserver.New(thinkingTurns(c.shape), opts...)
			e := envWithServer(t, srv, "qwen3:8b")
			ctx := context.Background()
			conv, err := e.svc.CreateConversation(ctx, "", "")
			require.NoError(t, err)
			_, err = e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "first"})
			require.NoError(t, err)
			d := e.waitState(conv.ID, chat.StateIdle)
			_, err = e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "second"})
			require.NoError(t, err)
			d = e.waitState(conv.ID, chat.StateIdle)

			reqs := srv.Requests()
			require.Len(t, reqs, 4)
			assert.Equal(t, []string{"system -", "user -"}, sentThinking(reqs[0]))
			assert.Equal(t, []string{"system -", "user -", "assistant " + c.field + "=plan 1", "tool -"}, sentThinking(reqs[1]))
			assert.Equal(t, []string{"system -", "user -", "assistant -", "tool -", "assistant -", "user -"}, sentThinking(reqs[2]),
				"a new run: the first run's thinking stays out")
			assert.Equal(t, []string{"system -", "user -", "assistant -", "tool -", "assistant -", "user -", "assistant " + c.field + "=plan 2", "tool -"}, sentThinking(reqs[3]))
			for i, r := range reqs {
				assert.Nil(t, r.ReasoningEffort, "request %d: auto sends no reasoning_effort", i)
				assert.Nil(t, r.ChatTemplateKwargs, "request %d: auto sends no chat_template_kwargs", i)
			}

			// Stored: each assistant turn's thinking apart from its text.
			require.Len(t, d.Messages, 8)
			for i, want := range map[int]string{1: "plan 1", 3: "answer 1", 5: "plan 2", 7: "answer 2"} {
				m := d.Messages[i]
				assert.Equal(t, want, m.Reasoning, "message %d", i)
				assert.NotContains(t, m.Content, "think>", "message %d", i)
				wantSource := map[modelserver.Shape]string{modelserver.ShapeReasoning: llm.ReasoningFromField,
					modelserver.ShapeReasoningContent: llm.ReasoningFromContentField, modelserver.ShapeThinkTags: llm.ReasoningFromTags}[c.shape]
				assert.Equal(t, wantSource, m.ReasoningSource, "message %d", i)
				require.NotNil(t, m.Stats, "message %d", i)
			}
			assert.Equal(t, "It is 42.", d.Messages[7].Content)

			// The thinking streamed as message:reasoning before each message was done.
			streamed := map[string]string{}
			for _, ev := range e.rec.Events() {
				switch p := ev.Payload.(type) {
				case events.MessageReasoningPayload:
					assert.Equal(t, conv.ID, p.ConversationID)
					assert.NotEmpty(t, p.RunID)
					streamed[p.MessageID] += p.Delta
				case events.MessageDonePayload:
					if p.Message.Role == chat.RoleAssistant {
						assert.Equal(t, p.Message.Reasoning, streamed[p.Message.ID], "the thinking of %s streamed before it was done", p.Message.ID)
					}
				case events.MessageDeltaPayload:
					assert.NotContains(t, p.Delta, "plan", "thinking sent as reply text")
				}
			}
			assert.Len(t, streamed, 4)
		})
	}
}

// A card answered after a restart: the run continues under its id, and its
// tool-call turn still goes back with its thinking (stored, not kept in
// memory). Ollama 0.17.4 sent thinking and the call in one chunk.
func TestThinkingGoesBackAfterARestartWhileACardWaits(t *testing.T) {
	srv := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Reasoning: "they chose", Text: "Noted."}
		}
		return modelserver.Turn{Reasoning: "I must ask which colour", ReasoningWithCall: true,
			ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName, Arguments: colourCard}}}
	}, modelserver.WithModels([]string{"gpt-oss:20b"}), modelserver.WithThinkingModels("gpt-oss:20b"))
	e := envWithServer(t, srv, "gpt-oss:20b")
	ctx := context.Background()
	id, d := e.startWith("paint", chat.StateAwaitingUserResponse)
	card := d.PendingQuestion
	e.close()
	e.open()
	_, err := e.svc.Respond(ctx, id, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	e.waitState(id, chat.StateIdle)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"system -", "user -", "assistant reasoning=I must ask which colour", "tool -"}, sentThinking(reqs[1]))
}

// SPEC §9 control: what each setting sends to Ollama (recognized by its
// native API) and to a server without it.
func TestThinkingSettingSentPerServer(t *testing.T) {
	type sent struct {
		effort string // "" = not sent
		kwargs string // "" = not sent
	}
	cases := []struct {
		setting string
		ollama  sent
		other   sent
	}{
		{"auto", sent{}, sent{}},
		{"off", sent{effort: "none"}, sent{effort: "none", kwargs: "map[enable_thinking:false]"}},
		{"low", sent{effort: "low"}, sent{effort: "low"}},
		{"medium", sent{effort: "medium"}, sent{effort: "medium"}},
		{"high", sent{effort: "high"}, sent{effort: "high"}},
	}
	for _, ollama := range []bool{true, false} {
		opts := []modelserver.Option{modelserver.WithModels([]string{"qwen3:8b"}), modelserver.WithThinkingModels("qwen3:8b")}
		if !ollama {
			opts = append(opts, modelserver.WithoutOllamaAPI())
		}
		srv := modelserver.New(modelserver.Turns(), opts...)
		e := envWithServer(t, srv, "qwen3:8b")
		ctx := context.Background()
		for i, c := range cases {
			conv, err := e.svc.CreateConversation(ctx, "", "")
			require.NoError(t, err)
			require.NoError(t, e.svc.SetThinking(ctx, conv.ID, c.setting))
			_, err = e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "hello"})
			require.NoError(t, err)
			e.waitState(conv.ID, chat.StateIdle)
			reqs := srv.Requests()
			require.Len(t, reqs, i+1)
			got := sent{}
			if r := reqs[i]; r.ReasoningEffort != nil {
				got.effort = *r.ReasoningEffort
			}
			if r := reqs[i]; r.ChatTemplateKwargs != nil {
				got.kwargs = fmt.Sprint(r.ChatTemplateKwargs)
			}
			want := c.other
			if ollama {
				want = c.ollama
			}
			assert.Equal(t, want, got, "setting %q, ollama %v", c.setting, ollama)
		}
	}
}

// A conversation's setting overrides its profile's; "" goes back to the
// profile's; an unknown value is refused (422) and changes nothing.
func TestThinkingSettingOfProfileAndConversation(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{"qwen3:8b"}), modelserver.WithThinkingModels("qwen3:8b"))
	e := envWithServer(t, srv, "qwen3:8b")
	ctx := context.Background()
	p, err := e.svc.SaveProfile(ctx, assistant.Profile{Name: "quiet", Tools: []string{}, Thinking: "off"})
	require.NoError(t, err)
	assert.Equal(t, "off", p.Thinking)
	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "loud", Thinking: "extreme"})
	assert.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
	profiles, err := e.svc.Profiles(ctx)
	require.NoError(t, err)
	for _, p := range profiles {
		assert.NotEqual(t, "loud", p.Name, "a refused profile was stored")
		if p.Name == "default" {
			assert.Equal(t, "auto", p.Thinking)
		}
	}

	conv, err := e.svc.CreateConversation(ctx, "", "quiet")
	require.NoError(t, err)
	effort := func() string {
		t.Helper()
		_, err := e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "hi"})
		require.NoError(t, err)
		e.waitState(conv.ID, chat.StateIdle)
		reqs := srv.Requests()
		if r := reqs[len(reqs)-1]; r.ReasoningEffort != nil {
			return *r.ReasoningEffort
		}
		return "(none)"
	}
	assert.Equal(t, "none", effort(), "the profile's off")
	require.NoError(t, e.svc.SetThinking(ctx, conv.ID, "high"))
	assert.Equal(t, "high", effort(), "the conversation's setting wins")
	err = e.svc.SetThinking(ctx, conv.ID, "maximum")
	assert.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
	got, err := e.svc.GetConversation(ctx, conv.ID)
	require.NoError(t, err)
	assert.Equal(t, "high", got.Thinking, "a refused value changed nothing")
	require.NoError(t, e.svc.SetThinking(ctx, conv.ID, ""))
	assert.Equal(t, "none", effort(), "back to the profile's")
	assert.Equal(t, fault.NotFound, fault.KindOf(e.svc.SetThinking(ctx, "missing", "off")))

	var changed []string
	for _, ev := range e.rec.Events() {
		if p, ok := ev.Payload.(events.ConversationUpdatedPayload); ok && p.Thinking != nil {
			changed = append(changed, *p.Thinking)
		}
	}
	assert.Equal(t, []string{"high", ""}, changed, "conversation:updated says each change")
}

// Ollama 0.17.4 answers 400 to a level for qwen3: the request goes again
// without it, the reply's figures say so once, and the refusal is
// remembered per server and model (also after a restart): later requests
// go without it at once. "off" is still sent.
func TestRefusedThinkLevelIsSentAgainWithoutItAndRemembered(t *testing.T) {
	srv, e, conv, d := sendToOldOllama(t, modelserver.Turns(modelserver.Turn{Reasoning: "hm", Text: "one"}, modelserver.Turn{Text: "two"}, modelserver.Turn{Text: "three"}),
		"low", "one?")
	ctx := context.Background()
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.NotNil(t, reqs[0].ReasoningEffort)
	assert.Equal(t, "low", *reqs[0].ReasoningEffort)
	assert.Nil(t, reqs[1].ReasoningEffort, "asked again without the level")
	assert.Equal(t, wireMessages(reqs[0]), wireMessages(reqs[1]), "the same messages")
	reply := d.Messages[len(d.Messages)-1]
	assert.Equal(t, "one", reply.Content)
	assert.Equal(t, "hm", reply.Reasoning)
	require.NotNil(t, reply.Stats)
	assert.Contains(t, reply.Stats.ThinkingNote, `"low"`)

	e.close()
	e.open()
	_, err := e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "two?"})
	require.NoError(t, err)
	d = e.waitState(conv.ID, chat.StateIdle)
	reqs = srv.Requests()
	require.Len(t, reqs, 3, "remembered across a restart: no refused request first")
	assert.Nil(t, reqs[2].ReasoningEffort)
	reply = d.Messages[len(d.Messages)-1]
	assert.Equal(t, "two", reply.Content)
	assert.Empty(t, reply.Stats.ThinkingNote, "said once")

	require.NoError(t, e.svc.SetThinking(ctx, conv.ID, "off"))
	_, err = e.svc.Send(ctx, conv.ID, api.SendRequest{Content: "three?"})
	require.NoError(t, err)
	e.waitState(conv.ID, chat.StateIdle)
	reqs = srv.Requests()
	require.Len(t, reqs, 4)
	require.NotNil(t, reqs[3].ReasoningEffort, "another setting is still sent")
	assert.Equal(t, "none", *reqs[3].ReasoningEffort)
}

// A reply of thinking only (ollama#15288) is kept as a reply, not an error.
func TestReplyOfThinkingOnlyIsKept(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Reasoning: "Let me think. And think. And stop."}))
	e := envWithServer(t, srv, "scripted")
	_, d := e.startWith("hm?", chat.StateIdle, chat.StateError)
	require.Equal(t, chat.StateIdle, d.State, "error %q", d.Error)
	reply := d.Messages[len(d.Messages)-1]
	assert.Equal(t, chat.RoleAssistant, reply.Role)
	assert.Equal(t, "", reply.Content)
	assert.Equal(t, "Let me think. And think. And stop.", reply.Reasoning)
}

// SPEC §8 and §9: a call written inside the thinking is not a call, in
// text form, for thinking in tags and thinking the template opened.
func TestToolCallWrittenInTheThinkingIsNotACall(t *testing.T) {
	for _, shape := range []modelserver.Shape{modelserver.ShapeThinkTags, modelserver.ShapeOpenedThinkTags, modelserver.ShapeReasoningContent} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			call := modelserver.FormatCall(modelserver.FormTag, modelserver.ToolCall{Name: questions.ToolName, Arguments: colourCard})
			srv := modelserver.New(modelserver.Turns(modelserver.Turn{Reasoning: "I could write " + call + " but I will not.",
				ReasoningShape: shape, Text: "Blue suits a bedroom.", ChunkSize: 5}),
				modelserver.WithModels([]string{"small"}, "small"), modelserver.WithoutTools())
			e := envWithServer(t, srv, "small")
			_, d := e.startWith("paint", chat.StateIdle, chat.StateAwaitingUserResponse)
			assert.Equal(t, chat.StateIdle, d.State, "no card was asked")
			assert.Nil(t, d.PendingQuestion)
			reply := d.Messages[len(d.Messages)-1]
			assert.Equal(t, "Blue suits a bedroom.", reply.Content)
			assert.Empty(t, reply.ToolCalls)
			assert.Contains(t, reply.Reasoning, "<tool_call>")
			require.Len(t, srv.Requests(), 1)
			for _, ev := range e.rec.Events() {
				if p, ok := ev.Payload.(events.MessageDeltaPayload); ok && shape != modelserver.ShapeOpenedThinkTags {
					assert.False(t, strings.Contains(p.Delta, "tool_call"), "thinking sent as reply text: %q", p.Delta)
				}
			}
		})
	}
}

// Sub-agents are background requests: with the setting auto they ask not
// to think, and their thinking is not shown.
func TestSubAgentsAskWithThinkingOff(t *testing.T) {
	srv := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		switch {
		case strings.HasPrefix(req.Messages[0].Content, "You are a sub-agent"):
			return modelserver.Turn{Reasoning: "sub thinking", Text: "sub result"}
		case req.LastMessage().Role == "tool":
			return modelserver.Turn{Text: "done"}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_s", Name: "spawn_agents", Arguments: `{"agents":[{"task":"look it up"}]}`}}}
	}, modelserver.WithModels([]string{"qwen3:8b"}), modelserver.WithThinkingModels("qwen3:8b"))
	e := envWithServer(t, srv, "qwen3:8b")
	e.startWith("research", chat.StateIdle)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Nil(t, reqs[0].ReasoningEffort, "the run's own call: auto")
	require.NotNil(t, reqs[1].ReasoningEffort, "the sub-agent's call")
	assert.Equal(t, "none", *reqs[1].ReasoningEffort)
	assert.Nil(t, reqs[2].ReasoningEffort)
	for _, ev := range e.rec.Events() {
		if p, ok := ev.Payload.(events.MessageReasoningPayload); ok {
			assert.NotContains(t, p.Delta, "sub thinking")
		}
	}
}

// The figures of a reply that called a tool are not shown: a refusal on
// that call is said in the run's answer.
func TestRefusedThinkLevelIsSaidInTheRunsAnswer(t *testing.T) {
	srv, _, _, d := sendToOldOllama(t, thinkingTurns(modelserver.ShapeReasoning), "medium", "first")
	require.Len(t, srv.Requests(), 3, "refused, asked again, then after the tool without the level")
	require.Len(t, d.Messages, 4)
	call, answer := d.Messages[1], d.Messages[3]
	require.Len(t, call.ToolCalls, 1)
	assert.Empty(t, call.Stats.ThinkingNote)
	assert.Contains(t, answer.Stats.ThinkingNote, `"medium"`)
}

// sendToOldOllama sends text in a new conversation with the thinking
// setting to qwen3:8b on a server that refuses levels as Ollama 0.17.4 did,
// and waits for the run to end.
func sendToOldOllama(t *testing.T, script modelserver.Script, setting, text string) (*modelserver.Server, *env, *chat.Conversation, *api.ConversationDetail) {
	t.Helper()
	srv := modelserver.New(script, modelserver.WithModels([]string{"qwen3:8b"}), modelserver.WithThinkingModels("qwen3:8b"), modelserver.WithOldThinkLevels())
	e := envWithServer(t, srv, "qwen3:8b")
	ctx := context.Background()
	conv, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	require.NoError(t, e.svc.SetThinking(ctx, conv.ID, setting))
	_, err = e.svc.Send(ctx, conv.ID, api.SendRequest{Content: text})
	require.NoError(t, err)
	return srv, e, conv, e.waitState(conv.ID, chat.StateIdle)
}
