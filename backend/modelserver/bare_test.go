package modelserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
)

// bareClient is langchaingo's llms/openai with nothing of ours in between:
// proof that what the server streams is what that client expects.
func bareClient(t *testing.T, srv *modelserver.Server) *openai.LLM {
	t.Helper()
	c, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("none"), openai.WithModel("test-model"))
	require.NoError(t, err)
	return c
}

func TestBareLangchaingoParsesTwoParallelToolCallsInPieces(t *testing.T) {
	calls := []modelserver.ToolCall{
		{ID: "call_1", Name: "ask_user_question", Arguments: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`},
		{ID: "call_2", Name: "calculator", Arguments: `{"expression":"(2 + 3) * 4"}`},
	}
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Two things at once.", ToolCalls: calls}))
	var chunks []string
	resp, err := bareClient(t, srv).GenerateContent(testCtx(t),
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")},
		llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "calculator", Parameters: map[string]any{"type": "object"}}}}),
		llms.WithStreamingFunc(func(_ context.Context, b []byte) error { chunks = append(chunks, string(b)); return nil }))
	require.NoError(t, err)
	require.Len(t, resp.Choices, 1, "choices")
	c := resp.Choices[0]
	require.Equal(t, "Two things at once.", c.Content, "choice %+v", c)
	require.Equal(t, "tool_calls", c.StopReason, "choice %+v", c)
	require.Len(t, c.ToolCalls, 2, "choice %+v", c)
	for i, want := range calls {
		got := c.ToolCalls[i]
		require.Equal(t, want.ID, got.ID, "call %d = %+v (%+v), want %+v", i, got, got.FunctionCall, want)
		require.Equal(t, "function", got.Type, "call %d = %+v (%+v), want %+v", i, got, got.FunctionCall, want)
		require.NotNil(t, got.FunctionCall, "call %d = %+v, want %+v", i, got, want)
		require.Equal(t, want.Name, got.FunctionCall.Name, "call %d = %+v (%+v), want %+v", i, got, got.FunctionCall, want)
		require.Equal(t, want.Arguments, got.FunctionCall.Arguments, "call %d = %+v (%+v), want %+v", i, got, got.FunctionCall, want)
	}
	// The arguments really came in pieces: the streaming func saw more
	// tool-call deltas than there are calls.
	toolChunks := 0
	for _, ch := range chunks {
		if strings.HasPrefix(ch, "[{") {
			toolChunks++
		}
	}
	require.GreaterOrEqual(t, toolChunks, 2*len(calls), "tool-call chunks for %d calls: %q", len(calls), chunks)
	require.Equal(t, 12, c.GenerationInfo["TotalTokens"], "usage chunk not seen: %v", c.GenerationInfo)
}

func TestBareLangchaingoNonStreaming(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Sure.", ToolCalls: []modelserver.ToolCall{{ID: "call_9", Name: "current_time", Arguments: "{}"}}}))
	resp, err := bareClient(t, srv).GenerateContent(testCtx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "time?")})
	require.NoError(t, err)
	c := resp.Choices[0]
	require.Equal(t, "Sure.", c.Content, "choice %+v", c)
	require.Len(t, c.ToolCalls, 1, "choice %+v", c)
	require.Equal(t, "call_9", c.ToolCalls[0].ID, "choice %+v", c)
	require.Equal(t, "current_time", c.ToolCalls[0].FunctionCall.Name, "choice %+v", c)
}

func TestErrorFrameAfterPartialText(t *testing.T) {
	const text = "Starting a long answer that the server gives up on"
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: text, Fault: modelserver.ErrorFrame, Body: "KV cache full"}))
	resp, rec, err := chatRecording(t, newModel(t, srv), llm.Request{Messages: user("hi")})
	var le *fault.Error
	require.ErrorAs(t, err, &le)
	require.Equal(t, llm.KindStream, le.Code, "error %v", err)
	require.Contains(t, le.Error(), "KV cache full", "error %v", err)
	require.NotEmpty(t, resp.Text, "partial text, deltas %q", rec.deltas)
	require.True(t, strings.HasPrefix(text, resp.Text), "partial %q, deltas %q", resp.Text, rec.deltas)
	require.Less(t, len(resp.Text), len(text), "partial %q, deltas %q", resp.Text, rec.deltas)
	require.Equal(t, resp.Text, strings.Join(rec.deltas, ""), "partial %q, deltas %q", resp.Text, rec.deltas)
}

func TestStallMidStreamHoldsUntilCancelled(t *testing.T) {
	const text = "one two three four five six"
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: text, Fault: modelserver.StallMidStream}))
	m := newModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	firstDelta := make(chan struct{})
	type result struct {
		resp llm.Response
		err  error
	}
	out := make(chan result, 1)
	go func() {
		var once bool
		resp, err := m.Chat(ctx, llm.Request{Messages: user("hi"), OnDelta: func(string) {
			if !once {
				once = true
				close(firstDelta)
			}
		}})
		out <- result{resp, err}
	}()
	select {
	case <-firstDelta:
	case r := <-out:
		require.FailNow(t, "Chat returned before stalling", "%+v, %v", r.resp, r.err)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no delta before the stall")
	}
	cancel()
	select {
	case r := <-out:
		require.ErrorIs(t, r.err, context.Canceled, "after cancel: %+v", r.resp)
		require.NotEmpty(t, r.resp.Text, "after cancel: %+v, %v", r.resp, r.err)
		require.True(t, strings.HasPrefix(text, r.resp.Text), "after cancel: %+v, %v", r.resp, r.err)
		require.NotEqual(t, text, r.resp.Text, "after cancel: %+v, %v", r.resp, r.err)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "Chat did not return after cancel")
	}
}

func TestWaitRequests(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "a"}, modelserver.Turn{Text: "b"}))
	m := newModel(t, srv)
	done := make(chan error, 1)
	go func() {
		_, err := m.Chat(testCtx(t), llm.Request{Messages: user("one")})
		if err == nil {
			_, err = m.Chat(testCtx(t), llm.Request{Messages: user("two")})
		}
		done <- err
	}()
	reqs, err := srv.WaitRequests(testCtx(t), 2)
	require.NoError(t, err, "%+v", reqs)
	require.GreaterOrEqual(t, len(reqs), 2, "%+v", reqs)
	require.Equal(t, "two", reqs[1].LastMessage().Content, "%+v", reqs)
	require.NoError(t, <-done)
	short, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err = srv.WaitRequests(short, 3)
	require.ErrorIs(t, err, context.DeadlineExceeded, "waiting for a request that never comes")
}
