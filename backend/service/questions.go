package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/trace"
)

// Respond answers, skips or cancels a card of the conversation.
func (s *Service) Respond(ctx context.Context, id string, r questions.Response) (*questions.Card, error) {
	trace.Mark(r.QuestionID, trace.HopAnswered)
	if err := checkResponse(r); err != nil {
		return nil, err
	}
	// A conversation with a run going exists (deleting one stops its run
	// first): the store is read only otherwise, which keeps a read off the
	// way from Submit to the next model request.
	if !s.rt.Active(id) {
		if _, err := s.store.GetConversation(ctx, id); err != nil {
			return nil, fmt.Errorf("%w: %v", questions.ErrNotFound, err)
		}
	}
	var remember []questions.Question
	if len(r.Remember) > 0 {
		// Checked before the answer is applied: a wrong name changes nothing.
		card, named, err := s.checkRemember(id, r)
		if err != nil {
			return nil, err
		}
		if card != nil {
			r.QuestionID = card.ID // the card checked is the card answered
		}
		remember = named
	}
	card, err := s.qm.Respond(ctx, id, r)
	if err == nil && len(remember) > 0 {
		s.rememberAnswers(ctx, card, r, remember)
	}
	if errors.Is(err, questions.ErrNotFound) && r.QuestionID != questions.LatestID {
		// A card resolved before a restart is no longer in memory: it is
		// not pending (409), not unknown.
		if c, serr := s.store.Card(ctx, r.QuestionID); serr == nil && c.ConversationID == id {
			return nil, fmt.Errorf("%w: card %s is %s", questions.ErrConflict, c.ID, c.Status)
		}
	}
	return card, err
}

// ConversationQuestions lists the conversation's cards, oldest first.
func (s *Service) ConversationQuestions(ctx context.Context, id string) ([]*questions.Card, error) {
	if _, err := s.store.GetConversation(ctx, id); err != nil {
		return nil, err
	}
	return s.store.CardsByConversation(ctx, id)
}

// Questions lists cards across conversations, optionally by status.
func (s *Service) Questions(ctx context.Context, status string) ([]*questions.Card, error) {
	if status == "" {
		return s.store.CardsByStatus(ctx)
	}
	var sts []questions.Status
	for _, st := range strings.Split(status, ",") {
		switch questions.Status(st) {
		case questions.StatusPending, questions.StatusAnswered, questions.StatusDeclined, questions.StatusCancelled,
			questions.StatusTimedOut, questions.StatusAnsweredLate, questions.StatusSuperseded,
			questions.StatusApproved, questions.StatusRejected, questions.StatusAccepted:
			sts = append(sts, questions.Status(st))
		default:
			return nil, inputErrorf(fmt.Sprintf("unknown status %q", st))
		}
	}
	return s.store.CardsByStatus(ctx, sts...)
}

// PendingQuestions lists pending cards of every conversation (the inbox).
func (s *Service) PendingQuestions() []*questions.Card { return s.qm.Pending("") }

// onLateAnswer posts a late answer as a new user turn that starts a run
// linked to the one that timed out.
func (s *Service) onLateAnswer(c *questions.Card) {
	if c.FromAgent() {
		// No model runs in an agent's conversation: the answer is kept on
		// the card, and the agent was told its question timed out.
		return
	}
	ctx := context.Background()
	conv, err := s.store.GetConversation(ctx, c.ConversationID)
	if err != nil {
		s.log.Warn("late answer for a missing conversation", "question", c.ID, "err", err)
		return
	}
	text := questions.LateAnswerText(c)
	_, err = s.rt.Start(assistant.StartRequest{ConversationID: c.ConversationID, Profile: conv.Assistant, Model: conv.Model, Thinking: conv.Thinking, UserText: text, ResumedFrom: c.RunID})
	if errors.Is(err, assistant.ErrRunActive) {
		// The active run reads the history at its next model call.
		m := &chat.Message{ConversationID: c.ConversationID, Role: chat.RoleUser, Content: text}
		if err := s.store.AppendMessage(ctx, m); err != nil {
			s.log.Error("save late answer", "question", c.ID, "err", err)
			return
		}
		s.ev.Emit(events.MessageDone, events.MessageDonePayload{ConversationID: c.ConversationID, Message: *m})
		return
	}
	if err != nil {
		s.log.Error("start run for late answer", "question", c.ID, "err", err)
	}
}

// checkResponse refuses a response without a known action or a card id,
// before anything is looked up.
func checkResponse(r questions.Response) error {
	const actions = "submit, decline (or skip) or cancel for a question; approve, reject or cancel for an approval; accept, decline or cancel for an elicitation"
	switch r.Action.Canonical() {
	case questions.ActionSubmit, questions.ActionDecline, questions.ActionCancel,
		questions.ActionApprove, questions.ActionReject, questions.ActionAccept:
	case "":
		return inputErrorf(`"action" is required: ` + actions)
	default:
		return inputErrorf(`"action" must be ` + actions)
	}
	if strings.TrimSpace(r.QuestionID) == "" {
		return inputErrorf(`"question_id" is required (a card id or "latest")`)
	}
	return nil
}
