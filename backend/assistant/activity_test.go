package assistant

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// activityLog keeps what OnActivity was last told.
type activityLog struct {
	mu               sync.Mutex
	working, waiting int
}

func (a *activityLog) set(working, waiting int) {
	a.mu.Lock()
	a.working, a.waiting = working, waiting
	a.mu.Unlock()
}

func (a *activityLog) get() (int, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.working, a.waiting
}

// turnWatcher notes the activity OnActivity had said when the user's turn
// was stored.
type turnWatcher struct {
	chat.History
	activity *activityLog
	mu       sync.Mutex
	atTurn   []int // working, when each user turn was stored
}

func (w *turnWatcher) AppendMessage(ctx context.Context, m *chat.Message) error {
	if m.Role == chat.RoleUser {
		working, _ := w.activity.get()
		w.mu.Lock()
		w.atTurn = append(w.atTurn, working)
		w.mu.Unlock()
	}
	return w.History.AppendMessage(ctx, m)
}

// Issue #42: background work gives way from the moment the user sends, not
// once the user's turn is stored (on a busy disk that write waits for the
// index's transaction, and the index would go on beside it): OnActivity
// counts the run as working before its turn is written, and the count goes
// back to none when the run has ended.
func TestActivityCountsARunFromItsStart(t *testing.T) {
	activity := &activityLog{}
	watcher := &turnWatcher{activity: activity}
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "hello"}), func(o *Options, _ *questions.Config) {
		watcher.History = o.History
		o.History = watcher
		o.OnActivity = activity.set
	})
	h.start("hi")
	assert.Equal(t, chat.StateIdle, h.waitDone().State)
	watcher.mu.Lock()
	atTurn := watcher.atTurn
	watcher.mu.Unlock()
	require.Equal(t, []int{1}, atTurn, "working when the user's turn was stored")
	working, waiting := activity.get()
	require.Zero(t, working, "working after the run ended")
	require.Zero(t, waiting)
}

// A start that fails before its run begins (its turn cannot be stored)
// leaves nothing counted as working.
func TestActivityOfAFailedStartGoesBack(t *testing.T) {
	activity := &activityLog{}
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "hello"}), func(o *Options, _ *questions.Config) {
		o.History = failingAppend{o.History}
		o.OnActivity = activity.set
	})
	_, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: "hi"})
	require.Error(t, err)
	working, waiting := activity.get()
	require.Zero(t, working, "working after the failed start")
	require.Zero(t, waiting)
}

// failingAppend refuses every message.
type failingAppend struct{ chat.History }

func (failingAppend) AppendMessage(context.Context, *chat.Message) error {
	return assert.AnError
}
