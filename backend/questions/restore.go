package questions

import (
	"errors"
	"fmt"
	"slices"
)

// Restore re-registers cards loaded from the store after a restart. Pending
// cards wait again with their timers resumed from ExpiresAt (already expired
// ones time out now, before Restore returns); timed-out cards stay
// answerable late; other cards are kept so repeated answers get a conflict.
// question:ask is not emitted again: clients load pending cards on start.
// Cards that are malformed or already known are skipped and reported in the
// joined error; the others are restored.
func (m *Manager) Restore(cards []*Card) error {
	sorted := make([]*Card, 0, len(cards))
	for _, c := range cards {
		if c != nil {
			cp := cloneCard(c)
			cp.FillKind()
			sorted = append(sorted, cp)
		}
	}
	slices.SortStableFunc(sorted, func(a, b *Card) int { return a.CreatedAt.Compare(b.CreatedAt) })

	var errs []error
	var expired []string
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	now := m.now()
	for _, c := range sorted {
		if err := restorable(c); err != nil {
			errs = append(errs, fmt.Errorf("restore question card %q: %w", c.ID, err))
			continue
		}
		if _, dup := m.cards[c.ID]; dup {
			errs = append(errs, fmt.Errorf("restore question card %q: already known", c.ID))
			continue
		}
		e := &entry{card: *c, done: make(chan struct{})}
		m.insertLocked(e)
		if c.Status != StatusPending {
			close(e.done)
			m.retainLocked(e)
			continue
		}
		if c.countsGlobally() {
			m.pendingCount++
		}
		switch {
		case c.ExpiresAt == nil:
		case !c.ExpiresAt.After(now):
			expired = append(expired, c.ID)
		default:
			id := c.ID
			e.timer = m.clock.AfterFunc(c.ExpiresAt.Sub(now), func() { m.onTimer(id) })
		}
	}
	m.mu.Unlock()

	for _, id := range expired {
		m.expire(id)
	}
	m.log().Info("question cards restored", "cards", len(sorted)-len(errs), "expired", len(expired), "skipped", len(errs))
	return errors.Join(errs...)
}

func restorable(c *Card) error {
	switch {
	case c.ID == "":
		return errors.New("no question_id")
	case c.ConversationID == "":
		return errors.New("no conversationId")
	}
	switch c.Kind {
	case KindApproval:
		if c.Tool == nil {
			return errors.New("approval card without its tool")
		}
		switch c.Status {
		case StatusPending, StatusApproved, StatusRejected, StatusCancelled, StatusTimedOut:
			return nil
		}
	case KindElicitation:
		switch c.Status {
		case StatusPending, StatusAccepted, StatusDeclined, StatusCancelled, StatusTimedOut:
			return nil
		}
	default:
		if len(c.Questions) == 0 {
			return errors.New("no questions")
		}
		switch c.Status {
		case StatusPending, StatusAnswered, StatusDeclined, StatusCancelled,
			StatusTimedOut, StatusAnsweredLate, StatusSuperseded:
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", c.Status)
}
