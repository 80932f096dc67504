package httpapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/mcpserver"
)

// Agents is the inbox of agents on the machine (SPEC §10): agentinbox.Inbox.
type Agents interface {
	mcpserver.Agents
	CreateToken(ctx context.Context, name string) (api.NewAgentToken, error)
	Tokens(ctx context.Context) ([]api.AgentToken, error)
	RevokeToken(ctx context.Context, id string) error
	VerifyToken(ctx context.Context, secret string) (api.AgentToken, bool)
}

// MCPPath is the MCP server's endpoint (streamable HTTP).
const MCPPath = "/mcp"

// agentPath reports whether an agent token may reach the path: only /mcp
// and /api/v1/asks… (SPEC §10).
func agentPath(p string) bool {
	return p == MCPPath || p == "/api/v1/asks" || strings.HasPrefix(p, "/api/v1/asks/")
}

// agentTokensPath reports whether the path manages agent tokens (with the
// API token only: an agent token is refused there by scope).
func agentTokensPath(p string) bool {
	return p == "/api/v1/agent-tokens" || strings.HasPrefix(p, "/api/v1/agent-tokens/")
}

// bearer is the request's bearer token, if any.
func bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		return strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
	}
	return ""
}

type agentTokenKey struct{}

// agentTokenOf is the agent token a request was let in with (nil for the
// API token).
func agentTokenOf(r *http.Request) *api.AgentToken {
	t, _ := r.Context().Value(agentTokenKey{}).(*api.AgentToken)
	return t
}

// scope refuses what an agent token may not reach, and every path but the
// agents' (their tokens, with the API token, and health included) while the
// rest of the local API is off. It runs before routing, so no path of the
// API escapes it.
func (s *Server) scope(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if strings.HasPrefix(bearer(r), agentinbox.TokenPrefix) && !agentPath(p) {
		writeError(w, http.StatusForbidden, "an agent token reaches only /mcp and /api/v1/asks")
		return false
	}
	if s.opts.FullAPI != nil && !s.opts.FullAPI() && !agentPath(p) && !agentTokensPath(p) && p != "/api/v1/health" {
		writeError(w, http.StatusForbidden, "the local API is off: this listener answers agents only (/mcp, /api/v1/asks and /api/v1/agent-tokens); "+
			`turn on "Allow local tools to answer questions through the HTTP API" in Parley's settings for the rest`)
		return false
	}
	return true
}

// protectAgent lets in the API token or an agent token (its routes are
// agent paths only, see scope).
func (s *Server) protectAgent(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	full := s.protect(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok, ok := s.verifyAgent(r.Context(), bearer(r)); ok {
			r = r.WithContext(context.WithValue(r.Context(), agentTokenKey{}, &tok))
			r.Header.Set("Authorization", "Bearer "+s.auth.token) // the API token's checks pass it on
			r.Header.Del("Cookie")
		}
		full.ServeHTTP(w, r)
	})
}

// localAgentID is the id of Options.LocalAgentToken. It has no name: the
// card's asker is the agent's own name, else the API token's default.
const localAgentID = "local"

func (s *Server) verifyAgent(ctx context.Context, secret string) (api.AgentToken, bool) {
	if s.opts.Agents == nil || secret == "" {
		return api.AgentToken{}, false
	}
	if local := s.opts.LocalAgentToken; local != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(local)) == 1 {
		return api.AgentToken{ID: localAgentID}, true
	}
	return s.opts.Agents.VerifyToken(ctx, secret)
}

// mcpHandler is the MCP server at /mcp behind the bearer token (an agent
// token, or the API token), with the body limit. Host and Origin were
// checked by ServeHTTP: the Go SDK has no cross-origin protection of its own.
func (s *Server) mcpHandler() http.Handler {
	srv := mcpserver.NewServer(s.opts.Agents, mcpserver.Options{Version: s.opts.Version, Logger: s.log, ProgressEvery: s.opts.MCPProgressEvery})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		Logger:              s.log,
		SessionTimeout:      30 * time.Minute,
		MaxRequestBodyBytes: MaxBodyBytes,
	})
	verify := func(ctx context.Context, token string, _ *http.Request) (*mcpauth.TokenInfo, error) {
		if s.auth.tokenOK(token) {
			return &mcpauth.TokenInfo{UserID: "parley-api", Extra: map[string]any{}}, nil
		}
		if tok, ok := s.verifyAgent(ctx, token); ok {
			return &mcpauth.TokenInfo{UserID: "agent-token:" + tok.ID, Extra: map[string]any{mcpserver.TokenNameKey: tok.Name}}, nil
		}
		return nil, mcpauth.ErrInvalidToken
	}
	return mcpauth.RequireBearerToken(verify, &mcpauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// askBody is POST /api/v1/asks: the §1 input with the agent's extras.
type askBody struct {
	Context        string `json:"context"`
	Agent          string `json:"agent"`
	TimeoutSeconds *int   `json:"timeout_seconds"`
}

// DefaultRESTAgent names the asker of a REST card sent with the API token
// and no "agent" field.
const DefaultRESTAgent = "script"

func (s *Server) postAsk(w http.ResponseWriter, r *http.Request) error {
	var raw json.RawMessage
	if err := decode(r, &raw); err != nil {
		return err
	}
	var body askBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return statusError{http.StatusUnprocessableEntity, agentinbox.Invalid("agents.badJSON", err.Error())}
	}
	agent := body.Agent
	if agent == "" {
		agent = DefaultRESTAgent
		if tok := agentTokenOf(r); tok != nil && tok.Name != "" {
			agent = tok.Name
		}
	}
	var timeout *time.Duration
	if body.TimeoutSeconds != nil {
		if *body.TimeoutSeconds < 0 {
			return statusError{http.StatusUnprocessableEntity, agentinbox.Invalid("agents.badTimeout")}
		}
		d := time.Duration(*body.TimeoutSeconds) * time.Second
		timeout = &d
	}
	card, err := s.opts.Agents.Ask(r.Context(), agentinbox.AskRequest{Agent: agent, Input: raw, Context: body.Context, Timeout: timeout})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.AskFiled{QuestionID: card.ID, ConversationID: card.ConversationID, Status: string(card.Status)})
	return nil
}

func (s *Server) getAsk(w http.ResponseWriter, r *http.Request) error {
	wait := 0
	if v := r.URL.Query().Get("wait"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > api.MaxAgentWaitSeconds {
			return statusError{http.StatusBadRequest, agentinbox.Invalid("agents.badWait", api.MaxAgentWaitSeconds)}
		}
		wait = n
	}
	ans, err := s.opts.Agents.Answer(r.Context(), "", r.PathValue("id"), time.Duration(wait)*time.Second)
	if err != nil {
		return err
	}
	st := api.AskState{QuestionID: ans.QuestionID, Status: string(ans.Status)}
	if !ans.Pending {
		st.Result = ans.Result
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
