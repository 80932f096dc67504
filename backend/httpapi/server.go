// Package httpapi serves SPEC §4: the local HTTP API with its SSE event
// stream, and the built UI, on loopback behind a bearer token.
package httpapi

import (
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/calls"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/service"
)

// MaxBodyBytes bounds every request body.
const MaxBodyBytes = api.MaxBodyBytes

// MaxMessageBodyBytes bounds a sent message, whose files come base64-encoded.
const MaxMessageBodyBytes = api.MaxMessageBodyBytes

// MaxImportBytes bounds an imported conversation (the service's limit).
const MaxImportBytes = service.MaxImportBytes

// Options configure a Server.
type Options struct {
	Backend calls.Backend
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
	// Every call of the UI, declared once in backend/calls.
	s.mountCalls()
	// Not calls: the event stream, and the agents' own endpoints.
	api("GET /api/v1/events", s.events)
	if s.opts.Agents != nil {
		// SPEC §10: the agents' endpoints; scope() keeps agent tokens to them.
		s.handle("POST /api/v1/asks", s.protectAgent(s.postAsk))
		s.handle("GET /api/v1/asks/{id}", s.protectAgent(s.getAsk))
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

// NotCalls are the routes that are not UI calls, each with why (the
// architecture test fails on any other route without a declaration).
var NotCalls = map[string]string{
	"GET /api/v1/events":    "the SSE event stream (SPEC §3)",
	"POST /api/v1/asks":     "an agent files a card (SPEC §10): agents' own endpoint, agent tokens only",
	"GET /api/v1/asks/{id}": "an agent waits for its card's answer (SPEC §10)",
	"GET " + MCPPath:        "Parley's MCP server for agents (streamable HTTP)",
	"POST " + MCPPath:       "Parley's MCP server for agents (streamable HTTP)",
	"DELETE " + MCPPath:     "Parley's MCP server for agents (streamable HTTP)",
	"/api/":                 "404 for every other API path",
	"GET /login":            "the browser's one-time login link",
	"/":                     "the built UI for browsers",
}

// Patterns lists the routes served.
func (s *Server) Patterns() []string { return append([]string(nil), s.patterns...) }

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
