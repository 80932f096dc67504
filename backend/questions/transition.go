package questions

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/parley-app/parley/backend/events"
)

// change describes one status change of a card.
type change struct {
	from []Status // statuses the change applies to; others give ErrConflict
	// check runs under the lock after the status check (so a conflict wins
	// over a validation error); an error leaves the card unchanged.
	check func(c *Card) error
	apply func(c *Card) // edits a copy of the card
	// force applies the change even if the store fails: timeouts and cancels
	// cannot be refused, the run has to go on.
	force bool
}

func cancelChange() change {
	return change{
		from:  []Status{StatusPending},
		force: true,
		apply: func(c *Card) { c.Status = StatusCancelled },
	}
}

// transition applies a change: one change per card at a time (others wait
// for it, then see the new status, so the first answer stands); the new
// state is saved, then committed, then announced with question:resolved.
func (m *Manager) transition(ctx context.Context, id string, ch change) (*Card, error) {
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, ErrClosed
		}
		e, ok := m.cards[id]
		if !ok {
			m.mu.Unlock()
			return nil, ErrNotFound
		}
		if busy := e.busy; busy != nil {
			m.mu.Unlock()
			select {
			case <-busy:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if !slices.Contains(ch.from, e.card.Status) {
			status := e.card.Status
			m.mu.Unlock()
			return nil, fmt.Errorf("%w: card %s is %s", ErrConflict, id, status)
		}
		if ch.check != nil {
			if err := ch.check(&e.card); err != nil {
				m.mu.Unlock()
				return nil, err
			}
		}
		// A shallow copy: apply only assigns fields (never changes the
		// questions, maps or slices in place), and the old state is dropped
		// when the new one is installed, so the two may share them.
		shallow := e.card
		next := &shallow
		ch.apply(next)
		busy := make(chan struct{})
		e.busy = busy
		m.mu.Unlock()

		saveErr := m.save(ctx, next)
		if saveErr != nil && !ch.force {
			m.release(e, busy)
			return nil, saveErr
		}
		if saveErr != nil {
			m.log().Error("question card state not saved; applied anyway", "question_id", id, "status", next.Status, "err", saveErr)
		}
		m.mu.Lock()
		m.commitLocked(e, next)
		m.mu.Unlock()
		m.log().Info("question card resolved", "conversation", next.ConversationID, "question_id", id, "status", next.Status)
		m.emit(events.QuestionResolved, next)
		m.release(e, busy)
		return cloneCard(next), nil
	}
}

func (m *Manager) release(e *entry, busy chan struct{}) {
	m.mu.Lock()
	e.busy = nil
	m.mu.Unlock()
	close(busy)
}

// commitLocked installs the new state; a card leaving pending frees its
// pending slot and timer, wakes its waiters and joins the retained cards.
func (m *Manager) commitLocked(e *entry, next *Card) {
	wasPending := e.card.Status == StatusPending
	e.card = *next
	if !wasPending || next.Status == StatusPending {
		return
	}
	if e.card.countsGlobally() {
		m.pendingCount--
	}
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	close(e.done)
	m.retainLocked(e)
}

// onTimer is the timeout callback, running in the clock's goroutine.
func (m *Manager) onTimer(id string) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.inflight.Add(1)
	m.mu.Unlock()
	defer m.inflight.Done()
	m.expire(id)
}

// expire times a pending card out. The card stays answerable (answered_late).
func (m *Manager) expire(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), backgroundSaveTimeout)
	defer cancel()
	_, err := m.transition(ctx, id, change{
		from:  []Status{StatusPending},
		force: true,
		apply: func(c *Card) { c.Status = StatusTimedOut },
	})
	if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrClosed) {
		m.log().Error("question card timeout failed", "question_id", id, "err", err)
	}
}
