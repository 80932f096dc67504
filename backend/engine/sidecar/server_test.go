package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/runner"
)

const secret = "s3cret"

func newServer(t *testing.T) (*Server, string) {
	t.Helper()
	backend, err := runner.Load(enginetest.LibDir(t))
	require.NoError(t, err)
	srv := New(Config{Secret: secret, ModelsFile: enginetest.Models(t, t.TempDir()), Backend: backend, Context: 2048, Threads: 1})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return srv, hs.URL
}

func post(t *testing.T, ctx context.Context, url, path string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, "POST", url+path, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return res
}

func chatBody(model string, stream bool, msgs ...map[string]any) map[string]any {
	return map[string]any{"model": model, "stream": stream, "temperature": 0, "messages": msgs}
}

func user(s string) map[string]any { return map[string]any{"role": "user", "content": s} }

func stream(t *testing.T, url string, body map[string]any) enginetest.Stream {
	t.Helper()
	res := post(t, context.Background(), url, "/v1/chat/completions", body)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	s, err := enginetest.ReadStream(res.Body, nil)
	require.NoError(t, err)
	return s
}

func TestStreamIsDeterministicAndEndsWithDone(t *testing.T) {
	_, url := newServer(t)
	first := stream(t, url, chatBody("fixed", true, user("Hi")))
	assert.Equal(t, enginetest.Answer, first.Text, "the fixture's fixed answer")
	assert.True(t, first.Done, "the stream ends with data: [DONE]")
	assert.True(t, first.FirstRole, "the first chunk carries the role, as llama.cpp's server streams")
	assert.Equal(t, "stop", first.Finish)
	assert.Greater(t, first.Chunks, 5, "the text comes in pieces")
	require.NotNil(t, first.Usage, "a usage chunk")
	assert.Positive(t, first.Usage["completion_tokens"], "usage counts the generated tokens")

	second := stream(t, url, chatBody("fixed", true, user("Hi")))
	assert.Equal(t, first.Text, second.Text, "the same request gives the same text")

	// Random weights: two requests, the second reusing the first's
	// evaluated prompt, give the same text as each other.
	a := stream(t, url, map[string]any{"model": "random", "stream": true, "temperature": 0, "max_tokens": 24, "messages": []any{user("Hello there")}})
	b := stream(t, url, map[string]any{"model": "random", "stream": true, "temperature": 0, "max_tokens": 24, "messages": []any{user("Hello there")}})
	assert.Equal(t, a.Text, b.Text, "a reused prefix decodes as a fresh one")
	assert.Equal(t, "length", a.Finish)
}

func TestPlainCompletion(t *testing.T) {
	_, url := newServer(t)
	res := post(t, context.Background(), url, "/v1/chat/completions", chatBody("fixed", false, user("Hi")))
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	var out struct {
		Object  string `json:"object"`
		Choices []struct {
			Message      struct{ Role, Content string } `json:"message"`
			FinishReason string                         `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	assert.Equal(t, "chat.completion", out.Object)
	require.Len(t, out.Choices, 1)
	assert.Equal(t, enginetest.Answer, out.Choices[0].Message.Content)
	assert.Equal(t, "stop", out.Choices[0].FinishReason)
	assert.Positive(t, out.Usage.PromptTokens)
	assert.Positive(t, out.Usage.CompletionTokens)
}

func TestNextTurnReusesTheEvaluatedPrefix(t *testing.T) {
	_, url := newServer(t)
	turn1 := []any{map[string]any{"role": "system", "content": strings.Repeat("You are a helpful assistant. ", 20)}, user("First question?")}
	s1 := stream(t, url, map[string]any{"model": "fixed", "stream": true, "temperature": 0, "messages": turn1})
	prompt1 := int(s1.Usage["prompt_tokens"].(float64))
	turn2 := append(turn1, map[string]any{"role": "assistant", "content": s1.Text}, user("Second question?"))
	s2 := stream(t, url, map[string]any{"model": "fixed", "stream": true, "temperature": 0, "messages": turn2})
	prompt2 := int(s2.Usage["prompt_tokens"].(float64))
	cached := int(s2.Usage["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64))
	assert.Greater(t, prompt2, prompt1)
	assert.GreaterOrEqual(t, cached, prompt1, "the whole first prompt is reused")
	assert.Less(t, prompt2-cached, prompt2-prompt1+len(s1.Text)+40, "the second turn evaluates only what is new")
	t.Logf("turn 1: %d prompt tokens; turn 2: %d, of which %d reused", prompt1, prompt2, cached)
}

func TestToolCallInTheTemplatesFormat(t *testing.T) {
	_, url := newServer(t)
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "ask_user_question",
		"description": "Ask the user", "parameters": map[string]any{"type": "object"}}}}
	s := stream(t, url, map[string]any{"model": "card", "stream": true, "temperature": 0, "tools": tools, "messages": []any{user("Pick for me")}})
	require.Len(t, s.Calls, 1, "the <tool_call> becomes a tool call")
	assert.Equal(t, "ask_user_question", s.Calls[0].Name)
	assert.NotEmpty(t, s.Calls[0].ID)
	var args map[string]any
	require.NoError(t, json.Unmarshal([]byte(s.Calls[0].Arguments), &args), s.Calls[0].Arguments)
	assert.Contains(t, args, "questions")
	assert.Equal(t, "Let me ask.", s.Text, "the text before the call stays text")
	assert.Equal(t, "tool_calls", s.Finish)

	// Without tools in the request, the same output is text (Parley's
	// text-form calls, SPEC §8, read it).
	plain := stream(t, url, map[string]any{"model": "card", "stream": true, "temperature": 0, "messages": []any{user("Pick for me")}})
	assert.Empty(t, plain.Calls)
	assert.Contains(t, plain.Text, "<tool_call>")
}

func TestCancelStopsGeneration(t *testing.T) {
	srv, url := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	res := post(t, ctx, url, "/v1/chat/completions", chatBody("loop", true, user("Sing")))
	s, err := enginetest.ReadStream(res.Body, func(text string) bool { return len(text) < 40 })
	require.NoError(t, err)
	require.False(t, s.Done, "the loop model does not end by itself")
	cancel()
	_ = res.Body.Close()
	require.Eventually(t, func() bool { return srv.cancelled.Load() == 1 && srv.active.Load() == 0 },
		10*time.Second, 5*time.Millisecond, "closing the request stops the generation")
	after := srv.generated.Load()
	// The counter no longer moves: a request that is done must see the
	// same count (the engine is free again and answers a new request).
	s2 := stream(t, url, chatBody("fixed", true, user("Hi")))
	assert.Equal(t, enginetest.Answer, s2.Text)
	assert.Equal(t, after+int64(s2.Usage["completion_tokens"].(float64)), srv.generated.Load(),
		"no token was generated for the cancelled request after it was cancelled")
}

func TestSecretAndUnknownModel(t *testing.T) {
	_, url := newServer(t)
	res, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"fixed","messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	assert.Equal(t, 401, res.StatusCode, "no secret, no answer")

	req, _ := http.NewRequest("GET", url+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer wrong")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 401, res.StatusCode, "a wrong secret is refused")

	req.Header.Set("Authorization", "Bearer "+secret)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&list))
	res.Body.Close()
	assert.Len(t, list.Data, 4)

	res = post(t, context.Background(), url, "/v1/chat/completions", chatBody("nope", true, user("Hi")))
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, 404, res.StatusCode)
	assert.Contains(t, string(body), `the model \"nope\" is not installed`)
}

func TestEmbeddings(t *testing.T) {
	_, url := newServer(t)
	res := post(t, context.Background(), url, "/v1/embeddings", map[string]any{"model": "random", "input": []string{"a car", "a car", "the weather"}})
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	var out struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
			Index     int       `json:"index"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	require.Len(t, out.Data, 3)
	assert.NotEmpty(t, out.Data[0].Embedding)
	assert.Equal(t, out.Data[0].Embedding, out.Data[1].Embedding, "the same text, the same vector")
	assert.NotEqual(t, out.Data[0].Embedding, out.Data[2].Embedding)
	assert.Equal(t, 2, out.Data[2].Index)
}
