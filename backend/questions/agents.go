package questions

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// AgentAsk is a card an agent on the machine files through Parley's MCP
// server, REST or `parley ask` (SPEC §10): either questions (§1) or, with
// Tool set, an approval of one of the agent's own tool calls.
type AgentAsk struct {
	ConversationID string
	Agent          string
	// ToolCallID ties the card to the message that carries its context.
	ToolCallID string
	Context    string
	Questions  []Question
	// Tool makes an approval card (request_permission); its Server is empty.
	Tool *ApprovalTool
	// Timeout overrides the question timeout setting when set (0 = never).
	Timeout *time.Duration
	// Spare lets the card past the rate limit (the agent's last card was
	// answered: an answer frees its place). It still counts.
	Spare bool
}

// CreateForAgent validates and shows an agent's card. The rate limit and
// the pending cap apply per agent (its conversation); the agent's cards
// never count against the cap of the assistant's own cards.
func (m *Manager) CreateForAgent(ctx context.Context, req AgentAsk) (*Card, error) {
	if req.ConversationID == "" || strings.TrimSpace(req.Agent) == "" {
		return nil, errors.New("create agent card: conversation and agent are required")
	}
	c := &Card{
		ConversationID: req.ConversationID,
		ToolCallID:     req.ToolCallID,
		Source:         &Source{Type: SourceAgent, Agent: req.Agent},
		Context:        req.Context,
	}
	if req.Tool != nil {
		if !isObject(req.Tool.Arguments) {
			return nil, inputErr("input", "questions.rule.object")
		}
		tool := *req.Tool
		if len(tool.InputSchema) == 0 {
			tool.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		c.Kind, c.Tool = KindApproval, &tool
	} else {
		qs := normalizeQuestions(req.Questions)
		if err := ValidateQuestions(qs); err != nil {
			return nil, err
		}
		c.Kind, c.Questions = KindQuestion, qs
	}
	return m.createCardWith(ctx, c, createOptions{rateLimited: true, afterUserTurn: req.Spare, timeout: req.Timeout})
}

// Await waits until the card leaves pending or ctx ends, and returns a copy
// of the card as it then is. Unlike Wait it never cancels the card: an
// agent that stops waiting leaves its card open (SPEC §10). ErrNotFound
// when the card is not held in memory (the caller reads the store).
func (m *Manager) Await(ctx context.Context, id string) (*Card, error) {
	m.mu.Lock()
	e, ok := m.cards[id]
	closing := m.closing
	m.mu.Unlock()
	if !ok {
		return nil, ErrNotFound
	}
	select {
	case <-e.done:
	case <-closing:
		return nil, ErrClosed
	case <-ctx.Done():
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return cloneCard(&e.card), nil
}
