package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/modelserver"
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
			assert.LessOrEqual(t, starts, 0, "text delta %q after the tool calls started", s)
			deltas = append(deltas, s)
		},
		OnToolCallStart: func() { starts++ },
	})
	require.NoError(t, err)
	for _, d := range deltas {
		assert.NotEqual(t, "", d, "non-text delta %q", d)
		assert.NotContains(t, d, `"function"`, "non-text delta %q", d)
		assert.NotContains(t, d, "call_1", "non-text delta %q", d)
	}
	require.GreaterOrEqual(t, len(deltas), 3, "deltas %q, text %q", deltas, resp.Text)
	require.Equal(t, resp.Text, strings.Join(deltas, ""), "deltas %q, text %q", deltas, resp.Text)
	require.Equal(t, `Let me ask. A list [1, 2] and {"name":"Ada"} stay text.`, resp.Text, "deltas %q, text %q", deltas, resp.Text)
	require.Equal(t, 1, starts, "starts %d, calls %+v", starts, resp.ToolCalls)
	require.Len(t, resp.ToolCalls, 2, "starts %d, calls %+v", starts, resp.ToolCalls)
	require.Equal(t, "call_1", resp.ToolCalls[0].ID, "starts %d, calls %+v", starts, resp.ToolCalls)
	require.Equal(t, `{"zone":"UTC"}`, resp.ToolCalls[1].Arguments, "starts %d, calls %+v", starts, resp.ToolCalls)
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
		resp, err := m.Chat(ctx, Request{Messages: hi(), OnDelta: func(s string) { assert.Failf(t, "unexpected delta", "delta %q", s) }})
		out <- result{resp, err}
	}()
	select {
	case <-received:
	case <-time.After(10 * time.Second):
		require.Fail(t, "the request never reached the server")
	}
	cancel()
	began := time.Now()
	select {
	case r := <-out:
		var le *fault.Error
		require.ErrorIs(t, r.err, context.Canceled, "after cancel: %+v, %v", r.resp, r.err)
		require.False(t, errors.As(r.err, &le), "after cancel: %+v, %v", r.resp, r.err)
		require.Equal(t, "", r.resp.Text, "after cancel: %+v, %v", r.resp, r.err)
		d := time.Since(began)
		require.LessOrEqual(t, d, 2*time.Second, "returned %v after cancel", d)
	case <-time.After(10 * time.Second):
		require.Fail(t, "Chat did not return after cancel")
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
	le := asError(t, err)
	require.Equal(t, KindEmpty, le.Code, "kind %q, message %q", le.Code, le.Error())
	require.True(t, strings.HasPrefix(le.Error(), "The model server returned an empty answer"), "kind %q, message %q", le.Code, le.Error())
	_, err = m.Chat(testCtx(t), Request{Messages: hi()})
	le = asError(t, err)
	require.Contains(t, le.Error(), "out of memory", "kind %q, message %q", le.Code, le.Error())
}
