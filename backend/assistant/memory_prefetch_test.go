package assistant

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// fakeMemory is a Memory whose block lists one memory; it records what
// runs asked of it.
type fakeMemory struct {
	mu       sync.Mutex
	prompts  []string // the user's messages Prompt was asked for
	prompted chan struct{}
	used     [][]string
	after    []<-chan struct{}
	// closedAtMark: an after was closed already when Used got it.
	closedAtMark bool
}

const fakeBlock = "What you know about the user:\n- Likes blue."

func newFakeMemory() *fakeMemory { return &fakeMemory{prompted: make(chan struct{})} }

func (m *fakeMemory) On() bool { return true }

func (m *fakeMemory) Prompt(_ context.Context, _, userMessage string) (string, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prompts = append(m.prompts, userMessage)
	if len(m.prompts) == 1 {
		close(m.prompted)
	}
	return fakeBlock, []string{"m1"}
}

func (m *fakeMemory) Used(ids []string, after <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used = append(m.used, ids)
	m.after = append(m.after, after)
	select {
	case <-after:
		m.closedAtMark = true
	default:
	}
}

func (m *fakeMemory) AutoAnswer(context.Context, questions.AskRequest) (*questions.Card, error) {
	return nil, nil
}

func (m *fakeMemory) Keep(context.Context, string, string) error { return nil }

func (m *fakeMemory) state() (prompts []string, used [][]string, after []<-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.prompts...), append([][]string(nil), m.used...), append([]<-chan struct{}(nil), m.after...)
}

// storingHistory is a memoryHistory whose storing of the user's turn can
// wait for the memory block, or fail.
type storingHistory struct {
	*memoryHistory
	mem        *fakeMemory
	fail       bool
	mu         sync.Mutex
	beforeTurn bool // the block was being made before the user's turn was stored
}

func (h *storingHistory) AppendMessage(ctx context.Context, m *chat.Message) error {
	if m.Role == chat.RoleUser {
		select {
		case <-h.mem.prompted:
			h.mu.Lock()
			h.beforeTurn = true
			h.mu.Unlock()
		case <-time.After(10 * time.Second): // only when the block is made after the turn is stored
		}
		if h.fail {
			return errors.New("disk full")
		}
	}
	return h.memoryHistory.AppendMessage(ctx, m)
}

// The memory block of a run started by the user's message is made beside
// storing that message (issue #41: it is off the path to the model
// request), goes into the system prompt, and its memories are marked used
// once, to be stored when the run ends.
func TestMemoryBlockIsMadeWhileTheTurnIsStored(t *testing.T) {
	mem := newFakeMemory()
	var history *storingHistory
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Blue, then."}), func(o *Options, _ *questions.Config) {
		history = &storingHistory{memoryHistory: o.History.(*memoryHistory), mem: mem}
		o.History, o.Memory = history, mem
	})
	_, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: "Which colour?"})
	require.NoError(t, err)
	<-h.rt.Done(conv)

	history.mu.Lock()
	assert.True(t, history.beforeTurn, "the block was being made while the user's turn was stored")
	history.mu.Unlock()
	prompts, used, after := mem.state()
	assert.Equal(t, []string{"Which colour?"}, prompts, "one block a run, for the user's message")
	assert.Equal(t, [][]string{{"m1"}}, used, "its memories marked used once")
	require.Len(t, after, 1)
	mem.mu.Lock()
	assert.False(t, mem.closedAtMark, "to be stored once the run has ended, not at once")
	mem.mu.Unlock()
	select {
	case <-after[0]: // the run has ended: the marks may be stored
	default:
		assert.Fail(t, "the run has ended but the marks still wait")
	}
	reqs := h.server.Requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].Messages[0].Content, fakeBlock, "the block is in the system prompt")
}

// A run that could not store the user's turn sent nothing: the block
// made for it marks no memory used.
func TestMemoryBlockOfARunThatDidNotStartMarksNothing(t *testing.T) {
	mem := newFakeMemory()
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "never"}), func(o *Options, _ *questions.Config) {
		o.History, o.Memory = &storingHistory{memoryHistory: o.History.(*memoryHistory), mem: mem, fail: true}, mem
	})
	_, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: "Which colour?"})
	require.Error(t, err)
	select {
	case <-mem.prompted: // the block was made (and Prompt returned): a mark would be in
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no block made")
	}
	require.Eventually(t, func() bool { p, _, _ := mem.state(); return len(p) == 1 }, 10*time.Second, time.Millisecond)
	_, used, _ := mem.state()
	assert.Empty(t, used)
	assert.Empty(t, h.server.Requests())
}

// A run without a new message of the user's (a retry) makes its block
// when it builds its first request, from the last message.
func TestMemoryBlockOfARetry(t *testing.T) {
	mem := newFakeMemory()
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Blue, then."}), func(o *Options, _ *questions.Config) { o.Memory = mem })
	require.NoError(t, h.history.AppendMessage(context.Background(), &chat.Message{ConversationID: conv, Role: chat.RoleUser, Content: "Which colour?"}))
	_, err := h.rt.Start(StartRequest{ConversationID: conv})
	require.NoError(t, err)
	<-h.rt.Done(conv)
	prompts, used, _ := mem.state()
	assert.Equal(t, []string{"Which colour?"}, prompts)
	assert.Equal(t, [][]string{{"m1"}}, used)
	reqs := h.server.Requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].Messages[0].Content, fakeBlock)
}
