// Package ggufgen writes tiny llama GGUF files for tests and benchmarks of
// the built-in engine (SPEC §12): no model weights are reachable from the
// registries, so the fixtures are made here. It uses the standard library
// only.
//
// A model is one llama block with a byte-level BPE vocabulary (the 256 byte
// tokens, so any prompt tokenizes), ChatML's control tokens and a chat
// template. Two kinds:
//
//   - Spec.Answer set: the weights are crafted so that greedy decoding writes
//     Answer, whatever the prompt, then ends (or, with Loop, starts Answer
//     again, forever). The vocabulary gets one token per piece of Answer;
//     the attention and feed-forward outputs are zero, so the state after a
//     token is that token's embedding (one dimension per token of the
//     chain), and the output matrix maps each to its successor: the last
//     prompt token ("\n" after "<|im_start|>assistant", or one of
//     Spec.PromptEnds) to the first piece, each piece to the next, the last
//     to <|im_end|>.
//   - Spec.AfterTool set as well: once the prompt holds a tool's result
//     (the control token <tool_response>, which the template writes around
//     it, or Spec.ToolMark), greedy decoding writes AfterTool instead of Answer. The one
//     attention head that is not zero does this: the trigger's query
//     matches only that token's key, whose value lands in a "seen"
//     dimension that tips the trigger's successor from Answer's first
//     piece to AfterTool's. RoPE is made negligible (a huge frequency base,
//     and the query and key in the head's slowest pair), so the match does
//     not fade with the distance.
//   - Spec.Answer empty: random weights from Seed (the output is arbitrary
//     bytes, but a pure function of the prompt): for checking that reused
//     and freshly evaluated prompts give the same text.
//
// Spec.Size (or Layers, Embd, FF and Q8) makes the network big enough that
// llama.cpp's arithmetic, not its per-token overhead, sets the speed (the
// engine's bench, issue #40): more blocks, wider, with Q8_0 weights as
// quantized models have. With Answer the blocks' outputs are multiplied by
// a zero scale (Q8_0's per-block d), so the answer is still the crafted
// one while every matrix product is computed in full.
package ggufgen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
)

// ChatML is a ChatML template with Hermes-style tools (as Qwen 2.5's): the
// tools are listed in the system turn, and the model calls one as
// <tool_call>{"name": ..., "arguments": {...}}</tool_call>.
const ChatML = `{%- if tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}

{% endif %}# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% elif messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% elif message.role == 'assistant' %}<|im_start|>assistant
{% if message.content %}{{ message.content }}{% endif %}
{%- if message.tool_calls %}{% for tc in message.tool_calls %}
<tool_call>
{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}
</tool_call>{% endfor %}{% endif %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`

// Spec describes a model to write.
type Spec struct {
	Name string // general.name (default "parley-fixture")
	// Template is the chat template (default ChatML).
	Template string
	// Answer is the text greedy decoding writes (see the package comment);
	// empty makes a random model.
	Answer string
	// Loop starts Answer again after its end instead of ending.
	Loop bool
	// AfterTool is the text written instead of Answer when the prompt
	// holds a tool's result (see the package comment); "" = Answer always.
	AfterTool string
	// Seed seeds the random weights.
	Seed uint64
	// ContextLength is llama.context_length (default 16384: the
	// vocabulary has no merges, so a prompt is one token per byte).
	ContextLength int

	// Size, when set, is the file's approximate size in bytes: it sets
	// Layers, Embd, FF and Q8 (SizedShape) unless they are set.
	Size int64
	// Layers is llama.block_count (default 1).
	Layers int
	// Embd is llama.embedding_length (default: what Answer needs, at least
	// 64; heads of 16 then, of 64 when it is set). A multiple of 64.
	Embd int
	// FF is llama.feed_forward_length (default 64). A multiple of 32.
	FF int
	// Q8 writes the blocks' matrices as Q8_0 (random quants, a small
	// scale; zero scale for the outputs that must not disturb Answer),
	// with grouped-query attention (a key/value head for 4 query heads).
	// Not with AfterTool, whose attention head is crafted in F32.
	Q8 bool
	// PromptEnds, when set, are control tokens that end the template's
	// prompts and trigger the answer (Mistral's "[/INST]" and
	// "[/TOOL_RESULTS]"); default: the byte "\n" (ChatML's and Llama 3's
	// generation prompts end in one).
	PromptEnds []string
	// ToolMark is the control token whose presence in the prompt means a
	// tool's result is there (default "<tool_response>", which ChatML's
	// template writes; Mistral's is "[TOOL_RESULTS]").
	ToolMark string
	// Controls are texts of Answer and AfterTool that the model writes as
	// control tokens, as real models write theirs (Mistral's
	// "[TOOL_CALLS]"): an engine shows them only when it asks to.
	Controls []string
}

// SizedShape is the network Size asks for: blocks of 1024 wide with a
// feed-forward of 2816 (a small real model's proportions), Q8_0, as many
// blocks as reach size (at least one).
func SizedShape(size int64) (layers, embd, ff int) {
	embd, ff = 1024, 2816
	perLayer := int64(2*embd*embd+2*embd*embd/kvGroup+3*embd*ff) / 32 * q8BlockBytes
	return max(1, int((size+perLayer/2)/perLayer)), embd, ff
}

// Special tokens, after the 256 byte tokens.
const (
	TokenEndOfText = 256 // <|endoftext|>, the BOS
	TokenIMStart   = 257 // <|im_start|>
	TokenIMEnd     = 258 // <|im_end|>, the EOS
	// TokenToolResponse is <tool_response> (or Spec.ToolMark), the mark
	// of a tool's result (ChatML's template writes it).
	TokenToolResponse = 259
	// TokenPromptEnd is Spec.PromptEnds' first, when set (the others
	// follow).
	TokenPromptEnd = 260
)

// Write writes the model to path.
func Write(path string, spec Spec) error {
	m, err := build(spec)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := m.write(w); err != nil {
		_ = f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// Pieces returns the pieces Answer is cut into (one token each), in order.
func Pieces(answer string) []string { return pieces(answer, map[string]bool{}) }

// piecesWith is pieces, with each of controls in answer a piece of its own
// (a control token).
func piecesWith(answer string, controls []string, seen map[string]bool) []string {
	var out []string
	for answer != "" {
		at, which := len(answer), ""
		for _, c := range controls {
			if i := strings.Index(answer, c); c != "" && i >= 0 && i < at {
				at, which = i, c
			}
		}
		out = append(out, pieces(answer[:at], seen)...)
		if which == "" {
			break
		}
		out = append(out, which)
		seen[which] = true
		answer = answer[at+len(which):]
	}
	return out
}

// pieces cuts answer into pieces none of which is in seen (which gets
// them).
func pieces(answer string, seen map[string]bool) []string {
	var out []string
	b := []byte(answer)
	for len(b) > 0 {
		n := min(3, len(b))
		// Whole UTF-8 characters where it can (a piece may still be
		// longer than 3 bytes to stay unique).
		for n < len(b) && !utf8.RuneStart(b[n]) {
			n++
		}
		for (n < 2 && n < len(b)) || (seen[string(b[:n])] && n < len(b)) {
			n++
		}
		p := string(b[:n])
		if seen[p] || len(p) < 2 {
			// The tail is taken or a single byte (a byte token's text):
			// it joins the piece before.
			if len(out) == 0 {
				out = append(out, p)
			} else {
				delete(seen, out[len(out)-1])
				out[len(out)-1] += p
				p = out[len(out)-1]
			}
		} else {
			out = append(out, p)
		}
		seen[p] = true
		b = b[n:]
	}
	return out
}

type tensor struct {
	name string
	dims []uint64 // ne0 (the row), ne1, ...
	data []float32
	q8   *q8Fill // instead of data: Q8_0 made as written
}

type model struct {
	kv      []kv
	tensors []tensor
}

type kv struct {
	key string
	val any // uint32, float32, bool, string, []string, []int32, []float32
}

func build(spec Spec) (*model, error) {
	if spec.Name == "" {
		spec.Name = "parley-fixture"
	}
	if spec.Template == "" {
		spec.Template = ChatML
	}
	if spec.ContextLength == 0 {
		spec.ContextLength = 16384
	}
	if spec.AfterTool != "" && spec.Answer == "" {
		return nil, fmt.Errorf("ggufgen: AfterTool needs Answer")
	}
	if spec.Size > 0 {
		layers, embd, ff := SizedShape(spec.Size)
		if spec.Layers == 0 {
			spec.Layers = layers
		}
		if spec.Embd == 0 {
			spec.Embd = embd
		}
		if spec.FF == 0 {
			spec.FF = ff
		}
		spec.Q8 = true
	}
	if spec.Layers == 0 {
		spec.Layers = 1
	}
	if spec.Embd%64 != 0 || spec.FF%32 != 0 || spec.Layers < 0 || spec.Embd < 0 || spec.FF < 0 {
		return nil, fmt.Errorf("ggufgen: Embd %d must be a multiple of 64, FF %d of 32", spec.Embd, spec.FF)
	}
	if spec.Q8 && spec.AfterTool != "" {
		return nil, fmt.Errorf("ggufgen: AfterTool's crafted head needs F32 weights, not Q8")
	}
	if spec.ToolMark == "" {
		spec.ToolMark = "<tool_response>"
	}
	// A vocabulary's texts are unique: AfterTool's pieces differ from
	// Answer's.
	seen := map[string]bool{}
	answer := piecesWith(spec.Answer, spec.Controls, seen)
	after := piecesWith(spec.AfterTool, spec.Controls, seen)
	pieces := append(append([]string{}, answer...), after...)
	firstPiece := TokenPromptEnd + len(spec.PromptEnds)
	trigger := func(t int) bool {
		if len(spec.PromptEnds) == 0 {
			return t == '\n'
		}
		return t >= TokenPromptEnd && t < firstPiece
	}
	nVocab := firstPiece + len(pieces)

	tokens := make([]string, 0, nVocab)
	types := make([]int32, 0, nVocab)
	b2u := byteToUnicode()
	for i := 0; i < 256; i++ {
		tokens = append(tokens, string(b2u[byte(i)]))
		types = append(types, 1) // normal
	}
	tokens = append(tokens, "<|endoftext|>", "<|im_start|>", "<|im_end|>", spec.ToolMark)
	types = append(types, 3, 3, 3, 3) // control
	for _, e := range spec.PromptEnds {
		tokens = append(tokens, e)
		types = append(types, 3)
	}
	for _, p := range pieces {
		if slices.Contains(spec.Controls, p) {
			tokens = append(tokens, p)
			types = append(types, 3)
			continue
		}
		var s []rune
		for _, c := range []byte(p) {
			s = append(s, b2u[c])
		}
		tokens = append(tokens, string(s))
		types = append(types, 1)
	}

	unique := map[string]bool{}
	for _, t := range tokens {
		if unique[t] {
			return nil, fmt.Errorf("ggufgen: the token %q comes twice (choose other texts)", t)
		}
		unique[t] = true
	}

	// One dimension per state: 0 = any other token, 1 = the trigger ("\n",
	// the last token of the generation prompt), 2+i = piece i; then, with
	// AfterTool, the <tool_response> token's and the "seen" dimension.
	// Dimensions are a multiple of 32, with 16 per head.
	states := 2 + len(pieces)
	markDim, seenDim := states, states+1
	dims := states
	if len(after) > 0 {
		dims = states + 2
	}
	nEmbd := max(64, (dims+31)/32*32)
	nHead := nEmbd / 16
	if spec.Embd > 0 {
		if spec.Embd < dims {
			return nil, fmt.Errorf("ggufgen: Embd %d is narrower than the %d dimensions Answer needs", spec.Embd, dims)
		}
		nEmbd, nHead = spec.Embd, spec.Embd/64
	}
	nKV := nHead
	if spec.Q8 && nHead%kvGroup == 0 {
		// Grouped-query attention, as small real models have: the keys
		// and values (and so the KV cache) are a quarter as wide.
		nKV = nHead / kvGroup
	}
	nFF := 64
	if spec.FF > 0 {
		nFF = spec.FF
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x9e3779b97f4a7c15))
	random := func(n int, scale float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64()) * scale
		}
		return out
	}
	ones := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	e := uint64(nEmbd)
	v := uint64(nVocab)
	ff := uint64(nFF)
	kvWidth := e / uint64(nHead) * uint64(nKV)

	var embd, out, attnQ, attnK, attnV, attnOut, ffnDown []float32
	attnQ = random(nEmbd*nEmbd, 0.2)
	attnK = random(nEmbd*nEmbd, 0.2)
	attnV = random(nEmbd*nEmbd, 0.2)
	ropeBase := float32(10000)
	if spec.Answer == "" {
		embd = random(nEmbd*nVocab, 1)
		out = random(nEmbd*nVocab, 0.5)
		attnOut = random(nEmbd*nEmbd, 0.2)
		ffnDown = random(nFF*nEmbd, 0.2)
	} else {
		// token_embd is [n_embd, n_vocab]: row t (n_embd floats) is token
		// t's embedding.
		embd = make([]float32, nEmbd*nVocab)
		state := func(t int) int {
			switch {
			case trigger(t):
				return 1
			case t == TokenToolResponse && len(after) > 0:
				return markDim
			case t >= firstPiece:
				return 2 + t - firstPiece
			}
			return 0
		}
		for t := 0; t < nVocab; t++ {
			embd[t*nEmbd+state(t)] = 1
		}
		// output is [n_embd, n_vocab] too: logit[t] = row t · state.
		out = make([]float32, nEmbd*nVocab)
		next := func(s int) int { // the token after state s
			switch {
			case s == 0:
				return TokenIMEnd
			case s == 1:
				return firstPiece
			case s-1 < len(answer): // piece s-2 of Answer
				return firstPiece + s - 1
			case s-2 == len(answer)-1 && spec.Loop:
				return firstPiece
			case s-2 < len(answer):
				return TokenIMEnd
			case s-1 < len(pieces): // piece s-2 of AfterTool
				return firstPiece + s - 1
			}
			return TokenIMEnd
		}
		for s := 0; s < states; s++ {
			out[next(s)*nEmbd+s] = 1
		}
		attnOut = make([]float32, nEmbd*nEmbd)
		ffnDown = make([]float32, nFF*nEmbd)
		if len(after) > 0 {
			// The normalized one-hot states are sqrt(n_embd) = 8 (and more)
			// where they are 1. Head 0: the trigger's query and the mark's
			// key in dimension 14 (the slowest RoPE pair): a score of
			// 8*1.5 * 8*1.5 / sqrt(16) = 36 for the mark, 0 for every other
			// token, so the mark takes all the attention even among 16k
			// tokens; its value (dimension 0) goes to "seen".
			attnQ = make([]float32, nEmbd*nEmbd)
			attnK = make([]float32, nEmbd*nEmbd)
			attnV = make([]float32, nEmbd*nEmbd)
			attnQ[14*nEmbd+1] = 1.5
			attnK[14*nEmbd+markDim] = 1.5
			attnV[0*nEmbd+markDim] = 1
			attnOut[seenDim*nEmbd+0] = 1.0 / 8
			ropeBase = 1e12
			// After the trigger: Answer's first piece scores 1 (its
			// row reads the trigger), AfterTool's 0.5 + 0.7*seen, so it
			// wins only once a result was seen; after a piece, that
			// piece's successor scores 1 against at most 0.7*seen, and
			// seen is ~1/n there (a piece's query matches nothing).
			first := firstPiece + len(answer)
			out[first*nEmbd+1] = 0.5
			out[first*nEmbd+seenDim] = 0.7
		}
	}

	m := &model{}
	m.kv = []kv{
		{"general.architecture", "llama"},
		{"general.name", spec.Name},
		{"general.alignment", uint32(alignment)},
		{"llama.context_length", uint32(spec.ContextLength)},
		{"llama.embedding_length", uint32(nEmbd)},
		{"llama.block_count", uint32(spec.Layers)},
		{"llama.feed_forward_length", uint32(nFF)},
		{"llama.attention.head_count", uint32(nHead)},
		{"llama.attention.head_count_kv", uint32(nKV)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.freq_base", ropeBase},
		{"llama.vocab_size", uint32(nVocab)},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "default"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.merges", []string{}},
		{"tokenizer.ggml.bos_token_id", uint32(TokenEndOfText)},
		{"tokenizer.ggml.eos_token_id", uint32(TokenIMEnd)},
		{"tokenizer.ggml.padding_token_id", uint32(TokenEndOfText)},
		{"tokenizer.ggml.add_bos_token", false},
		{"tokenizer.chat_template", spec.Template},
	}
	m.tensors = []tensor{
		{name: "token_embd.weight", dims: []uint64{e, v}, data: embd},
		{name: "output_norm.weight", dims: []uint64{e}, data: ones(nEmbd)},
		{name: "output.weight", dims: []uint64{e, v}, data: out},
	}
	// Q8_0 blocks: random quants from the seed (a pure function of the
	// block's index), scale 0 where the crafted answer needs a zero
	// output.
	quiet := float32(0.2 / 64)
	if spec.Answer != "" {
		quiet = 0
	}
	q8 := func(name string, dims []uint64, scale float32, i int) tensor {
		return tensor{name: name, dims: dims, q8: &q8Fill{scale: scale, seed: spec.Seed ^ uint64(i)*0x2545f4914f6cdd1d}}
	}
	for l := 0; l < spec.Layers; l++ {
		blk := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", l, s) }
		norm := func(s string) tensor { return tensor{name: blk(s), dims: []uint64{e}, data: ones(nEmbd)} }
		if spec.Q8 {
			m.tensors = append(m.tensors, norm("attn_norm"),
				q8(blk("attn_q"), []uint64{e, e}, 0.2/64, 7*l),
				q8(blk("attn_k"), []uint64{e, kvWidth}, 0.2/64, 7*l+1),
				q8(blk("attn_v"), []uint64{e, kvWidth}, 0.2/64, 7*l+2),
				q8(blk("attn_output"), []uint64{e, e}, quiet, 7*l+3),
				norm("ffn_norm"),
				q8(blk("ffn_gate"), []uint64{e, ff}, 0.2/64, 7*l+4),
				q8(blk("ffn_up"), []uint64{e, ff}, 0.2/64, 7*l+5),
				q8(blk("ffn_down"), []uint64{ff, e}, quiet, 7*l+6))
			continue
		}
		if l > 0 {
			// Later blocks: random, with zero outputs for Answer (what
			// block 0 of an Answer model has too).
			attnQ, attnK, attnV = random(nEmbd*nEmbd, 0.2), random(nEmbd*nEmbd, 0.2), random(nEmbd*nEmbd, 0.2)
			if spec.Answer == "" {
				attnOut, ffnDown = random(nEmbd*nEmbd, 0.2), random(nFF*nEmbd, 0.2)
			} else {
				attnOut, ffnDown = make([]float32, nEmbd*nEmbd), make([]float32, nFF*nEmbd)
			}
		}
		m.tensors = append(m.tensors, norm("attn_norm"),
			tensor{name: blk("attn_q"), dims: []uint64{e, e}, data: attnQ},
			tensor{name: blk("attn_k"), dims: []uint64{e, e}, data: attnK},
			tensor{name: blk("attn_v"), dims: []uint64{e, e}, data: attnV},
			tensor{name: blk("attn_output"), dims: []uint64{e, e}, data: attnOut},
			norm("ffn_norm"),
			tensor{name: blk("ffn_gate"), dims: []uint64{e, ff}, data: random(nEmbd*nFF, 0.2)},
			tensor{name: blk("ffn_up"), dims: []uint64{e, ff}, data: random(nEmbd*nFF, 0.2)},
			tensor{name: blk("ffn_down"), dims: []uint64{ff, e}, data: ffnDown})
	}
	for _, t := range m.tensors {
		n := uint64(1)
		for _, d := range t.dims {
			n *= d
		}
		if t.q8 != nil {
			if t.dims[0]%q8BlockSize != 0 {
				return nil, fmt.Errorf("ggufgen: tensor %s's rows (%d) are not whole Q8_0 blocks", t.name, t.dims[0])
			}
			continue
		}
		if n != uint64(len(t.data)) {
			return nil, fmt.Errorf("ggufgen: tensor %s has %d values for %v", t.name, len(t.data), t.dims)
		}
	}
	return m, nil
}

// kvGroup is how many query heads share a key/value head in Q8 models.
const kvGroup = 4

// Q8_0: blocks of 32 weights, a float16 scale then 32 int8 quants.
const (
	q8BlockSize  = 32
	q8BlockBytes = 2 + q8BlockSize
	typeF32      = 0
	typeQ8_0     = 8
)

// q8Fill makes a Q8_0 tensor's data as it is written (hundreds of MB are
// never held in memory).
type q8Fill struct {
	scale float32
	seed  uint64
}

func (t tensor) count() uint64 {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// bytes is the size of the tensor's data.
func (t tensor) bytes() uint64 {
	if t.q8 != nil {
		return t.count() / q8BlockSize * q8BlockBytes
	}
	return 4 * t.count()
}

func (t tensor) typ() uint32 {
	if t.q8 != nil {
		return typeQ8_0
	}
	return typeF32
}

// writeQ8 writes the tensor's Q8_0 blocks.
func (q *q8Fill) write(w *bufio.Writer, blocks uint64) error {
	rng := rand.New(rand.NewPCG(q.seed, 0xda3e39cb94b95bdb))
	var block [q8BlockBytes]byte
	binary.LittleEndian.PutUint16(block[:2], float16(q.scale))
	for b := uint64(0); b < blocks; b++ {
		for i := 2; i < q8BlockBytes; i += 8 {
			binary.LittleEndian.PutUint64(block[i:], rng.Uint64())
		}
		if _, err := w.Write(block[:]); err != nil {
			return err
		}
	}
	return nil
}

// float16 converts a small positive (or zero) float32 to IEEE half
// precision, rounding down; enough for Q8_0's scales.
func float16(f float32) uint16 {
	bits := math.Float32bits(f)
	exp := int((bits>>23)&0xff) - 127 + 15
	mant := (bits >> 13) & 0x3ff
	switch {
	case f == 0:
		return 0
	case exp <= 0: // subnormal
		return uint16(((bits & 0x7fffff) | 0x800000) >> (14 - exp))
	case exp >= 31:
		return 0x7bff
	}
	return uint16(exp)<<10 | uint16(mant)
}

const alignment = 32

// GGUF value types.
const (
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9
)

func (m *model) write(w *bufio.Writer) error {
	var err error
	put := func(v any) {
		if err == nil {
			err = binary.Write(w, binary.LittleEndian, v)
		}
	}
	str := func(s string) {
		put(uint64(len(s)))
		if err == nil {
			_, err = w.WriteString(s)
		}
	}
	put([]byte("GGUF"))
	put(uint32(3))
	put(uint64(len(m.tensors)))
	put(uint64(len(m.kv)))
	for _, p := range m.kv {
		str(p.key)
		switch v := p.val.(type) {
		case uint32:
			put(uint32(typeUint32))
			put(v)
		case float32:
			put(uint32(typeFloat32))
			put(v)
		case bool:
			put(uint32(typeBool))
			put(v)
		case string:
			put(uint32(typeString))
			str(v)
		case []string:
			put(uint32(typeArray))
			put(uint32(typeString))
			put(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []int32:
			put(uint32(typeArray))
			put(uint32(typeInt32))
			put(uint64(len(v)))
			put(v)
		default:
			return fmt.Errorf("ggufgen: key %s: unsupported value %T", p.key, v)
		}
	}
	offset := uint64(0)
	for _, t := range m.tensors {
		str(t.name)
		put(uint32(len(t.dims)))
		put(t.dims)
		put(t.typ())
		put(offset)
		offset = align(offset + t.bytes())
	}
	if err != nil {
		return err
	}
	// The data starts aligned; so does each tensor.
	written := uint64(headerSize(m))
	pad := func(to uint64) {
		for ; written < to; written++ {
			if err == nil {
				err = w.WriteByte(0)
			}
		}
	}
	pad(align(written))
	base := written
	offset = 0
	for _, t := range m.tensors {
		pad(base + offset)
		if t.q8 != nil {
			if err == nil {
				err = t.q8.write(w, t.count()/q8BlockSize)
			}
		} else {
			put(t.data)
		}
		written += t.bytes()
		offset = align(offset + t.bytes())
	}
	return err
}

func align(n uint64) uint64 { return (n + alignment - 1) / alignment * alignment }

// headerSize is the size of everything before the padding that precedes
// the tensor data.
func headerSize(m *model) int {
	n := 4 + 4 + 8 + 8
	s := func(x string) int { return 8 + len(x) }
	for _, p := range m.kv {
		n += s(p.key) + 4
		switch v := p.val.(type) {
		case uint32, float32:
			n += 4
		case bool:
			n++
		case string:
			n += s(v)
		case []string:
			n += 4 + 8
			for _, x := range v {
				n += s(x)
			}
		case []int32:
			n += 4 + 8 + 4*len(v)
		}
	}
	for _, t := range m.tensors {
		n += s(t.name) + 4 + 8*len(t.dims) + 4 + 8
	}
	return n
}

// byteToUnicode is GPT-2's map from bytes to the characters byte-level BPE
// vocabularies write them with (printable bytes as themselves, the others
// from U+0100 on).
func byteToUnicode() map[byte]rune {
	m := map[byte]rune{}
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[byte(b)] = rune(b)
		} else {
			m[byte(b)] = rune(256 + n)
			n++
		}
	}
	return m
}
