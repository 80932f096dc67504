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
	root   string
	client *http.Client
}

// ModelInfo is one installed model.
type ModelInfo struct {
	Name          string `json:"name"`
	SupportsTools bool   `json:"supports_tools"`
	Size          int64  `json:"size"`
}

// PullProgress is one line of a pull's progress.
type PullProgress struct {
	Status    string `json:"status"`
	Total     int64  `json:"total"`
	Completed int64  `json:"completed"`
}

// NewOllama returns a client for the server of baseURL (a trailing /v1 is stripped).
func NewOllama(baseURL string) *Ollama {
	root := strings.TrimRight(baseURL, "/")
	root = strings.TrimSuffix(root, "/v1")
	return &Ollama{root: root, client: &http.Client{Transport: sharedTransport}}
}

func (o *Ollama) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
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
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Kind: KindUnreachable, Message: fmt.Sprintf("Cannot reach the model server at %s. Is Ollama (or your model server) running?", o.root), Err: err}
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return nil, &Error{Kind: KindHTTP, Message: fmt.Sprintf("%s %s answered %d: %s", method, path, res.StatusCode, msg)}
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
		return &Error{Kind: KindHTTP, Message: fmt.Sprintf("The server at %s does not look like Ollama (%s gave no JSON)", o.root, path), Err: err}
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
	var show struct {
		Capabilities []string `json:"capabilities"`
	}
	if err := o.getJSON(ctx, http.MethodPost, "/api/show", map[string]string{"model": model}, &show); err != nil {
		return nil, fmt.Errorf("show model %s: %w", model, err)
	}
	return show.Capabilities, nil
}

// SupportsTools reports whether an installed model can call tools (which
// Parley needs for ask_user_question).
func (o *Ollama) SupportsTools(ctx context.Context, model string) (bool, error) {
	caps, err := o.Capabilities(ctx, model)
	return slices.Contains(caps, "tools"), err
}

// Models lists installed models and whether each supports tool calling.
func (o *Ollama) Models(ctx context.Context) ([]ModelInfo, error) {
	var tags struct {
		Models []struct {
			Name string `json:"name"`
			Size int64  `json:"size"`
		} `json:"models"`
	}
	if err := o.getJSON(ctx, http.MethodGet, "/api/tags", nil, &tags); err != nil {
		return nil, err
	}
	out := make([]ModelInfo, 0, len(tags.Models))
	for _, m := range tags.Models {
		info := ModelInfo{Name: m.Name, Size: m.Size}
		// A model /api/show cannot describe is listed as without tools.
		info.SupportsTools, _ = o.SupportsTools(ctx, m.Name)
		out = append(out, info)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Pull downloads a model, calling progress for each NDJSON line.
func (o *Ollama) Pull(ctx context.Context, name string, progress func(PullProgress)) error {
	res, err := o.do(ctx, http.MethodPost, "/api/pull", map[string]any{"model": name, "stream": true})
	if err != nil {
		return err
	}
	defer res.Body.Close()
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
			Error string `json:"error"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			continue
		}
		if p.Error != "" {
			return &Error{Kind: KindHTTP, Message: fmt.Sprintf("Pulling %s failed: %s", name, p.Error)}
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
		return &Error{Kind: KindStream, Message: fmt.Sprintf("Pulling %s stopped: the connection dropped", name), Err: err}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &Error{Kind: KindStream, Message: fmt.Sprintf("Pulling %s ended before it finished. Try again.", name)}
}
