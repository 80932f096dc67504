package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/libs"
)

func greedy() Sampling { t := 0.0; return Sampling{Temperature: &t} }

func open(t testing.TB, spec ggufgen.Spec) *Model {
	t.Helper()
	dir, err := libs.Dir(os.Getenv)
	require.NoError(t, err, "the engine's libraries (scripts/engine-libs.sh)")
	_, err = Load(dir)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "m.gguf")
	require.NoError(t, ggufgen.Write(path, spec))
	m, err := Open(path, Options{Context: 1024, Threads: 1})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	return m
}

func generate(t *testing.T, m *Model, req Request) (string, Result) {
	t.Helper()
	var out strings.Builder
	res, err := m.Generate(context.Background(), req, func(s string) error { out.WriteString(s); return nil })
	require.NoError(t, err)
	return out.String(), res
}

func TestFixedAnswer(t *testing.T) {
	const answer = "Hello from the built-in engine! Ünïcode ✓ and {\"json\": [1, 2]}."
	m := open(t, ggufgen.Spec{Answer: answer})
	assert.Contains(t, m.Template(), "<|im_start|>")
	prompt := "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
	text, res := generate(t, m, Request{Prompt: prompt, Sampling: greedy()})
	assert.Equal(t, answer, text)
	assert.Equal(t, FinishStop, res.FinishReason)
	assert.Equal(t, len(ggufgen.Pieces(answer)), res.CompletionTokens)
	t.Logf("%+v", res)
}

// A fixture with AfterTool writes Answer until the prompt holds a tool's
// result (the <tool_response> token), then AfterTool, however far back
// the result is; both are greedy, the same every time.
func TestAnswerAfterAToolResult(t *testing.T) {
	const answer, after = "Let me ask you first.", "Blue it is: calm and cool."
	m := open(t, ggufgen.Spec{Answer: answer, AfterTool: after})
	before := "<|im_start|>user\nPick a colour<|im_end|>\n<|im_start|>assistant\n"
	text, _ := generate(t, m, Request{Prompt: before, Sampling: greedy()})
	assert.Equal(t, answer, text, "no tool result yet")

	result := before + answer + "<|im_end|>\n<|im_start|>user\n<tool_response>\n{\"answers\":{\"Colour\":\"Blue\"}}\n</tool_response><|im_end|>\n"
	text, res := generate(t, m, Request{Prompt: result + "<|im_start|>assistant\n", Sampling: greedy()})
	assert.Equal(t, after, text, "after the tool's result")
	assert.Equal(t, FinishStop, res.FinishReason)

	// Far from the result (the context here is 1024 tokens, one a byte).
	far := result + "<|im_start|>user\n" + strings.Repeat("and again, ", 70) + "<|im_end|>\n<|im_start|>assistant\n"
	text, _ = generate(t, m, Request{Prompt: far, Sampling: greedy()})
	assert.Equal(t, after, text, "the result is still seen %d bytes later", len(far)-len(result))
}

// The engine bench's sized models (ggufgen Spec.Size / Q8; issue #40), at
// a small size: Q8_0 blocks load, a crafted answer survives many wide
// blocks, and random quants give the same text every time.
func TestSizedModels(t *testing.T) {
	prompt := "<|im_start|>user\nSing<|im_end|>\n<|im_start|>assistant\n"
	t.Run("one block of the bench's width", func(t *testing.T) {
		m := open(t, ggufgen.Spec{Answer: "la la la, ", Loop: true, Size: 10 << 20})
		text, res := generate(t, m, Request{Prompt: prompt, MaxTokens: 12, Sampling: greedy()})
		assert.Equal(t, strings.Repeat("la la la, ", 4), text)
		assert.Equal(t, FinishLength, res.FinishReason)
	})
	t.Run("many blocks", func(t *testing.T) {
		m := open(t, ggufgen.Spec{Answer: "Hello there.", Layers: 6, Embd: 128, FF: 256, Q8: true})
		text, res := generate(t, m, Request{Prompt: prompt, Sampling: greedy()})
		assert.Equal(t, "Hello there.", text)
		assert.Equal(t, FinishStop, res.FinishReason)
	})
	t.Run("random quants", func(t *testing.T) {
		m := open(t, ggufgen.Spec{Seed: 3, Layers: 4, Embd: 128, FF: 256, Q8: true})
		req := Request{Prompt: prompt, MaxTokens: 24, Sampling: greedy()}
		first, _ := generate(t, m, req)
		fresh := open(t, ggufgen.Spec{Seed: 3, Layers: 4, Embd: 128, FF: 256, Q8: true})
		again, _ := generate(t, fresh, req)
		assert.NotEmpty(t, first)
		assert.Equal(t, first, again)
	})
}
