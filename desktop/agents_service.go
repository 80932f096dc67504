package desktop

import "github.com/parley-app/parley/backend/api"

// AgentsService is window.go.desktop.AgentsService: Settings → Agents (SPEC
// §10): the listener for agents and the agent tokens.
type AgentsService struct {
	binding
	listener func() api.AgentListener
}

// Listener says whether Parley listens for agents, where, and why not.
func (a *AgentsService) Listener() (api.AgentListener, error) {
	if a.listener == nil {
		return api.AgentListener{}, nil
	}
	return a.listener(), nil
}

// AgentTokens lists the agent tokens (never their secrets).
func (a *AgentsService) AgentTokens() ([]api.AgentToken, error) {
	return wire(a.svc.Agents().Tokens(a.ctx))
}

// CreateAgentToken makes a token; its secret is returned this once.
func (a *AgentsService) CreateAgentToken(name string) (api.NewAgentToken, error) {
	return a.svc.Agents().CreateToken(a.ctx, name)
}

// RevokeAgentToken deletes a token: it stops working at once.
func (a *AgentsService) RevokeAgentToken(id string) error {
	return a.svc.Agents().RevokeToken(a.ctx, id)
}
