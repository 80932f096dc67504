// Package runner runs GGUF models on llama.cpp's shared libraries, called
// without cgo through github.com/hybridgroup/yzma (SPEC §12). It runs only
// in the engine's own process (backend/engine/sidecar): a llama.cpp abort
// takes that process down, never the window.
//
// One Model holds one context with one sequence: requests take turns, and
// each keeps the evaluated tokens so the next prompt that starts the same
// way (the next turn of a conversation) evaluates only what is new.
package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hybridgroup/yzma/pkg/llama"
)

var (
	loadOnce sync.Once
	loadErr  error
	backend  string
)

// Load loads the libraries in dir once per process, with ggml's best CPU
// variant for this machine (and any GPU backend in dir). It returns the
// backend in use, e.g. "cpu-haswell".
func Load(dir string) (string, error) {
	loadOnce.Do(func() {
		if _, err := os.Stat(dir); err != nil {
			loadErr = fmt.Errorf("the engine's libraries are not in %s: %w", dir, err)
			return
		}
		if err := llama.Load(dir); err != nil {
			loadErr = fmt.Errorf("load the engine's libraries from %s: %w", dir, err)
			return
		}
		llama.LogSet(llama.LogSilent())
		llama.BackendInit()
		if err := llama.GGMLBackendLoadAllFromPath(dir); err != nil {
			loadErr = fmt.Errorf("load the engine's backends from %s: %w", dir, err)
			return
		}
		backend = detectBackend()
	})
	return backend, loadErr
}

// detectBackend names the compute backend: a GPU device's name when there
// is one, else the CPU variant ggml picked (the libggml-cpu-<variant>
// library it mapped).
func detectBackend() string {
	for i := uint64(0); i < llama.GGMLBackendDeviceCount(); i++ {
		d := llama.GGMLBackendDeviceGet(i)
		if t := llama.GGMLBackendDevType(d); t == llama.GGMLBackendDeviceTypeGPU {
			return strings.ToLower(llama.GGMLBackendDeviceName(d))
		}
	}
	if runtime.GOOS == "linux" {
		if maps, err := os.ReadFile("/proc/self/maps"); err == nil {
			for _, line := range strings.Split(string(maps), "\n") {
				if i := strings.Index(line, "libggml-cpu-"); i >= 0 {
					name := line[i+len("libggml-"):]
					return strings.TrimSuffix(name, ".so")
				}
			}
		}
	}
	return "cpu"
}

// Options set how a model is opened.
type Options struct {
	// Context is the context size in tokens (0: 8192, at most the
	// model's own).
	Context int
	// Threads is the number of threads (0: one per core that does the
	// arithmetic well).
	Threads int
}

// Model is a loaded GGUF with its context.
type Model struct {
	mu      sync.Mutex
	model   llama.Model
	vocab   llama.Vocab
	ctx     llama.Context
	mem     llama.Memory
	nCtx    int
	batch   int
	threads int
	path    string
	// past are the tokens whose keys and values the context holds, at
	// positions 0..len(past)-1.
	past     []llama.Token
	template string
	embedCtx llama.Context

	generated atomic.Int64 // tokens generated, ever (the debug counter)
	active    atomic.Bool  // a generation is running
}

// Open loads the model at path.
func Open(path string, opts Options) (*Model, error) {
	if loadErr != nil || backend == "" {
		return nil, errors.New("the engine's libraries are not loaded")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("the model file %s cannot be read: %w", path, err)
	}
	mp := llama.ModelDefaultParams()
	model, err := llama.ModelLoadFromFile(path, mp)
	if err != nil || model == 0 {
		return nil, fmt.Errorf("%s is not a model the engine can load (not a readable GGUF, or an architecture it does not know)", path)
	}
	n := opts.Context
	if n <= 0 {
		n = 8192
	}
	if train := int(llama.ModelNCtxTrain(model)); train > 0 && n > train {
		n = train
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = int(llama.Threads())
	}
	cp := llama.ContextDefaultParams()
	cp.NCtx = uint32(n)
	cp.NBatch = 512
	cp.NUbatch = 512
	cp.NSeqMax = 1
	cp.NThreads = int32(threads)
	cp.NThreadsBatch = int32(threads)
	ctx, err := llama.InitFromModel(model, cp)
	if err != nil || ctx == 0 {
		_ = llama.ModelFree(model)
		return nil, fmt.Errorf("the engine could not make a context of %d tokens for %s (not enough memory?)", n, path)
	}
	mem, err := llama.GetMemory(ctx)
	if err != nil {
		_ = llama.Free(ctx)
		_ = llama.ModelFree(model)
		return nil, err
	}
	return &Model{
		model: model, vocab: llama.ModelGetVocab(model), ctx: ctx, mem: mem,
		nCtx: int(llama.NCtx(ctx)), batch: 512, threads: threads, path: path,
		template: llama.ModelChatTemplate(model, ""),
	}, nil
}

// Close frees the model.
func (m *Model) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.embedCtx != 0 {
		_ = llama.Free(m.embedCtx)
		m.embedCtx = 0
	}
	if m.ctx != 0 {
		_ = llama.Free(m.ctx)
		m.ctx = 0
	}
	if m.model != 0 {
		_ = llama.ModelFree(m.model)
		m.model = 0
	}
}

// Template is the model's chat template ("" when the GGUF has none).
func (m *Model) Template() string { return m.template }

// SpecialTexts are the texts of the BOS and EOS tokens (for templates that
// write them).
func (m *Model) SpecialTexts() (bos, eos string) {
	text := func(t llama.Token) string {
		if t < 0 {
			return ""
		}
		return llama.VocabGetText(m.vocab, t)
	}
	return text(llama.VocabBOS(m.vocab)), text(llama.VocabEOS(m.vocab))
}

// ContextSize is the context's size in tokens.
func (m *Model) ContextSize() int { return m.nCtx }

// Generated is the number of tokens this model has generated.
func (m *Model) Generated() int64 { return m.generated.Load() }

// Active tells whether a generation is running.
func (m *Model) Active() bool { return m.active.Load() }

// Sampling sets how the next token is picked.
type Sampling struct {
	// Temperature 0 picks the likeliest token (greedy; the same text every
	// time). nil: 0.8.
	Temperature *float64
	TopP        *float64
	TopK        *int
	MinP        *float64
	Seed        *uint64
}

// Request is one generation.
type Request struct {
	Prompt    string
	MaxTokens int // 0: until the end of the context
	Stop      []string
	Sampling  Sampling
	// OnToken, when set, is called after each generated token.
	OnToken func()
	// Preserve are texts of special tokens written as text when generated
	// (others are not written): the marks of a template's native tool
	// calls, such as Mistral's "[TOOL_CALLS]" (llama.cpp's server keeps
	// its chat format's preserved_tokens the same way).
	Preserve []string
}

// Finish reasons.
const (
	FinishStop   = "stop"
	FinishLength = "length"
)

// Result is what a generation counted.
type Result struct {
	PromptTokens     int // the prompt's tokens
	CachedTokens     int // of which were reused from the last request
	CompletionTokens int
	FinishReason     string
}

// specialTokens are the tokens of texts that are one special token each
// (nil when none is).
func (m *Model) specialTokens(texts []string) map[llama.Token]bool {
	var out map[llama.Token]bool
	for _, t := range texts {
		toks := llama.Tokenize(m.vocab, t, false, true)
		if len(toks) != 1 {
			continue
		}
		if out == nil {
			out = map[llama.Token]bool{}
		}
		out[toks[0]] = true
	}
	return out
}

// ErrTooLong: the prompt does not fit in the context.
var ErrTooLong = errors.New("the conversation is longer than the model's context")

// Generate evaluates the prompt (reusing the evaluated prefix it shares
// with the last request) and generates, handing each piece of text to emit
// as soon as it is whole UTF-8. It stops at an end-of-generation token, a
// stop string, MaxTokens, the end of the context, an error from emit, or
// when ctx is done (checked between tokens and between prompt batches).
func (m *Model) Generate(ctx context.Context, req Request, emit func(string) error) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx == 0 {
		return Result{}, errors.New("the model is closed")
	}
	m.active.Store(true)
	defer m.active.Store(false)

	tokens := llama.Tokenize(m.vocab, strings.ReplaceAll(req.Prompt, "\x00", ""), llama.VocabGetAddBOS(m.vocab), true)
	res := Result{PromptTokens: len(tokens)}
	if len(tokens) == 0 {
		return res, errors.New("the prompt is empty")
	}
	if len(tokens) >= m.nCtx {
		return res, fmt.Errorf("%w (%d tokens of %d)", ErrTooLong, len(tokens), m.nCtx)
	}
	if err := m.evaluate(ctx, tokens, &res); err != nil {
		return res, err
	}

	sampler := newSampler(m.model, req.Sampling)
	defer llama.SamplerFree(sampler)
	preserved := m.specialTokens(req.Preserve)

	var (
		pending []byte // bytes of a piece not yet whole UTF-8
		text    strings.Builder
		held    int // bytes of text held back: they may start a stop string
		buf     = make([]byte, 256)
	)
	flush := func(final bool) error {
		out := text.String()[held:]
		keep := 0
		if !final {
			keep = stopPrefix(text.String(), req.Stop)
		}
		if len(out)-keep > 0 {
			piece := out[:len(out)-keep]
			held += len(piece)
			return emit(piece)
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if req.MaxTokens > 0 && res.CompletionTokens >= req.MaxTokens {
			res.FinishReason = FinishLength
			break
		}
		if len(m.past) >= m.nCtx {
			res.FinishReason = FinishLength
			break
		}
		tok := llama.SamplerSample(sampler, m.ctx, -1)
		if llama.VocabIsEOG(m.vocab, tok) {
			res.FinishReason = FinishStop
			break
		}
		res.CompletionTokens++
		m.generated.Add(1)
		if req.OnToken != nil {
			req.OnToken()
		}
		special := preserved[tok]
		n := llama.TokenToPiece(m.vocab, tok, buf, 0, special)
		if n < 0 {
			big := make([]byte, -n)
			n = llama.TokenToPiece(m.vocab, tok, big, 0, special)
			pending = append(pending, big[:max(n, 0)]...)
		} else {
			pending = append(pending, buf[:n]...)
		}
		if whole := wholeUTF8(pending); whole > 0 {
			text.Write(pending[:whole])
			pending = append(pending[:0], pending[whole:]...)
		}
		if cut, ok := stopAt(text.String(), req.Stop, held); ok {
			s := text.String()[:cut]
			text.Reset()
			text.WriteString(s)
			res.FinishReason = FinishStop
			// The stop token's own evaluation is skipped: the next turn
			// re-evaluates from here.
			break
		}
		if err := flush(false); err != nil {
			return res, err
		}
		if err := m.decode([]llama.Token{tok}); err != nil {
			return res, err
		}
	}
	if len(pending) > 0 {
		text.Write(pending)
	}
	if err := flush(true); err != nil {
		return res, err
	}
	return res, nil
}

// evaluate brings the context to tokens minus the last, reusing the
// common prefix with past, then decodes the rest so the last token's
// logits are ready.
func (m *Model) evaluate(ctx context.Context, tokens []llama.Token, res *Result) error {
	common := 0
	for common < len(m.past) && common < len(tokens) && m.past[common] == tokens[common] {
		common++
	}
	if common == len(tokens) {
		common-- // the last token is evaluated again for its logits
	}
	if common < len(m.past) {
		if ok, _ := llama.MemorySeqRm(m.mem, 0, llama.Pos(common), -1); !ok {
			_ = llama.MemoryClear(m.mem, true)
			common = 0
		}
		m.past = m.past[:common]
	}
	res.CachedTokens = common
	rest := tokens[common:]
	for len(rest) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(rest), m.batch)
		if err := m.decode(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

// decode evaluates tokens after past.
func (m *Model) decode(tokens []llama.Token) error {
	batch := llama.BatchGetOne(tokens)
	rc, err := llama.Decode(m.ctx, batch)
	runtime.KeepAlive(tokens)
	if err != nil || rc != 0 {
		// The context's state is unknown: start from nothing next time.
		_ = llama.MemoryClear(m.mem, true)
		m.past = m.past[:0]
		if err == nil {
			err = fmt.Errorf("llama_decode returned %d", rc)
		}
		return fmt.Errorf("the engine could not evaluate the tokens: %w", err)
	}
	m.past = append(m.past, tokens...)
	return nil
}

func newSampler(model llama.Model, s Sampling) llama.Sampler {
	chain := llama.SamplerChainInit(llama.SamplerChainDefaultParams())
	temp := 0.8
	if s.Temperature != nil {
		temp = *s.Temperature
	}
	if temp <= 0 {
		llama.SamplerChainAdd(chain, llama.SamplerInitGreedy())
		return chain
	}
	topK := 40
	if s.TopK != nil {
		topK = *s.TopK
	}
	topP := 0.95
	if s.TopP != nil {
		topP = *s.TopP
	}
	minP := 0.05
	if s.MinP != nil {
		minP = *s.MinP
	}
	seed := uint32(llama.DefaultSeed)
	if s.Seed != nil {
		seed = uint32(*s.Seed)
	}
	if topK > 0 {
		llama.SamplerChainAdd(chain, llama.SamplerInitTopK(int32(topK)))
	}
	llama.SamplerChainAdd(chain, llama.SamplerInitTopP(float32(topP), 1))
	llama.SamplerChainAdd(chain, llama.SamplerInitMinP(float32(minP), 1))
	llama.SamplerChainAdd(chain, llama.SamplerInitTemp(float32(temp)))
	llama.SamplerChainAdd(chain, llama.SamplerInitDist(seed))
	_ = model
	return chain
}

// wholeUTF8 is how many leading bytes of b are whole UTF-8 (bytes that
// can never start a valid character count as whole: they go out as they
// are).
func wholeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

// stopAt finds the first stop string in text that ends after from; it
// returns where the text is cut.
func stopAt(text string, stops []string, from int) (int, bool) {
	best, found := 0, false
	for _, s := range stops {
		if s == "" {
			continue
		}
		start := max(0, from-len(s)+1)
		if i := strings.Index(text[start:], s); i >= 0 && (!found || start+i < best) {
			best, found = start+i, true
		}
	}
	return best, found
}

// stopPrefix is the length of the longest end of text that begins a stop
// string (held back until it is known not to be one).
func stopPrefix(text string, stops []string) int {
	keep := 0
	for _, s := range stops {
		for n := min(len(s)-1, len(text)); n > keep; n-- {
			if strings.HasSuffix(text, s[:n]) {
				keep = n
				break
			}
		}
	}
	return keep
}

// Embed returns one L2-normalized vector per text (pooled as the model
// says, by the mean when it says nothing) and the tokens it read. Texts
// longer than the embedding context are cut.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.model == 0 {
		return nil, 0, errors.New("the model is closed")
	}
	if err := m.embedContext(); err != nil {
		return nil, 0, err
	}
	mem, err := llama.GetMemory(m.embedCtx)
	if err != nil {
		return nil, 0, err
	}
	nEmbd := llama.ModelNEmbd(m.model)
	limit := int(llama.NCtx(m.embedCtx))
	out := make([][]float32, 0, len(texts))
	total := 0
	for _, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		tokens := llama.Tokenize(m.vocab, strings.ReplaceAll(text, "\x00", ""), true, false)
		if len(tokens) == 0 {
			tokens = []llama.Token{llama.VocabBOS(m.vocab)}
		}
		if len(tokens) > limit {
			tokens = tokens[:limit]
		}
		total += len(tokens)
		_ = llama.MemoryClear(mem, true)
		batch := llama.BatchGetOne(tokens)
		var rc int32
		if llama.ModelHasEncoder(m.model) && !llama.ModelHasDecoder(m.model) {
			rc, err = llama.Encode(m.embedCtx, batch)
		} else {
			rc, err = llama.Decode(m.embedCtx, batch)
		}
		runtime.KeepAlive(tokens)
		if err != nil || rc != 0 {
			return nil, total, fmt.Errorf("the engine could not embed the text (%d, %v)", rc, err)
		}
		vec, err := llama.GetEmbeddingsSeq(m.embedCtx, 0, nEmbd)
		if err != nil || len(vec) == 0 {
			return nil, total, fmt.Errorf("the model gave no embedding: %v", err)
		}
		out = append(out, normalize(vec))
	}
	return out, total, nil
}

func (m *Model) embedContext() error {
	if m.embedCtx != 0 {
		return nil
	}
	newCtx := func(pooling llama.PoolingType) (llama.Context, error) {
		n := min(m.nCtx, 2048)
		cp := llama.ContextDefaultParams()
		cp.NCtx = uint32(n)
		cp.NBatch = uint32(n)
		cp.NUbatch = uint32(n)
		cp.NSeqMax = 1
		cp.NThreads = int32(m.threads)
		cp.NThreadsBatch = int32(m.threads)
		cp.Embeddings = 1
		cp.PoolingType = pooling
		return llama.InitFromModel(m.model, cp)
	}
	c, err := newCtx(llama.PoolingTypeUnspecified)
	if err == nil && c != 0 && llama.GetPoolingType(c) == llama.PoolingTypeNone {
		_ = llama.Free(c)
		c, err = newCtx(llama.PoolingTypeMean)
	}
	if err != nil || c == 0 {
		return fmt.Errorf("the engine could not make an embedding context for %s: %v", m.path, err)
	}
	m.embedCtx = c
	return nil
}

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}
