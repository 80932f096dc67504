// Package httpapi serves SPEC §4: the local HTTP API with its SSE event
// stream, and the built UI, on loopback behind a bearer token.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
)

// MaxBodyBytes bounds every request body.
const MaxBodyBytes = api.MaxBodyBytes

// Backend is the domain service the handlers call.
type Backend interface {
	ListConversations(ctx context.Context, limit int, cursor, query string) (service.ConversationPage, error)
	CreateConversation(ctx context.Context, title, assistant string) (*chat.Conversation, error)
	GetConversation(ctx context.Context, id string) (*service.ConversationDetail, error)
	DeleteConversation(ctx context.Context, id string) error
	SendMessage(ctx context.Context, id, content string) (runID string, err error)
	Cancel(ctx context.Context, id string) error
	Respond(ctx context.Context, id string, r questions.Response) (*questions.Card, error)
	ConversationQuestions(ctx context.Context, id string) ([]*questions.Card, error)
	Questions(ctx context.Context, status string) ([]*questions.Card, error)
	// Beyond SPEC §4, for the UI in a browser.
	RenameConversation(ctx context.Context, id, title string) error
	SetPinned(ctx context.Context, id string, pinned bool) error
	SetAssistant(ctx context.Context, id, assistant string) error
	Retry(ctx context.Context, id string) (runID string, err error)
	GetSettings() service.Settings
	SaveSettings(ctx context.Context, s service.Settings) (service.Settings, error)
	CheckModelServer(ctx context.Context) service.ModelStatus
	PullModel(ctx context.Context, name string) error
	Profiles(ctx context.Context) ([]service.Profile, error)
	SaveProfile(ctx context.Context, p service.Profile) (service.Profile, error)
	DeleteProfile(ctx context.Context, name string) error
	AvailableTools() []service.ToolInfo
	ExportConversation(ctx context.Context, id, format string) (string, error)
	ImportConversation(ctx context.Context, data []byte) (*chat.Conversation, error)
}

// MaxImportBytes bounds an imported conversation.
const MaxImportBytes = api.MaxImportBytes

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
}

// Server is the HTTP handler.
type Server struct {
	opts Options
	auth *auth
	mux  *http.ServeMux
	log  *slog.Logger
}

// New builds the handler.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	s := &Server{opts: opts, auth: newAuth(opts.Token), mux: http.NewServeMux(), log: opts.Logger}
	s.routes()
	return s
}

// LoginCode returns a one-time code for the login URL (/login?code=...).
func (s *Server) LoginCode() string { return s.auth.newLoginCode() }

func (s *Server) routes() {
	api := func(pattern string, h func(http.ResponseWriter, *http.Request) error) {
		s.mux.Handle(pattern, s.protect(h))
	}
	api("GET /api/v1/health", s.health)
	api("GET /api/v1/conversations", s.listConversations)
	api("POST /api/v1/conversations", s.createConversation)
	api("GET /api/v1/conversations/{id}", s.getConversation)
	api("DELETE /api/v1/conversations/{id}", s.deleteConversation)
	api("POST /api/v1/conversations/{id}/messages", s.sendMessage)
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
	api("GET /api/v1/profiles", s.profiles)
	api("PUT /api/v1/profiles/{name}", s.saveProfile)
	api("DELETE /api/v1/profiles/{name}", s.deleteProfile)
	api("GET /api/v1/tools", s.tools)
	api("GET /api/v1/conversations/{id}/export", s.export)
	s.mux.Handle("POST /api/v1/conversations/import", s.protectSized(MaxImportBytes, s.importConversation))
	s.mux.Handle("/api/", s.protect(func(http.ResponseWriter, *http.Request) error {
		return httpError{http.StatusNotFound, "no such endpoint"}
	}))
	s.mux.HandleFunc("GET /login", s.login)
	if s.opts.UI != nil {
		s.mux.Handle("/", s.ui())
	}
}

// ServeHTTP checks Host and Origin before anything else.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, "host not allowed")
		return
	}
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "cross-origin request refused")
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

type httpError struct {
	status int
	msg    string
}

func (e httpError) Error() string { return e.msg }

// protect requires the token, bounds the body and maps errors to statuses.
func (s *Server) protect(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return s.protectSized(MaxBodyBytes, h)
}

func (s *Server) protectSized(limit int64, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.auth.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong token")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := h(w, r); err != nil {
			status := statusFor(err)
			var upstream *service.UpstreamError
			switch {
			case errors.As(err, &upstream):
				// The model server's trouble, not Parley's.
				s.log.Warn("model server request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err, "cause", upstream.Err)
			case status >= 500:
				s.log.Error("api request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			}
			writeError(w, status, err.Error())
		}
	})
}

func statusFor(err error) int {
	var he httpError
	var ve *questions.ValidationError
	var ie *service.InputError
	var ue *service.UpstreamError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he.status
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge
	case errors.As(err, &ve):
		return http.StatusUnprocessableEntity
	case errors.As(err, &ie):
		return http.StatusBadRequest
	case errors.As(err, &ue):
		return http.StatusBadGateway
	case errors.Is(err, chat.ErrNotFound), errors.Is(err, questions.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, questions.ErrConflict), errors.Is(err, service.ErrRunActive):
		return http.StatusConflict
	default:
		return http.StatusInternalServerError
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decode reads a JSON body strictly enough to catch malformed input.
func decode(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return httpError{http.StatusBadRequest, "request body must be a JSON object"}
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return httpError{http.StatusBadRequest, "malformed JSON: " + err.Error()}
	}
	return nil
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, api.Health{Status: "ok", Version: s.opts.Version})
	return nil
}

func (s *Server) listConversations(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := api.DefaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > api.MaxPageSize {
			return httpError{http.StatusBadRequest, fmt.Sprintf("limit must be a number from 1 to %d", api.MaxPageSize)}
		}
		limit = n
	}
	page, err := s.opts.Backend.ListConversations(r.Context(), limit, q.Get("cursor"), q.Get("q"))
	if err != nil {
		return err
	}
	if page.Items == nil {
		page.Items = []chat.Conversation{}
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (s *Server) createConversation(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Title     string `json:"title"`
		Assistant string `json:"assistant"`
	}
	if r.ContentLength != 0 {
		if err := decode(r, &req); err != nil {
			return err
		}
	}
	c, err := s.opts.Backend.CreateConversation(r.Context(), req.Title, req.Assistant)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request) error {
	d, err := s.opts.Backend.GetConversation(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if d.Messages == nil {
		d.Messages = []chat.Message{}
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.DeleteConversation(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	return nil
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Content *string `json:"content"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Content == nil {
		return httpError{http.StatusBadRequest, `"content" is required`}
	}
	runID, err := s.opts.Backend.SendMessage(r.Context(), r.PathValue("id"), *req.Content)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, api.RunStarted{RunID: runID})
	return nil
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.Cancel(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	return nil
}

func (s *Server) pendingQuestion(w http.ResponseWriter, r *http.Request) error {
	d, err := s.opts.Backend.GetConversation(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	c := d.PendingQuestion
	if c == nil {
		writeJSON(w, http.StatusOK, map[string]any{"has_pending_question": false, "question_id": nil,
			"questions": []any{}, "created_at": nil, "expires_at": nil})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"has_pending_question": true, "question_id": c.ID,
		"conversationId": c.ConversationID, "status": c.Status, "questions": c.Questions,
		"created_at": c.CreatedAt, "expires_at": c.ExpiresAt})
	return nil
}

func (s *Server) respond(w http.ResponseWriter, r *http.Request) error {
	var req questions.Response
	if err := decode(r, &req); err != nil {
		return err
	}
	switch req.Action.Canonical() {
	case questions.ActionSubmit, questions.ActionDecline, questions.ActionCancel:
	case "":
		return httpError{http.StatusBadRequest, `"action" is required: submit, decline (or skip) or cancel`}
	default:
		return httpError{http.StatusBadRequest, `"action" must be submit, decline (or skip) or cancel`}
	}
	if strings.TrimSpace(req.QuestionID) == "" {
		return httpError{http.StatusBadRequest, `"question_id" is required (a card id or "latest")`}
	}
	card, err := s.opts.Backend.Respond(r.Context(), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, card)
	return nil
}

func (s *Server) conversationQuestions(w http.ResponseWriter, r *http.Request) error {
	cards, err := s.opts.Backend.ConversationQuestions(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nonNil(cards))
	return nil
}

func (s *Server) questions(w http.ResponseWriter, r *http.Request) error {
	cards, err := s.opts.Backend.Questions(r.Context(), r.URL.Query().Get("status"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, nonNil(cards))
	return nil
}

func nonNil(cards []*questions.Card) []*questions.Card {
	if cards == nil {
		return []*questions.Card{}
	}
	return cards
}

// events streams SPEC §3 events as SSE; ?conversationId= narrows it.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	flusher, ok := w.(http.Flusher)
	if !ok || s.opts.Broker == nil {
		return httpError{http.StatusInternalServerError, "event stream unavailable"}
	}
	only := r.URL.Query().Get("conversationId")
	sub := s.opts.Broker.Subscribe()
	defer sub.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, ": connected\n\n")
	flusher.Flush()
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-tick.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
		case m, ok := <-sub.C:
			if !ok {
				return nil // dropped as too slow; the client reconnects
			}
			if only != "" && m.ConversationID != only {
				continue
			}
			if _, err := io.WriteString(w, "event: "+m.Name+"\ndata: "+string(m.Data)+"\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
		}
	}
}

// login trades a one-time code (or the token itself) for an HttpOnly,
// SameSite=Strict cookie, then opens the UI.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !(q.Get("code") != "" && s.auth.useLoginCode(q.Get("code"))) && !s.auth.tokenOK(q.Get("token")) {
		writeError(w, http.StatusUnauthorized, "this login link is invalid or was already used; run parley serve again for a new one")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.opts.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: 60 * 60 * 24 * 365})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// ui serves the built frontend; unknown paths get index.html (one page app).
func (s *Server) ui() http.Handler {
	files := http.FileServerFS(s.opts.UI)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		path := strings.TrimPrefix(r.URL.Path, "/")
		if path != "" {
			if _, err := fs.Stat(s.opts.UI, path); err != nil {
				r.URL.Path = "/"
			}
		}
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		files.ServeHTTP(w, r)
	})
}

func (s *Server) patchConversation(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Title     *string `json:"title"`
		Pinned    *bool   `json:"pinned"`
		Assistant *string `json:"assistant"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	id := r.PathValue("id")
	if req.Title == nil && req.Pinned == nil && req.Assistant == nil {
		return httpError{http.StatusBadRequest, `give "title", "pinned" and/or "assistant"`}
	}
	if req.Assistant != nil {
		// First: an unknown profile is refused before anything changes.
		if err := s.opts.Backend.SetAssistant(r.Context(), id, *req.Assistant); err != nil {
			return err
		}
	}
	if req.Title != nil {
		if err := s.opts.Backend.RenameConversation(r.Context(), id, *req.Title); err != nil {
			return err
		}
	}
	if req.Pinned != nil {
		if err := s.opts.Backend.SetPinned(r.Context(), id, *req.Pinned); err != nil {
			return err
		}
	}
	return s.getConversation(w, r)
}

func (s *Server) retry(w http.ResponseWriter, r *http.Request) error {
	runID, err := s.opts.Backend.Retry(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, api.RunStarted{RunID: runID})
	return nil
}

func (s *Server) getSettings(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, s.opts.Backend.GetSettings())
	return nil
}

func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) error {
	st := s.opts.Backend.GetSettings()
	if err := decode(r, &st); err != nil {
		return err
	}
	saved, err := s.opts.Backend.SaveSettings(r.Context(), st)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, saved)
	return nil
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) error {
	st := s.opts.Backend.CheckModelServer(r.Context())
	if !st.Reachable {
		return &service.UpstreamError{Msg: st.Message}
	}
	writeJSON(w, http.StatusOK, st.Models)
	return nil
}

func (s *Server) modelStatus(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.opts.Backend.CheckModelServer(r.Context()))
	return nil
}

func (s *Server) pullModel(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Model string `json:"model"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.opts.Backend.PullModel(r.Context(), req.Model); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "success"})
	return nil
}

func (s *Server) profiles(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.opts.Backend.Profiles(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ps)
	return nil
}

func (s *Server) saveProfile(w http.ResponseWriter, r *http.Request) error {
	var p service.Profile
	if err := decode(r, &p); err != nil {
		return err
	}
	p.Name = r.PathValue("name")
	saved, err := s.opts.Backend.SaveProfile(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, saved)
	return nil
}

func (s *Server) deleteProfile(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.DeleteProfile(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	return nil
}

func (s *Server) tools(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, s.opts.Backend.AvailableTools())
	return nil
}

// export downloads a conversation as Markdown (default) or JSON.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	out, err := s.opts.Backend.ExportConversation(r.Context(), r.PathValue("id"), format)
	if err != nil {
		return err
	}
	ext, ctype := "md", "text/markdown; charset=utf-8"
	if format == "json" {
		ext, ctype = "json", "application/json"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="parley-conversation.`+ext+`"`)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, out)
	return nil
}

func (s *Server) importConversation(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	c, err := s.opts.Backend.ImportConversation(r.Context(), data)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}
