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
