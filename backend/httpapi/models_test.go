package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// syncBuffer is a log sink the handlers may write to concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// realAPI serves the HTTP API over the real service and a SQLite file,
// with the model server at baseURL; the log is returned for inspection.
func realAPI(t *testing.T, baseURL string) (*httptest.Server, *syncBuffer) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	svc, err := service.New(context.Background(), service.Options{Store: db, Logger: logger,
		Config: config.Config{BaseURL: baseURL, Set: map[string]bool{"base-url": true}}})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	api := New(Options{Backend: svc, Broker: events.NewBroker(16), Token: testToken, Version: "test", Logger: logger, Heartbeat: time.Hour})
	ts := httptest.NewServer(api)
	t.Cleanup(ts.Close)
	return ts, logs
}

func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/v1"
}

func errorOf(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &e), body)
	return e.Error
}

// A bad name is the user's to fix (400); Ollama or its registry failing,
// before or during the download, is upstream (502) and logged as a warning.
func TestPullStatuses(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(),
		modelserver.WithPullFault("offline", modelserver.PullRegistryDown),
		modelserver.WithPullFault("flaky", modelserver.PullFailsMidway))
	t.Cleanup(srv.Close)
	ts, logs := realAPI(t, srv.URL())

	cases := []struct {
		model  string
		status int
		error  string
	}{
		{"", http.StatusBadRequest, "model name must not be empty"},
		{"no such model!", http.StatusBadRequest, `Ollama refused the model name "no such model!": invalid model name. Model names look like qwen3 or llama3.2:3b.`},
		{"missing-model", http.StatusBadRequest, "There is no model missing-model to download (Ollama says: pull model manifest: file does not exist). Check the name; model names look like qwen3 or llama3.2:3b."},
		{"offline", http.StatusBadGateway, "Ollama could not reach its model library to download offline. Check the internet connection and try again. (Ollama says: pull model manifest: " +
			`Get "https://registry.ollama.ai/v2/library/offline/manifests/latest": dial tcp: lookup registry.ollama.ai: no such host)`},
		{"flaky", http.StatusBadGateway, "Downloading flaky failed: max retries exceeded: read tcp 10.0.0.2:51234->104.21.75.227:443: read: connection reset by peer"},
	}
	for _, c := range cases {
		body, err := json.Marshal(map[string]string{"model": c.model})
		require.NoError(t, err)
		status, out := do(t, ts, http.MethodPost, "/api/v1/models/pull", string(body), nil)
		assert.Equal(t, c.status, status, "%s: %s", c.model, out)
		assert.Equal(t, c.error, errorOf(t, out), c.model)
	}
	status, out := do(t, ts, http.MethodPost, "/api/v1/models/pull", `{"model":"qwen3"}`, nil)
	assert.Equal(t, http.StatusOK, status, out)

	assert.NotContains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "level=WARN")
}

func TestPullAndModelsWithTheServerDown(t *testing.T) {
	base := closedPortURL(t)
	ts, logs := realAPI(t, base)
	want := "Cannot reach the model server at " + base + ". Is your model server running?"

	status, out := do(t, ts, http.MethodPost, "/api/v1/models/pull", `{"model":"qwen3"}`, nil)
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, want, errorOf(t, out))

	status, out = do(t, ts, http.MethodGet, "/api/v1/models", "", nil)
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, want, errorOf(t, out))

	assert.NotContains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "level=WARN")
}

// GET /models and /models/status work for servers without Ollama's API.
func TestModelsOfAnOpenAICompatibleServer(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI(), modelserver.WithModels([]string{"qwen3-8b"}))
	t.Cleanup(srv.Close)
	ts, _ := realAPI(t, srv.URL())

	status, out := do(t, ts, http.MethodGet, "/api/v1/models", "", nil)
	require.Equal(t, http.StatusOK, status, out)
	assert.JSONEq(t, `[{"name":"qwen3-8b","supports_tools":false,"tools_unknown":true}]`, out)

	status, out = do(t, ts, http.MethodGet, "/api/v1/models/status", "", nil)
	require.Equal(t, http.StatusOK, status, out)
	var st struct {
		Reachable bool   `json:"reachable"`
		Ollama    bool   `json:"ollama"`
		Message   string `json:"message"`
		Models    []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	assert.True(t, st.Reachable, st.Message)
	assert.False(t, st.Ollama)
	require.Len(t, st.Models, 1)
	assert.Equal(t, "qwen3-8b", st.Models[0].Name)
}

// Issue 23: a client that goes away during a model pull stops the pull (the
// request to Ollama is cancelled) and is not answered 500; nothing is
// logged as an error.
func TestPullStopsWhenTheClientGoesAway(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithPullFault("big-model", modelserver.PullStalls))
	t.Cleanup(srv.Close)
	ts, logs := realAPI(t, srv.URL())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/api/v1/models/pull", strings.NewReader(`{"model":"big-model"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		res, err := ts.Client().Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return srv.PullsStarted() == 1 }, time.Minute, 10*time.Millisecond, "the pull started")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Eventually(t, func() bool { return srv.PullsStopped() == 1 }, time.Minute, 10*time.Millisecond, "the pull at Ollama was stopped")
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "the client went away") }, time.Minute, 10*time.Millisecond)
	assert.NotContains(t, logs.String(), "level=ERROR")
	assert.NotContains(t, logs.String(), "api request failed")
}
