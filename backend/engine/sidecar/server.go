// Package sidecar is the built-in engine's process (SPEC §12): an
// OpenAI-compatible server on loopback, over backend/engine/runner, that
// Parley's supervisor (backend/engine) starts as `parley engine`. It speaks
// what Parley's llm client already speaks to llama.cpp's server (the wire
// format of backend/modelserver): GET /v1/models, POST /v1/chat/completions
// streamed (SSE `data:` chunks, a usage chunk, `data: [DONE]`) and plain,
// POST /v1/embeddings. Every request needs the bearer secret the supervisor
// made for this start. GET /debug/stats gives the counters tests watch.
//
// The GGUF's own Jinja chat template formats the prompt (with the request's
// tools when there are some); a template with Hermes-style
// <tool_call>...</tool_call> calls has them parsed back into tool_calls.
// One chat model is loaded at a time; the requests take turns on it, and
// each reuses the evaluated prefix of the one before.
package sidecar

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-app/parley/backend/engine/runner"
)

// ModelEntry is one model the engine may load.
type ModelEntry struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// Config configures a Server.
type Config struct {
	Secret string
	// ModelsFile is a JSON list of ModelEntry, read again whenever a
	// request names a model that is not loaded (the supervisor rewrites it
	// when the library changes).
	ModelsFile string
	Backend    string // what runner.Load answered
	Context    int
	Threads    int
	Logger     *slog.Logger
}

// Server serves the engine's API.
type Server struct {
	cfg Config
	log *slog.Logger

	loadMu sync.Mutex // held while a model is used or swapped
	model  *runner.Model
	id     string
	shown  atomic.Value // the loaded model's id, for the stats

	requests  atomic.Int64
	cancelled atomic.Int64
	generated atomic.Int64
	active    atomic.Int32
	lastMu    sync.Mutex
	last      runner.Result
}

// New returns a Server.
func New(cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{cfg: cfg, log: log}
}

// Handler is the server's routes, behind the secret.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /debug/stats", s.stats)
	return s.auth(mux)
}

// Close unloads the model.
func (s *Server) Close() {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if s.model != nil {
		s.model.Close()
		s.model = nil
		s.id = ""
		s.shown.Store("")
	}
}

func (s *Server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.cfg.Secret)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if s.cfg.Secret == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			writeError(w, http.StatusUnauthorized, "authentication_error", "this engine needs the secret Parley made for it")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Stats are the counters of GET /debug/stats.
type Stats struct {
	Model           string `json:"model"`
	Backend         string `json:"backend"`
	Requests        int64  `json:"requests"`
	Cancelled       int64  `json:"cancelled"`
	GeneratedTokens int64  `json:"generated_tokens"`
	Active          bool   `json:"active"`
	// Last is the last finished generation's counts.
	LastPromptTokens int `json:"last_prompt_tokens"`
	LastCachedTokens int `json:"last_cached_tokens"`
	LastCompletion   int `json:"last_completion_tokens"`
	PID              int `json:"pid"`
}

func (s *Server) stats(w http.ResponseWriter, _ *http.Request) {
	s.lastMu.Lock()
	last := s.last
	s.lastMu.Unlock()
	writeJSON(w, 200, Stats{
		Model: s.loadedID(), Backend: s.cfg.Backend, Requests: s.requests.Load(), Cancelled: s.cancelled.Load(),
		GeneratedTokens: s.generated.Load(), Active: s.active.Load() > 0,
		LastPromptTokens: last.PromptTokens, LastCachedTokens: last.CachedTokens, LastCompletion: last.CompletionTokens,
		PID: os.Getpid(),
	})
}

func (s *Server) loadedID() string {
	id, _ := s.shown.Load().(string)
	return id
}

func (s *Server) entries() ([]ModelEntry, error) {
	if s.cfg.ModelsFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(s.cfg.ModelsFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ModelEntry
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("the engine's model list %s: %w", s.cfg.ModelsFile, err)
	}
	return out, nil
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	list, err := s.entries()
	if err != nil {
		writeError(w, 500, "server_error", err.Error())
		return
	}
	data := make([]map[string]any, 0, len(list))
	for _, m := range list {
		data = append(data, map[string]any{"id": m.ID, "object": "model", "created": 0, "owned_by": "parley"})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data})
}

// errNoModel: the request names no model the engine knows.
type errNoModel struct{ id string }

func (e errNoModel) Error() string { return fmt.Sprintf("the model %q is not installed", e.id) }

// use returns the loaded model id, loading it first (and unloading the
// one before) when needed. The model stays loaded; release is called when
// the caller is done with it.
func (s *Server) use(id string) (*runner.Model, func(), error) {
	s.loadMu.Lock()
	if s.model != nil && s.id == id {
		m := s.model
		return m, s.loadMu.Unlock, nil
	}
	list, err := s.entries()
	if err != nil {
		s.loadMu.Unlock()
		return nil, nil, err
	}
	path := ""
	for _, e := range list {
		if e.ID == id {
			path = e.Path
		}
	}
	if path == "" {
		s.loadMu.Unlock()
		return nil, nil, errNoModel{id}
	}
	if s.model != nil {
		s.model.Close()
		s.model, s.id = nil, ""
		s.shown.Store("")
	}
	start := time.Now()
	m, err := runner.Open(path, runner.Options{Context: s.cfg.Context, Threads: s.cfg.Threads})
	if err != nil {
		s.loadMu.Unlock()
		return nil, nil, err
	}
	s.log.Info("model loaded", "id", id, "path", path, "took", time.Since(start).Round(time.Millisecond), "context", m.ContextSize())
	s.model, s.id = m, id
	s.shown.Store(id)
	return m, s.loadMu.Unlock, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers as OpenAI-compatible servers do: {"error": {"message", "type"}}.
func writeError(w http.ResponseWriter, status int, kind, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": kind, "code": status}})
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// canceled tells whether err is the request going away.
func canceled(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil
}
