package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// Conversation control (SPEC §7): a message sent under an earlier one (an
// edit), a regenerated reply and a changed answer each add a sibling branch
// and make it the visible one; the old branch stays.

// Send stores the user's message (with its files) and starts a run. With a
// ParentID the message goes under that message, beside its other children.
func (s *Service) Send(ctx context.Context, id string, req api.SendRequest) (string, error) {
	content := strings.TrimSpace(req.Content)
	if content == "" && len(req.Attachments) == 0 {
		return "", inputErrorf(`"content" must not be empty`)
	}
	if utf8.RuneCountInString(content) > MaxMessageChars {
		return "", inputError(i18n.M("service.messageTooLong", MaxMessageChars))
	}
	atts, err := checkAttachments(req.Attachments)
	if err != nil {
		return "", err
	}
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	if err := refuseAgentConversation(c); err != nil {
		return "", err
	}
	if s.rt.Active(id) {
		return "", ErrRunActive
	}
	var prepare func(context.Context, string) error
	if req.ParentID != nil {
		parent := *req.ParentID
		if parent != "" {
			if _, err := s.store.Message(ctx, id, parent); err != nil {
				return "", fmt.Errorf("parent_id: %w", err)
			}
		}
		prepare = func(ctx context.Context, _ string) error { return s.store.SetLeaf(ctx, id, parent) }
	}
	if hasImages(atts) {
		if err := s.checkVision(ctx, c.Assistant, c.Model); err != nil {
			return "", err
		}
	}
	runID, err := s.start(assistant.StartRequest{ConversationID: id, Profile: c.Assistant, Model: c.Model, Thinking: c.Thinking, UserText: content,
		UserAttachments: atts, Prepare: prepare})
	if err != nil {
		return "", err
	}
	if c.Title == "" {
		title := store.AutoTitle(content)
		if content == "" {
			title = store.AutoTitle(atts[0].Name)
		}
		if err := s.store.RenameConversation(ctx, id, title); err == nil {
			s.ev.Emit(events.ConversationUpdated, events.TitleChanged(id, title))
		}
	}
	return runID, nil
}

// start starts a run, reporting an active one as ErrRunActive.
func (s *Service) start(req assistant.StartRequest) (string, error) {
	runID, err := s.rt.Start(req)
	if errors.Is(err, assistant.ErrRunActive) {
		return "", ErrRunActive
	}
	return runID, err
}

// Regenerate asks for a new reply beside the reply that messageID (an
// assistant message or tool result of it) belongs to: a sibling of that
// reply's first message after the user message, made from the history up to
// that user message, by model when given (else the conversation's model).
func (s *Service) Regenerate(ctx context.Context, id, messageID, model string) (string, error) {
	if strings.TrimSpace(messageID) == "" {
		return "", inputErrorf(`"message_id" is required`)
	}
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	if err := refuseAgentConversation(c); err != nil {
		return "", err
	}
	path, err := s.store.PathTo(ctx, id, messageID)
	if err != nil {
		return "", err
	}
	if role := path[len(path)-1].Role; role != chat.RoleAssistant && role != chat.RoleTool {
		return "", inputErrorf(fmt.Sprintf("message %s is a %s message; regenerate takes a reply of the assistant", messageID, role))
	}
	user := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Role == chat.RoleUser {
			user = i
			break
		}
	}
	if user < 0 {
		return "", inputError(i18n.M("service.regenerateNothing"))
	}
	if s.rt.Active(id) {
		return "", ErrRunActive
	}
	var images []chat.Attachment
	for _, m := range path[:user+1] {
		images = append(images, m.Attachments...)
	}
	if hasImages(images) {
		if err := s.checkVision(ctx, c.Assistant, cmp.Or(strings.TrimSpace(model), c.Model)); err != nil {
			return "", err
		}
	}
	userID := path[user].ID
	var oldLeaf string
	return s.start(assistant.StartRequest{ConversationID: id, Profile: c.Assistant, Model: cmp.Or(strings.TrimSpace(model), c.Model), Thinking: c.Thinking,
		Prepare: func(ctx context.Context, _ string) error {
			leaf, err := s.store.Leaf(ctx, id)
			if err != nil {
				return err
			}
			oldLeaf = leaf
			return s.store.SetLeaf(ctx, id, userID)
		},
		// A new reply that never came (the model failed, the user stopped it)
		// leaves the old one shown.
		Unwind: func(ctx context.Context) error { return s.store.SetLeaf(ctx, id, oldLeaf) }})
}

// SelectBranch makes the path through messageID the visible one (the
// UI's < 2/3 >, or opening a search result) and returns the conversation.
func (s *Service) SelectBranch(ctx context.Context, id, messageID string) (*api.ConversationDetail, error) {
	return s.SelectBranchWindow(ctx, id, messageID, store.Window{})
}

// SelectBranchWindow is SelectBranch returning the window w of the new path.
func (s *Service) SelectBranchWindow(ctx context.Context, id, messageID string, w store.Window) (*api.ConversationDetail, error) {
	if strings.TrimSpace(messageID) == "" {
		return nil, inputErrorf(`"message_id" is required`)
	}
	if _, err := s.store.Message(ctx, id, messageID); err != nil {
		return nil, err
	}
	if s.rt.Active(id) {
		return nil, ErrRunActive
	}
	if err := s.store.SelectBranch(ctx, id, messageID); err != nil {
		return nil, err
	}
	return s.GetConversationWindow(ctx, id, w)
}

// ForkQuestion changes the answer of a resolved card: the new answer
// (checked as any answer, SPEC §1) becomes a tool result beside the old one,
// that branch becomes the visible one and the run goes on from it. The card
// keeps its id and its first answer.
func (s *Service) ForkQuestion(ctx context.Context, id, questionID string, req api.ForkRequest) (string, error) {
	c, err := s.store.GetConversation(ctx, id)
	if err != nil {
		return "", err
	}
	if err := refuseAgentConversation(c); err != nil {
		return "", err
	}
	card, err := s.store.Card(ctx, questionID)
	if err != nil || card.ConversationID != id {
		return "", fmt.Errorf("question %s of conversation %s: %w", questionID, id, questions.ErrNotFound)
	}
	if card.Kind != "" && card.Kind != questions.KindQuestion {
		return "", fmt.Errorf("card %s is not a question, so it has no answer to change: %w", questionID, questions.ErrConflict)
	}
	if card.Status == questions.StatusPending {
		return "", fmt.Errorf("card %s is still waiting for its first answer: %w", questionID, questions.ErrConflict)
	}
	answers, err := questions.ValidateAnswers(card.Questions, req.Answers, req.Comments)
	if err != nil {
		return "", err
	}
	if s.rt.Active(id) {
		return "", ErrRunActive
	}
	result, err := s.cardResult(ctx, card)
	if err != nil {
		return "", err
	}
	content := questions.SubmitResult(answers, req.Comments)
	return s.start(assistant.StartRequest{ConversationID: id, Profile: c.Assistant, Model: c.Model, Thinking: c.Thinking,
		Prepare: func(ctx context.Context, runID string) error {
			if err := s.store.SetLeaf(ctx, id, result.ParentID); err != nil {
				return err
			}
			m := &chat.Message{ConversationID: id, RunID: runID, Role: chat.RoleTool, Content: content,
				ToolCallID: result.ToolCallID, ToolName: result.ToolName}
			if err := s.store.AppendMessage(ctx, m); err != nil {
				return err
			}
			s.ev.Emit(events.MessageDone, events.MessageDonePayload{ConversationID: id, RunID: runID, Message: *m})
			return nil
		}})
}

// cardResult finds the tool result the card's call got first: the fork
// splits there. Models reuse call ids across turns, so the result must
// follow the call of the card's run.
func (s *Service) cardResult(ctx context.Context, card *questions.Card) (*chat.Message, error) {
	all, err := s.store.AllMessages(ctx, card.ConversationID)
	if err != nil {
		return nil, err
	}
	calledBy := map[string]bool{} // assistant message ids that made the card's call in its run
	for _, m := range all {
		if m.Role == chat.RoleAssistant && m.RunID == card.RunID {
			for _, tc := range m.ToolCalls {
				if tc.ID == card.ToolCallID {
					calledBy[m.ID] = true
				}
			}
		}
	}
	byID := map[string]chat.Message{}
	for _, m := range all {
		byID[m.ID] = m
	}
	for _, m := range all {
		if m.Role != chat.RoleTool || m.ToolCallID != card.ToolCallID || card.ToolCallID == "" {
			continue
		}
		// The result follows its call, after the results of earlier calls of the same message.
		for p := byID[m.ParentID]; ; p = byID[p.ParentID] {
			if calledBy[p.ID] {
				return &m, nil
			}
			if p.Role != chat.RoleTool {
				break
			}
		}
	}
	return nil, fmt.Errorf("card %s has no answer in the conversation to change (it was asked but never answered there): %w", card.ID, questions.ErrConflict)
}

// refuseAgentConversation: no model runs in an agent's conversation (SPEC
// §10); the user answers its cards, the agent reads the answers.
func refuseAgentConversation(c *chat.Conversation) error {
	if c.Agent == "" {
		return nil
	}
	return fmt.Errorf("%w: %q is an agent's conversation: answer its cards, and the agent reads the answers", ErrAgentConversation, c.Agent)
}
