package questions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/fault"
)

// LatestID is the question_id that means "the conversation's newest card".
const LatestID = "latest"

// Respond applies the user's reply to a card of the conversation. QuestionID
// "latest" means the newest pending card, or else the newest late-answerable
// (timed-out) one. Errors: ErrNotFound for an unknown card or a card of
// another conversation (logged; nothing changes), ErrConflict when the card
// is no longer pending (the first answer stands), a fault.Validation for an
// answer that breaks the rules (the card stays pending), or the store's
// error (the card stays pending). A timed-out card accepts only a submit,
// which makes it answered_late and calls Config.OnLateAnswer.
func (m *Manager) Respond(ctx context.Context, conversationID string, r Response) (*Card, error) {
	id, kind, err := m.resolveID(conversationID, r.QuestionID)
	if err != nil {
		return nil, err
	}
	ch, err := m.changeFor(kind, r)
	if err != nil {
		m.log().Info("response to question card refused", "conversation", conversationID, "question_id", id, "err", err)
		return nil, err
	}

	card, err := m.transition(ctx, id, ch)
	if err != nil {
		switch {
		case errors.Is(err, ErrNotFound):
			m.log().Warn("response to unknown question card refused", "conversation", conversationID, "question_id", r.QuestionID)
		case errors.Is(err, ErrConflict), fault.KindOf(err) == fault.Validation:
			m.log().Info("response to question card refused", "conversation", conversationID, "question_id", id, "err", err)
		}
		return nil, err
	}
	if card.Status == StatusAnsweredLate {
		m.mu.Lock()
		onLate := m.cfg.OnLateAnswer
		m.mu.Unlock()
		if onLate != nil {
			go onLate(cloneCard(card))
		}
	}
	return card, nil
}

func submitChange(r Response, now func() time.Time) change {
	var answers map[string]string
	return change{
		from: []Status{StatusPending, StatusTimedOut},
		check: func(c *Card) error {
			var err error
			answers, err = ValidateAnswers(c.Questions, r.Answers, r.Comments)
			return err
		},
		apply: func(c *Card) {
			if c.Status == StatusTimedOut {
				c.Status = StatusAnsweredLate
			} else {
				c.Status = StatusAnswered
			}
			c.Answers = answers
			c.Comments = strings.TrimSpace(r.Comments)
			at := now()
			c.AnsweredAt = &at
		},
	}
}

// resolveID finds the card a response is for, refusing cards of other
// conversations as if they did not exist.
func (m *Manager) resolveID(conversationID, questionID string) (string, Kind, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if questionID == LatestID {
		e := m.latestAnswerableLocked(conversationID)
		if e == nil {
			m.log().Warn("response refused: no pending question card", "conversation", conversationID)
			return "", "", fmt.Errorf("%w: conversation %s has no pending question", ErrNotFound, conversationID)
		}
		return e.card.ID, e.card.Kind, nil
	}
	e, ok := m.cards[questionID]
	if !ok || e.card.ConversationID != conversationID {
		m.log().Warn("response refused: unknown question card", "conversation", conversationID, "question_id", questionID,
			"other_conversation", ok)
		return "", "", fmt.Errorf("%w: %q", ErrNotFound, questionID)
	}
	return questionID, e.card.Kind, nil
}

// CancelConversation cancels the conversation's pending cards because its run
// is being stopped; their waiters get the cancelled Outcome. It returns how
// many cards were cancelled.
func (m *Manager) CancelConversation(ctx context.Context, conversationID string) int {
	m.mu.Lock()
	var ids []string
	for _, e := range m.byConv[conversationID] {
		if e.card.Status == StatusPending {
			ids = append(ids, e.card.ID)
		}
	}
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundSaveTimeout)
	defer cancel()
	n := 0
	for _, id := range ids {
		if _, err := m.transition(ctx, id, cancelChange()); err == nil {
			n++
		} else if !errors.Is(err, ErrConflict) {
			m.log().Warn("cancelling question card failed", "question_id", id, "err", err)
		}
	}
	return n
}
