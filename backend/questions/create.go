package questions

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/trace"
)

// AskRequest is one ask_user_question call of a run.
type AskRequest struct {
	ConversationID string
	RunID          string
	ToolCallID     string
	Questions      []Question
	// AfterUserTurn marks the first card of a run started by a new user
	// message or a late answer: the rate limit never refuses it (SPEC §1).
	// It still counts, so the same run asking again soon after is limited.
	AfterUserTurn bool
}

// Create validates the questions, enforces the pending cap and the
// conversation's rate limit (which spares an AfterUserTurn card), saves the
// new pending card and then emits question:ask with it ("write before
// show"). Older timed-out cards of the conversation are superseded. Its
// errors are texts meant for the model: inputErr's, *RateLimitError,
// ErrTooManyPending, or a store failure (no event is emitted then).
func (m *Manager) Create(ctx context.Context, req AskRequest) (*Card, error) {
	if req.ConversationID == "" {
		return nil, errors.New("create question card: conversation id is required")
	}
	qs := normalizeQuestions(req.Questions)
	if err := ValidateQuestions(qs); err != nil {
		return nil, err
	}
	trace.Mark(req.ToolCallID, trace.HopValidated)
	return m.createCard(ctx, &Card{
		ConversationID: req.ConversationID,
		RunID:          req.RunID,
		ToolCallID:     req.ToolCallID,
		Questions:      qs,
	}, true, req.AfterUserTurn)
}

// createCard is the one lifecycle of every kind of card: the pending cap
// (counting every kind), the conversation's rate limit when rateLimited
// (sparing an afterUserTurn card), the id, the timeout, the save before the
// question:ask event, and the superseding of older late-answerable cards.
func (m *Manager) createCard(ctx context.Context, card *Card, rateLimited, afterUserTurn bool) (*Card, error) {
	return m.createCardWith(ctx, card, createOptions{rateLimited: rateLimited, afterUserTurn: afterUserTurn})
}

// createOptions tune createCard: the rate limit, and for agents' cards
// (SPEC §10) their own timeout and the pending cap of their conversation.
type createOptions struct {
	rateLimited, afterUserTurn bool
	// timeout overrides the configured timeout when set (0 = wait forever).
	timeout *time.Duration
}

func (m *Manager) createCardWith(ctx context.Context, card *Card, opt createOptions) (*Card, error) {
	rateLimited, afterUserTurn := opt.rateLimited, opt.afterUserTurn
	conv := card.ConversationID
	global := card.countsGlobally()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	cfg := m.cfg
	if global && cfg.MaxPending > 0 && m.pendingCount >= cfg.MaxPending {
		m.mu.Unlock()
		return nil, &PendingCapError{Max: cfg.MaxPending}
	}
	if !global && cfg.MaxPending > 0 && m.pendingInLocked(conv) >= cfg.MaxPending {
		m.mu.Unlock()
		return nil, &PendingCapError{Max: cfg.MaxPending, Agent: true}
	}
	timeout := cfg.Timeout
	if opt.timeout != nil {
		timeout = *opt.timeout
	}
	now := m.now()
	var reservation *rate.Reservation
	undoRate := func() {}
	if rateLimited {
		lim := m.limiterLocked(conv, now)
		if afterUserTurn {
			// Spared by the limit, yet counted: a fresh limiter lets this card
			// through and makes the next one wait a full interval after it.
			prev := lim
			fresh := rate.NewLimiter(rate.Every(cfg.RateInterval), 1)
			lim = fresh
			m.limiters[conv] = fresh
			undoRate = func() {
				if m.limiters[conv] == fresh {
					m.limiters[conv] = prev
				}
			}
		}
		reservation = lim.ReserveN(now, 1)
		if wait := reservation.DelayFrom(now); wait > 0 {
			reservation.CancelAt(now)
			m.mu.Unlock()
			return nil, &RateLimitError{Wait: wait}
		}
	}
	card = cloneCard(card)
	card.ID = uuid.NewString()
	card.Status = StatusPending
	card.CreatedAt = now
	if card.Questions == nil {
		card.Questions = []Question{}
	}
	card.FillKind()
	if timeout > 0 {
		expires := now.Add(timeout)
		card.ExpiresAt = &expires
	}
	m.holdSlotLocked(card, +1) // hold the slot while saving, so concurrent Creates respect the cap
	m.mu.Unlock()

	if err := m.save(ctx, card); err != nil {
		m.mu.Lock()
		m.holdSlotLocked(card, -1)
		// A card that was never shown does not count against the rate.
		if reservation != nil {
			reservation.CancelAt(now)
		}
		undoRate()
		m.mu.Unlock()
		m.log().Error("question card not created", "conversation", conv, "err", err)
		return nil, err
	}
	if trace.Enabled() {
		trace.Link(card.ToolCallID, card.ID)
		trace.Mark(card.ID, trace.HopStored)
	}

	m.mu.Lock()
	if m.closed {
		// Saved as pending: Restore brings it back after the restart.
		m.holdSlotLocked(card, -1)
		m.mu.Unlock()
		return nil, ErrClosed
	}
	// busy until question:ask is out, so no resolution event can overtake it.
	busy := make(chan struct{})
	e := &entry{card: *card, done: make(chan struct{}), busy: busy}
	if !global {
		m.holdSlotLocked(card, -1) // the slot is now the entry's
	}
	m.insertLocked(e)
	if card.ExpiresAt != nil {
		id := card.ID
		e.timer = m.clock.AfterFunc(card.ExpiresAt.Sub(m.now()), func() { m.onTimer(id) })
	}
	var superseded []string
	for _, old := range m.byConv[conv] {
		if old.card.Status == StatusTimedOut && old.card.Kind == KindQuestion {
			superseded = append(superseded, old.card.ID)
		}
	}
	m.mu.Unlock()

	for _, id := range superseded {
		m.supersede(ctx, id)
	}
	m.log().Info("question card created", "conversation", card.ConversationID, "question_id", card.ID,
		"kind", card.Kind, "questions", len(card.Questions), "run", card.RunID)
	m.emit(events.QuestionAsk, card)

	m.mu.Lock()
	e.busy = nil
	m.mu.Unlock()
	close(busy)
	return cloneCard(card), nil
}

// supersede retires a late-answerable card because a newer card was asked in
// the same conversation. A late answer that got there first stands.
func (m *Manager) supersede(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundSaveTimeout)
	defer cancel()
	_, err := m.transition(ctx, id, change{
		from:  []Status{StatusTimedOut},
		force: true,
		apply: func(c *Card) { c.Status = StatusSuperseded },
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		m.log().Warn("superseding question card failed", "question_id", id, "err", err)
	}
}

// Wait blocks until the card is answered, declined, cancelled or timed out
// and returns what the run receives. If ctx ends first, the run was
// cancelled: the card becomes cancelled and Wait returns the cancelled
// Outcome (CancelledResult, StopRun) with a nil error, since that is a
// normal end of the card. Errors are only ErrNotFound and, after Close,
// ErrClosed (the card then stays pending for Restore).
func (m *Manager) Wait(ctx context.Context, cardID string) (Outcome, error) {
	m.mu.Lock()
	e, ok := m.cards[cardID]
	closing := m.closing
	m.mu.Unlock()
	if !ok {
		return Outcome{}, ErrNotFound
	}
	select {
	case <-e.done:
		return m.outcome(e), nil
	case <-closing:
		return Outcome{}, ErrClosed
	case <-ctx.Done():
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundSaveTimeout)
	defer cancel()
	_, err := m.transition(bg, cardID, cancelChange())
	switch {
	case err == nil, errors.Is(err, ErrConflict):
		// Cancelled now, or resolved just before the cancel (that answer stands).
		return m.outcome(e), nil
	default:
		return Outcome{}, err
	}
}

func (m *Manager) outcome(e *entry) Outcome {
	m.mu.Lock()
	defer m.mu.Unlock()
	return OutcomeFor(&e.card)
}

// HandleToolCall runs one ask_user_question call: parse, validate, create
// the card and wait for the user. Any error becomes an Outcome with an empty
// Status whose Result is the error text, so the model can correct itself and
// invalid input never reaches the user. After Close the Outcome also has
// StopRun set: the app is shutting down and the card will be restored.
func (m *Manager) HandleToolCall(ctx context.Context, conversationID, runID, toolCallID, arguments string) Outcome {
	qs, err := ParseInput([]byte(arguments))
	if err != nil {
		m.log().Info("ask_user_question input rejected", "conversation", conversationID, "tool_call", toolCallID, "err", err)
		return Outcome{Result: err.Error()}
	}
	card, err := m.Create(ctx, AskRequest{ConversationID: conversationID, RunID: runID, ToolCallID: toolCallID, Questions: qs})
	if err != nil {
		return Outcome{Result: err.Error(), StopRun: errors.Is(err, ErrClosed)}
	}
	out, err := m.Wait(ctx, card.ID)
	if err == nil {
		return out
	}
	return Outcome{Result: err.Error(), StopRun: errors.Is(err, ErrClosed)}
}
