package assistant

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/chat"
)

// memoryHistory is an in-memory chat.History for tests, safe for concurrent use.
type memoryHistory struct {
	mu       sync.Mutex
	messages map[string][]chat.Message
	runs     map[string]chat.Run
}

// newmemoryHistory returns an empty memoryHistory.
func newMemoryHistory() *memoryHistory {
	return &memoryHistory{messages: map[string][]chat.Message{}, runs: map[string]chat.Run{}}
}

// Messages returns a copy of the conversation's messages.
func (h *memoryHistory) Messages(_ context.Context, conversationID string) ([]chat.Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]chat.Message(nil), h.messages[conversationID]...), nil
}

// AppendMessage stores a copy of m.
func (h *memoryHistory) AppendMessage(_ context.Context, m *chat.Message) error {
	if m.ConversationID == "" {
		return errors.New("append message: empty conversation id")
	}
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.messages[m.ConversationID] = append(h.messages[m.ConversationID], *m)
	return nil
}

// SaveRun stores a copy of r.
func (h *memoryHistory) SaveRun(_ context.Context, r *chat.Run) error {
	if r.ID == "" {
		return errors.New("save run: empty id")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.runs[r.ID] = *r
	return nil
}

// Run returns a stored run.
func (h *memoryHistory) Run(id string) (chat.Run, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.runs[id]
	return r, ok
}

// forget drops a conversation's messages and runs.
func (h *memoryHistory) forget(conversationID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.messages, conversationID)
	for id, r := range h.runs {
		if r.ConversationID == conversationID {
			delete(h.runs, id)
		}
	}
}
