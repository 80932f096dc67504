package desktop

import (
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/questions"
)

// QuestionService is window.go.desktop.QuestionService: the question cards.
type QuestionService struct{ binding }

// Respond answers, skips or cancels a card of the conversation.
func (q *QuestionService) Respond(id string, r questions.Response) (*questions.Card, error) {
	return wire(q.svc.Respond(q.ctx, id, r))
}

// PendingQuestions lists pending cards of every conversation (the inbox).
func (q *QuestionService) PendingQuestions() []*questions.Card {
	return api.NonNil(q.svc.PendingQuestions())
}

// ConversationQuestions lists the conversation's cards, oldest first.
func (q *QuestionService) ConversationQuestions(id string) ([]*questions.Card, error) {
	return wire(q.svc.ConversationQuestions(q.ctx, id))
}
