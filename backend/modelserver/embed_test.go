package modelserver

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func postJSON(t *testing.T, url string, body any, out any) int {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	res, err := http.Post(url, "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer res.Body.Close()
	require.NoError(t, json.NewDecoder(res.Body).Decode(out))
	return res.StatusCode
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbeddingsOllamaAndOpenAIShapes(t *testing.T) {
	s := New(Turns(), WithEmbeddingModels("nomic-embed-text"))
	defer s.Close()

	var ollama struct {
		Model      string      `json:"model"`
		Embeddings [][]float32 `json:"embeddings"`
		Count      int         `json:"prompt_eval_count"`
	}
	require.Equal(t, 200, postJSON(t, s.RootURL()+"/api/embed", map[string]any{"model": "nomic-embed-text", "input": []string{"a car", "an automobile", "the fridge"}}, &ollama))
	require.Len(t, ollama.Embeddings, 3)
	assert.Equal(t, "nomic-embed-text", ollama.Model)
	for _, v := range ollama.Embeddings {
		assert.Len(t, v, EmbeddingDims)
		assert.InDelta(t, 1, math.Sqrt(cos(v, v)), 1e-4, "L2-normalized, as Ollama's")
	}
	assert.InDelta(t, 1, cos(ollama.Embeddings[0], ollama.Embeddings[1]), 1e-4, "synonyms meet")
	assert.Less(t, cos(ollama.Embeddings[0], ollama.Embeddings[2]), 0.3)

	var one struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	require.Equal(t, 200, postJSON(t, s.RootURL()+"/api/embed", map[string]any{"model": "nomic-embed-text:latest", "input": "a single string"}, &one))
	assert.Len(t, one.Embeddings, 1, "a string input is one vector, still in a list")

	var openai struct {
		Object string `json:"object"`
		Data   []struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	require.Equal(t, 200, postJSON(t, s.URL()+"/embeddings", map[string]any{"model": "nomic-embed-text", "input": []string{"x", "y"}}, &openai))
	assert.Equal(t, "list", openai.Object)
	require.Len(t, openai.Data, 2)
	assert.Equal(t, "embedding", openai.Data[1].Object)
	assert.Equal(t, 1, openai.Data[1].Index)

	var oerr struct {
		Error string `json:"error"`
	}
	assert.Equal(t, 404, postJSON(t, s.RootURL()+"/api/embed", map[string]any{"model": "missing", "input": "x"}, &oerr))
	assert.Contains(t, oerr.Error, `model "missing" not found`)
	assert.Equal(t, 400, postJSON(t, s.RootURL()+"/api/embed", map[string]any{"model": "qwen3:8b", "input": "x"}, &oerr))
	assert.Contains(t, oerr.Error, "does not support embeddings")
	var aerr struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	assert.Equal(t, 400, postJSON(t, s.URL()+"/embeddings", map[string]any{"model": "qwen3:8b", "input": "x"}, &aerr))
	assert.Contains(t, aerr.Error.Message, "does not support embeddings")
	s.SetEmbeddingsDown(true)
	assert.Equal(t, 500, postJSON(t, s.RootURL()+"/api/embed", map[string]any{"model": "nomic-embed-text", "input": "x"}, &oerr))
	require.Len(t, s.EmbedRequests(), 7)
}
