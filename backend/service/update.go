package service

import (
	"context"
	"strings"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/trace"
)

// UpdateConversation changes what u gives of a conversation and returns it.
// The settings that can be refused (an unknown project, thinking setting,
// collection or profile) are checked first, so that a refused change
// changes nothing.
func (s *Service) UpdateConversation(ctx context.Context, id string, u api.ConversationUpdate) (*api.ConversationDetail, error) {
	if u.Title == nil && u.Pinned == nil && u.Assistant == nil && u.Model == nil && u.Thinking == nil && u.Knowledge == nil && u.ProjectID == nil {
		return nil, inputErrorf(`give "title", "pinned", "assistant", "model", "thinking", "knowledge" and/or "project_id"`)
	}
	if u.ProjectID != nil && strings.TrimSpace(*u.ProjectID) != "" {
		if _, err := s.checkProject(ctx, strings.TrimSpace(*u.ProjectID)); err != nil {
			return nil, err
		}
	}
	steps := []struct {
		given bool
		do    func() error
	}{
		{u.Thinking != nil, func() error { return s.SetThinking(ctx, id, *u.Thinking) }},
		{u.Knowledge != nil, func() error { return s.SetConversationKnowledge(ctx, id, *u.Knowledge) }},
		{u.Assistant != nil, func() error { return s.SetAssistant(ctx, id, *u.Assistant) }},
		{u.ProjectID != nil, func() error { return s.SetConversationProject(ctx, id, *u.ProjectID) }},
		{u.Model != nil, func() error { return s.SetModel(ctx, id, *u.Model) }},
		{u.Title != nil, func() error { return s.RenameConversation(ctx, id, *u.Title) }},
		{u.Pinned != nil, func() error { return s.SetPinned(ctx, id, *u.Pinned) }},
	}
	for _, step := range steps {
		if step.given {
			if err := step.do(); err != nil {
				return nil, err
			}
		}
	}
	return s.GetConversation(ctx, id)
}

// Health says the backend answers, its version, and whether the card trace
// is on.
func (s *Service) Health() api.Health {
	return api.Health{Status: "ok", Version: s.opt.Version, Trace: trace.Enabled()}
}

// AgentTokens lists the agent tokens (never their secrets).
func (s *Service) AgentTokens(ctx context.Context) ([]api.AgentToken, error) {
	return s.agents.Tokens(ctx)
}

// CreateAgentToken makes a token; its secret is returned this once.
func (s *Service) CreateAgentToken(ctx context.Context, name string) (api.NewAgentToken, error) {
	return s.agents.CreateToken(ctx, name)
}

// RevokeAgentToken deletes a token: it stops working at once.
func (s *Service) RevokeAgentToken(ctx context.Context, id string) error {
	return s.agents.RevokeToken(ctx, id)
}
