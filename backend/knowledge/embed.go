package knowledge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// EmbedConfig says which server and model make the vectors ("" Model =
// none: keyword search only).
type EmbedConfig struct {
	BaseURL string // the OpenAI-compatible base URL (…/v1), as for chat
	APIKey  string
	Model   string
	// Transport carries the requests (nil: the default one); Parley's
	// built-in engine gives its own (SPEC §12), which speaks only the
	// OpenAI-compatible API. It must be comparable (configs are compared).
	Transport http.RoundTripper
	// OpenAIOnly skips Ollama's /api/embed.
	OpenAIOnly bool
}

// Embedder asks the model server for vectors: Ollama's native POST
// /api/embed ({"model","input":[...]} → {"embeddings":[[...]]}, docs/api.md
// "Generate Embeddings") where the server has it, else the OpenAI-compatible
// POST /v1/embeddings ({"model","input":[...]} → {"data":[{"index",
// "embedding"}]}), as llama.cpp's server, LM Studio and vLLM offer it.
type Embedder struct {
	cfg    EmbedConfig
	client *http.Client

	mu     sync.Mutex
	openAI bool // /api/embed answered 404: the server is not Ollama
}

// NewEmbedder returns a client for cfg.
func NewEmbedder(cfg EmbedConfig) *Embedder {
	return &Embedder{cfg: cfg, client: &http.Client{Timeout: 5 * time.Minute, Transport: cfg.Transport}, openAI: cfg.OpenAIOnly}
}

// A failure of the embedding server is a *fault.Error saying what Parley
// says of it, a catalogue message (Settings → Knowledge shows it in the
// language chosen when it is shown); an HTTP error status's cause is a
// *serverStatus.

// serverStatus is the embedding server's answer with an HTTP error status.
type serverStatus struct {
	code   int    // the HTTP status
	detail string // the server's error text, as it said it
}

func (e *serverStatus) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.detail) }

// embedErr is a failure saying the catalogue message key; arguments are
// text (numbers written with strconv), so the message can be stored.
func embedErr(key string, args ...string) *fault.Error {
	as := make([]any, len(args))
	for i, a := range args {
		as[i] = a
	}
	return fault.New(fault.Internal, i18n.M(key, as...))
}

// statusErr is the server's answer with an HTTP error status.
func statusErr(url string, status int, detail string) *fault.Error {
	e := embedErr("knowledge.embed.status", url, strconv.Itoa(status), detail)
	e.Err = &serverStatus{code: status, detail: detail}
	return e
}

// Embed returns one vector a text, in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.cfg.Model == "" {
		return nil, errors.New("no embedding model is set")
	}
	if len(texts) == 0 {
		return nil, nil
	}
	e.mu.Lock()
	openAI := e.openAI
	e.mu.Unlock()
	if !openAI {
		vs, err := e.ollama(ctx, texts)
		var st *serverStatus
		if !errors.As(err, &st) || (st.code != http.StatusNotFound && st.code != http.StatusMethodNotAllowed) || strings.Contains(st.detail, "model") {
			return vs, err
		}
		// Not Ollama (its 404 for a missing model names the model).
		e.mu.Lock()
		e.openAI = true
		e.mu.Unlock()
	}
	return e.openAIEmbed(ctx, texts)
}

func (e *Embedder) root() string {
	return strings.TrimSuffix(strings.TrimRight(e.cfg.BaseURL, "/"), "/v1")
}

func (e *Embedder) ollama(ctx context.Context, texts []string) ([][]float32, error) {
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	body := map[string]any{"model": e.cfg.Model, "input": texts}
	if err := e.post(ctx, e.root()+"/api/embed", body, &out); err != nil {
		return nil, err
	}
	if len(out.Embeddings) != len(texts) {
		return nil, embedErr("knowledge.embed.count", strconv.Itoa(len(out.Embeddings)), strconv.Itoa(len(texts)))
	}
	return out.Embeddings, nil
}

func (e *Embedder) openAIEmbed(ctx context.Context, texts []string) ([][]float32, error) {
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	body := map[string]any{"model": e.cfg.Model, "input": texts, "encoding_format": "float"}
	if err := e.post(ctx, strings.TrimRight(e.cfg.BaseURL, "/")+"/embeddings", body, &out); err != nil {
		return nil, err
	}
	vs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, embedErr("knowledge.embed.index", strconv.Itoa(d.Index), strconv.Itoa(len(texts)))
		}
		vs[d.Index] = d.Embedding
	}
	for i, v := range vs {
		if len(v) == 0 {
			return nil, embedErr("knowledge.embed.missing", strconv.Itoa(i))
		}
	}
	return vs, nil
}

func (e *Embedder) post(ctx context.Context, url string, body, dst any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	res, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return embedErr("knowledge.embed.unreachable", e.cfg.BaseURL, err.Error())
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return embedErr("knowledge.embed.unreadable", err.Error())
	}
	if res.StatusCode != http.StatusOK {
		return statusErr(url, res.StatusCode, errorText(data))
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return embedErr("knowledge.embed.badBody", url, err.Error())
	}
	return nil
}

// errorText reads {"error":"..."} (Ollama) or {"error":{"message":...}}
// (OpenAI-compatible servers), else the body itself.
func errorText(b []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return s
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
			return o.Message
		}
	}
	t := strings.TrimSpace(string(b))
	if len(t) > 300 {
		t = t[:300] + "…"
	}
	return t
}
