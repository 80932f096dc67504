package chat

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// MemoryHistory is an in-memory History, safe for concurrent use.
type MemoryHistory struct {
	mu       sync.Mutex
	messages map[string][]Message
	runs     map[string]Run
}

// NewMemoryHistory returns an empty MemoryHistory.
func NewMemoryHistory() *MemoryHistory {
	return &MemoryHistory{messages: map[string][]Message{}, runs: map[string]Run{}}
}

// Messages returns a copy of the conversation's messages.
func (h *MemoryHistory) Messages(_ context.Context, conversationID string) ([]Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Message(nil), h.messages[conversationID]...), nil
}

// AppendMessage stores a copy of m.
func (h *MemoryHistory) AppendMessage(_ context.Context, m *Message) error {
	if m.ConversationID == "" {
		return fmt.Errorf("append message: empty conversation id")
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
func (h *MemoryHistory) SaveRun(_ context.Context, r *Run) error {
	if r.ID == "" {
		return fmt.Errorf("save run: empty id")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.runs[r.ID] = *r
	return nil
}

// Run returns a stored run.
func (h *MemoryHistory) Run(id string) (Run, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.runs[id]
	return r, ok
}
