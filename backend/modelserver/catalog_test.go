package modelserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
)

// get fetches url (with a bearer token when key is set) and returns the
// status and the body.
func get(t *testing.T, method, url, body, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), method, url, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// An OpenAI-compatible server (llama.cpp, LM Studio, vLLM) lists its models
// at GET /v1/models in OpenAI's shape and has none of Ollama's /api/*.
func TestWithoutOllamaAPIIsAPlainOpenAIServer(t *testing.T) {
	srv := newServer(t, modelserver.Turns(modelserver.Turn{Text: "hi"}), modelserver.WithoutOllamaAPI(),
		modelserver.WithModels([]string{"models/qwen3-8b.gguf"}))

	status, body := get(t, http.MethodGet, srv.URL()+"/models", "", "")
	require.Equal(t, http.StatusOK, status, body)
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Created int64  `json:"created"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	assert.Equal(t, "list", list.Object)
	require.Len(t, list.Data, 1)
	assert.Equal(t, "models/qwen3-8b.gguf", list.Data[0].ID)
	assert.Equal(t, "model", list.Data[0].Object)
	assert.NotZero(t, list.Data[0].Created)
	assert.NotEmpty(t, list.Data[0].OwnedBy)

	for _, path := range []string{"/api/tags", "/api/version"} {
		status, body := get(t, http.MethodGet, srv.RootURL()+path, "", "")
		assert.Equal(t, http.StatusNotFound, status, path)
		assert.JSONEq(t, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`, body, path)
	}
	status, _ = get(t, http.MethodPost, srv.RootURL()+"/api/pull", `{"model":"qwen3"}`, "")
	assert.Equal(t, http.StatusNotFound, status)

	// Chat still works.
	resp, err := newModel(t, srv).Chat(testCtx(t), llm.Request{Messages: user("hi")})
	require.NoError(t, err)
	assert.Equal(t, "hi", resp.Text)
}

func TestAPIKeyIsRequiredWhenSet(t *testing.T) {
	srv := newServer(t, modelserver.Turns(), modelserver.WithoutOllamaAPI(), modelserver.WithAPIKey("sk-local"))
	status, body := get(t, http.MethodGet, srv.URL()+"/models", "", "")
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.JSONEq(t, `{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}`, body)
	status, _ = get(t, http.MethodGet, srv.URL()+"/models", "", "sk-local")
	assert.Equal(t, http.StatusOK, status)
}

// Ollama resolves a name without a tag to name:latest, and lists a model
// pulled without a tag as name:latest.
func TestOllamaNamesWithoutTagMeanLatest(t *testing.T) {
	srv := newServer(t, modelserver.Turns(), modelserver.WithModels([]string{"parley-fixture:latest"}))
	status, body := get(t, http.MethodPost, srv.RootURL()+"/api/show", `{"model":"parley-fixture"}`, "")
	assert.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, `"tools"`)

	status, body = get(t, http.MethodPost, srv.RootURL()+"/api/pull", `{"model":"qwen3"}`, "")
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, `"success"`)
	_, tags := get(t, http.MethodGet, srv.RootURL()+"/api/tags", "", "")
	assert.Contains(t, tags, `"name":"qwen3:latest"`)
	assert.NotContains(t, tags, `"name":"qwen3"`)
}

// Pull failures come as Ollama sends them: 400 for a name it cannot parse,
// 500 before the stream started, an {"error"} line or a cut connection after.
func TestPullFailuresLookLikeOllamas(t *testing.T) {
	srv := newServer(t, modelserver.Turns(),
		modelserver.WithPullFault("offline", modelserver.PullRegistryDown),
		modelserver.WithPullFault("flaky", modelserver.PullFailsMidway),
		modelserver.WithPullFault("cut", modelserver.PullDrops))
	pull := srv.RootURL() + "/api/pull"

	status, body := get(t, http.MethodPost, pull, `{"model":"no such model!"}`, "")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.JSONEq(t, `{"error":"invalid model name"}`, body)

	status, body = get(t, http.MethodPost, pull, `{"model":"offline"}`, "")
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Contains(t, body, `"error":"pull model manifest: Get`)

	status, body = get(t, http.MethodPost, pull, `{"model":"flaky"}`, "")
	assert.Equal(t, http.StatusOK, status)
	lines := ndjsonLines(t, body)
	require.GreaterOrEqual(t, len(lines), 3)
	assert.Equal(t, "pulling manifest", lines[0]["status"])
	assert.Contains(t, lines[len(lines)-1]["error"], "max retries exceeded")

	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, pull, strings.NewReader(`{"model":"cut"}`))
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	_, err = io.ReadAll(res.Body)
	assert.Error(t, err, "the connection is cut mid-stream")
}

func ndjsonLines(t *testing.T, body string) []map[string]string {
	t.Helper()
	var out []map[string]string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var raw map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &raw), sc.Text())
		m := map[string]string{}
		for k, v := range raw {
			if s, ok := v.(string); ok {
				m[k] = s
			}
		}
		out = append(out, m)
	}
	return out
}
