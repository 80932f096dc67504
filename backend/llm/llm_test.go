package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/modelserver"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newModel(t *testing.T, baseURL, model string) Model {
	t.Helper()
	m, err := NewOpenAI(Config{BaseURL: baseURL, Model: model})
	require.NoError(t, err)
	return m
}

func asError(t *testing.T, err error) *fault.Error {
	t.Helper()
	le := fault.Coded(err)
	require.NotNil(t, le, "error %v (%T), want a model-server failure", err, err)
	return le
}

func hi() []Message { return []Message{{Role: "user", Content: "hi"}} }

func TestIsToolCallChunk(t *testing.T) {
	cases := []struct {
		chunk string
		tool  bool
	}{
		// What langchaingo passes for tool-call deltas.
		{`[{"id":"call_1","type":"function","function":{"name":"ask_user_question","arguments":""}}]`, true},
		{`[{"function":{"arguments":"{\"questions\":"}}]`, true},
		{`[{"id":"a","type":"function","function":{"name":"x","arguments":""}},{"function":{"arguments":"{}"}}]`, true},
		{`{"name":"f","arguments":"{}"}`, true}, // legacy function_call delta
		// Text, including text that happens to look like JSON.
		{"Hello", false},
		{" ", false},
		{"[", false},
		{"{", false},
		{"[]", false},
		{"{}", false},
		{"[1, 2, 3]", false},
		{`["function"]`, false},
		{`{"name":"Ada"}`, false},
		{`[{"name":"Ada"}]`, false},
		{`[{"function": broken`, false},
		{"- [x] done", false},
	}
	for _, c := range cases {
		got := isToolCallChunk([]byte(c.chunk))
		assert.Equal(t, c.tool, got, "isToolCallChunk(%q) = %v, want %v", c.chunk, got, c.tool)
	}
}

func TestUnreachableServer(t *testing.T) {
	const base = "http://127.0.0.1:9/v1"
	resp, err := newModel(t, base, "m").Chat(testCtx(t), Request{Messages: hi()})
	le := asError(t, err)
	require.Equal(t, KindUnreachable, le.Code, "kind %q, message %q, cause %v", le.Code, le.Error(), le.Err)
	require.True(t, strings.HasPrefix(le.Error(), "Cannot reach the model server at "+base+"."), "kind %q, message %q, cause %v", le.Code, le.Error(), le.Err)
	require.Error(t, le.Err, "kind %q, message %q, cause %v", le.Code, le.Error(), le.Err)
	require.Equal(t, "", resp.Text, "text %q", resp.Text)

	_, err = NewOllama(base).Version(testCtx(t))
	le = asError(t, err)
	require.Equal(t, KindUnreachable, le.Code, "ollama: kind %q, message %q", le.Code, le.Error())
	require.True(t, strings.HasPrefix(le.Error(), "Cannot reach the model server at "+base+"."), "ollama: kind %q, message %q", le.Code, le.Error())
}

func TestModelNotFound(t *testing.T) {
	for name, turn := range map[string]modelserver.Turn{
		"ollama body": {Fault: modelserver.HTTPError, Status: 404, Body: `{"error":{"message":"model \"qwen9:70b\" not found, try pulling it first","type":"api_error"}}`},
		"empty body":  {Fault: modelserver.HTTPError, Status: 404},
	} {
		t.Run(name, func(t *testing.T) {
			srv := modelserver.New(modelserver.Turns(turn))
			defer srv.Close()
			_, err := newModel(t, srv.URL(), "qwen9:70b").Chat(testCtx(t), Request{Messages: hi()})
			le := asError(t, err)
			require.Equal(t, KindModelNotFound, le.Code, "kind %q, message %q", le.Code, le.Error())
			require.Contains(t, le.Error(), "The model qwen9:70b was not found on "+srv.URL(), "kind %q, message %q", le.Code, le.Error())
			require.Contains(t, le.Error(), "ollama pull qwen9:70b", "kind %q, message %q", le.Code, le.Error())
		})
	}
}

func TestNoModelChosen(t *testing.T) {
	m, err := NewOpenAI(Config{BaseURL: "http://127.0.0.1:9/v1"})
	require.Nil(t, m, "model %v for an empty name", m)
	le := asError(t, err)
	require.Equal(t, KindModelNotFound, le.Code, "kind %q, message %q", le.Code, le.Error())
	require.Contains(t, le.Error(), "No model is chosen", "kind %q, message %q", le.Code, le.Error())
}

func TestBaseURLNormalised(t *testing.T) {
	cases := map[string]string{
		"":                              DefaultBaseURL,
		"http://127.0.0.1:8080/v1/":     "http://127.0.0.1:8080/v1",
		"http://127.0.0.1:8080/v1//":    "http://127.0.0.1:8080/v1",
		"http://lmstudio.local:1234/v1": "http://lmstudio.local:1234/v1",
	}
	for in, want := range cases {
		m, err := NewOpenAI(Config{BaseURL: in, Model: "m"})
		require.NoError(t, err)
		got := m.(*openAIModel).cfg.BaseURL
		assert.Equal(t, want, got, "base URL %q became %q, want %q", in, got, want)
	}
	// And a trailing slash still reaches the server.
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "ok"}))
	defer srv.Close()
	resp, err := newModel(t, srv.URL()+"/", "m").Chat(testCtx(t), Request{Messages: hi()})
	require.NoError(t, err, "%+v, %v", resp, err)
	require.Equal(t, "ok", resp.Text, "%+v, %v", resp, err)
}

func TestOllamaRootFromBaseURL(t *testing.T) {
	cases := map[string]string{
		DefaultBaseURL:                   "http://127.0.0.1:11434",
		"http://127.0.0.1:11434/v1/":     "http://127.0.0.1:11434",
		"http://127.0.0.1:11434":         "http://127.0.0.1:11434",
		"http://127.0.0.1:11434/":        "http://127.0.0.1:11434",
		"http://gpu-box:11434/ollama/v1": "http://gpu-box:11434/ollama",
		"http://host/v1beta":             "http://host/v1beta",
	}
	for in, want := range cases {
		got := NewOllama(in).root
		assert.Equal(t, want, got, "NewOllama(%q).root = %q, want %q", in, got, want)
	}
	srv := modelserver.New(modelserver.Turns())
	defer srv.Close()
	for _, base := range []string{srv.URL(), srv.URL() + "/", srv.RootURL()} {
		v, err := NewOllama(base).Version(testCtx(t))
		require.NoError(t, err, "Version via %q: %q, %v", base, v, err)
		require.NotEqual(t, "", v, "Version via %q: %q, %v", base, v, err)
	}
}

func TestOllamaHTTPErrorIsReadable(t *testing.T) {
	srv := modelserver.New(modelserver.Turns())
	defer srv.Close()
	err := NewOllama(srv.URL()).getJSON(testCtx(t), http.MethodPost, "/api/show", map[string]string{"model": "nope:1b"}, &struct{}{})
	le := asError(t, err)
	require.Equal(t, KindHTTP, le.Code, "kind %q, message %q", le.Code, le.Error())
	require.Equal(t, "POST /api/show answered 404: model 'nope:1b' not found", le.Error(), "kind %q, message %q", le.Code, le.Error())
}

// rawMessage is one message of a recorded request body, as sent.
type rawMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (m rawMessage) text(t *testing.T) string {
	t.Helper()
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	require.NoError(t, json.Unmarshal(m.Content, &parts), "content %s", m.Content)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

func TestMessageConversion(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "ok"}))
	defer srv.Close()
	msgs := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "plan a trip"},
		{Role: "assistant", Content: "Two things first.", ToolCalls: []ToolCall{
			{ID: "call_1", Name: "ask_user_question", Arguments: `{"questions":[{"question":"Where?","options":["Lisbon","Porto"]}]}`},
			{ID: "call_2", Name: "current_time"}, // no arguments: sent as {}
		}},
		{Role: "tool", Content: `{"answers":{"Where?":"Lisbon"}}`, ToolCallID: "call_1", ToolName: "ask_user_question"},
		{Role: "tool", Content: `{"datetime":"2026-11-22T10:00:00Z"}`, ToolCallID: "call_2", ToolName: "current_time"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_3", Name: "calculator", Arguments: `{"expression":"2*3"}`}}},
		{Role: "tool", Content: "6", ToolCallID: "call_3", ToolName: "calculator"},
		{Role: "assistant", Content: "Lisbon, six days."},
		{Role: "user", Content: "thanks"},
	}
	tools := []Tool{
		{Name: "calculator", Description: "math", Parameters: map[string]any{"type": "object", "required": []string{"expression"},
			"properties": map[string]any{"expression": map[string]any{"type": "string"}}}},
		{Name: "current_time", Description: "now"}, // nil parameters
	}
	_, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), Request{Messages: msgs, Tools: tools})
	require.NoError(t, err)
	var body struct {
		Messages []rawMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(srv.RawRequests()[0], &body))
	require.Len(t, body.Messages, len(msgs), "%d messages sent for %d: one message per turn and per tool result expected", len(body.Messages), len(msgs))
	for i, want := range msgs {
		got := body.Messages[i]
		require.Equal(t, want.Role, got.Role, "message %d sent as %+v (content %s), want %+v", i, got, got.Content, want)
		require.Equal(t, want.Content, got.text(t), "message %d sent as %+v (content %s), want %+v", i, got, got.Content, want)
		require.Equal(t, want.ToolCallID, got.ToolCallID, "message %d sent as %+v (content %s), want %+v", i, got, got.Content, want)
		require.Len(t, got.ToolCalls, len(want.ToolCalls), "message %d sent as %+v (content %s), want %+v", i, got, got.Content, want)
		for j, tc := range want.ToolCalls {
			args := tc.Arguments
			if args == "" {
				args = "{}"
			}
			g := got.ToolCalls[j]
			require.Equal(t, tc.ID, g.ID, "message %d tool call %d sent as %+v, want %+v", i, j, g, tc)
			require.Equal(t, "function", g.Type, "message %d tool call %d sent as %+v, want %+v", i, j, g, tc)
			require.Equal(t, tc.Name, g.Function.Name, "message %d tool call %d sent as %+v, want %+v", i, j, g, tc)
			require.Equal(t, args, g.Function.Arguments, "message %d tool call %d sent as %+v, want %+v", i, j, g, tc)
		}
	}
	require.Len(t, body.Tools, 2, "tools %+v", body.Tools)
	require.Equal(t, "function", body.Tools[0].Type, "tools %+v", body.Tools)
	require.Equal(t, "calculator", body.Tools[0].Function.Name, "tools %+v", body.Tools)
	require.NotNil(t, body.Tools[0].Function.Parameters["required"], "tools %+v", body.Tools)
	p := body.Tools[1].Function.Parameters
	require.Equal(t, "object", p["type"], "nil parameters sent as %v, want an empty object schema", p)
	require.NotNil(t, p["properties"], "nil parameters sent as %v, want an empty object schema", p)
}

// sseServer streams the given data payloads as SSE frames, then ends the
// response normally (without [DONE] unless it is one of the frames).
func sseServer(t *testing.T, frames ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			fmt.Fprintf(w, "data: %s\n\n", f)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

func TestEmptyArgumentDeltasDoNotMakeExtraCalls(t *testing.T) {
	// Some servers (vLLM, for one) send empty argument deltas; langchaingo
	// turns each into a new call without id or name and appends the
	// following argument deltas to it.
	srv := sseServer(t,
		chunk(`{"role":"assistant","content":""}`, ""),
		chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"calculator","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"expression\":"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"1+2\"}"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"current_time","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":""}}]}`, ""),
		chunk(`{}`, "tool_calls"),
		"[DONE]",
	)
	starts := 0
	resp, err := newModel(t, srv.URL+"/v1", "m").Chat(testCtx(t), Request{Messages: hi(),
		OnDelta:         func(s string) { assert.Failf(t, "unexpected text delta", "text delta %q", s) },
		OnToolCallStart: func() { starts++ }})
	require.NoError(t, err)
	want := []ToolCall{{ID: "call_1", Name: "calculator", Arguments: `{"expression":"1+2"}`}, {ID: "call_2", Name: "current_time"}}
	require.Len(t, resp.ToolCalls, len(want), "tool calls %+v (starts %d), want %+v", resp.ToolCalls, starts, want)
	require.Equal(t, want[0], resp.ToolCalls[0], "tool calls %+v (starts %d), want %+v", resp.ToolCalls, starts, want)
	require.Equal(t, want[1], resp.ToolCalls[1], "tool calls %+v (starts %d), want %+v", resp.ToolCalls, starts, want)
	require.Equal(t, 1, starts, "tool calls %+v (starts %d), want %+v", resp.ToolCalls, starts, want)
}

func TestStreamEndingWithoutFinishIsAnError(t *testing.T) {
	srv := sseServer(t,
		chunk(`{"role":"assistant","content":""}`, ""),
		chunk(`{"content":"Half an "}`, ""),
		chunk(`{"content":"answer"}`, ""),
	)
	resp, err := newModel(t, srv.URL+"/v1", "m").Chat(testCtx(t), Request{Messages: hi()})
	le := asError(t, err)
	require.Equal(t, KindStream, le.Code, "kind %q, message %q", le.Code, le.Error())
	require.Contains(t, le.Error(), "mid-answer", "kind %q, message %q", le.Code, le.Error())
	require.Equal(t, "Half an answer", resp.Text, "partial text %q", resp.Text)
}

func TestFinishReasonWithoutDoneIsComplete(t *testing.T) {
	srv := sseServer(t, chunk(`{"content":"All "}`, ""), chunk(`{"content":"there."}`, "stop"))
	resp, err := newModel(t, srv.URL+"/v1", "m").Chat(testCtx(t), Request{Messages: hi()})
	require.NoError(t, err, "%+v, %v", resp, err)
	require.Equal(t, "All there.", resp.Text, "%+v, %v", resp, err)
}

func TestErrorFrameAsString(t *testing.T) {
	srv := sseServer(t, chunk(`{"content":"Par"}`, ""), `{"error":"context length exceeded"}`, "[DONE]")
	resp, err := newModel(t, srv.URL+"/v1", "m").Chat(testCtx(t), Request{Messages: hi()})
	le := asError(t, err)
	require.Equal(t, KindStream, le.Code, "kind %q, message %q, text %q", le.Code, le.Error(), resp.Text)
	require.Equal(t, "The model server reported an error: context length exceeded", le.Error(), "kind %q, message %q, text %q", le.Code, le.Error(), resp.Text)
	require.Equal(t, "Par", resp.Text, "kind %q, message %q, text %q", le.Code, le.Error(), resp.Text)
}

func TestStreamTeeSplitsFramesAcrossReads(t *testing.T) {
	stream := "data: " + chunk(`{"content":"a"}`, "") + "\n\n" +
		`data: {"error":{"message":"overloaded","type":"server_error"}}` + "\n\n" +
		"data: " + chunk(`{}`, "stop") + "\n\ndata: [DONE]\n\n"
	for size := 1; size <= 17; size += 4 {
		tee := &streamTee{}
		for s := stream; len(s) > 0; {
			n := min(size, len(s))
			tee.write([]byte(s[:n]))
			s = s[n:]
		}
		require.Equal(t, "overloaded", tee.errorMessage(), "reads of %d bytes: error %q, done %v, finish %v, plain %v", size, tee.errorMessage(), tee.done, tee.finish, tee.plain)
		require.True(t, tee.finished(), "reads of %d bytes: error %q, done %v, finish %v, plain %v", size, tee.errorMessage(), tee.done, tee.finish, tee.plain)
		require.True(t, tee.done, "reads of %d bytes: error %q, done %v, finish %v, plain %v", size, tee.errorMessage(), tee.done, tee.finish, tee.plain)
		require.True(t, tee.finish, "reads of %d bytes: error %q, done %v, finish %v, plain %v", size, tee.errorMessage(), tee.done, tee.finish, tee.plain)
		require.False(t, tee.plain, "reads of %d bytes: error %q, done %v, finish %v, plain %v", size, tee.errorMessage(), tee.done, tee.finish, tee.plain)
	}
	unfinished := &streamTee{}
	unfinished.write([]byte("data: " + chunk(`{"content":"a"}`, "") + "\n\n: keep-alive\n\n"))
	require.False(t, unfinished.finished(), "a stream without finish reason or [DONE] counts as finished")
	require.Equal(t, "", unfinished.errorMessage(), "a stream without finish reason or [DONE] counts as finished")
}

// TestStreamTeeSkipsOnlyFramesWithoutErrorOrFinish checks the cheap filter
// the tee uses before decoding a frame: text deltas (even ones quoting the
// keys) are skipped, an error or a finish reason is still seen however the
// server spaces its JSON.
func TestStreamTeeSkipsOnlyFramesWithoutErrorOrFinish(t *testing.T) {
	cases := map[string]bool{
		chunk(`{"content":"word"}`, ""):                                  false,
		chunk(`{"content":"say \"error\" and \"finish_reason\""}`, ""):   false,
		`{"choices":[{"delta":{"content":"a"},"finish_reason" : null}]}`: false,
		chunk(`{}`, "stop"): true,
		`{"choices":[{"delta":{},"finish_reason" :  "length"}]}`:        true,
		`{"choices":[{"finish_reason":null},{"finish_reason":"stop"}]}`: true,
		`{"error":"overloaded"}`:                                        true,
		`{"error" : {"message":"overloaded"}}`:                          true,
	}
	for frame, want := range cases {
		assert.Equal(t, want, frameMatters([]byte(frame)), "frame %s", frame)
		tee := &streamTee{}
		tee.write([]byte("data: " + frame + "\n\n"))
		assert.Equal(t, want, tee.finished() || tee.errorMessage() != "", "tee after frame %s", frame)
	}
	// Tool calls and thinking are decoded too; text naming them is not.
	for frame, want := range map[string]bool{
		`{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}`:       true,
		`{"choices":[{"delta":{"reasoning":"hmm"}}]}`:                true,
		`{"choices":[{"delta":{"reasoning_content":"hmm"}}]}`:        true,
		`{"choices":[{"delta":{"content":"tool_calls reasoning"}}]}`: false,
		`{"choices":[{"delta":{"content":"a \"tool_calls\""}}]}`:     false,
		`{"choices":[{"delta":{"content":"\"`:                        false,
	} {
		assert.Equal(t, want, frameMatters([]byte(frame)), "frame %s", frame)
	}
}
