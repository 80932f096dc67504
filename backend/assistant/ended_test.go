package assistant

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// A client that starts the next run as soon as it sees a run's final state
// (the crash test sends its next message on the idle event) must not be
// refused because the ended run's goroutine has not quite returned yet: once
// the final state is announced, the conversation takes a new run. The idle
// event of the first run is held here, so its goroutine is exactly between
// announcing the end and returning.
func TestNewRunAcceptedOnceTheFinalStateIsAnnounced(t *testing.T) {
	held := make(chan struct{})
	release := make(chan struct{})
	var once, releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(letGo)
	hold := func(o *Options, _ *questions.Config) {
		inner := o.Events
		o.Events = events.EmitterFunc(func(name string, payload any) {
			inner.Emit(name, payload)
			if s, ok := payload.(StateInfo); ok && name == events.ConversationState && s.State == chat.StateIdle {
				once.Do(func() {
					close(held)
					<-release
				})
			}
		})
	}
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "first"}, modelserver.Turn{Text: "second"}), hold)
	first := h.start("one")
	select {
	case <-held:
	case <-time.After(15 * time.Second):
		require.Failf(t, "run not idle", "the first run never went idle; events %v", h.rec.Names())
	}
	assert.Equal(t, chat.StateIdle, h.rt.State(conv).State)
	assert.False(t, h.rt.Active(conv), "the conversation still counts as busy after its run announced idle")

	started := make(chan error, 1)
	go func() {
		_, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: "two"})
		started <- err
	}()
	letGo()
	require.NoError(t, <-started, "a message sent on the idle event was refused")
	st := h.waitDone()
	assert.Equal(t, chat.StateIdle, st.State)
	assert.NotEqual(t, first, st.RunID, "the second run's state")
	msgs := h.messages()
	require.Len(t, msgs, 4)
	assert.Equal(t, "second", msgs[3].Content)
	r, ok := h.history.Run(first)
	require.True(t, ok)
	assert.Equal(t, chat.RunCompleted, r.Status)
}

// slowHistory holds every Messages call until released, like a busy disk.
type slowHistory struct {
	chat.History
	release chan struct{}
}

func (s *slowHistory) Messages(ctx context.Context, id string) ([]chat.Message, error) {
	<-s.release
	return s.History.Messages(ctx, id)
}

// A run that has started never shows as idle, even before its goroutine has
// read the history: a client that loads the conversation right after sending
// (or after a restart that continued a run) sees it working, not an idle
// conversation with an unanswered message.
func TestStartedRunIsNotShownIdle(t *testing.T) {
	slow := &slowHistory{release: make(chan struct{})}
	var once sync.Once
	letGo := func() { once.Do(func() { close(slow.release) }) }
	t.Cleanup(letGo)
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "hello"}), func(o *Options, _ *questions.Config) {
		slow.History = o.History
		o.History = slow
	})
	runID := h.start("hi")
	st := h.rt.State(conv)
	assert.Equal(t, chat.StateRequesting, st.State, "state right after Start")
	assert.Equal(t, runID, st.RunID)
	assert.True(t, h.rt.Active(conv))
	letGo()
	assert.Equal(t, chat.StateIdle, h.waitDone().State)
}
