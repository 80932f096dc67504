// Package modelserver is a scripted model server: it speaks the OpenAI
// chat-completions protocol the way llama.cpp's server streams it and lists
// models at GET /v1/models, plus Ollama's native management endpoints
// (unless WithoutOllamaAPI makes it a plain OpenAI-compatible server). Tests script it turn by turn and
// inspect the requests it received; the app's demo mode runs its Demo script.
package modelserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// ToolCall is a tool call a turn makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Fault is a failure a turn injects.
type Fault int

// Faults.
const (
	None           Fault = iota
	HTTPError            // answer Status with Body
	DropMidStream        // stream part of Text, then cut the connection
	ErrorFrame           // stream part of Text, then a `data: {"error":...}` frame (message Body)
	NoToolSupport        // 400 "<model> does not support tools" when tools are sent
	StallMidStream       // stream part of Text, then hang until the client goes away
)

// Turn is one scripted model answer.
type Turn struct {
	Text            string
	ToolCalls       []ToolCall
	Fault           Fault
	Status          int    // HTTPError
	Body            string // HTTPError body, or ErrorFrame message
	FirstTokenDelay time.Duration
	// Hold, when set, keeps the answer back until it is closed (or the
	// request goes away): a test lets the model answer once the app is in
	// the state the test wants, rather than after a guessed time.
	Hold <-chan struct{}
	// ChunkSize, when > 0, streams Text in pieces of that many bytes
	// (instead of word by word), cutting tags and fences anywhere.
	ChunkSize int
	// NoUsage leaves out the usage chunk (servers that send none).
	NoUsage bool
	// OnToolCallSent, when set, is called once, right before the first
	// tool-call chunk of a streamed answer is written and flushed
	// (benchmarks time the way from there to the question card).
	OnToolCallSent func()
	// Reasoning is the thinking streamed before Text, in the shape
	// ReasoningShape says (thinking.go); ReasoningWithCall sends its last
	// piece in the first tool call's chunk, as Ollama 0.17.4 may.
	Reasoning         string
	ReasoningShape    Shape
	ReasoningWithCall bool
	// ReasoningDelay, when > 0, is waited between thinking pieces
	// (benchmarks stream the thinking at a rate).
	ReasoningDelay time.Duration
}

// Message is one message of a recorded request.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	// The thinking sent back with an assistant turn, in Ollama's field or
	// in llama.cpp's.
	Reasoning        string `json:"reasoning,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// ImageURLs are the image_url parts of the content, in order.
	ImageURLs []string `json:"-"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls,omitempty"`
}

// UnmarshalJSON accepts content as a string or as an array of text parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if json.Unmarshal(raw.Content, &m.Content) == nil {
		return nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	for _, p := range parts {
		m.Content += p.Text
		if p.Type == "image_url" {
			m.ImageURLs = append(m.ImageURLs, p.ImageURL.URL)
		}
	}
	return nil
}

// ToolDef is a tool offered in a request.
type ToolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ChatRequest is a parsed chat-completions request.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools"`
	Stream   bool      `json:"stream"`
	// What the request says about thinking (nil when not sent).
	ReasoningEffort    *string        `json:"reasoning_effort"`
	ChatTemplateKwargs map[string]any `json:"chat_template_kwargs"`
}

// LastMessage returns the request's last message.
func (r ChatRequest) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// Script decides the answer to each request.
type Script func(req ChatRequest) Turn

// Turns answers with the given turns in order, then with "done".
func Turns(turns ...Turn) Script {
	var mu sync.Mutex
	i := 0
	return func(ChatRequest) Turn {
		mu.Lock()
		defer mu.Unlock()
		if i >= len(turns) {
			return Turn{Text: "done"}
		}
		i++
		return turns[i-1]
	}
}

// Option configures a Server.
type Option func(*handler)

// WithModels sets the models the server lists (/api/tags, /v1/models);
// noTools names those whose /api/show lacks the "tools" capability.
func WithModels(models []string, noTools ...string) Option {
	return func(h *handler) {
		h.models = models
		h.noTools = map[string]bool{}
		for _, m := range noTools {
			h.noTools[m] = true
		}
	}
}

// WithModelDetails makes /api/show describe model as Ollama does a vision
// model ("vision" among its capabilities) and with a context length
// (model_info["scripted.context_length"]; 0 leaves it out).
func WithModelDetails(model string, vision bool, contextLength int) Option {
	return func(h *handler) {
		if h.details == nil {
			h.details = map[string]modelDetails{}
		}
		h.details[model] = modelDetails{vision: vision, contextLength: contextLength}
	}
}

type modelDetails struct {
	vision        bool
	contextLength int
}

// Server is a running scripted model server.
type Server struct {
	*handler
	ts *httptest.Server
}

// New starts a scripted server on a loopback port.
func New(script Script, opts ...Option) *Server {
	h := newHandler(script, opts...)
	return &Server{handler: h, ts: httptest.NewServer(h)}
}

// URL is the OpenAI-compatible base URL (ending in /v1).
func (s *Server) URL() string { return s.ts.URL + "/v1" }

// RootURL is the server's root (Ollama's native API).
func (s *Server) RootURL() string { return s.ts.URL }

// Close stops the server, cutting open streams.
func (s *Server) Close() {
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// NewHandler returns the server as a handler, for running on a real
// listener (demo mode). A long-running handler keeps only the last
// recentRequests requests, so a demo session does not grow without end.
func NewHandler(script Script, opts ...Option) http.Handler {
	h := newHandler(script, opts...)
	h.keep = recentRequests
	return h
}

const recentRequests = 64

type handler struct {
	script         Script
	models         []string
	noTools        map[string]bool
	details        map[string]modelDetails // by model name
	openAIOnly     bool                    // no Ollama API (llama.cpp, LM Studio, vLLM)
	llamaCppTags   bool                    // but GET /api/tags as llama.cpp answers it
	apiKey         string                  // required on /v1/* when set
	pullFaults     map[string]PullFault    // by model name
	pullsStarted   int                     // pulls that sent progress (under mu)
	pullsStopped   int                     // pulls stopped by their client going away (under mu)
	vision         map[string]bool         // models whose /api/show lists "vision"
	refuseTools    bool                    // 400 "does not support tools" whenever tools are offered
	refuseToolRole bool                    // 400 whenever a `tool` message is sent
	thinking       map[string]bool         // models whose /api/show lists "thinking"
	oldThinkLevels bool                    // Ollama 0.17.4: levels only for gpt-oss
	embedModels    map[string]bool         // models that make embeddings (embed.go), by name:tag
	embedDelay     time.Duration

	mu       sync.Mutex
	requests []ChatRequest
	raw      [][]byte
	count    int           // chat requests received, including those no longer kept
	keep     int           // how many requests to keep; 0 keeps all
	arrived  chan struct{} // closed and replaced on every chat request

	embedRequests []EmbedRequest
	embedDown     bool
}

func newHandler(script Script, opts ...Option) *handler {
	h := &handler{script: script, models: []string{"qwen3:8b", "llama3.2:3b"}, noTools: map[string]bool{}, arrived: make(chan struct{})}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Requests returns every chat request received, in order.
func (h *handler) Requests() []ChatRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ChatRequest(nil), h.requests...)
}

// WaitRequests blocks until at least n chat requests have arrived (and
// returns them all) or ctx ends, so tests need not poll or sleep.
func (h *handler) WaitRequests(ctx context.Context, n int) ([]ChatRequest, error) {
	for {
		h.mu.Lock()
		got, arrived := h.count, h.arrived
		h.mu.Unlock()
		if got >= n {
			return h.Requests(), nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return h.Requests(), fmt.Errorf("wait for %d model requests (got %d): %w", n, got, ctx.Err())
		}
	}
}

// RawRequests returns the raw bodies of the chat requests.
func (h *handler) RawRequests() [][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([][]byte(nil), h.raw...)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	openAI := strings.HasPrefix(r.URL.Path, "/v1/")
	if openAI && !h.authorized(w, r) {
		return
	}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		h.chat(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings":
		h.embed(w, r, false)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		h.openAIModels(w, false)
	case h.openAIOnly && h.llamaCppTags && r.Method == http.MethodGet && r.URL.Path == "/api/tags":
		h.openAIModels(w, true)
	case h.openAIOnly:
		llamaCppError(w, http.StatusNotFound, "File Not Found", "not_found_error")
	case r.URL.Path == "/api/version":
		writeJSON(w, 200, map[string]string{"version": "0.12.0-scripted"})
	case r.URL.Path == "/api/tags":
		h.tags(w)
	case r.Method == http.MethodPost && r.URL.Path == "/api/embed":
		h.embed(w, r, true)
	case r.Method == http.MethodPost && r.URL.Path == "/api/show":
		h.show(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/api/pull":
		h.pull(w, r)
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]string{"message": "not found: " + r.URL.Path}})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
