package questions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
)

// journal records saves and emits in one sequence, to check "save before show".
type journal struct {
	mu      sync.Mutex
	entries []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.entries = append(j.entries, s)
	j.mu.Unlock()
}

func (j *journal) list() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.entries...)
}

// recordingStore keeps the latest saved copy of every card and can be told
// to fail.
type recordingStore struct {
	mu      sync.Mutex
	cards   map[string]*Card
	order   []string // ids in the order first saved
	saves   int
	fail    func(c *Card) error
	journal *journal
}

func newRecordingStore() *recordingStore { return &recordingStore{cards: map[string]*Card{}} }

func (s *recordingStore) SaveCard(_ context.Context, c *Card) error {
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail != nil {
		if err := fail(c); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saves++
	if _, ok := s.cards[c.ID]; !ok {
		s.order = append(s.order, c.ID)
	}
	s.cards[c.ID] = cloneCard(c)
	if s.journal != nil {
		s.journal.add("save " + string(c.Status))
	}
	return nil
}

func (s *recordingStore) setFail(f func(c *Card) error) {
	s.mu.Lock()
	s.fail = f
	s.mu.Unlock()
}

func (s *recordingStore) all() []*Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Card, 0, len(s.cards))
	for _, id := range s.order {
		out = append(out, cloneCard(s.cards[id]))
	}
	return out
}

func (s *recordingStore) get(id string) *Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneCard(s.cards[id])
}

func (s *recordingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves
}

var errDiskFull = errors.New("disk full")

// journalEmitter records events into the journal too.
type journalEmitter struct {
	*events.Recorder
	journal *journal
}

func (e journalEmitter) Emit(name string, payload any) {
	status := ""
	if c, ok := payload.(*Card); ok {
		status = " " + string(c.Status)
	}
	e.journal.add("emit " + name + status)
	e.Recorder.Emit(name, payload)
}

type harness struct {
	m      *Manager
	clock  *fakeClock
	store  *recordingStore
	rec    *events.Recorder
	logs   *syncBuffer
	events journal
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newHarness builds a manager on a fake clock with a recording store; edit
// tweaks the default config.
func newHarness(t testing.TB, edit func(*Config)) *harness {
	t.Helper()
	h := &harness{clock: newFakeClock(), store: newRecordingStore(), rec: events.NewRecorder(), logs: &syncBuffer{}}
	h.store.journal = &h.events
	cfg := DefaultConfig()
	cfg.Clock = h.clock
	cfg.Logger = slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if edit != nil {
		edit(&cfg)
	}
	h.m = NewManager(cfg, h.store, journalEmitter{Recorder: h.rec, journal: &h.events})
	t.Cleanup(h.m.Close)
	return h
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func sampleQuestions() []Question {
	return []Question{{
		Question:    "Which database?",
		Header:      "Database",
		Options:     []Option{{Label: "Postgres"}, {Label: "SQLite", Description: "Embedded"}},
		AllowCustom: true,
	}}
}

func (h *harness) create(t testing.TB, conv string) *Card {
	t.Helper()
	c, err := h.m.Create(context.Background(), AskRequest{ConversationID: conv, RunID: "run-1", ToolCallID: "call-1", Questions: sampleQuestions()})
	require.NoError(t, err, "Create(%s)", conv)
	return c
}

func submit(id string, label string) Response {
	return Response{QuestionID: id, Action: ActionSubmit, Answers: map[string]AnswerInput{"Which database?": {Selected: []string{label}}}}
}

// waitAsync runs Wait in a goroutine and returns a channel with its result.
type waitResult struct {
	out Outcome
	err error
}

func waitAsync(ctx context.Context, m *Manager, id string) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		out, err := m.Wait(ctx, id)
		ch <- waitResult{out, err}
	}()
	return ch
}

func receive(t testing.TB, ch <-chan waitResult) waitResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		require.FailNow(t, "Wait did not return")
		return waitResult{}
	}
}

func statusOf(t testing.TB, m *Manager, id string) Status {
	t.Helper()
	c, ok := m.Get(id)
	require.True(t, ok, "card %s not found", id)
	return c.Status
}

func mustEqual[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	require.Equal(t, want, got, what)
}

func str(v any) string { return fmt.Sprint(v) }
