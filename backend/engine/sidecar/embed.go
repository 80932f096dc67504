package sidecar

import (
	"encoding/json"
	"io"
	"net/http"
)

// embeddings answers POST /v1/embeddings as OpenAI does: {"model", "input":
// string | [string]} → {"object": "list", "data": [{"object": "embedding",
// "embedding", "index"}], "model", "usage"}.
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		writeError(w, 400, "invalid_request_error", "invalid JSON: "+err.Error())
		return
	}
	var texts []string
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		texts = []string{one}
	} else if err := json.Unmarshal(req.Input, &texts); err != nil {
		writeError(w, 400, "invalid_request_error", "input must be a string or a list of strings")
		return
	}
	model, release, err := s.use(req.Model)
	if err != nil {
		s.modelError(w, err)
		return
	}
	defer release()
	vecs, tokens, err := model.Embed(r.Context(), texts)
	if err != nil {
		if canceled(r.Context(), err) {
			return
		}
		writeError(w, 500, "server_error", err.Error())
		return
	}
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "embedding": v, "index": i}
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}
