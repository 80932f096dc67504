package modelserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// newServer starts a scripted server that is closed when the test ends.
func newServer(t *testing.T, script modelserver.Script, opts ...modelserver.Option) *modelserver.Server {
	t.Helper()
	srv := modelserver.New(script, opts...)
	t.Cleanup(srv.Close)
	return srv
}

// newModel is the app's real client (langchaingo's llms/openai underneath).
func newModel(t *testing.T, srv *modelserver.Server) llm.Model {
	t.Helper()
	m, err := llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), Model: "test-model"})
	require.NoError(t, err)
	return m
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func user(text string) []llm.Message { return []llm.Message{{Role: "user", Content: text}} }

// askTool is the ask_user_question definition the app offers.
var askTool = llm.Tool{Name: questions.ToolName, Description: questions.ToolDescription(), Parameters: questions.ToolSchema()}

// chatRecording calls the model and records the streamed deltas and how
// often the first tool-call chunk was announced.
type recording struct {
	deltas     []string
	toolStarts int
}

func chatRecording(t *testing.T, m llm.Model, req llm.Request) (llm.Response, *recording, error) {
	t.Helper()
	rec := &recording{}
	req.OnDelta = func(s string) { rec.deltas = append(rec.deltas, s) }
	req.OnToolCallStart = func() { rec.toolStarts++ }
	resp, err := m.Chat(testCtx(t), req)
	return resp, rec, err
}

// checkDeltas fails on any delta that is empty or looks like tool-call JSON.
func checkDeltas(t *testing.T, deltas []string) {
	t.Helper()
	for _, d := range deltas {
		require.NotEqual(t, "", d, "empty or JSON delta %q among %q", d, deltas)
		require.False(t, strings.HasPrefix(d, "[{"), "empty or JSON delta %q among %q", d, deltas)
		require.False(t, strings.HasPrefix(d, "{\""), "empty or JSON delta %q among %q", d, deltas)
	}
}

// rawStream posts a streaming request directly and returns the data
// payloads of the SSE frames, [DONE] included.
func rawStream(t *testing.T, srv *modelserver.Server, body string) []string {
	t.Helper()
	res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode, "status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream"), "status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	var frames []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			frames = append(frames, data)
		}
	}
	require.NoError(t, sc.Err())
	return frames
}

type streamChunk struct {
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

func TestTextStreamsInSeveralDeltas(t *testing.T) {
	const text = "The quick brown fox jumps over the lazy dog, twice."
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: text}))
	resp, rec, err := chatRecording(t, newModel(t, srv), llm.Request{Messages: user("hi"), Tools: []llm.Tool{askTool}})
	require.NoError(t, err)
	require.Equal(t, text, resp.Text, "response %+v", resp)
	require.Empty(t, resp.ToolCalls, "response %+v", resp)
	require.GreaterOrEqual(t, len(rec.deltas), 5, "text arrived in %d deltas, want several: %q", len(rec.deltas), rec.deltas)
	checkDeltas(t, rec.deltas)
	got := strings.Join(rec.deltas, "")
	require.Equal(t, text, got, "deltas join to %q", got)
	require.Equal(t, 0, rec.toolStarts, "OnToolCallStart called %d times for a text answer", rec.toolStarts)
}

func TestStreamFramesLookLikeLlamaCpp(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Hi there you",
		ToolCalls: []modelserver.ToolCall{{ID: "call_x", Name: "calculator", Arguments: `{"expression":"6*7"}`}}}))
	frames := rawStream(t, srv, `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	require.GreaterOrEqual(t, len(frames), 6, "frames %q", frames)
	require.Equal(t, "[DONE]", frames[len(frames)-1], "frames %q", frames)
	var chunks []streamChunk
	for _, f := range frames[:len(frames)-1] {
		var c streamChunk
		require.NoError(t, json.Unmarshal([]byte(f), &c), "frame %q", f)
		chunks = append(chunks, c)
	}
	first := chunks[0].Choices[0].Delta.Content
	require.NotNil(t, first, "first chunk is not the empty role chunk: %s", frames[0])
	require.Equal(t, "", *first, "first chunk is not the empty role chunk: %s", frames[0])
	last := chunks[len(chunks)-1]
	require.Empty(t, last.Choices, "last chunk is not the usage chunk: %s", frames[len(frames)-2])
	require.NotNil(t, last.Usage, "last chunk is not the usage chunk: %s", frames[len(frames)-2])
	require.NotEqual(t, 0, last.Usage.TotalTokens, "last chunk is not the usage chunk: %s", frames[len(frames)-2])
	finish := chunks[len(chunks)-2].Choices[0].FinishReason
	require.NotNil(t, finish, "finish chunk %s", frames[len(frames)-3])
	require.Equal(t, "tool_calls", *finish, "finish chunk %s", frames[len(frames)-3])
	var args []string
	for _, c := range chunks {
		for _, choice := range c.Choices {
			for _, call := range choice.Delta.ToolCalls {
				if call.ID != "" {
					require.Equal(t, "function", call.Type, "first tool-call delta %+v", call)
					require.Equal(t, "calculator", call.Function.Name, "first tool-call delta %+v", call)
				}
				if call.ID == "" && call.Function.Arguments != nil {
					args = append(args, *call.Function.Arguments)
				}
			}
		}
	}
	require.GreaterOrEqual(t, len(args), 2, "arguments not split over chunks: %q", args)
	require.Equal(t, `{"expression":"6*7"}`, strings.Join(args, ""), "arguments not split over chunks: %q", args)
}

func TestOneToolCallWithSplitArguments(t *testing.T) {
	args := `{"questions":[{"question":"Which colour?","header":"Colour","options":["Red","Blue"]}]}`
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Let me ask.",
		ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName, Arguments: args}}}))
	resp, rec, err := chatRecording(t, newModel(t, srv), llm.Request{Messages: user("paint"), Tools: []llm.Tool{askTool}})
	require.NoError(t, err)
	require.Equal(t, "Let me ask.", resp.Text, "response %+v", resp)
	require.Len(t, resp.ToolCalls, 1, "response %+v", resp)
	tc := resp.ToolCalls[0]
	require.Equal(t, "call_1", tc.ID, "tool call %+v", tc)
	require.Equal(t, questions.ToolName, tc.Name, "tool call %+v", tc)
	require.Equal(t, args, tc.Arguments, "tool call %+v", tc)
	require.Equal(t, 1, rec.toolStarts, "OnToolCallStart called %d times, want 1", rec.toolStarts)
	checkDeltas(t, rec.deltas)
	require.Equal(t, "Let me ask.", strings.Join(rec.deltas, ""), "deltas %q", rec.deltas)
}

func TestTwoParallelToolCallsKeepOrderAndFullArguments(t *testing.T) {
	calls := []modelserver.ToolCall{
		{ID: "call_a", Name: "calculator", Arguments: `{"expression":"(12.5 * 4) / 3 + sqrt(16)"}`},
		{ID: "call_b", Name: questions.ToolName, Arguments: `{"questions":[{"question":"Which city?","options":["Lisbon","Porto","Faro"]}]}`},
	}
	srv := newServer(t, modelserver.Turns(modelserver.Turn{ToolCalls: calls}))
	resp, rec, err := chatRecording(t, newModel(t, srv), llm.Request{Messages: user("go"), Tools: []llm.Tool{askTool}})
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 2, "%d tool calls, want 2: %+v", len(resp.ToolCalls), resp.ToolCalls)
	for i, want := range calls {
		got := resp.ToolCalls[i]
		require.Equal(t, want.ID, got.ID, "call %d = %+v, want %+v", i, got, want)
		require.Equal(t, want.Name, got.Name, "call %d = %+v, want %+v", i, got, want)
		require.Equal(t, want.Arguments, got.Arguments, "call %d = %+v, want %+v", i, got, want)
		require.True(t, json.Valid([]byte(got.Arguments)), "call %d = %+v, want %+v", i, got, want)
	}
	require.Equal(t, 1, rec.toolStarts, "tool starts %d, deltas %q", rec.toolStarts, rec.deltas)
	require.Empty(t, rec.deltas, "tool starts %d, deltas %q", rec.toolStarts, rec.deltas)
}

func TestToolCallWithoutArguments(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{ToolCalls: []modelserver.ToolCall{
		{ID: "call_t", Name: "current_time"},
		{ID: "call_c", Name: "calculator", Arguments: `{"expression":"1+2"}`},
	}}))
	resp, _, err := chatRecording(t, newModel(t, srv), llm.Request{Messages: user("time")})
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 2, "tool calls %+v", resp.ToolCalls)
	require.Equal(t, "call_t", resp.ToolCalls[0].ID, "tool calls %+v", resp.ToolCalls)
	require.Equal(t, "", resp.ToolCalls[0].Arguments, "tool calls %+v", resp.ToolCalls)
	require.Equal(t, "call_c", resp.ToolCalls[1].ID, "tool calls %+v", resp.ToolCalls)
	require.Equal(t, `{"expression":"1+2"}`, resp.ToolCalls[1].Arguments, "tool calls %+v", resp.ToolCalls)
}

func TestNonStreamingRequestGetsOneCompletion(t *testing.T) {
	srv := newServer(t, modelserver.Turns(
		modelserver.Turn{Text: "Plain answer."},
		modelserver.Turn{Text: "Checking.", ToolCalls: []modelserver.ToolCall{{Name: "calculator", Arguments: `{"expression":"2+2"}`}}},
	))
	type completion struct {
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role      string `json:"role"`
				Content   string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	post := func() completion {
		res, err := http.Post(srv.URL()+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m1","stream":false,"messages":[{"role":"user","content":"hi"}]}`))
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, 200, res.StatusCode, "status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
		require.Equal(t, "application/json", res.Header.Get("Content-Type"), "status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
		var c completion
		require.NoError(t, json.NewDecoder(res.Body).Decode(&c))
		return c
	}
	c := post()
	require.Equal(t, "chat.completion", c.Object, "completion %+v", c)
	require.Equal(t, "m1", c.Model, "completion %+v", c)
	require.Len(t, c.Choices, 1, "completion %+v", c)
	ch := c.Choices[0]
	require.Equal(t, "assistant", ch.Message.Role, "choice %+v", ch)
	require.Equal(t, "Plain answer.", ch.Message.Content, "choice %+v", ch)
	require.Equal(t, "stop", ch.FinishReason, "choice %+v", ch)
	require.Empty(t, ch.Message.ToolCalls, "choice %+v", ch)
	c = post()
	ch = c.Choices[0]
	require.Equal(t, "tool_calls", ch.FinishReason, "choice %+v", ch)
	require.Equal(t, "Checking.", ch.Message.Content, "choice %+v", ch)
	require.Len(t, ch.Message.ToolCalls, 1, "choice %+v", ch)
	tc := ch.Message.ToolCalls[0]
	require.Equal(t, "call_1", tc.ID, "tool call %+v", tc)
	require.Equal(t, "function", tc.Type, "tool call %+v", tc)
	require.Equal(t, "calculator", tc.Function.Name, "tool call %+v", tc)
	require.Equal(t, `{"expression":"2+2"}`, tc.Function.Arguments, "tool call %+v", tc)
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "recorded %+v", reqs)
	require.False(t, reqs[0].Stream, "recorded %+v", reqs)
}

func TestRequestsAreRecorded(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Noted."}))
	msgs := []llm.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "paint my room"},
		{Role: "assistant", Content: "Two things first.", ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: questions.ToolName, Arguments: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`},
			{ID: "call_2", Name: "current_time", Arguments: `{}`},
		}},
		{Role: "tool", Content: `{"answers":{"Which colour?":"Red"}}`, ToolCallID: "call_1", ToolName: questions.ToolName},
		{Role: "tool", Content: `{"datetime":"2026-11-22T10:00:00Z"}`, ToolCallID: "call_2", ToolName: "current_time"},
	}
	_, err := newModel(t, srv).Chat(testCtx(t), llm.Request{Messages: msgs, Tools: []llm.Tool{askTool}})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1, "%d requests recorded", len(reqs))
	req := reqs[0]
	require.Equal(t, "test-model", req.Model, "request %+v", req)
	require.True(t, req.Stream, "request %+v", req)
	require.Len(t, req.Tools, 1, "request %+v", req)
	require.Equal(t, questions.ToolName, req.Tools[0].Function.Name, "request %+v", req)
	require.True(t, json.Valid(req.Tools[0].Function.Parameters), "request %+v", req)
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	require.True(t, slices.Equal(roles, []string{"system", "user", "assistant", "tool", "tool"}), "roles %v", roles)
	a := req.Messages[2]
	require.Equal(t, "Two things first.", a.Content, "assistant message %+v", a)
	require.Len(t, a.ToolCalls, 2, "assistant message %+v", a)
	require.Equal(t, "call_1", a.ToolCalls[0].ID, "assistant message %+v", a)
	require.Equal(t, "function", a.ToolCalls[0].Type, "assistant message %+v", a)
	require.Equal(t, questions.ToolName, a.ToolCalls[0].Function.Name, "assistant message %+v", a)
	require.Equal(t, "call_2", a.ToolCalls[1].ID, "assistant message %+v", a)
	require.Equal(t, `{}`, a.ToolCalls[1].Function.Arguments, "assistant message %+v", a)
	tm := req.Messages[3]
	require.Equal(t, "call_1", tm.ToolCallID, "tool message %+v", tm)
	require.Equal(t, `{"answers":{"Which colour?":"Red"}}`, tm.Content, "tool message %+v", tm)
	last := req.LastMessage()
	require.Equal(t, "call_2", last.ToolCallID, "last message %+v", last)
	require.Contains(t, last.Content, "2026-11-22", "last message %+v", last)

	raws := srv.RawRequests()
	require.Len(t, raws, 1, "%d raw requests", len(raws))
	var raw struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(raws[0], &raw))
	// Exactly {"role":"tool","content":"...","tool_call_id":"..."} per result.
	for i, want := range []struct{ id, content string }{{"call_1", msgs[3].Content}, {"call_2", msgs[4].Content}} {
		m := raw.Messages[3+i]
		var role, content, id string
		_ = json.Unmarshal(m["role"], &role)
		_ = json.Unmarshal(m["content"], &content)
		_ = json.Unmarshal(m["tool_call_id"], &id)
		require.Equal(t, "tool", role, "raw tool message %d: %s", i, mustJSON(m))
		require.Equal(t, want.content, content, "raw tool message %d: %s", i, mustJSON(m))
		require.Equal(t, want.id, id, "raw tool message %d: %s", i, mustJSON(m))
	}
	var calls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	err = json.Unmarshal(raw.Messages[2]["tool_calls"], &calls)
	require.NoError(t, err, "raw assistant tool_calls %s (%v)", raw.Messages[2]["tool_calls"], err)
	require.Len(t, calls, 2, "raw assistant tool_calls %s", raw.Messages[2]["tool_calls"])
	require.Equal(t, "call_1", calls[0].ID, "raw assistant tool_calls %s", raw.Messages[2]["tool_calls"])
	require.Equal(t, msgs[2].ToolCalls[0].Arguments, calls[0].Function.Arguments, "raw assistant tool_calls %s", raw.Messages[2]["tool_calls"])
	require.Equal(t, "current_time", calls[1].Function.Name, "raw assistant tool_calls %s", raw.Messages[2]["tool_calls"])
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestOllamaVersionAndModels(t *testing.T) {
	srv := newServer(t, modelserver.Turns(), modelserver.WithModels([]string{"qwen3:8b", "nontools-model"}, "nontools-model"))
	o := llm.NewOllama(srv.URL())
	ctx := testCtx(t)
	v, err := o.Version(ctx)
	require.NoError(t, err, "version %q, %v", v, err)
	require.Equal(t, "0.12.0-scripted", v, "version %q, %v", v, err)
	models, err := o.Models(ctx)
	require.NoError(t, err)
	want := []llm.ModelInfo{{Name: "qwen3:8b", SupportsTools: true, Size: 4_000_000_000}, {Name: "nontools-model", SupportsTools: false, Size: 4_000_000_000}}
	require.True(t, slices.Equal(models, want), "models %+v, want %+v", models, want)
}

func TestOllamaPull(t *testing.T) {
	srv := newServer(t, modelserver.Turns())
	o := llm.NewOllama(srv.URL())
	ctx := testCtx(t)
	var progress []llm.PullProgress
	require.NoError(t, o.Pull(ctx, "gemma3:1b", func(p llm.PullProgress) { progress = append(progress, p) }))
	downloading := slices.ContainsFunc(progress, func(p llm.PullProgress) bool {
		return p.Status == "downloading" && p.Total == 1000 && p.Completed > 0 && p.Completed <= p.Total
	})
	require.GreaterOrEqual(t, len(progress), 3, "progress %+v", progress)
	require.True(t, downloading, "progress %+v", progress)
	require.Equal(t, "pulling manifest", progress[0].Status, "progress %+v", progress)
	require.Equal(t, "success", progress[len(progress)-1].Status, "progress %+v", progress)
	models, err := o.Models(ctx)
	require.NoError(t, err, "pulled model not listed: %+v, %v", models, err)
	require.True(t, slices.ContainsFunc(models, func(m llm.ModelInfo) bool { return m.Name == "gemma3:1b" && m.SupportsTools }), "pulled model not listed: %+v, %v", models, err)

	progress = nil
	err = o.Pull(ctx, "missing-model:7b", func(p llm.PullProgress) { progress = append(progress, p) })
	var le *fault.Error
	require.True(t, errors.As(err, &le), "pull of a missing model: %v", err)
	require.Contains(t, le.Error(), "missing-model:7b", "pull of a missing model: %v", err)
	require.Contains(t, le.Error(), "file does not exist", "pull of a missing model: %v", err)
	require.Empty(t, progress, "progress for a missing model: %+v", progress)
}

func TestFaultsBecomeReadableErrors(t *testing.T) {
	const partialText = "This answer is going to be cut somewhere in the middle of it"
	cases := []struct {
		name    string
		turn    modelserver.Turn
		tools   bool
		kind    string
		message string
		partial bool
	}{
		{"http 500", modelserver.Turn{Fault: modelserver.HTTPError, Status: 500, Body: `{"error":{"message":"out of memory"}}`}, false, llm.KindHTTP, "out of memory", false},
		{"http 502 plain", modelserver.Turn{Fault: modelserver.HTTPError, Status: 502, Body: "Bad Gateway"}, false, llm.KindHTTP, "502", false},
		{"drop mid-stream", modelserver.Turn{Text: partialText, Fault: modelserver.DropMidStream}, false, llm.KindStream, "closed the connection mid-answer", true},
		{"error frame", modelserver.Turn{Fault: modelserver.ErrorFrame, Body: "CUDA error: out of memory"}, false, llm.KindStream, "CUDA error: out of memory", false},
		{"error frame default", modelserver.Turn{Fault: modelserver.ErrorFrame}, false, llm.KindStream, "the model crashed", false},
		{"no tool support", modelserver.Turn{Fault: modelserver.NoToolSupport}, true, llm.KindNoTools, "does not support tool calling", false},
		{"empty answer", modelserver.Turn{}, false, llm.KindEmpty, "empty answer", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, modelserver.Turns(c.turn))
			req := llm.Request{Messages: user("hi")}
			if c.tools {
				req.Tools = []llm.Tool{askTool}
			}
			resp, rec, err := chatRecording(t, newModel(t, srv), req)
			var le *fault.Error
			require.True(t, errors.As(err, &le), "error %v (%T), want a fault.Error", err, err)
			require.Equal(t, c.kind, le.Code, "error kind %q message %q, want %q containing %q", le.Code, le.Error(), c.kind, c.message)
			require.Contains(t, le.Error(), c.message, "error kind %q message %q, want %q containing %q", le.Code, le.Error(), c.kind, c.message)
			require.NotContains(t, le.Error(), "{", "message shows raw JSON: %q", le.Error())
			if c.partial {
				require.NotEqual(t, "", resp.Text, "partial text %q", resp.Text)
				require.Less(t, len(resp.Text), len(partialText), "partial text %q", resp.Text)
				require.True(t, strings.HasPrefix(partialText, resp.Text), "partial text %q", resp.Text)
				require.Equal(t, resp.Text, strings.Join(rec.deltas, ""), "deltas %q vs partial %q", rec.deltas, resp.Text)
			}
		})
	}
}

func TestNoToolSupportOnlyWhenToolsAreSent(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Fault: modelserver.NoToolSupport, Text: "Plain text works."}))
	resp, err := newModel(t, srv).Chat(testCtx(t), llm.Request{Messages: user("hi")})
	require.NoError(t, err, "%+v, %v", resp, err)
	require.Equal(t, "Plain text works.", resp.Text, "%+v, %v", resp, err)
}

func TestFirstTokenDelayIsHonoured(t *testing.T) {
	const delay = 150 * time.Millisecond
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "late but here", FirstTokenDelay: delay}))
	m := newModel(t, srv)
	began := time.Now()
	var first time.Duration
	resp, err := m.Chat(testCtx(t), llm.Request{Messages: user("hi"), OnDelta: func(string) {
		if first == 0 {
			first = time.Since(began)
		}
	}})
	require.NoError(t, err, "%+v, %v", resp, err)
	require.Equal(t, "late but here", resp.Text, "%+v, %v", resp, err)
	require.GreaterOrEqual(t, first, delay, "first delta after %v, want at least %v", first, delay)
}

func TestHeldTurnAnswersOnlyOnceReleased(t *testing.T) {
	hold := make(chan struct{})
	srv := newServer(t, func(req modelserver.ChatRequest) modelserver.Turn {
		if req.LastMessage().Content == "held" {
			return modelserver.Turn{Text: "released", Hold: hold}
		}
		return modelserver.Turn{Text: "at once"}
	})
	m := newModel(t, srv)
	var heldDeltas atomic.Int32
	held := make(chan llm.Response, 1)
	go func() {
		resp, err := m.Chat(testCtx(t), llm.Request{Messages: user("held"), OnDelta: func(string) { heldDeltas.Add(1) }})
		assert.NoError(t, err)
		held <- resp
	}()
	require.Eventually(t, func() bool { return len(srv.Requests()) == 1 }, time.Minute, 10*time.Millisecond, "the held request reaches the server")
	// A request made after it is answered in full while it is still held.
	resp, err := m.Chat(testCtx(t), llm.Request{Messages: user("next")})
	require.NoError(t, err)
	require.Equal(t, "at once", resp.Text)
	select {
	case resp := <-held:
		require.FailNow(t, "answered while held", "%+v", resp)
	default:
	}
	require.Zero(t, heldDeltas.Load(), "no delta while held")
	close(hold)
	select {
	case resp := <-held:
		require.Equal(t, "released", resp.Text)
	case <-time.After(time.Minute):
		require.FailNow(t, "no answer after the release")
	}
}

func TestCancelDuringFirstTokenDelayReturnsPromptly(t *testing.T) {
	received := make(chan struct{})
	srv := newServer(t, func(modelserver.ChatRequest) modelserver.Turn {
		close(received)
		return modelserver.Turn{Text: "never", FirstTokenDelay: time.Minute}
	})
	m := newModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		resp llm.Response
		err  error
	}
	out := make(chan result, 1)
	go func() {
		resp, err := m.Chat(ctx, llm.Request{Messages: user("hi")})
		out <- result{resp, err}
	}()
	select {
	case <-received:
	case <-time.After(10 * time.Second):
		require.Fail(t, "the request never reached the server")
	}
	cancelled := time.Now()
	cancel()
	select {
	case r := <-out:
		require.ErrorIs(t, r.err, context.Canceled, "after cancel: %+v, %v", r.resp, r.err)
		require.Equal(t, "", r.resp.Text, "after cancel: %+v, %v", r.resp, r.err)
		d := time.Since(cancelled)
		require.LessOrEqual(t, d, 2*time.Second, "Chat returned %v after cancel", d)
	case <-time.After(10 * time.Second):
		require.Fail(t, "Chat did not return after cancel")
	}
}

func TestOnToolCallSentHook(t *testing.T) {
	sent := make(chan struct{}, 4)
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Asking.", OnToolCallSent: func() { sent <- struct{}{} },
		ToolCalls: []modelserver.ToolCall{{ID: "a", Name: "current_time", Arguments: "{}"}, {ID: "b", Name: "current_time", Arguments: "{}"}}}))
	var started int
	resp, err := newModel(t, srv).Chat(testCtx(t), llm.Request{Messages: user("x"), OnToolCallStart: func() {
		// The hook runs before the chunk is written, so before the client sees it.
		select {
		case <-sent:
			started++
		default:
			assert.Fail(t, "tool-call chunk arrived before OnToolCallSent ran")
		}
	}})
	require.NoError(t, err, "%+v, %v; started %d, extra hook calls %d", resp, err, started, len(sent))
	require.Len(t, resp.ToolCalls, 2, "%+v, %v; started %d, extra hook calls %d", resp, err, started, len(sent))
	require.Equal(t, 1, started, "%+v, %v; started %d, extra hook calls %d", resp, err, started, len(sent))
	require.Empty(t, sent, "%+v, %v; started %d, extra hook calls %d", resp, err, started, len(sent))
}

// demoChat drives the Demo script as the app does: the real client, the
// app's tool definitions.
type demoChat struct {
	t    *testing.T
	m    llm.Model
	msgs []llm.Message
}

func (d *demoChat) send(msg llm.Message) llm.Response {
	d.t.Helper()
	d.msgs = append(d.msgs, msg)
	resp, rec, err := chatRecording(d.t, d.m, llm.Request{Messages: d.msgs, Tools: []llm.Tool{askTool, {Name: "spawn_agents"}}})
	require.NoError(d.t, err, "demo turn after %+v", msg)
	checkDeltas(d.t, rec.deltas)
	require.Equal(d.t, resp.Text, strings.Join(rec.deltas, ""), "streamed %q, answered %q", rec.deltas, resp.Text)
	d.msgs = append(d.msgs, llm.Message{Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls})
	return resp
}

func newDemo(t *testing.T) *demoChat {
	srv := newServer(t, modelserver.Demo())
	return &demoChat{t: t, m: newModel(t, srv), msgs: []llm.Message{{Role: "system", Content: "You are Parley."}}}
}

// askCall checks the response asks the user with arguments the questions
// package accepts, and returns the call and its parsed questions.
func askCall(t *testing.T, resp llm.Response, n int) (llm.ToolCall, []questions.Question) {
	t.Helper()
	require.Len(t, resp.ToolCalls, 1, "want one %s call: %+v", questions.ToolName, resp)
	require.Equal(t, questions.ToolName, resp.ToolCalls[0].Name, "want one %s call: %+v", questions.ToolName, resp)
	require.NotEqual(t, "", resp.ToolCalls[0].ID, "want one %s call: %+v", questions.ToolName, resp)
	qs, err := questions.ParseInput([]byte(resp.ToolCalls[0].Arguments))
	require.NoError(t, err, "ParseInput refused the demo's arguments: %v\n%s", err, resp.ToolCalls[0].Arguments)
	require.NoError(t, questions.ValidateQuestions(qs), "demo questions invalid")
	require.Len(t, qs, n, "%d questions, want %d", len(qs), n)
	return resp.ToolCalls[0], qs
}

func toolResult(tc llm.ToolCall, content string) llm.Message {
	return llm.Message{Role: "tool", Content: content, ToolCallID: tc.ID, ToolName: tc.Name}
}

func TestDemoAnsweredCard(t *testing.T) {
	d := newDemo(t)
	resp := d.send(llm.Message{Role: "user", Content: "Write me a welcome note for new colleagues"})
	require.Contains(t, resp.Text, "two quick questions", "intro %q", resp.Text)
	tc, qs := askCall(t, resp, 2)
	answers, err := questions.ValidateAnswers(qs, map[string]questions.AnswerInput{
		qs[0].Question: {Selected: []string{"Formal"}},
		qs[1].Question: {Selected: []string{"Examples", "Next steps"}},
	}, "keep it short")
	require.NoError(t, err)
	reply := d.send(toolResult(tc, questions.SubmitResult(answers, "keep it short")))
	for _, want := range []string{"Formal", "Examples, Next steps", "keep it short", qs[0].Question} {
		require.Contains(t, reply.Text, want, "reply does not use the answer %q:\n%s", want, reply.Text)
	}
	require.Empty(t, reply.ToolCalls, "reply asks again: %+v", reply.ToolCalls)
}

func TestDemoDeclinedAndTimedOut(t *testing.T) {
	for _, c := range []struct{ result, want string }{
		{questions.DeclinedResult, "sensible defaults: a friendly tone"},
		{questions.TimedOutResult, "I didn't hear back"},
		{questions.CancelledResult, "I've stopped here"},
	} {
		d := newDemo(t)
		tc, _ := askCall(t, d.send(llm.Message{Role: "user", Content: "help me"}), 2)
		reply := d.send(toolResult(tc, c.result))
		require.Contains(t, reply.Text, c.want, "after %q: %+v", c.result, reply)
		require.Empty(t, reply.ToolCalls, "after %q: %+v", c.result, reply)
	}
}

func TestDemoThreeQuestionsAndDirectAnswer(t *testing.T) {
	d := newDemo(t)
	_, qs := askCall(t, d.send(llm.Message{Role: "user", Content: "Ask me three questions about my trip"}), 3)
	require.True(t, qs[1].MultiSelect, "three questions %+v", qs)
	require.Empty(t, qs[2].Options, "three questions %+v", qs)
	d = newDemo(t)
	resp := d.send(llm.Message{Role: "user", Content: "Just answer, please"})
	require.Empty(t, resp.ToolCalls, "direct answer %+v", resp)
	require.Contains(t, resp.Text, "demo model", "direct answer %+v", resp)
}

func TestDemoSubAgentBranch(t *testing.T) {
	d := newDemo(t)
	resp := d.send(llm.Message{Role: "user", Content: "Use a sub-agent to research Lisbon"})
	require.Len(t, resp.ToolCalls, 1, "want spawn_agents: %+v", resp)
	require.Equal(t, "spawn_agents", resp.ToolCalls[0].Name, "want spawn_agents: %+v", resp)
	var spawn struct {
		Agents []struct{ Name, Task string } `json:"agents"`
	}
	err := json.Unmarshal([]byte(resp.ToolCalls[0].Arguments), &spawn)
	require.NoError(t, err, "spawn arguments %s: %v", resp.ToolCalls[0].Arguments, err)
	require.Len(t, spawn.Agents, 1, "spawn arguments %s: %v", resp.ToolCalls[0].Arguments, err)
	require.NotEqual(t, "", spawn.Agents[0].Task, "spawn arguments %s: %v", resp.ToolCalls[0].Arguments, err)

	// The sub-agent (its own conversation) tries to ask and gets refused.
	sub := &demoChat{t: t, m: d.m, msgs: []llm.Message{{Role: "system", Content: "You are a sub-agent of Parley working on one task."}}}
	tc, _ := askCall(t, sub.send(llm.Message{Role: "user", Content: spawn.Agents[0].Task}), 1)
	subReply := sub.send(toolResult(tc, questions.SubAgentRefusal))
	require.Contains(t, subReply.Text, questions.SubAgentRefusal, "sub-agent reply %+v", subReply)
	require.Empty(t, subReply.ToolCalls, "sub-agent reply %+v", subReply)

	results := mustJSON(map[string]any{"results": []map[string]string{{"name": spawn.Agents[0].Name, "result": subReply.Text}}})
	final := d.send(toolResult(resp.ToolCalls[0], results))
	require.Contains(t, final.Text, "My helper reported back", "final %q", final.Text)
	require.Contains(t, final.Text, "researcher: I could not ask the user", "final %q", final.Text)
	failed := mustJSON(map[string]any{"results": []map[string]string{{"name": "researcher", "error": "model crashed"}}})
	d.msgs = d.msgs[:len(d.msgs)-2]
	again := d.send(toolResult(resp.ToolCalls[0], failed))
	require.Contains(t, again.Text, "researcher failed: model crashed", "failed helper %q", again.Text)
}
