package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// Memory (SPEC §14): what Parley keeps across conversations, and how runs
// use it (memoryHook).

// The values of the memory list's project filter besides a project's id.
const (
	// MemoryProjectAll (or no filter) lists every memory.
	MemoryProjectAll = "all"
	// MemoryProjectNone lists the memories of no project (every conversation's).
	MemoryProjectNone = "none"
)

// memoryOn reports whether memory is on.
func (s *Service) memoryOn() bool { return s.GetSettings().Memory != MemoryOff }

// conversationProject is the project of a conversation ("" = none), which
// decides the memories in its scope.
func (s *Service) conversationProject(ctx context.Context, conversationID string) string {
	c, err := s.store.GetConversation(ctx, conversationID)
	if err != nil || c.ProjectID == nil {
		return ""
	}
	return *c.ProjectID
}

// conversationScope is what decides the memories that apply to a
// conversation: itself and its project.
func (s *Service) conversationScope(ctx context.Context, conversationID string) memory.Scope {
	return memory.Scope{Conversation: conversationID, Project: s.conversationProject(ctx, conversationID)}
}

// Memories lists memories, newest first: project "" or "all" lists every
// one, "none" those of no project, else the project's own.
func (s *Service) Memories(ctx context.Context, project string) ([]memory.Memory, error) {
	switch project = strings.TrimSpace(project); project {
	case "", MemoryProjectAll:
		return s.store.Memories(ctx, store.MemoryFilter{All: true})
	case MemoryProjectNone:
		return s.store.Memories(ctx, store.MemoryFilter{})
	default:
		return s.store.Memories(ctx, store.MemoryFilter{Project: project})
	}
}

// checkMemoryText trims a memory's text and checks its length.
func checkMemoryText(text string) (string, error) {
	t, n, err := memory.CheckText(text)
	switch {
	case errors.Is(err, memory.ErrEmpty):
		return "", inputError(i18n.M("memory.textRequired"))
	case errors.Is(err, memory.ErrTooLong):
		return "", inputError(i18n.M("memory.textTooLong", memory.MaxTextChars, n))
	}
	return t, nil
}

// CreateMemory keeps a memory the user typed. While memory is off nothing
// new is kept.
func (s *Service) CreateMemory(ctx context.Context, req api.MemoryRequest) (memory.Memory, error) {
	text, err := checkMemoryText(req.Text)
	if err != nil {
		return memory.Memory{}, err
	}
	if !s.memoryOn() {
		return memory.Memory{}, inputError(i18n.M("memory.off"))
	}
	m := memory.Memory{Text: text, Source: memory.Source{Type: memory.SourceUser}}
	if req.ProjectID != nil {
		if p := strings.TrimSpace(*req.ProjectID); p != "" {
			if _, err := s.checkProject(ctx, p); err != nil {
				return memory.Memory{}, err // an unknown project: nothing kept
			}
			m.ProjectID = &p
		}
	}
	if err := s.store.AddMemory(ctx, &m); err != nil {
		return memory.Memory{}, err
	}
	s.memoryChanged("", false, m.ID)
	s.vectors.kick()
	return m, nil
}

// UpdateMemory changes a memory's text and/or whether it answers cards;
// only a memory made from an answer can answer them. The text of an answer
// memory may change; auto-answer still gives the answer it was made from.
func (s *Service) UpdateMemory(ctx context.Context, id string, u api.MemoryUpdate) (memory.Memory, error) {
	if u.Text == nil && u.AutoAnswer == nil {
		return memory.Memory{}, inputErrorf(`give "text" and/or "auto_answer"`)
	}
	m, err := s.store.Memory(ctx, id)
	if err != nil {
		return memory.Memory{}, err
	}
	var up store.MemoryUpdate
	if u.Text != nil {
		text, err := checkMemoryText(*u.Text)
		if err != nil {
			return memory.Memory{}, err
		}
		up.Text = &text
	}
	if u.AutoAnswer != nil {
		if *u.AutoAnswer && (m.Source.Type != memory.SourceAnswer || m.Answer == nil) {
			return memory.Memory{}, inputError(i18n.M("memory.autoAnswerNeedsAnswer"))
		}
		up.AutoAnswer = u.AutoAnswer
	}
	m, err = s.store.UpdateMemory(ctx, id, up)
	if err != nil {
		return memory.Memory{}, err
	}
	s.memoryChanged("", false, m.ID)
	if up.Text != nil {
		s.vectors.kick() // the old text's vector is gone
	}
	return m, nil
}

// DeleteMemory forgets one memory.
func (s *Service) DeleteMemory(ctx context.Context, id string) error {
	if err := s.store.DeleteMemory(ctx, id); err != nil {
		return err
	}
	s.memoryChanged("", false, id)
	return nil
}

// DeleteAllMemories forgets every memory (Settings → Memory).
func (s *Service) DeleteAllMemories(ctx context.Context) error {
	if _, err := s.store.DeleteAllMemories(ctx); err != nil {
		return err
	}
	s.memoryChanged("", true)
	return nil
}

func (s *Service) memoryChanged(conversationID string, all bool, ids ...string) {
	if ids == nil {
		ids = []string{}
	}
	s.ev.Emit(events.MemoryChanged, events.MemoryChangedPayload{ConversationID: conversationID, IDs: ids, All: all})
}

// checkRemember checks a response's "remember" before the answer is
// applied, so that a wrong name changes nothing: it needs a submitted
// answer to a question card, and each name must be a question of it. It
// returns the card the response is for (nil when it cannot be found: the
// response then fails as it would without remember) and the questions named.
func (s *Service) checkRemember(conversationID string, r questions.Response) (*questions.Card, []questions.Question, error) {
	if r.Action.Canonical() != questions.ActionSubmit {
		return nil, nil, inputErrorf(`"remember" goes with "action": "submit"`)
	}
	card, err := s.qm.Resolve(conversationID, r.QuestionID)
	if err != nil {
		return nil, nil, nil
	}
	if card.Kind != questions.KindQuestion {
		return nil, nil, inputErrorf(`"remember" names questions of a question card`)
	}
	var named []questions.Question
	for _, name := range r.Remember {
		name = strings.TrimSpace(name)
		i := -1
		for j, q := range card.Questions {
			if q.Question == name {
				i = j
				break
			}
		}
		if i < 0 {
			return nil, nil, inputError(i18n.M("memory.unknownQuestion", name))
		}
		if !containsQuestion(named, name) {
			named = append(named, card.Questions[i])
		}
	}
	return card, named, nil
}

func containsQuestion(qs []questions.Question, text string) bool {
	for _, q := range qs {
		if q.Question == text {
			return true
		}
	}
	return false
}

// rememberAnswers keeps one memory per named question of an answered card
// (SPEC §14). The answer to an agent's card (SPEC §10) is remembered for
// that agent's conversation only: there alone it applies, and only such a
// memory answers the agent's cards. The answer stands whatever happens here.
func (s *Service) rememberAnswers(ctx context.Context, card *questions.Card, r questions.Response, named []questions.Question) {
	if !s.memoryOn() || len(named) == 0 {
		return
	}
	var project, scope *string
	if p := s.conversationProject(ctx, card.ConversationID); p != "" {
		project = &p
	}
	if card.Source != nil && card.Source.Type == questions.SourceAgent {
		c := card.ConversationID
		scope = &c
	}
	ms := make([]*memory.Memory, 0, len(named))
	for _, q := range named {
		text, answer := memory.FromAnswer(q, r.Answers[q.Question], card.Answers[q.Question])
		ms = append(ms, &memory.Memory{Text: text, ProjectID: project, ScopeConversationID: scope, Answer: &answer,
			Source: memory.Source{Type: memory.SourceAnswer, ConversationID: card.ConversationID, QuestionID: card.ID}})
	}
	replaced, err := s.store.AddAnswerMemories(context.WithoutCancel(ctx), ms)
	if err != nil {
		s.log.Error("answers not remembered", "conversation", card.ConversationID, "question_id", card.ID, "err", err)
		return
	}
	ids := replaced
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	s.memoryChanged(card.ConversationID, false, ids...)
	s.vectors.kick()
}

// memoryHook is the runs' side of memory (assistant.Memory).
type memoryHook struct{ s *Service }

func (h memoryHook) On() bool { return h.s.memoryOn() }

// Prompt lists the memories in the conversation's scope for its run's
// system prompt.
func (h memoryHook) Prompt(ctx context.Context, conversationID, userMessage string) (string, []string) {
	s := h.s
	x, err := s.store.MemoryIndex(ctx)
	if err != nil {
		s.log.Warn("memories for the prompt", "conversation", conversationID, "err", err)
		return "", nil
	}
	return x.Prompt(s.conversationScope(ctx, conversationID), userMessage, memory.PromptBudget, s.vectors.byMeaning(ctx, userMessage))
}

// Used marks the memories a run's prompt listed as used: at once in the
// cache the next runs read, in the database once after is closed.
func (h memoryHook) Used(ids []string, after <-chan struct{}) {
	h.s.store.MarkMemoriesUsed(ids, time.Now(), after)
}

// AutoAnswer answers a card of the model's from the auto-answer memories
// in the conversation's scope when they answer every question of it.
// (Agents' cards come to agentAutoAnswer instead.)
func (h memoryHook) AutoAnswer(ctx context.Context, req questions.AskRequest) (*questions.Card, error) {
	s := h.s
	answers, ids, ok, err := s.matchMemories(ctx, s.conversationScope(ctx, req.ConversationID), false, req.Questions)
	if err != nil || !ok {
		return nil, err
	}
	card, err := s.qm.CreateAnswered(ctx, req, questions.Answered{By: memory.AnsweredBy, Answers: answers, IDs: ids})
	if err != nil {
		return nil, err
	}
	if err := s.store.TouchMemories(context.WithoutCancel(ctx), ids, time.Now()); err != nil {
		s.log.Warn("mark memories used", "conversation", req.ConversationID, "err", err)
	}
	return card, nil
}

// matchMemories answers questions from the auto-answer memories of the
// scope (for an agent's card, agent: only those scoped to its
// conversation); ok false when they do not answer every question.
func (s *Service) matchMemories(ctx context.Context, sc memory.Scope, agent bool, qs []questions.Question) (map[string]questions.AnswerInput, []string, bool, error) {
	if !s.memoryOn() {
		return nil, nil, false, nil
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = strings.TrimSpace(q.Question)
	}
	ms, err := s.store.AutoAnswerMemories(ctx, sc, agent, texts)
	if err != nil || len(ms) == 0 {
		return nil, nil, false, err
	}
	if agent {
		ms = memory.ForAgentCard(ms, sc.Conversation)
	}
	answers, ids, ok := memory.Match(ms, qs)
	return answers, ids, ok, nil
}

// agentAutoAnswer answers an agent's question card (SPEC §10) from the
// auto-answer memories scoped to the agent's conversation, and no other:
// what the user told Parley elsewhere never answers an agent.
func (s *Service) agentAutoAnswer(ctx context.Context, conversationID string, qs []questions.Question) (questions.Answered, bool) {
	answers, ids, ok, err := s.matchMemories(ctx, memory.Scope{Conversation: conversationID}, true, qs)
	if err != nil {
		s.log.Warn("agent card: memories not read, asked", "conversation", conversationID, "err", err)
	}
	if !ok {
		return questions.Answered{}, false
	}
	if err := s.store.TouchMemories(context.WithoutCancel(ctx), ids, time.Now()); err != nil {
		s.log.Warn("mark memories used", "conversation", conversationID, "err", err)
	}
	return questions.Answered{By: memory.AnsweredBy, Answers: answers, IDs: ids}, true
}

// Keep stores what the model proposed to remember, once the user approved it.
func (h memoryHook) Keep(ctx context.Context, conversationID, text string) error {
	s := h.s
	if !s.memoryOn() {
		return errors.New("memory is off")
	}
	text, _, err := memory.CheckText(text)
	if err != nil {
		return err
	}
	m := memory.Memory{Text: text, Source: memory.Source{Type: memory.SourceModel, ConversationID: conversationID}}
	if p := s.conversationProject(ctx, conversationID); p != "" {
		m.ProjectID = &p
	}
	if err := s.store.AddMemory(ctx, &m); err != nil {
		return fmt.Errorf("keep memory: %w", err)
	}
	s.memoryChanged(conversationID, false, m.ID)
	s.vectors.kick()
	return nil
}
