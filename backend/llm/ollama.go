package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Ollama talks to Ollama's native API (model management), at the root of
// the server whose OpenAI-compatible endpoint is the base URL.
type Ollama struct {
	base   string // the OpenAI-compatible base URL, as the user set it
	root   string
	client *http.Client
}

// ModelInfo is one installed model.
type ModelInfo struct {
	Name          string `json:"name"`
	SupportsTools bool   `json:"supports_tools"`
	Size          int64  `json:"size"`
	// SupportsVision: the model reads images (Ollama's "vision"
	// capability, or a listing that says so).
	SupportsVision bool `json:"supports_vision"`
	// SupportsThinking: the model thinks before it answers (Ollama's
	// "thinking" capability, which it infers from the template:
	// thinking/template.go).
	SupportsThinking bool `json:"supports_thinking"`
}

// PullProgress is one line of a pull's progress.
type PullProgress struct {
	Status    string `json:"status"`
	Total     int64  `json:"total"`
	Completed int64  `json:"completed"`
}

// NewOllama returns a client for the server of baseURL (a trailing /v1 is stripped).
func NewOllama(baseURL string) *Ollama {
	base := strings.TrimRight(baseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	return &Ollama{base: base, root: root, client: &http.Client{Transport: sharedTransport}}
}

// transportError explains a request that got no answer.
func (o *Ollama) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return unreachableError(o.base, err)
}

// send makes a request and returns the answer whatever its status.
func (o *Ollama) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, o.root+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := o.client.Do(req)
	if err != nil {
		return nil, o.transportError(ctx, err)
	}
	return res, nil
}

// errorBody reads the server's message from an error answer (its status
// text when the body says nothing readable).
func errorBody(res *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if msg := serverMessage(b); msg != "" {
		return msg
	}
	return http.StatusText(res.StatusCode)
}

func (o *Ollama) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	res, err := o.send(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		return nil, serverError(KindHTTP, nil, fmt.Sprintf("%s %s answered %d: %s", method, path, res.StatusCode, errorBody(res)))
	}
	return res, nil
}

func (o *Ollama) getJSON(ctx context.Context, method, path string, body, dst any) error {
	res, err := o.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(dst); err != nil {
		return NewError(KindHTTP, err, "llm.notOllama", o.root, path)
	}
	return nil
}

// Version returns the server's version (and so whether Ollama is running).
func (o *Ollama) Version(ctx context.Context) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	if err := o.getJSON(ctx, http.MethodGet, "/api/version", nil, &v); err != nil {
		return "", err
	}
	return v.Version, nil
}

// Capabilities returns what an installed model can do, as /api/show lists
// it ("completion", "tools", "vision", "thinking", ...).
func (o *Ollama) Capabilities(ctx context.Context, model string) ([]string, error) {
	d, err := o.Details(ctx, model)
	return d.Capabilities, err
}

// ModelDetails is what /api/show tells about a model.
type ModelDetails struct {
	Capabilities  []string // "completion", "tools", "vision", ...
	ContextLength int      // 0 when not told
}

// Details returns what an installed model can do and its context length
// (model_info's "<architecture>.context_length").
func (o *Ollama) Details(ctx context.Context, model string) (ModelDetails, error) {
	var show struct {
		Capabilities []string       `json:"capabilities"`
		ModelInfo    map[string]any `json:"model_info"`
	}
	if err := o.getJSON(ctx, http.MethodPost, "/api/show", map[string]string{"model": model}, &show); err != nil {
		return ModelDetails{}, fmt.Errorf("show model %s: %w", model, err)
	}
	d := ModelDetails{Capabilities: show.Capabilities}
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") && n > 0 {
			d.ContextLength = int(n)
		}
	}
	return d, nil
}

// SupportsTools reports whether an installed model can call tools (which
// Parley needs for ask_user_question).
func (o *Ollama) SupportsTools(ctx context.Context, model string) (bool, error) {
	caps, err := o.Capabilities(ctx, model)
	return slices.Contains(caps, "tools"), err
}

// Models lists installed models and whether each supports tool calling.
func (o *Ollama) Models(ctx context.Context) ([]ModelInfo, error) {
	models, native, err := o.nativeModels(ctx)
	if err != nil {
		return nil, err
	}
	if !native {
		return nil, NewError(KindHTTP, nil, "llm.notOllamaTags", o.root)
	}
	return models, nil
}

// Pull downloads a model, calling progress for each NDJSON line. Its
// errors are *Error: KindBadRequest or KindModelNotFound when the name is
// the problem, other kinds when the server or its registry failed.
func (o *Ollama) Pull(ctx context.Context, name string, progress func(PullProgress)) error {
	res, err := o.send(ctx, http.MethodPost, "/api/pull", map[string]any{"model": name, "stream": true})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return o.pullRefused(name, res)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	last, lastStatus := time.Time{}, ""
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var p struct {
			PullProgress
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			continue
		}
		if msg := errorText(p.Error); msg != "" {
			return pullFailed(name, msg)
		}
		// Progress lines come very fast; pass on at most ~10 a second, but
		// every change of status (and the final "success").
		if progress != nil && (p.Status != lastStatus || p.Status == "success" || time.Since(last) > 100*time.Millisecond) {
			last, lastStatus = time.Now(), p.Status
			progress(p.PullProgress)
		}
		if p.Status == "success" {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return NewError(KindStream, err, "llm.pullDropped", name, o.root)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return NewError(KindStream, nil, "llm.pullUnfinished", name)
}

// pullRefused explains a pull Ollama answered with an error status.
func (o *Ollama) pullRefused(name string, res *http.Response) error {
	msg := errorBody(res)
	switch {
	case res.StatusCode == http.StatusBadRequest:
		return NewError(KindBadRequest, nil, "llm.pullBadName", name, msg)
	case strings.Contains(msg, "file does not exist"):
		return pullFailed(name, msg)
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed:
		return NewError(KindHTTP, nil, "llm.pullNoAPI", o.base, res.StatusCode)
	}
	if offline(msg) {
		return pullFailed(name, msg)
	}
	return NewError(KindHTTP, nil, "llm.pullHTTP", name, res.StatusCode, msg)
}

// offline tells Ollama's words for a registry it cannot reach.
func offline(msg string) bool {
	for _, s := range []string{"no such host", "dial tcp", "i/o timeout", "connection refused", "network is unreachable"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// pullFailed explains an error Ollama reported about a pull.
func pullFailed(name, msg string) error {
	if strings.Contains(msg, "file does not exist") {
		// Ollama's words for a name its registry does not have.
		return NewError(KindModelNotFound, nil, "llm.pullNoSuchModel", name, msg)
	}
	if offline(msg) {
		return NewError(KindHTTP, nil, "llm.pullOffline", name, msg)
	}
	return NewError(KindHTTP, nil, "llm.pullFailed", name, msg)
}
