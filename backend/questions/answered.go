package questions

import (
	"context"
	"errors"
	"strings"

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
	return m.createAnswered(ctx, &Card{ConversationID: req.ConversationID, RunID: req.RunID, ToolCallID: req.ToolCallID},
		req.Questions, a)
}

// CreateAnsweredForAgent is CreateAnswered for an agent's question card
// (SPEC §10): stored in the agent's conversation, from the agent, with its
// context, and answered at once; the agent reads the answer as any other.
// Only a memory scoped to the agent's conversation may answer it (the
// caller picks the memories). Neither the rate limit nor the pending cap
// applies: nobody is asked.
func (m *Manager) CreateAnsweredForAgent(ctx context.Context, req AgentAsk, a Answered) (*Card, error) {
	if req.ConversationID == "" || strings.TrimSpace(req.Agent) == "" || req.Tool != nil {
		return nil, errors.New("create answered agent card: a question card with conversation and agent is required")
	}
	return m.createAnswered(ctx, &Card{ConversationID: req.ConversationID, ToolCallID: req.ToolCallID,
		Source: &Source{Type: SourceAgent, Agent: req.Agent}, Context: req.Context}, req.Questions, a)
}

// createAnswered fills card (its conversation, run, tool call, source and
// context set) as answered by a and stores it.
func (m *Manager) createAnswered(ctx context.Context, card *Card, questions []Question, a Answered) (*Card, error) {
	qs := normalizeQuestions(questions)
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
	card.ID, card.Status, card.Questions, card.CreatedAt, card.AnsweredAt = uuid.NewString(), StatusAnswered, qs, now, &now
	card.Answers, card.AnsweredBy = texts, a.By
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
		m.log().Error("answered question card not stored", "conversation", card.ConversationID, "err", err)
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
