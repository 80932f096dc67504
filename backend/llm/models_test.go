package llm

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

func names(models []ModelInfo) []string {
	out := []string{}
	for _, m := range models {
		out = append(out, m.Name)
	}
	return out
}

// closedPortURL is a base URL where nothing listens.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/v1"
}

// llama.cpp's server, LM Studio and vLLM have no /api/tags: their models
// come from the OpenAI-compatible GET /v1/models.
func TestListModelsOfAnOpenAICompatibleServer(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI(),
		modelserver.WithModels([]string{"org/qwen3-8b-Q4_K_M.gguf", "llama-3.2-3b"}))
	defer srv.Close()
	got, err := ListModels(testCtx(t), srv.URL(), "")
	require.NoError(t, err)
	assert.False(t, got.Ollama)
	assert.Equal(t, []string{"org/qwen3-8b-Q4_K_M.gguf", "llama-3.2-3b"}, names(got.Models))
}

// llama.cpp's server answers Ollama's /api/tags with its OpenAI list (for
// Ollama clients) but has no /api/show or /api/pull: it is not Ollama.
func TestListModelsOfLlamaCppImitatingTags(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI(), modelserver.WithLlamaCppTags(),
		modelserver.WithModels([]string{"qwen3-8b.gguf"}))
	defer srv.Close()
	got, err := ListModels(testCtx(t), srv.URL(), "")
	require.NoError(t, err)
	assert.False(t, got.Ollama)
	assert.Equal(t, []string{"qwen3-8b.gguf"}, names(got.Models))
}

func TestListModelsOfOllamaSaysWhichSupportTools(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{"qwen3:8b", "gemma:2b"}, "gemma:2b"))
	defer srv.Close()
	got, err := ListModels(testCtx(t), srv.URL(), "")
	require.NoError(t, err)
	assert.True(t, got.Ollama)
	assert.Equal(t, []ModelInfo{{Name: "qwen3:8b", SupportsTools: true, Size: 4_000_000_000}, {Name: "gemma:2b", Size: 4_000_000_000}}, got.Models)
}

func TestListModelsSendsTheAPIKeyAndExplainsARefusal(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI(), modelserver.WithAPIKey("sk-local"),
		modelserver.WithModels([]string{"local-model"}))
	defer srv.Close()
	got, err := ListModels(testCtx(t), srv.URL(), "sk-local")
	require.NoError(t, err)
	assert.Equal(t, []string{"local-model"}, names(got.Models))

	_, err = ListModels(testCtx(t), srv.URL(), "wrong")
	le := asError(t, err)
	assert.Equal(t, KindHTTP, le.Code)
	assert.Equal(t, "The model server at "+srv.URL()+" refused to list its models (HTTP 401: Invalid API Key). Check the API key in Settings.", le.Error())
}

func TestListModelsOfNothingSaysItCannotBeReached(t *testing.T) {
	base := closedPortURL(t)
	_, err := ListModels(testCtx(t), base, "")
	le := asError(t, err)
	assert.Equal(t, KindUnreachable, le.Code)
	assert.Equal(t, "Cannot reach the model server at "+base+". Is your model server running?", le.Error())
}

// llama.cpp's {"error":{"code","message","type"}} is read for its message
// by the Ollama client too, never shown as JSON.
func TestOllamaClientReadsNestedErrors(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI())
	defer srv.Close()
	_, err := NewOllama(srv.URL()).Version(testCtx(t))
	le := asError(t, err)
	assert.Equal(t, "GET /api/version answered 404: File Not Found", le.Error())

	_, err = NewOllama(srv.URL()).Models(testCtx(t))
	le = asError(t, err)
	assert.NotContains(t, le.Error(), "{")
}

func TestErrorText(t *testing.T) {
	cases := map[string]string{
		`"plain"`: "plain",
		`{"code":500,"message":"llama.cpp words","type":"server_error"}`:                     "llama.cpp words",
		`{"message":"openai words","type":"invalid_request_error","param":null,"code":null}`: "openai words",
		`{"code":503,"type":"unavailable_error"}`:                                            "unavailable_error",
		`{"code":500}`: "",
		`null`:         "",
		``:             "",
	}
	for in, want := range cases {
		assert.Equal(t, want, errorText([]byte(in)), in)
	}
	assert.Equal(t, "Field required", serverMessage([]byte(`{"detail":[{"loc":["body","model"],"msg":"Field required","type":"missing"}]}`)))
}

// Pulls fail in three ways: the name (the user's to fix), the server or its
// registry, or the connection; each is a readable failure of its own kind (fault.Error.Code).
func TestPullFailuresAreClassified(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(),
		modelserver.WithPullFault("offline", modelserver.PullRegistryDown),
		modelserver.WithPullFault("flaky", modelserver.PullFailsMidway),
		modelserver.WithPullFault("cut", modelserver.PullDrops))
	defer srv.Close()
	plain := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI())
	defer plain.Close()
	down := closedPortURL(t)

	cases := []struct {
		name, base, model, kind, message string
	}{
		{"bad name", srv.URL(), "no such model!", KindBadRequest,
			`Ollama refused the model name "no such model!": invalid model name. Model names look like qwen3 or llama3.2:3b.`},
		{"not in the library", srv.URL(), "missing-model", KindModelNotFound,
			"There is no model missing-model to download (Ollama says: pull model manifest: file does not exist). Check the name; model names look like qwen3 or llama3.2:3b."},
		{"registry unreachable", srv.URL(), "offline", KindHTTP,
			"Ollama could not reach its model library to download offline. Check the internet connection and try again. (Ollama says: pull model manifest: " +
				`Get "https://registry.ollama.ai/v2/library/offline/manifests/latest": dial tcp: lookup registry.ollama.ai: no such host)`},
		{"error line mid-stream", srv.URL(), "flaky", KindHTTP,
			"Downloading flaky failed: max retries exceeded: read tcp 10.0.0.2:51234->104.21.75.227:443: read: connection reset by peer"},
		{"connection cut", srv.URL(), "cut", KindStream, ""},
		{"not Ollama", plain.URL(), "qwen3", KindHTTP,
			"The model server at " + plain.URL() + " cannot download models: it has no Ollama API (HTTP 404). Download the model with that server's own tools."},
		{"Ollama down", down, "qwen3", KindUnreachable, "Cannot reach the model server at " + down + ". Is your model server running?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var progress []PullProgress
			err := NewOllama(c.base).Pull(testCtx(t), c.model, func(p PullProgress) { progress = append(progress, p) })
			le := asError(t, err)
			assert.Equal(t, c.kind, le.Code, le.Error())
			if c.message != "" {
				assert.Equal(t, c.message, le.Error())
			}
			assert.NotContains(t, le.Error(), "{")
			if c.model == "flaky" || c.model == "cut" {
				assert.NotEmpty(t, progress, "progress before the failure")
			}
		})
	}
}
