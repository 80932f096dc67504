package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// PullFault is a failure a pull of one model injects, as Ollama reports it.
type PullFault int

// Pull faults.
const (
	// PullRegistryDown: Ollama cannot reach its registry and answers 500
	// with {"error": ...} before any progress.
	PullRegistryDown PullFault = iota + 1
	// PullFailsMidway: progress, then an {"error": ...} NDJSON line (the
	// status stays 200, as the stream had started).
	PullFailsMidway
	// PullDrops: progress, then the connection is cut.
	PullDrops
	// PullStalls: progress, then nothing until the client goes away; Ollama
	// then stops the download (its PullHandler runs the pull under the
	// request's context: server/routes.go). PullsStopped counts those.
	PullStalls
)

// PullsStopped is how many pulls ended because their client went away.
func (h *handler) PullsStopped() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pullsStopped
}

// PullsStarted is how many pulls sent progress.
func (h *handler) PullsStarted() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pullsStarted
}

// WithoutOllamaAPI makes the server act as llama.cpp's server, LM Studio
// or vLLM: only the OpenAI-compatible endpoints (chat and GET /v1/models);
// Ollama's /api/* paths answer 404 with llama.cpp's error body.
func WithoutOllamaAPI() Option {
	return func(h *handler) { h.openAIOnly = true }
}

// WithLlamaCppTags makes a server WithoutOllamaAPI answer GET /api/tags as
// llama.cpp's server does for Ollama clients: its OpenAI model list with an
// Ollama-style "models" list added.
func WithLlamaCppTags() Option {
	return func(h *handler) { h.llamaCppTags = true }
}

// WithAPIKey makes the server require "Authorization: Bearer <key>" on the
// OpenAI-compatible endpoints, answering 401 as llama.cpp's --api-key does.
func WithAPIKey(key string) Option {
	return func(h *handler) { h.apiKey = key }
}

// WithPullFault makes pulling model fail with f.
func WithPullFault(model string, f PullFault) Option {
	return func(h *handler) {
		if h.pullFaults == nil {
			h.pullFaults = map[string]PullFault{}
		}
		h.pullFaults[model] = f
	}
}

// llamaCppError writes an error the way llama.cpp's server does:
// {"error":{"code","message","type"}}.
func llamaCppError(w http.ResponseWriter, status int, message, typ string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": message, "type": typ}})
}

// authorized checks the API key of an OpenAI-compatible request.
func (h *handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	if h.apiKey == "" || r.Header.Get("Authorization") == "Bearer "+h.apiKey {
		return true
	}
	llamaCppError(w, http.StatusUnauthorized, "Invalid API Key", "authentication_error")
	return false
}

// openAIModels answers GET /v1/models in OpenAI's shape (with llama.cpp's
// Ollama-style "models" list too when withModels).
func (h *handler) openAIModels(w http.ResponseWriter, withModels bool) {
	data, models := []map[string]any{}, []map[string]any{}
	for _, m := range h.modelList() {
		data = append(data, map[string]any{"id": m, "object": "model", "created": created, "owned_by": "scripted"})
		models = append(models, map[string]any{"name": m, "model": m, "type": "model", "capabilities": []string{"completion"}})
	}
	body := map[string]any{"object": "list", "data": data}
	if withModels {
		body["models"] = models
	}
	writeJSON(w, 200, body)
}

func (h *handler) tags(w http.ResponseWriter) {
	models := []map[string]any{}
	for _, m := range h.modelList() {
		models = append(models, map[string]any{"name": m, "model": m, "size": 4_000_000_000})
	}
	writeJSON(w, 200, map[string]any{"models": models})
}

// installed finds the installed model a name means, resolving it as Ollama
// does: a name without a tag is name:latest.
func (h *handler) installed(name string) (string, bool) {
	want := withDefaultTag(name)
	for _, m := range h.modelList() {
		if withDefaultTag(m) == want {
			return m, true
		}
	}
	return "", false
}

func (h *handler) show(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	name := req.Model
	if name == "" {
		name = req.Name
	}
	installed, ok := h.installed(name)
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", name)})
		return
	}
	caps := []string{"completion", "tools"}
	if h.noTools[installed] {
		caps = []string{"completion"}
	}
	if h.embedModels[withDefaultTag(installed)] {
		caps = []string{"embedding"}
	}
	if h.vision[installed] {
		caps = append(caps, "vision")
	}
	if h.thinksModel(installed) {
		caps = append(caps, "thinking")
	}
	body := map[string]any{"capabilities": caps, "details": map[string]string{"family": "scripted"}}
	if d, ok := h.details[installed]; ok {
		if d.vision && !h.vision[installed] {
			body["capabilities"] = append(caps, "vision")
		}
		if d.contextLength > 0 {
			body["model_info"] = map[string]any{"general.architecture": "scripted", "scripted.context_length": d.contextLength}
		}
	}
	writeJSON(w, 200, body)
}

// ollamaName is roughly the name grammar of Ollama's ParseName:
// [host[:port]/][namespace/]model[:tag].
var ollamaName = regexp.MustCompile(`^([A-Za-z0-9_][A-Za-z0-9_.:-]*/){0,2}[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,79})?$`)

// withDefaultTag adds Ollama's default tag to a name without one (the tag
// is a colon in the last path segment; a colon before a / is a port).
func withDefaultTag(name string) string {
	if strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		return name
	}
	return name + ":latest"
}

// pull answers as Ollama's POST /api/pull streams: 400 for a name it cannot
// parse, 500 with {"error"} for a failure before the stream started, else
// NDJSON progress ending in "success" or an {"error"} line.
func (h *handler) pull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if !ollamaName.MatchString(name) {
		writeJSON(w, 400, map[string]string{"error": "invalid model name"})
		return
	}
	h.mu.Lock()
	fault := h.pullFaults[name]
	h.mu.Unlock()
	if fault == PullRegistryDown {
		writeJSON(w, 500, map[string]string{"error": fmt.Sprintf(
			`pull model manifest: Get "https://registry.ollama.ai/v2/library/%s/manifests/latest": dial tcp: lookup registry.ollama.ai: no such host`, name)})
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	line := func(v any) {
		b, _ := json.Marshal(v)
		_, _ = w.Write(append(b, '\n'))
		if flusher != nil {
			flusher.Flush()
		}
	}
	if strings.Contains(name, "missing") {
		line(map[string]string{"error": "pull model manifest: file does not exist"})
		return
	}
	line(map[string]string{"status": "pulling manifest"})
	h.mu.Lock()
	h.pullsStarted++
	h.mu.Unlock()
	const total = 1000
	for done := int64(250); done <= total; done += 250 {
		line(map[string]any{"status": "downloading", "digest": "sha256:scripted", "total": total, "completed": done})
		if done == 500 {
			switch fault {
			case PullFailsMidway:
				line(map[string]string{"error": "max retries exceeded: read tcp 10.0.0.2:51234->104.21.75.227:443: read: connection reset by peer"})
				return
			case PullStalls:
				<-r.Context().Done()
				h.mu.Lock()
				h.pullsStopped++
				h.mu.Unlock()
				return
			case PullDrops:
				if hj, ok := w.(http.Hijacker); ok {
					if conn, _, err := hj.Hijack(); err == nil {
						_ = conn.Close()
					}
				}
				return
			}
		}
	}
	line(map[string]string{"status": "verifying sha256 digest"})
	// Installed before "success" is sent, as with Ollama: a client that
	// lists models right after sees it. Ollama lists a name pulled without
	// a tag as name:latest.
	installed := withDefaultTag(name)
	h.mu.Lock()
	if !slices.Contains(h.models, installed) {
		h.models = append(h.models, installed)
	}
	h.mu.Unlock()
	line(map[string]string{"status": "success"})
}

func (h *handler) modelList() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.models...)
}
