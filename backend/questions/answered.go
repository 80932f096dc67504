package questions

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/events"
)

// Answered is how a card was answered without being shown to the user.
type Answered struct {
	// By says what answered ("memory", SPEC §14).
	By string
	// Answers are the answers by question text, validated as a submit's.
	Answers map[string]AnswerInput
	// IDs name what answered each question, in the questions' order (the
	// memories); the card's MemoryID is the first.
	IDs []string
}

// CreateAnswered stores a card of the model's questions as answered at
// once, never shown as pending: a card the user's memories answer (SPEC
// §14). The questions and answers are checked as Create and a submit check
// them. Nobody is asked, so neither the pending cap nor the rate limit
// applies. It is announced with question:resolved only (no question:ask:
// nothing asks for attention). Its outcome is the submit result
// (OutcomeFor), and it stays answered: a response to it is a conflict,
// and its answer is changed by a fork (SPEC §7), as any answered card's.
func (m *Manager) CreateAnswered(ctx context.Context, req AskRequest, a Answered) (*Card, error) {
	if req.ConversationID == "" {
		return nil, errors.New("create answered card: conversation id is required")
	}
	qs := normalizeQuestions(req.Questions)
	if err := ValidateQuestions(qs); err != nil {
		return nil, err
	}
	texts, err := ValidateAnswers(qs, a.Answers, "")
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	now := m.now()
	m.mu.Unlock()
	card := &Card{ID: uuid.NewString(), ConversationID: req.ConversationID, RunID: req.RunID, ToolCallID: req.ToolCallID,
		Status: StatusAnswered, Questions: qs, CreatedAt: now, AnsweredAt: &now, Answers: texts, AnsweredBy: a.By}
	if len(a.IDs) > 0 {
		card.MemoryID = a.IDs[0]
		card.MemoryIDs = make(map[string]string, len(qs))
		for i, q := range qs {
			if i < len(a.IDs) {
				card.MemoryIDs[q.Question] = a.IDs[i]
			}
		}
	}
	card.FillKind()
	if err := m.save(ctx, card); err != nil {
		m.log().Error("answered question card not stored", "conversation", req.ConversationID, "err", err)
		return nil, err
	}
	m.mu.Lock()
	if !m.closed {
		e := &entry{card: *card, done: make(chan struct{})}
		close(e.done)
		m.insertLocked(e)
		m.retainLocked(e)
	}
	m.mu.Unlock()
	m.log().Info("question card answered at once", "conversation", card.ConversationID, "question_id", card.ID,
		"by", card.AnsweredBy, "run", card.RunID)
	m.emit(events.QuestionResolved, card)
	return cloneCard(card), nil
}

// Resolve returns a copy of the card a response names: the conversation's
// newest answerable card for "latest", else the card with that id if it
// belongs to the conversation and is held in memory (ErrNotFound
// otherwise, as Respond says).
func (m *Manager) Resolve(conversationID, questionID string) (*Card, error) {
	id, _, err := m.resolveID(conversationID, questionID)
	if err != nil {
		return nil, err
	}
	c, ok := m.Get(id)
	if !ok {
		return nil, ErrNotFound
	}
	return c, nil
}
