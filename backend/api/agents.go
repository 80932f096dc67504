package api

import "time"

// Agents on the machine ask through Parley (SPEC §10): their tokens, the
// REST asks, and the desktop app's listener for them.

// AgentToken is one agent token as listed (its secret is never stored or
// shown again after it was made).
type AgentToken struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

// NewAgentToken answers POST /api/v1/agent-tokens: the only time the
// token is shown.
type NewAgentToken struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Token string `json:"token"`
}

// AgentTokenRequest makes an agent token.
type AgentTokenRequest struct {
	Name string `json:"name"`
}

// AskFiled answers POST /api/v1/asks.
type AskFiled struct {
	QuestionID     string `json:"question_id"`
	ConversationID string `json:"conversationId"`
	Status         string `json:"status"`
}

// AskState answers GET /api/v1/asks/{id}: the §1 result once resolved.
type AskState struct {
	QuestionID string `json:"question_id"`
	Status     string `json:"status"`
	Result     string `json:"result,omitempty"`
}

// AgentListener is the state of the desktop app's listener for agents
// (Settings → Agents): whether it is on, where, and why not when it could
// not listen.
type AgentListener struct {
	Enabled bool   `json:"enabled"`
	Addr    string `json:"addr"`
	// Running: the listener serves now; URL is its /mcp endpoint.
	Running bool   `json:"running"`
	URL     string `json:"url,omitempty"`
	// Error says why it is not running though enabled (e.g. the port is
	// taken by another Parley or `parley serve`), with the way out.
	Error string `json:"error,omitempty"`
	// LocalAPI: the whole local API answers too (the "allow local tools"
	// setting); otherwise only the agents' paths do.
	LocalAPI bool `json:"local_api"`
}

// Limits of agents' requests (SPEC §10).
const (
	// MaxAgentWaitSeconds bounds wait_seconds and ?wait=.
	MaxAgentWaitSeconds = 600
	// DefaultAgentWaitSeconds: MCP clients give up on a call after 60 s.
	DefaultAgentWaitSeconds = 45
	// MaxAgentContextChars bounds an agent's context Markdown.
	MaxAgentContextChars = 20000
	// MaxAgentNameChars bounds an agent's (or token's) name.
	MaxAgentNameChars = 64
	// MaxNoticeChars bounds a notify_user message.
	MaxNoticeChars = 2000
)
