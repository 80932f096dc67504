package events

import (
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/parley-app/parley/backend/nonnil"
	"github.com/parley-app/parley/backend/trace"
)

// Broker fans events out to any number of subscribers (SSE clients). It
// marshals each payload once. A subscriber that falls behind by more than its
// buffer is dropped rather than slowing the app down; it reconnects and
// reloads state.
type Broker struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	buffer int
}

// Message is one marshalled event as sent to a subscriber.
type Message struct {
	Name string
	Data []byte
	// ConversationID is the payload's conversationId, for filtering.
	ConversationID string
	// TraceKey is the card's id of a question:ask while tracing (see
	// backend/trace), so that the SSE writer marks its hop.
	TraceKey string
}

// Subscription receives events until Close or until it is dropped (then C is closed).
type Subscription struct {
	C      <-chan Message
	c      chan Message
	broker *Broker
	once   sync.Once
}

// NewBroker returns a broker whose subscribers buffer up to buffer events.
func NewBroker(buffer int) *Broker {
	if buffer <= 0 {
		buffer = 256
	}
	return &Broker{subs: map[*Subscription]struct{}{}, buffer: buffer}
}

// Subscribe adds a subscriber.
func (b *Broker) Subscribe() *Subscription {
	c := make(chan Message, b.buffer)
	s := &Subscription{C: c, c: c, broker: b}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Close removes the subscriber and closes its channel.
func (s *Subscription) Close() {
	s.broker.mu.Lock()
	delete(s.broker.subs, s)
	s.broker.mu.Unlock()
	s.once.Do(func() { close(s.c) })
}

// Subscribers reports how many subscribers are connected.
func (b *Broker) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Emit implements Emitter.
func (b *Broker) Emit(name string, payload any) {
	var traceKey string
	if trace.Enabled() {
		traceKey = TraceKey(name, payload)
		trace.Mark(traceKey, trace.HopEmitted)
	}
	if b.Subscribers() == 0 {
		// The window gets its events from Wails; without an SSE client
		// (parley serve's page, an agent) nothing here needs the JSON.
		return
	}
	data, err := json.Marshal(nonnil.Any(payload)) // [] where the UI's type says T[], never null
	if err != nil {
		slog.Error("marshal event", "event", name, "err", err)
		return
	}
	msg := Message{Name: name, Data: data, ConversationID: conversationOf(payload, data), TraceKey: traceKey}

	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.c <- msg:
		default:
			slog.Warn("event subscriber too slow, dropping it", "event", name)
			delete(b.subs, s)
			s.once.Do(func() { close(s.c) })
		}
	}
}
