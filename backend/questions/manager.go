package questions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
)

// Errors of the Manager (*fault.Error); answers failing validation and bad
// tool input are of kind fault.Validation.
var (
	// ErrNotFound: unknown card, or a card of another conversation (HTTP 404).
	ErrNotFound error = fault.Newf(fault.NotFound, "question not found")
	// ErrConflict: the card is no longer pending; the first answer stands (HTTP 409).
	ErrConflict error = fault.Newf(fault.Conflict, "question is no longer pending")
	// ErrClosed: the manager was closed (the app is shutting down). It wraps
	// context.Canceled so callers treat it like a cancelled context.
	ErrClosed = fmt.Errorf("question manager closed: %w", context.Canceled)
	// ErrTooManyPending: the pending cap is reached.
	ErrTooManyPending = errors.New("too many pending questions")
)

// RateLimitError is returned by Create when the conversation asked too
// recently; its text is the tool result the model receives.
type RateLimitError struct{ Wait time.Duration }

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("rate limited: wait %.1fs before asking again", e.Seconds())
}

// Seconds is the wait in seconds, rounded up to a tenth (waiting that
// long always suffices).
func (e *RateLimitError) Seconds() float64 {
	const step = 100 * time.Millisecond
	return float64((e.Wait+step-1)/step) / 10
}

// PendingCapError is ErrTooManyPending with the cap that was reached; its
// text is the tool result the model receives.
type PendingCapError struct {
	Max int
	// Agent: the cap of one agent's conversation (SPEC §10), not the
	// global one.
	Agent bool
}

func (e *PendingCapError) Error() string {
	if e.Agent {
		return fmt.Sprintf("%v: this agent already has %d questions waiting for the user (the most it may have); wait for an answer", ErrTooManyPending, e.Max)
	}
	return fmt.Sprintf("%v (%d): wait for the user to answer", ErrTooManyPending, e.Max)
}

func (e *PendingCapError) Is(target error) bool { return target == ErrTooManyPending }

// backgroundSaveTimeout bounds saves nobody waits for (timeouts, cancels).
const backgroundSaveTimeout = 10 * time.Second

// Manager is the QuestionManager: it holds each pending card as a
// promise-like channel keyed by id until the user answers, declines or
// cancels, the run is cancelled, or the timeout fires. It is safe for
// concurrent use.
type Manager struct {
	store Store
	em    events.Emitter
	// noEvents: the manager was made without an emitter.
	noEvents bool
	clock    Clock

	mu  sync.Mutex
	cfg Config
	// logPtr is swapped by UpdateConfig while other goroutines log without
	// holding mu, so it is atomic.
	logPtr       atomic.Pointer[slog.Logger]
	cards        map[string]*entry
	byConv       map[string][]*entry // in insertion order
	limiters     map[string]*rate.Limiter
	sweepAt      int      // prune idle limiters when there are more than this
	retained     []string // ids of cards that left pending, oldest first
	pendingCount int      // pending cards, including ones being saved by Create (agents' cards aside)
	// saving counts agents' cards being saved by Create, per conversation:
	// with the pending ones they make the agent's count against its cap.
	saving   map[string]int
	seq      uint64
	closed   bool
	closing  chan struct{}
	inflight sync.WaitGroup // timer callbacks; Close waits for them
}

// entry is one card and its waiting machinery.
type entry struct {
	card  Card
	seq   uint64
	done  chan struct{} // closed when the card leaves pending
	timer Timer
	// busy is non-nil while a change of this card is being saved and
	// announced; other changes wait for it, so exactly one wins and events
	// of one card go out in order.
	busy chan struct{}
}

const limiterSweepMin = 1024

// NewManager returns a manager. store may be nil (nothing is persisted) and
// em may be nil (events are dropped).
func NewManager(cfg Config, store Store, em events.Emitter) *Manager {
	if store == nil {
		store = nopStore{}
	}
	noEvents := em == nil
	if em == nil {
		em = events.Discard
	}
	clock := cfg.Clock
	if clock == nil {
		clock = realClock{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	m := &Manager{
		store:    store,
		em:       em,
		clock:    clock,
		cfg:      cfg,
		cards:    map[string]*entry{},
		byConv:   map[string][]*entry{},
		limiters: map[string]*rate.Limiter{},
		saving:   map[string]int{},
		sweepAt:  limiterSweepMin,
		closing:  make(chan struct{}),
		noEvents: noEvents,
	}
	m.logPtr.Store(log.With("component", "questions"))
	return m
}

// log is the manager's logger, safe to call from any goroutine.
func (m *Manager) log() *slog.Logger { return m.logPtr.Load() }

type nopStore struct{}

func (nopStore) SaveCard(context.Context, *Card) error { return nil }

// now is the clock's time in UTC without the monotonic reading, so cards
// compare and serialize the same after a store round trip.
func (m *Manager) now() time.Time { return m.clock.Now().UTC().Round(0) }

// UpdateConfig applies changed settings: timeout (for new cards), rate
// interval (for all conversations from now on), pending cap, retention, and
// Logger/OnLateAnswer when set. The clock cannot change.
func (m *Manager) UpdateConfig(cfg Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cfg.RateInterval != m.cfg.RateInterval {
		now := m.now()
		for _, lim := range m.limiters {
			lim.SetLimitAt(now, rate.Every(cfg.RateInterval))
		}
	}
	m.cfg.Timeout = cfg.Timeout
	m.cfg.RateInterval = cfg.RateInterval
	m.cfg.MaxPending = cfg.MaxPending
	m.cfg.RetainResolved = cfg.RetainResolved
	if cfg.Logger != nil {
		m.cfg.Logger = cfg.Logger
		m.logPtr.Store(cfg.Logger.With("component", "questions"))
	}
	if cfg.OnLateAnswer != nil {
		m.cfg.OnLateAnswer = cfg.OnLateAnswer
	}
	m.evictLocked()
}

// Close stops all timers and makes waiting Wait calls return ErrClosed.
// Pending cards stay pending (in the store too), so Restore brings them back
// after a restart. Close waits for timer callbacks already running.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	close(m.closing)
	for _, e := range m.cards {
		if e.timer != nil {
			e.timer.Stop()
			e.timer = nil
		}
	}
	m.mu.Unlock()
	m.inflight.Wait()
}

// Get returns a copy of a card known to the manager.
func (m *Manager) Get(id string) (*Card, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.cards[id]
	if !ok {
		return nil, false
	}
	return cloneCard(&e.card), true
}

// Pending returns copies of the pending cards of a conversation ("" = all
// conversations), oldest first.
func (m *Manager) Pending(conversationID string) []*Card {
	return m.list(conversationID, func(e *entry) bool { return e.card.Status == StatusPending })
}

// Cards returns copies of every card of a conversation still held in memory
// (pending, late-answerable and recently resolved), oldest first.
func (m *Manager) Cards(conversationID string) []*Card {
	return m.list(conversationID, func(*entry) bool { return true })
}

// LatestPending returns a copy of the conversation's newest pending card or,
// when none is pending, its newest timed-out card (still answerable late).
// Callers that need a pending card check the returned card's Status.
func (m *Manager) LatestPending(conversationID string) (*Card, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.latestAnswerableLocked(conversationID)
	if e == nil {
		return nil, false
	}
	return cloneCard(&e.card), true
}

// latestAnswerableLocked is the conversation's newest pending card, else its
// newest late-answerable (timed_out question) card, else nil. Approvals and
// elicitations that timed out are over: their tool went on without them.
func (m *Manager) latestAnswerableLocked(conversationID string) *entry {
	if e := m.latestLocked(conversationID, StatusPending); e != nil {
		return e
	}
	e := m.latestLocked(conversationID, StatusTimedOut)
	if e != nil && e.card.Kind != KindQuestion {
		return nil
	}
	return e
}

func (m *Manager) list(conversationID string, keep func(*entry) bool) []*Card {
	m.mu.Lock()
	defer m.mu.Unlock()
	var picked []*entry
	if conversationID == "" {
		for _, e := range m.cards {
			if keep(e) {
				picked = append(picked, e)
			}
		}
	} else {
		for _, e := range m.byConv[conversationID] {
			if keep(e) {
				picked = append(picked, e)
			}
		}
	}
	slices.SortFunc(picked, compareEntries)
	out := make([]*Card, len(picked))
	for i, e := range picked {
		out[i] = cloneCard(&e.card)
	}
	return out
}

// compareEntries orders cards oldest first; restored cards keep their
// original creation order.
func compareEntries(a, b *entry) int {
	if c := a.card.CreatedAt.Compare(b.card.CreatedAt); c != 0 {
		return c
	}
	switch {
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// latestLocked is the conversation's newest card with the given status.
func (m *Manager) latestLocked(conversationID string, status Status) *entry {
	var latest *entry
	for _, e := range m.byConv[conversationID] {
		if e.card.Status == status && (latest == nil || compareEntries(e, latest) > 0) {
			latest = e
		}
	}
	return latest
}

// insertLocked registers a card.
func (m *Manager) insertLocked(e *entry) {
	m.seq++
	e.seq = m.seq
	m.cards[e.card.ID] = e
	m.byConv[e.card.ConversationID] = append(m.byConv[e.card.ConversationID], e)
}

// retainLocked records that a card left pending and forgets the oldest such
// cards beyond the retention limit, so memory stays bounded however many
// cards a long session creates.
func (m *Manager) retainLocked(e *entry) {
	m.retained = append(m.retained, e.card.ID)
	m.evictLocked()
}

func (m *Manager) evictLocked() {
	limit := m.cfg.retain()
	for len(m.retained) > limit {
		id := m.retained[0]
		m.retained[0] = ""
		m.retained = m.retained[1:]
		if e, ok := m.cards[id]; ok && e.card.Status != StatusPending {
			m.removeLocked(e)
		}
	}
}

func (m *Manager) removeLocked(e *entry) {
	delete(m.cards, e.card.ID)
	conv := e.card.ConversationID
	list := m.byConv[conv]
	if i := slices.Index(list, e); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(m.byConv, conv)
	} else {
		m.byConv[conv] = list
	}
}

// ForgetConversation drops the conversation's resolved and late-answerable
// cards and its rate limiter from memory (the conversation was deleted).
// Pending cards are kept: cancel them first with CancelConversation.
// It returns how many cards were dropped.
func (m *Manager) ForgetConversation(conversationID string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, e := range slices.Clone(m.byConv[conversationID]) {
		if e.card.Status != StatusPending && e.busy == nil {
			m.removeLocked(e)
			n++
		}
	}
	if len(m.byConv[conversationID]) == 0 {
		delete(m.limiters, conversationID)
	}
	m.retained = slices.DeleteFunc(m.retained, func(id string) bool { _, ok := m.cards[id]; return !ok })
	return n
}

// limiterLocked returns the conversation's limiter, pruning idle limiters
// (those that are full again, i.e. no different from a new one) when many
// conversations have asked.
func (m *Manager) limiterLocked(conversationID string, now time.Time) *rate.Limiter {
	lim, ok := m.limiters[conversationID]
	if ok {
		return lim
	}
	if len(m.limiters) >= m.sweepAt {
		for id, l := range m.limiters {
			if l.TokensAt(now) >= 1 {
				delete(m.limiters, id)
			}
		}
		m.sweepAt = max(limiterSweepMin, 2*len(m.limiters))
	}
	lim = rate.NewLimiter(rate.Every(m.cfg.RateInterval), 1)
	m.limiters[conversationID] = lim
	return lim
}

// emit sends an event with a copy of the card as payload.
func (m *Manager) emit(name string, c *Card) {
	if m.noEvents {
		return // nobody listens: no copy to make
	}
	m.em.Emit(name, cloneCard(c))
}

// save persists a copy, so a store that keeps the pointer cannot alias
// manager state.
func (m *Manager) save(ctx context.Context, c *Card) error {
	if _, ok := m.store.(nopStore); ok {
		return nil
	}
	if err := m.store.SaveCard(ctx, cloneCard(c)); err != nil {
		return fmt.Errorf("save question card %s (%s): %w", c.ID, c.Status, err)
	}
	return nil
}

// holdSlotLocked takes (+1) or gives back (-1) a card's place under the
// pending cap that applies to it: the one across conversations, or for an
// agent's card its conversation's while the card is being saved.
func (m *Manager) holdSlotLocked(c *Card, delta int) {
	if c.countsGlobally() {
		m.pendingCount += delta
		return
	}
	m.saving[c.ConversationID] += delta
	if m.saving[c.ConversationID] <= 0 {
		delete(m.saving, c.ConversationID)
	}
}

// pendingInLocked counts a conversation's pending cards, with those being
// saved.
func (m *Manager) pendingInLocked(conversationID string) int {
	n := m.saving[conversationID]
	for _, e := range m.byConv[conversationID] {
		if e.card.Status == StatusPending {
			n++
		}
	}
	return n
}
