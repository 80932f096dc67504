package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// The server's own words reach the user whatever shape its error body has;
// raw JSON or HTML never does.
func TestHTTPErrorsKeepTheServersMessage(t *testing.T) {
	cases := []struct {
		name, body string
		status     int
		kind       string
		want       []string
	}{
		{"openai body", `{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`, 400, KindHTTP,
			[]string{"HTTP 400", "context length exceeded"}},
		{"ollama string", `{"error":"llama runner process has terminated"}`, 500, KindHTTP,
			[]string{"HTTP 500", "llama runner process has terminated"}},
		{"plain text", "upstream busy, retry later\n", 503, KindHTTP, []string{"HTTP 503", "upstream busy, retry later"}},
		{"html page", "<html><body>502 Bad Gateway</body></html>", 502, KindHTTP, []string{"HTTP 502", "Bad Gateway"}},
		{"api key", `{"error":{"message":"Incorrect API key provided"}}`, 401, KindHTTP,
			[]string{"refused the request (HTTP 401: Incorrect API key provided)", "API key"}},
		{"wrong path", "404 page not found", 404, KindHTTP, []string{"has no chat endpoint", "/v1"}},
		{"model missing", `{"error":{"message":"model \"m\" not found, try pulling it first"}}`, 404, KindModelNotFound,
			[]string{"The model m was not found", "ollama pull m"}},
		{"no tools (llama.cpp words)", `{"error":{"message":"tools are not supported for this model"}}`, 400, KindNoTools,
			[]string{"does not support tool calling"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modelserver.New(modelserver.Turns(modelserver.Turn{Fault: modelserver.HTTPError, Status: c.status, Body: c.body}))
			defer srv.Close()
			_, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), Request{Messages: hi()})
			le := asError(t, err)
			require.Equal(t, c.kind, le.Code, "kind %q, want %q (message %q)", le.Code, c.kind, le.Error())
			for _, w := range c.want {
				require.Contains(t, le.Error(), w, "message %q lacks %q", le.Error(), w)
			}
			require.False(t, strings.ContainsAny(le.Error(), "{<"), "message shows raw markup: %q", le.Error())
		})
	}
}

func TestUnreachableOllamaHint(t *testing.T) {
	_, err := newModel(t, "http://127.0.0.1:1/v1", "m").Chat(testCtx(t), Request{Messages: hi()})
	le := asError(t, err)
	require.NotContains(t, le.Error(), "Ollama", "non-Ollama port mentions Ollama: %q", le.Error())
	m := &openAIModel{cfg: Config{BaseURL: DefaultBaseURL, Model: "m"}}
	got := m.unreachable()
	require.Equal(t, "Cannot reach the model server at http://127.0.0.1:11434/v1. Is Ollama running? Start the Ollama app, or run ollama serve in a terminal.", got, "unreachable message %q", got)
}

func TestServerMessage(t *testing.T) {
	cases := map[string]string{
		`{"error":{"message":"a"}}`:        "a",
		`{"error":"b"}`:                    "b",
		`{"message":"c"}`:                  "c",
		`{"detail":"d"}`:                   "d",
		"  e  ":                            "e",
		"<!doctype html><p>x</p>":          "",
		"":                                 "",
		strings.Repeat("é", 400):           strings.Repeat("é", 300) + "…",
		`{"error":{"code":500}}`:           "",
		`{"error":null,"message":"later"}`: "later",
	}
	for in, want := range cases {
		got := serverMessage([]byte(in))
		assert.Equal(t, want, got, "serverMessage(%q) = %q, want %q", in, got, want)
	}
}

func TestOllamaCapabilities(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{"qwen3:8b", "gemma:2b"}, "gemma:2b"))
	defer srv.Close()
	o := NewOllama(srv.URL())
	for model, want := range map[string]bool{"qwen3:8b": true, "gemma:2b": false} {
		got, err := o.SupportsTools(testCtx(t), model)
		require.NoError(t, err, "SupportsTools(%s) = %v, %v", model, got, err)
		require.Equal(t, want, got, "SupportsTools(%s) = %v, %v", model, got, err)
	}
	_, err := o.Capabilities(testCtx(t), "nope")
	require.Error(t, err, "unknown model: %v", err)
	require.Contains(t, err.Error(), "model 'nope' not found", "unknown model: %v", err)
}

func TestOverlongStreamLineIsExplained(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "start " + strings.Repeat("x", 70<<10)}))
	defer srv.Close()
	resp, err := newModel(t, srv.URL(), "m").Chat(testCtx(t), Request{Messages: hi()})
	le := asError(t, err)
	require.Equal(t, KindStream, le.Code, "kind %q, message %q", le.Code, le.Error())
	require.Contains(t, le.Error(), "larger than 64 KiB", "kind %q, message %q", le.Code, le.Error())
	require.Equal(t, "start", resp.Text, "partial %q", resp.Text)
}
