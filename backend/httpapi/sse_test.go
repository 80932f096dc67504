package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
)

// burstWriter is an SSE client's end of the stream that records what each
// Flush sent, and holds the first event's write until released (so that
// more events queue up meanwhile).
type burstWriter struct {
	header  http.Header
	holding chan struct{} // closed once the first event's write is held
	release chan struct{} // closed to let it go on
	once    sync.Once

	mu      sync.Mutex
	pending bytes.Buffer
	flushes []string
}

func newBurstWriter() *burstWriter {
	return &burstWriter{header: http.Header{}, holding: make(chan struct{}), release: make(chan struct{})}
}

func (w *burstWriter) Header() http.Header { return w.header }
func (w *burstWriter) WriteHeader(int)     {}

func (w *burstWriter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("event: ")) {
		w.once.Do(func() {
			close(w.holding)
			<-w.release
		})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending.Write(p)
}

func (w *burstWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushes = append(w.flushes, w.pending.String())
	w.pending.Reset()
}

func (w *burstWriter) sent() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.flushes...)
}

// Events that are already waiting when the stream writes go out together,
// in order, in one write to the client (a run's burst: its stored message,
// its state and its card reach the page as one piece, not one each), and
// the conversation filter still applies to each.
func TestEventsQueuedTogetherAreSentInOneFlush(t *testing.T) {
	s, _, broker := newTestServer(t, &fakeBackend{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/events?conversationId=c1", nil).WithContext(ctx)
	req.Host = "127.0.0.1:7000"
	req.Header.Set("Authorization", "Bearer "+testToken)
	w := newBurstWriter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeHTTP(w, req)
	}()
	require.Eventually(t, func() bool { return broker.Subscribers() == 1 && len(w.sent()) == 1 }, 5*time.Second, time.Millisecond, "the stream did not start")
	require.Equal(t, []string{": connected\n\n"}, w.sent())

	broker.Emit(events.MessageDelta, map[string]string{"conversationId": "c1", "delta": "a"})
	select {
	case <-w.holding:
	case <-time.After(5 * time.Second):
		require.FailNow(t, "the first event was not written")
	}
	// Queued while the first one is being written (Emit hands each to the subscriber before it returns).
	broker.Emit(events.MessageDelta, map[string]string{"conversationId": "other", "delta": "x"})
	broker.Emit(events.MessageDelta, map[string]string{"conversationId": "c1", "delta": "b"})
	broker.Emit(events.ConversationState, map[string]string{"conversationId": "c1", "state": "awaiting_user_response"})
	close(w.release)

	require.Eventually(t, func() bool { return len(w.sent()) >= 2 }, 5*time.Second, time.Millisecond, "nothing flushed after the first event")
	want := strings.Join([]string{
		"event: message:delta\ndata: {\"conversationId\":\"c1\",\"delta\":\"a\"}\n\n",
		"event: message:delta\ndata: {\"conversationId\":\"c1\",\"delta\":\"b\"}\n\n",
		"event: conversation:state\ndata: {\"conversationId\":\"c1\",\"state\":\"awaiting_user_response\"}\n\n",
	}, "")
	require.Equal(t, want, w.sent()[1], "the burst after the held write, in one flush")

	// A later event, alone, is flushed on its own.
	broker.Emit(events.MessageDelta, map[string]string{"conversationId": "c1", "delta": "c"})
	require.Eventually(t, func() bool { return len(w.sent()) >= 3 }, 5*time.Second, time.Millisecond, "a later event was not sent")
	require.Equal(t, "event: message:delta\ndata: {\"conversationId\":\"c1\",\"delta\":\"c\"}\n\n", w.sent()[2])

	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		require.FailNow(t, "the stream did not end with its request")
	}
}
