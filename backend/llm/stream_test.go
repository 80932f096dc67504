package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/modelserver"
	"github.com/stretchr/testify/require"
)

// Only real text reaches OnDelta: not the empty role chunk, not the
// marshalled tool-call deltas langchaingo passes to the streaming func.
func TestOnDeltaGetsOnlyText(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{
		Text: `Let me ask. A list [1, 2] and {"name":"Ada"} stay text.`,
		ToolCalls: []modelserver.ToolCall{
			{ID: "call_1", Name: "ask_user_question", Arguments: `{"questions":[{"question":"Which?","options":["A","B"]}]}`},
			{ID: "call_2", Name: "current_time", Arguments: `{"zone":"UTC"}`},
		},
	}))
	defer srv.Close()
	var deltas []string
	starts := 0
	resp, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), Request{
		Messages: hi(),
		Tools:    []Tool{{Name: "ask_user_question"}, {Name: "current_time"}},
		OnDelta: func(s string) {
			if starts > 0 {
				t.Errorf("text delta %q after the tool calls started", s)
			}
			deltas = append(deltas, s)
		},
		OnToolCallStart: func() { starts++ },
	})
	require.NoError(t, err)
	for _, d := range deltas {
		if d == "" || strings.Contains(d, `"function"`) || strings.Contains(d, "call_1") {
			t.Errorf("non-text delta %q", d)
		}
	}
	if len(deltas) < 3 || strings.Join(deltas, "") != resp.Text || resp.Text != `Let me ask. A list [1, 2] and {"name":"Ada"} stay text.` {
		t.Fatalf("deltas %q, text %q", deltas, resp.Text)
	}
	if starts != 1 || len(resp.ToolCalls) != 2 || resp.ToolCalls[0].ID != "call_1" || resp.ToolCalls[1].Arguments != `{"zone":"UTC"}` {
		t.Fatalf("starts %d, calls %+v", starts, resp.ToolCalls)
	}
}

// Cancelling while the server has not sent its first token returns the
// context's error at once, not a model error and not after the delay.
func TestCancelDuringSlowFirstToken(t *testing.T) {
	received := make(chan struct{})
	srv := modelserver.New(func(modelserver.ChatRequest) modelserver.Turn {
		close(received)
		return modelserver.Turn{Text: "too late", FirstTokenDelay: time.Minute}
	})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		resp Response
		err  error
	}
	m := newModel(t, srv.URL(), "m")
	out := make(chan result, 1)
	go func() {
		resp, err := m.Chat(ctx, Request{Messages: hi(), OnDelta: func(s string) { t.Errorf("delta %q", s) }})
		out <- result{resp, err}
	}()
	select {
	case <-received:
	case <-time.After(10 * time.Second):
		t.Fatal("the request never reached the server")
	}
	cancel()
	began := time.Now()
	select {
	case r := <-out:
		var le *Error
		if !errors.Is(r.err, context.Canceled) || errors.As(r.err, &le) || r.resp.Text != "" {
			t.Fatalf("after cancel: %+v, %v", r.resp, r.err)
		}
		if d := time.Since(began); d > 2*time.Second {
			t.Fatalf("returned %v after cancel", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Chat did not return after cancel")
	}
}

// An answer without text or tool calls is an "empty" error; an error frame
// langchaingo skipped is surfaced instead.
func TestEmptyAnswerAndSkippedErrorFrame(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{},
		modelserver.Turn{Fault: modelserver.ErrorFrame, Body: "out of memory"},
	))
	defer srv.Close()
	m := newModel(t, srv.URL(), "m")
	_, err := m.Chat(testCtx(t), Request{Messages: hi()})
	if le := asError(t, err); le.Kind != KindEmpty || !strings.HasPrefix(le.Message, "The model server returned an empty answer") {
		t.Fatalf("kind %q, message %q", le.Kind, le.Message)
	}
	_, err = m.Chat(testCtx(t), Request{Messages: hi()})
	if le := asError(t, err); !strings.Contains(le.Message, "out of memory") {
		t.Fatalf("kind %q, message %q", le.Kind, le.Message)
	}
}
