package modelserver

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// Embeddings, as the servers Parley talks to serve them:
//
//   - Ollama's native POST /api/embed (docs/api.md, "Generate Embeddings";
//     server/routes.go EmbedHandler): {"model", "input": string | [string],
//     "truncate"?, "dimensions"?, "keep_alive"?, "options"?} answered with
//     {"model", "embeddings": [[float]], "total_duration", "load_duration",
//     "prompt_eval_count"}; vectors are L2-normalized; an unknown model is a
//     404 {"error": "model \"x\" not found, try pulling it first"}, a model
//     that cannot embed a 400 {"error": "\"x\" does not support embeddings"}.
//   - The OpenAI-compatible POST /v1/embeddings (OpenAI's API reference,
//     "Create embeddings"; Ollama's openai/openai.go, llama.cpp's server with
//     --embeddings): {"model", "input": string | [string],
//     "encoding_format"?} answered with {"object": "list", "data":
//     [{"object": "embedding", "embedding": [float], "index": n}], "model",
//     "usage": {"prompt_tokens", "total_tokens"}}; errors as
//     {"error": {"message", "type"}}.
//
// The vectors are deterministic: a text is the normalized sum of one
// pseudo-random unit vector per concept it names, and the synonyms of
// synonymGroups name the same concept, so "automobile" lands near "car"
// where a keyword search finds nothing in common.

// EmbeddingDims is the size of the scripted vectors (nomic-embed-text's).
const EmbeddingDims = 768

// synonymGroups are words that mean the same concept to the scripted
// embedding model (the first word names it).
var synonymGroups = [][]string{
	{"car", "automobile", "vehicle", "motorcar"},
	{"doctor", "physician", "medic", "clinician"},
	{"buy", "purchase", "acquire", "procure"},
	{"start", "begin", "commence", "launch"},
	{"refund", "reimbursement", "repayment", "money back"},
	{"vacation", "holiday", "leave", "time off"},
	{"price", "cost", "fee", "charge"},
	{"error", "fault", "failure", "bug"},
	{"install", "setup", "set up", "installation"},
	{"house", "home", "dwelling", "residence"},
	{"large", "big", "huge", "enormous"},
	{"quick", "fast", "rapid", "speedy"},
	{"deadline", "due date", "cutoff"},
	{"salary", "pay", "wage", "compensation"},
}

var synonymOf = func() map[string]string {
	m := map[string]string{}
	for _, g := range synonymGroups {
		for _, w := range g {
			m[w] = g[0]
		}
	}
	return m
}()

// concepts lists the concepts of a text: its words, lower-cased, plurals and
// -ing/-ed endings trimmed, synonyms (also two-word ones) mapped to one.
func concepts(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var out []string
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) {
			if c, ok := synonymOf[words[i]+" "+words[i+1]]; ok {
				out = append(out, c)
				i++
				continue
			}
		}
		w := words[i]
		if embedStopWords[w] {
			continue
		}
		if c, ok := synonymOf[w]; ok {
			out = append(out, c)
			continue
		}
		w = stem(w)
		if c, ok := synonymOf[w]; ok {
			w = c
		}
		out = append(out, w)
	}
	return out
}

// embedStopWords carry no meaning for the scripted model.
var embedStopWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "and": true, "or": true,
	"in": true, "on": true, "is": true, "are": true, "be": true, "it": true, "for": true, "with": true, "by": true,
	"at": true, "as": true, "this": true, "that": true, "my": true, "i": true, "how": true, "what": true, "do": true}

func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// conceptCache keeps the vectors of concepts seen (bounded: a long demo
// session does not grow it without end).
var conceptCache sync.Map

const maxCachedConcepts = 20_000

var cachedConcepts atomic.Int64

// conceptVector is a concept's fixed pseudo-random unit vector.
func conceptVector(concept string, dims int) []float64 {
	key := concept + "\x00" + strconv.Itoa(dims)
	if v, ok := conceptCache.Load(key); ok {
		return v.([]float64)
	}
	v := makeConceptVector(concept, dims)
	if cachedConcepts.Load() < maxCachedConcepts {
		if _, loaded := conceptCache.LoadOrStore(key, v); !loaded {
			cachedConcepts.Add(1)
		}
	}
	return v
}

func makeConceptVector(concept string, dims int) []float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(concept))
	seed := h.Sum64()
	v := make([]float64, dims)
	var norm float64
	for i := range v {
		// splitmix64: a well-spread sequence from the seed.
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		v[i] = float64(int64(z))/math.MaxInt64 + 0
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// Embed is the scripted model's vector of text: normalized, deterministic.
func Embed(text string, dims int) []float32 {
	sum := make([]float64, dims)
	for _, c := range concepts(text) {
		for i, x := range conceptVector(c, dims) {
			sum[i] += x
		}
	}
	var norm float64
	for _, x := range sum {
		norm += x * x
	}
	out := make([]float32, dims)
	if norm == 0 {
		out[0] = 1 // an empty text still gets a unit vector
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range sum {
		out[i] = float32(x / norm)
	}
	return out
}

// WithEmbeddingModels lists models that make embeddings (Ollama's
// "embedding" capability): listed with the others, answered on /api/embed
// and /v1/embeddings.
func WithEmbeddingModels(models ...string) Option {
	return func(h *handler) {
		if h.embedModels == nil {
			h.embedModels = map[string]bool{}
		}
		for _, m := range models {
			h.embedModels[withDefaultTag(m)] = true
			h.models = append(h.models, m)
		}
	}
}

// WithEmbedDelay makes each embedding request take d (a slow model).
func WithEmbedDelay(d time.Duration) Option {
	return func(h *handler) { h.embedDelay = d }
}

// EmbedRequest is one embedding request received.
type EmbedRequest struct {
	Path   string // /api/embed or /v1/embeddings
	Model  string
	Inputs []string
}

// EmbedRequests returns the embedding requests received, in order.
func (h *handler) EmbedRequests() []EmbedRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]EmbedRequest(nil), h.embedRequests...)
}

// SetEmbeddingsDown makes the embedding endpoints fail (500) or work again.
func (h *handler) SetEmbeddingsDown(down bool) {
	h.mu.Lock()
	h.embedDown = down
	h.mu.Unlock()
}

// embedInput reads "input": a string or a list of strings.
func embedInput(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("input must be a string or a list of strings")
	}
	return many, nil
}

func (h *handler) embed(w http.ResponseWriter, r *http.Request, ollama bool) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	fail := func(status int, msg string) {
		if ollama {
			writeJSON(w, status, map[string]string{"error": msg})
		} else {
			writeJSON(w, status, map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error"}})
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		fail(http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	inputs, err := embedInput(req.Input)
	if err != nil {
		fail(http.StatusBadRequest, err.Error())
		return
	}
	h.mu.Lock()
	h.embedRequests = append(h.embedRequests, EmbedRequest{Path: r.URL.Path, Model: req.Model, Inputs: inputs})
	if h.keep > 0 && len(h.embedRequests) > h.keep {
		h.embedRequests = append(h.embedRequests[:0:0], h.embedRequests[len(h.embedRequests)-h.keep:]...)
	}
	down, delay := h.embedDown, h.embedDelay
	h.mu.Unlock()
	if down {
		fail(http.StatusInternalServerError, "llama runner process has terminated: exit status 2")
		return
	}
	installed, ok := h.installed(req.Model)
	if !ok {
		fail(http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if !h.embedModels[withDefaultTag(installed)] {
		fail(http.StatusBadRequest, fmt.Sprintf("%q does not support embeddings", req.Model))
		return
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	vectors := make([][]float32, len(inputs))
	tokens := 0
	for i, in := range inputs {
		vectors[i] = Embed(in, EmbeddingDims)
		tokens += len(strings.Fields(in))
	}
	if ollama {
		writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "embeddings": vectors,
			"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": tokens})
		return
	}
	data := make([]map[string]any, len(vectors))
	for i, v := range vectors {
		data[i] = map[string]any{"object": "embedding", "embedding": v, "index": i}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}
