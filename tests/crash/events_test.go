package crash

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// What the server announced.

type annMsg struct {
	id, conv, role, content string
	toolCalls               []string
	round                   int
}

type annCard struct {
	id, conv, status, toolCallID string
	round                        int
	via                          string
}

// statusRank orders card statuses: pending, then timed_out, then the final ones.
func statusRank(s string) int {
	switch s {
	case "pending":
		return 0
	case "timed_out":
		return 1
	}
	return 2
}

// recorder keeps everything the server announced, across all rounds.
type recorder struct {
	mu        sync.Mutex
	convs     map[string]int // conversation id -> round it was created in
	convOrder []string
	msgs      map[string]*annMsg
	cards     map[string]*annCard
	anomalies []string // contradictions inside what was announced
}

func newRecorder() *recorder {
	return &recorder{convs: map[string]int{}, msgs: map[string]*annMsg{}, cards: map[string]*annCard{}}
}

func (r *recorder) addConversation(id string, round int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.convs[id]; !ok {
		r.convs[id] = round
		r.convOrder = append(r.convOrder, id)
	}
}

func (r *recorder) conversations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.convOrder)
}

// observe records one SSE event.
func (r *recorder) observe(round int, ev sseEvent) {
	switch ev.Name {
	case "message:done":
		var p struct {
			ConversationID string     `json:"conversationId"`
			Message        apiMessage `json:"message"`
		}
		if json.Unmarshal(ev.Data, &p) != nil || p.Message.ID == "" {
			r.anomaly("round %d: unreadable message:done %s", round, ev.Data)
			return
		}
		conv := p.Message.ConversationID
		if conv == "" {
			conv = p.ConversationID
		}
		m := &annMsg{id: p.Message.ID, conv: conv, role: p.Message.Role, content: p.Message.Content, round: round}
		for _, tc := range p.Message.ToolCalls {
			m.toolCalls = append(m.toolCalls, tc.ID)
		}
		r.mu.Lock()
		if old, ok := r.msgs[m.id]; ok && (old.content != m.content || old.role != m.role) {
			r.anomalies = append(r.anomalies, fmt.Sprintf("round %d: message %s announced twice with different content", round, m.id))
		}
		r.msgs[m.id] = m
		r.mu.Unlock()
	case "question:ask", "question:resolved":
		var c apiCard
		if json.Unmarshal(ev.Data, &c) != nil || c.ID == "" {
			r.anomaly("round %d: unreadable %s %s", round, ev.Name, ev.Data)
			return
		}
		r.card(round, &c, ev.Name)
	}
}

// card records an announced card state (from an event or a /respond reply).
func (r *recorder) card(round int, c *apiCard, via string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.cards[c.ID]
	if !ok {
		r.cards[c.ID] = &annCard{id: c.ID, conv: c.ConversationID, status: c.Status, toolCallID: c.ToolCallID, round: round, via: via}
		return
	}
	switch {
	case statusRank(c.Status) > statusRank(old.status):
		old.status, old.round, old.via = c.Status, round, via
	case statusRank(c.Status) == 2 && statusRank(old.status) == 2 && c.Status != old.status:
		r.anomalies = append(r.anomalies, fmt.Sprintf("round %d: card %s announced as %s (%s) and as %s (%s): two answers won",
			round, c.ID, old.status, old.via, c.Status, via))
	}
}

func (r *recorder) anomaly(format string, args ...any) {
	r.mu.Lock()
	r.anomalies = append(r.anomalies, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) snapshot() (map[string]annMsg, map[string]annCard) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msgs := make(map[string]annMsg, len(r.msgs))
	for k, v := range r.msgs {
		msgs[k] = *v
	}
	cards := make(map[string]annCard, len(r.cards))
	for k, v := range r.cards {
		cards[k] = *v
	}
	return msgs, cards
}

// ---------------------------------------------------------------------------
// The event stream.

type sseEvent struct {
	Name string
	Data []byte
	Conv string
}

type sseStream struct {
	C      chan sseEvent // closed when the stream ends
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// openStream subscribes to /api/v1/events and returns once the server has
// registered the subscription (its ": connected" comment arrived). Every
// event is recorded before it is handed on.
func openStream(a *apiClient, rec *recorder, round int) (*sseStream, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/v1/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("subscribe to events: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("subscribe to events: status %d: %s", resp.StatusCode, b)
	}
	s := &sseStream{C: make(chan sseEvent, 1<<16), done: make(chan struct{}), cancel: cancel}
	connected := make(chan struct{})
	go func() {
		defer close(s.done)
		defer close(s.C)
		defer resp.Body.Close()
		br := bufio.NewReaderSize(resp.Body, 64<<10)
		var name string
		var data []byte
		once := sync.Once{}
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				// A partial event (cut by the kill) was never announced: dropped.
				s.err = err
				once.Do(func() { close(connected) })
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if name != "" {
					ev := sseEvent{Name: name, Data: data}
					var head struct {
						ConversationID string `json:"conversationId"`
					}
					_ = json.Unmarshal(data, &head)
					ev.Conv = head.ConversationID
					rec.observe(round, ev)
					s.C <- ev
				}
				name, data = "", nil
			case strings.HasPrefix(line, ":"):
				if strings.Contains(line, "connected") {
					once.Do(func() { close(connected) })
				}
			case strings.HasPrefix(line, "event:"):
				name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
			}
		}
	}()
	select {
	case <-connected:
	case <-time.After(startTimeout):
		cancel()
		return nil, errors.New("event stream sent no ': connected' line")
	}
	select {
	case <-s.done:
		return nil, fmt.Errorf("event stream ended at once: %v", s.err)
	default:
	}
	return s, nil
}

func (s *sseStream) close() {
	s.cancel()
	go func() {
		for range s.C {
		}
	}()
	<-s.done
}
