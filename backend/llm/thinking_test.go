package llm

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// thinkingRecorder keeps what a call handed on, in order.
type thinkingRecorder struct {
	events   []string // "think:<text>", "moved:<text>", "text:<text>"
	thinking strings.Builder
	shown    strings.Builder // the reply as OnDelta built it (a move clears it)
}

func (r *thinkingRecorder) request(req Request) Request {
	req.OnDelta = func(s string) {
		r.events = append(r.events, "text:"+s)
		r.shown.WriteString(s)
	}
	req.OnReasoning = func(s string, moved bool) {
		if moved {
			r.events = append(r.events, "moved:"+s)
			r.shown.Reset()
		} else {
			r.events = append(r.events, "think:"+s)
		}
		r.thinking.WriteString(s)
	}
	return req
}

// Each shape of SPEC §9's table, cut into chunks of every size from 1 byte
// (tags split anywhere) to whole words: the thinking reaches OnReasoning
// only, the reply OnDelta only, and the response has both apart, with the
// field the thinking came in.
func TestThinkingShapesAreReadApartFromTheReply(t *testing.T) {
	const thinking = "The user greets me. <tool_call> is not a call here; I should greet back."
	const reply = "Hello! How can I help?"
	shapes := map[modelserver.Shape]string{
		modelserver.ShapeReasoning:        ReasoningFromField,
		modelserver.ShapeReasoningContent: ReasoningFromContentField,
		modelserver.ShapeThinkTags:        ReasoningFromTags,
		modelserver.ShapeOpenedThinkTags:  ReasoningFromTags,
	}
	for shape, source := range shapes {
		for _, size := range []int{0, 1, 2, 3, 5, 8, 13} {
			t.Run(fmt.Sprintf("shape%d/chunk%d", shape, size), func(t *testing.T) {
				srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: reply, Reasoning: thinking, ReasoningShape: shape, ChunkSize: size}))
				defer srv.Close()
				rec := &thinkingRecorder{}
				resp, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), rec.request(Request{Messages: hi()}))
				require.NoError(t, err)
				assert.Equal(t, reply, resp.Text, "the reply")
				assert.Equal(t, thinking, resp.Reasoning, "the thinking")
				assert.Equal(t, source, resp.ReasoningSource)
				assert.Equal(t, thinking, rec.thinking.String(), "the thinking handed on: %q", rec.events)
				assert.Equal(t, reply, rec.shown.String(), "the reply handed on: %q", rec.events)
				assert.NotContains(t, rec.shown.String(), "think>")
			})
		}
	}
}

// A template that opened the tag: the reply streams as text until the
// `</think>` comes; then what was shown is moved into the thinking.
func TestOpenedThinkTagMovesTheShownTextIntoTheThinking(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "Fine, thanks.", Reasoning: "They ask how I am.",
		ReasoningShape: modelserver.ShapeOpenedThinkTags}))
	defer srv.Close()
	rec := &thinkingRecorder{}
	resp, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), rec.request(Request{Messages: hi()}))
	require.NoError(t, err)
	var before strings.Builder
	moves := 0
	for _, e := range rec.events {
		if text, ok := strings.CutPrefix(e, "text:"); ok && moves == 0 {
			before.WriteString(text)
		}
		if text, ok := strings.CutPrefix(e, "moved:"); ok {
			moves++
			assert.Equal(t, before.String()+strings.TrimPrefix(text, before.String()), text, "a move carries the text shown before it")
			assert.True(t, strings.HasPrefix(text, before.String()), "moved %q, shown before %q", text, before.String())
		}
	}
	assert.Equal(t, 1, moves, "events %q", rec.events)
	assert.NotEmpty(t, before.String(), "the thinking streamed as text before the tag came: %q", rec.events)
	assert.Equal(t, "They ask how I am.", resp.Reasoning)
	assert.Equal(t, "Fine, thanks.", resp.Text)
}

// Ollama 0.17.4 may send the last thinking piece in the chunk of the first
// tool call; later versions send it alone first. Either way the thinking
// comes before the call starts and the call is whole.
func TestThinkingThenToolCallInOneChunkAndApart(t *testing.T) {
	for _, together := range []bool{true, false} {
		t.Run(fmt.Sprintf("together=%v", together), func(t *testing.T) {
			srv := modelserver.New(modelserver.Turns(modelserver.Turn{Reasoning: "I should ask which colour.", ReasoningWithCall: together,
				ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: `{"questions":[]}`}}}))
			defer srv.Close()
			rec := &thinkingRecorder{}
			started := false
			req := rec.request(Request{Messages: hi(), Tools: []Tool{{Name: "ask_user_question"}}})
			onThink := req.OnReasoning
			req.OnReasoning = func(s string, moved bool) {
				assert.False(t, started, "thinking %q after the call started", s)
				onThink(s, moved)
			}
			req.OnToolCallStart = func() { started = true }
			resp, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), req)
			require.NoError(t, err)
			assert.Equal(t, "I should ask which colour.", resp.Reasoning)
			assert.Equal(t, "", resp.Text)
			require.Len(t, resp.ToolCalls, 1)
			assert.Equal(t, ToolCall{ID: "call_1", Name: "ask_user_question", Arguments: `{"questions":[]}`}, resp.ToolCalls[0])
			assert.True(t, started)
		})
	}
}

// Thinking with an empty content is an answer (ollama#15288), not the
// "empty answer" error; nothing at all still is.
func TestThinkingOnlyIsNotAnEmptyAnswer(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{Reasoning: "Hmm, let me think about that for a long time."},
		modelserver.Turn{Text: "  "},
	))
	defer srv.Close()
	m := newModel(t, srv.URL(), "m")
	resp, err := m.Chat(testCtx(t), Request{Messages: hi()})
	require.NoError(t, err)
	assert.Equal(t, "", resp.Text)
	assert.Equal(t, "Hmm, let me think about that for a long time.", resp.Reasoning)
	_, err = m.Chat(testCtx(t), Request{Messages: hi()})
	assert.Equal(t, KindEmpty, asError(t, err).Code)
}

// What langchaingo cannot send goes into the body: the thinking control at
// the top level, each assistant turn's thinking in its field; nothing is
// added when there is nothing to say.
func TestThinkingFieldsAreWrittenIntoTheRequest(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "a"}, modelserver.Turn{Text: "b"}), modelserver.WithoutOllamaAPI())
	defer srv.Close()
	m := newModel(t, srv.URL(), "m")
	history := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Pick a colour."},
		{Role: "assistant", Content: "", Reasoning: "Ollama thought", ReasoningSource: ReasoningFromField,
			ToolCalls: []ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: "{}"}}},
		{Role: "tool", Content: "blue", ToolCallID: "call_1", ToolName: "ask_user_question"},
		{Role: "assistant", Content: "Blue it is.", Reasoning: "tag thought", ReasoningSource: ReasoningFromTags},
		{Role: "assistant", Content: "And no thinking."},
		{Role: "user", Content: "<b>again</b>"},
	}
	_, err := m.Chat(testCtx(t), Request{Messages: history, Thinking: Thinking{Effort: "none", TemplateOff: true}})
	require.NoError(t, err)
	_, err = m.Chat(testCtx(t), Request{Messages: hi()})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	first := reqs[0]
	require.NotNil(t, first.ReasoningEffort)
	assert.Equal(t, "none", *first.ReasoningEffort)
	assert.Equal(t, map[string]any{"enable_thinking": false}, first.ChatTemplateKwargs)
	require.Len(t, first.Messages, len(history))
	assert.Equal(t, "Ollama thought", first.Messages[2].Reasoning)
	assert.Empty(t, first.Messages[2].ReasoningContent)
	assert.Equal(t, "tag thought", first.Messages[4].ReasoningContent, "thinking from tags goes back as llama.cpp reads it")
	assert.Empty(t, first.Messages[4].Reasoning)
	assert.Empty(t, first.Messages[5].Reasoning+first.Messages[5].ReasoningContent)
	assert.Equal(t, "<b>again</b>", first.Messages[6].Content, "the rest of the body is kept")
	require.Len(t, first.Messages[2].ToolCalls, 1)
	assert.Equal(t, "call_1", first.Messages[2].ToolCalls[0].ID)

	raw := srv.RawRequests()[1]
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &top))
	assert.NotContains(t, top, "reasoning_effort")
	assert.NotContains(t, top, "chat_template_kwargs")
	assert.NotContains(t, string(raw), "reasoning")
}

// Ollama 0.17.4 refuses a level for a thinking model other than gpt-oss:
// the error is KindThinkingRefused (the agent asks again without it). The
// same words in a refusal of a request that said nothing about thinking
// are an ordinary HTTP error.
func TestRefusedThinkLevelIsKindThinkingRefused(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "never"}), modelserver.WithThinkingModels("qwen3:8b"), modelserver.WithOldThinkLevels())
	defer srv.Close()
	_, err := newModel(t, srv.URL(), "qwen3:8b").Chat(testCtx(t), Request{Messages: hi(), Thinking: Thinking{Effort: "low"}})
	le := asError(t, err)
	assert.Equal(t, KindThinkingRefused, le.Code, "message %q", le.Error())
	assert.Contains(t, le.Error(), `think value "low" is not supported for this model`)

	plain := sseServerStatus(t, 400, `{"error":{"message":"think about your request","type":"api_error"}}`)
	_, err = newModel(t, plain+"/v1", "m").Chat(testCtx(t), Request{Messages: hi()})
	assert.Equal(t, KindHTTP, asError(t, err).Code)
}

func sseServerStatus(t *testing.T, status int, body string) string {
	t.Helper()
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Fault: modelserver.HTTPError, Status: status, Body: body}))
	t.Cleanup(srv.Close)
	return srv.RootURL()
}

// The splitter gives the same thinking and reply however the content is
// cut into chunks, and hands nothing of one to the other.
func TestThinkSplitterIsIndependentOfChunking(t *testing.T) {
	cases := []struct{ content, thinking, reply string }{
		{"<think>a plan</think>\n\nThe answer.", "a plan", "The answer."},
		{"  \n<think>\nstep 1\nstep 2\n</think>Done", "\nstep 1\nstep 2\n", "Done"},
		{"plan first</think>\n\nThen the answer.", "plan first", "Then the answer."},
		{"</think>Only the answer.", "", "Only the answer."},
		{"Plain reply with a < sign and </thi without the tag.", "", "Plain reply with a < sign and </thi without the tag."},
		{"<think>never closed", "never closed", ""},
		{"   ", "", ""},
		{"<thinking is a word", "", "<thinking is a word"},
		{"<think></think>", "", ""},
		{"A reply, then </think> later", "A reply, then ", "later"},
		{"</think>Third answer", "", "Third answer"},
		{"\n</think>\n\nThird answer", "\n", "Third answer"},
		{"A long plain reply in many pieces, and nothing else at all.", "", "A long plain reply in many pieces, and nothing else at all."},
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed) // each run cuts the content differently
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, c := range cases {
		for round := 0; round < 200; round++ {
			// shown is the reply as a window shows it: a move empties it.
			var thinking, reply, shown strings.Builder
			var deltas []string // kept as handed on: they must not change later
			s := newThinkSplitter(func(t string, moved bool) {
				thinking.WriteString(t)
				if moved {
					shown.Reset()
				}
			}, func(t string) { reply.WriteString(t); shown.WriteString(t); deltas = append(deltas, t) })
			var buf []byte
			for rest := c.content; rest != ""; {
				n := 1 + rng.IntN(len(rest))
				if round == 0 {
					n = len(rest)
				}
				if round%2 == 1 {
					// As the streaming func gets them: in a buffer that is
					// then reused.
					buf = append(buf[:0], rest[:n]...)
					s.WriteBytes(buf)
					for i := range buf {
						buf[i] = '#'
					}
				} else {
					s.Write(rest[:n])
				}
				rest = rest[n:]
			}
			s.Close()
			require.Equal(t, reply.String(), strings.Join(deltas, ""), "deltas changed after they were handed on: content %q, seed %d", c.content, seed)
			require.Equal(t, c.thinking, thinking.String(), "content %q, seed %d", c.content, seed)
			require.Equal(t, c.reply, s.Reply(), "content %q, seed %d", c.content, seed)
			require.Equal(t, c.reply, shown.String(), "shown: content %q, seed %d", c.content, seed)
			// A move empties the reply: what OnDelta got minus the moved part.
			if !strings.Contains(c.content, "<think>") && strings.Contains(c.content, "</think>") {
				require.True(t, strings.HasSuffix(reply.String(), c.reply), "content %q: deltas %q", c.content, reply.String())
			} else {
				require.Equal(t, c.reply, reply.String(), "content %q", c.content)
			}
		}
		th, rp, _ := splitThinkTags(c.content, true)
		assert.Equal(t, c.thinking, th, "whole %q", c.content)
		assert.Equal(t, c.reply, rp, "whole %q", c.content)
	}
	// Thinking that came in a field: a later `</think>` is the reply's.
	th, rp, found := splitThinkTags("see </think> here", false)
	assert.Equal(t, "", th)
	assert.Equal(t, "see </think> here", rp)
	assert.False(t, found)
}

// A template that opened the think block itself, then an empty thinking,
// cut just inside the closing tag: the tag is never shown as the reply
// (it read "</thiThird answer").
func TestClosingTagCutAtTheReplysStartIsNotShown(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "</think>Third answer", ChunkSize: 5}))
	defer srv.Close()
	rec := &thinkingRecorder{}
	resp, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), rec.request(Request{Messages: hi()}))
	require.NoError(t, err)
	assert.Equal(t, "Third answer", rec.shown.String(), "events %q", rec.events)
	assert.Equal(t, "Third answer", resp.Text)
	assert.Empty(t, resp.Reasoning)
	for _, e := range rec.events {
		assert.NotContains(t, e, "</thi", "events %q", rec.events)
	}
}
