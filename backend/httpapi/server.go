// Package httpapi serves SPEC §4: the local HTTP API with its SSE event
// stream, and the built UI, on loopback behind a bearer token.
package httpapi

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/trace"
)

// MaxBodyBytes bounds every request body.
const MaxBodyBytes = api.MaxBodyBytes

// MaxMessageBodyBytes bounds a sent message, whose files come base64-encoded.
const MaxMessageBodyBytes = api.MaxMessageBodyBytes

// Backend is the domain service the handlers call.
type Backend interface {
	ListConversations(ctx context.Context, limit int, cursor, query string) (service.ConversationPage, error)
	CreateConversation(ctx context.Context, title, assistant string) (*chat.Conversation, error)
	GetConversation(ctx context.Context, id string) (*service.ConversationDetail, error)
	DeleteConversation(ctx context.Context, id string) error
	// Send sends a message, also under an earlier one (SPEC §4, §7).
	Send(ctx context.Context, id string, req service.SendRequest) (runID string, err error)
	Regenerate(ctx context.Context, id, messageID, model string) (runID string, err error)
	SelectBranch(ctx context.Context, id, messageID string) (*service.ConversationDetail, error)
	ForkQuestion(ctx context.Context, id, questionID string, req service.ForkRequest) (runID string, err error)
	Cancel(ctx context.Context, id string) error
	Respond(ctx context.Context, id string, r questions.Response) (*questions.Card, error)
	ConversationQuestions(ctx context.Context, id string) ([]*questions.Card, error)
	Questions(ctx context.Context, status string) ([]*questions.Card, error)
	// Beyond SPEC §4, for the UI in a browser.
	RenameConversation(ctx context.Context, id, title string) error
	SetPinned(ctx context.Context, id string, pinned bool) error
	SetAssistant(ctx context.Context, id, assistant string) error
	SetModel(ctx context.Context, id, model string) error
	SetThinking(ctx context.Context, id, thinking string) error
	Retry(ctx context.Context, id string) (runID string, err error)
	ListModels(ctx context.Context) ([]service.ModelInfo, error)
	GetSettings() service.Settings
	SaveSettings(ctx context.Context, s service.Settings) (service.Settings, error)
	CheckModelServer(ctx context.Context) service.ModelStatus
	PullModel(ctx context.Context, name string) error
	ModelStats(ctx context.Context) ([]service.ModelStats, error)
	ResetModelStats(ctx context.Context) error
	ExportSettings(ctx context.Context) (service.SettingsExport, error)
	Profiles(ctx context.Context) ([]service.Profile, error)
	SaveProfile(ctx context.Context, p service.Profile) (service.Profile, error)
	DeleteProfile(ctx context.Context, name string) error
	AvailableTools() []service.ToolInfo
	ExportConversation(ctx context.Context, id, format string) (string, error)
	ImportConversation(ctx context.Context, data []byte) (*chat.Conversation, error)
	// MCP servers (SPEC §6).
	MCPServers() []api.MCPServer
	PutMCPServer(name string, cfg api.MCPServerConfig) (api.MCPServer, error)
	DeleteMCPServer(name string) error
	SetMCPToolPolicy(server, tool, policy string) (api.MCPTool, error)
	ImportMCPConfig(content []byte) (api.MCPImportResult, error)
	// Knowledge collections (SPEC §11).
	Collections(ctx context.Context) ([]api.Collection, error)
	Collection(ctx context.Context, id string) (api.Collection, error)
	CreateCollection(ctx context.Context, req api.CollectionRequest) (api.Collection, error)
	UpdateCollection(ctx context.Context, id string, req api.CollectionRequest) (api.Collection, error)
	ReindexCollection(ctx context.Context, id string) error
	CancelCollection(ctx context.Context, id string) (api.Collection, error)
	DeleteCollection(ctx context.Context, id string) error
	SearchCollection(ctx context.Context, id string, req api.KnowledgeSearchRequest) (api.KnowledgeSearchResponse, error)
	SetConversationKnowledge(ctx context.Context, id string, collections []string) error
}

// MaxImportBytes bounds an imported conversation (the service's limit).
const MaxImportBytes = service.MaxImportBytes

// Options configure a Server.
type Options struct {
	Backend Backend
	Broker  *events.Broker
	Token   string
	Version string
	UI      fs.FS // the built frontend; nil serves no UI
	Logger  *slog.Logger
	// Heartbeat is the SSE keep-alive interval (default 15s).
	Heartbeat time.Duration
	// Agents serves the agents on the machine (SPEC §10): /mcp,
	// /api/v1/asks and the agent tokens; nil serves none of them.
	Agents Agents
	// FullAPI, when set, says whether the whole API answers; while it
	// returns false only the agents' paths (and health) do (the desktop
	// app listens for agents with its local API off).
	FullAPI func() bool
	// MCPProgressEvery: progress notifications of waiting MCP calls (0 = 10 s).
	MCPProgressEvery time.Duration
	// LocalAgentToken is an agent token known only to this process (made by
	// agentinbox.NewSecret) for `parley ask` and `parley mcp`, which read it
	// from the listener file; like any agent token it reaches only the
	// agents' paths. Empty = none.
	LocalAgentToken string
}

// Server is the HTTP handler.
type Server struct {
	opts Options
	auth *auth
	mux  *http.ServeMux
	log  *slog.Logger
	// patterns lists every route registered (the security tests walk it).
	patterns []string
}

// New builds the handler.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.LocalAgentToken != "" && !strings.HasPrefix(opts.LocalAgentToken, agentinbox.TokenPrefix) {
		panic("httpapi: LocalAgentToken must be an agent token (agentinbox.NewSecret)")
	}
	s := &Server{opts: opts, auth: newAuth(opts.Token), mux: http.NewServeMux(), log: opts.Logger}
	s.routes()
	return s
}

// LoginCode returns a one-time code for the login URL (/login?code=...).
func (s *Server) LoginCode() string { return s.auth.newLoginCode() }

// handle registers a route; every route goes through here so that the
// security tests find it in s.patterns.
func (s *Server) handle(pattern string, h http.Handler) {
	s.patterns = append(s.patterns, pattern)
	s.mux.Handle(pattern, h)
}

func (s *Server) routes() {
	api := func(pattern string, h func(http.ResponseWriter, *http.Request) error) {
		s.handle(pattern, s.protect(h))
	}
	api("GET /api/v1/health", s.health)
	api("GET /api/v1/conversations", s.listConversations)
	api("POST /api/v1/conversations", s.createConversation)
	api("GET /api/v1/conversations/{id}", s.getConversation)
	api("DELETE /api/v1/conversations/{id}", s.deleteConversation)
	s.handle("POST /api/v1/conversations/{id}/messages", s.protectSized(MaxMessageBodyBytes, s.sendMessage))
	api("POST /api/v1/conversations/{id}/regenerate", s.regenerate)
	api("PUT /api/v1/conversations/{id}/branch", s.selectBranch)
	api("POST /api/v1/conversations/{id}/questions/{question_id}/fork", s.forkQuestion)
	api("POST /api/v1/conversations/{id}/cancel", s.cancel)
	api("GET /api/v1/conversations/{id}/pending-question", s.pendingQuestion)
	api("POST /api/v1/conversations/{id}/respond", s.respond)
	api("GET /api/v1/conversations/{id}/questions", s.conversationQuestions)
	api("GET /api/v1/questions", s.questions)
	api("GET /api/v1/events", s.events)
	api("PATCH /api/v1/conversations/{id}", s.patchConversation)
	api("POST /api/v1/conversations/{id}/retry", s.retry)
	api("GET /api/v1/settings", s.getSettings)
	api("PUT /api/v1/settings", s.saveSettings)
	api("GET /api/v1/models", s.models)
	api("GET /api/v1/models/status", s.modelStatus)
	api("POST /api/v1/models/pull", s.pullModel)
	api("GET /api/v1/models/stats", s.modelStats)
	api("DELETE /api/v1/models/stats", s.resetModelStats)
	api("GET /api/v1/settings/export", s.exportSettings)
	api("GET /api/v1/profiles", s.profiles)
	api("PUT /api/v1/profiles/{name}", s.saveProfile)
	api("DELETE /api/v1/profiles/{name}", s.deleteProfile)
	api("GET /api/v1/tools", s.tools)
	api("GET /api/v1/conversations/{id}/export", s.export)
	api("GET /api/v1/mcp/servers", s.mcpServers)
	api("PUT /api/v1/mcp/servers/{name}", s.putMCPServer)
	api("DELETE /api/v1/mcp/servers/{name}", s.deleteMCPServer)
	api("PUT /api/v1/mcp/servers/{name}/tools/{tool}", s.setMCPToolPolicy)
	api("POST /api/v1/mcp/import", s.importMCPConfig)
	api("GET /api/v1/knowledge", s.collections)
	api("POST /api/v1/knowledge", s.createCollection)
	api("GET /api/v1/knowledge/{id}", s.getCollection)
	api("PATCH /api/v1/knowledge/{id}", s.patchCollection)
	api("DELETE /api/v1/knowledge/{id}", s.deleteCollection)
	api("POST /api/v1/knowledge/{id}/reindex", s.reindexCollection)
	api("POST /api/v1/knowledge/{id}/cancel", s.cancelCollection)
	api("POST /api/v1/knowledge/{id}/search", s.searchCollection)
	api("GET /api/v1/debug/trace", s.getTrace)
	api("POST /api/v1/debug/trace", s.postTrace)
	s.handle("POST /api/v1/conversations/import", s.protectSized(MaxImportBytes, s.importConversation))
	if s.opts.Agents != nil {
		// SPEC §10: the agents' endpoints; scope() keeps agent tokens to them.
		s.handle("POST /api/v1/asks", s.protectAgent(s.postAsk))
		s.handle("GET /api/v1/asks/{id}", s.protectAgent(s.getAsk))
		api("POST /api/v1/agent-tokens", s.createAgentToken)
		api("GET /api/v1/agent-tokens", s.agentTokens)
		api("DELETE /api/v1/agent-tokens/{id}", s.revokeAgentToken)
		// The streamable HTTP transport's three methods, each its own route so
		// that the security tests walk the state-changing ones.
		mcp := s.mcpHandler()
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			s.handle(method+" "+MCPPath, mcp)
		}
	}
	s.handle("/api/", s.protect(func(http.ResponseWriter, *http.Request) error {
		return httpError{http.StatusNotFound, "no such endpoint"}
	}))
	s.handle("GET /login", http.HandlerFunc(s.login))
	if s.opts.UI != nil {
		s.handle("/", s.ui())
	}
}

// ServeHTTP checks Host, Origin, where a browser says the request comes from
// and the body's type before anything else, for every route (also those
// added later).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, "host not allowed")
		return
	}
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "cross-origin request refused")
		return
	}
	if status, msg := forgeable(r); status != 0 {
		writeError(w, status, msg)
		return
	}
	if !s.scope(w, r) {
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, api.Health{Status: "ok", Version: s.opts.Version, Trace: trace.Enabled()})
	return nil
}
