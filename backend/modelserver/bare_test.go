package modelserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
)

// bareClient is langchaingo's llms/openai with nothing of ours in between:
// proof that what the server streams is what that client expects.
func bareClient(t *testing.T, srv *modelserver.Server) *openai.LLM {
	t.Helper()
	c, err := openai.New(openai.WithBaseURL(srv.URL()), openai.WithToken("none"), openai.WithModel("test-model"))
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("%d choices", len(resp.Choices))
	}
	c := resp.Choices[0]
	if c.Content != "Two things at once." || c.StopReason != "tool_calls" || len(c.ToolCalls) != 2 {
		t.Fatalf("choice %+v", c)
	}
	for i, want := range calls {
		got := c.ToolCalls[i]
		if got.ID != want.ID || got.Type != "function" || got.FunctionCall == nil ||
			got.FunctionCall.Name != want.Name || got.FunctionCall.Arguments != want.Arguments {
			t.Fatalf("call %d = %+v (%+v), want %+v", i, got, got.FunctionCall, want)
		}
	}
	// The arguments really came in pieces: the streaming func saw more
	// tool-call deltas than there are calls.
	toolChunks := 0
	for _, ch := range chunks {
		if strings.HasPrefix(ch, "[{") {
			toolChunks++
		}
	}
	if toolChunks < 2*len(calls) {
		t.Fatalf("%d tool-call chunks for %d calls: %q", toolChunks, len(calls), chunks)
	}
	if u := c.GenerationInfo["TotalTokens"]; u != 12 {
		t.Fatalf("usage chunk not seen: %v", c.GenerationInfo)
	}
}

func TestBareLangchaingoNonStreaming(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "Sure.", ToolCalls: []modelserver.ToolCall{{ID: "call_9", Name: "current_time", Arguments: "{}"}}}))
	resp, err := bareClient(t, srv).GenerateContent(testCtx(t), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "time?")})
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Choices[0]
	if c.Content != "Sure." || len(c.ToolCalls) != 1 || c.ToolCalls[0].ID != "call_9" || c.ToolCalls[0].FunctionCall.Name != "current_time" {
		t.Fatalf("choice %+v", c)
	}
}

func TestErrorFrameAfterPartialText(t *testing.T) {
	const text = "Starting a long answer that the server gives up on"
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: text, Fault: modelserver.ErrorFrame, Body: "KV cache full"}))
	resp, rec, err := chatRecording(t, newModel(t, srv), llm.Request{Messages: user("hi")})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindStream || !strings.Contains(le.Message, "KV cache full") {
		t.Fatalf("error %v", err)
	}
	if resp.Text == "" || !strings.HasPrefix(text, resp.Text) || len(resp.Text) >= len(text) || strings.Join(rec.deltas, "") != resp.Text {
		t.Fatalf("partial %q, deltas %q", resp.Text, rec.deltas)
	}
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
		t.Fatalf("Chat returned before stalling: %+v, %v", r.resp, r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("no delta before the stall")
	}
	cancel()
	select {
	case r := <-out:
		if !errors.Is(r.err, context.Canceled) || r.resp.Text == "" || !strings.HasPrefix(text, r.resp.Text) || r.resp.Text == text {
			t.Fatalf("after cancel: %+v, %v", r.resp, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Chat did not return after cancel")
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
	if err != nil || len(reqs) < 2 || reqs[1].LastMessage().Content != "two" {
		t.Fatalf("%+v, %v", reqs, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := srv.WaitRequests(short, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for a request that never comes: %v", err)
	}
}
