package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/ggufgen"
)

var errFirst = errors.New("first token")

// BenchmarkEngine measures the engine on the fixture models (one llama
// block: the figures are llama.cpp's per-token overhead on this machine,
// not a real model's speed): tokens/s of greedy generation, and the
// latency to the first token after a fresh 500-token prompt (no reused
// prefix) and after a next turn that reuses the evaluated prefix.
//
//	go test -tags sqlite_fts5,libsqlite3 -run '^$' -bench Engine ./backend/engine/runner/
func BenchmarkEngine(b *testing.B) {
	b.Run("generate", func(b *testing.B) {
		m := open(b, ggufgen.Spec{Answer: "la la la, ", Loop: true})
		const n = 256
		prompt := "<|im_start|>user\nSing<|im_end|>\n<|im_start|>assistant\n"
		var tokens int
		start := time.Now()
		for b.Loop() {
			res, err := m.Generate(context.Background(), Request{Prompt: prompt, MaxTokens: n, Sampling: greedy()},
				func(string) error { return nil })
			require.NoError(b, err)
			require.Equal(b, n, res.CompletionTokens)
			tokens += res.CompletionTokens
		}
		b.ReportMetric(float64(tokens)/time.Since(start).Seconds(), "tokens/s")
	})
	firstToken := func(b *testing.B, reuse bool) {
		m := open(b, ggufgen.Spec{Answer: "Hello there."})
		base := "<|im_start|>user\n" + strings.Repeat("word ", 100) + "<|im_end|>\n"
		var total time.Duration
		i := 0
		for b.Loop() {
			// A fresh prompt differs from its first token on; a next turn
			// only at its end.
			prompt := fmt.Sprintf("<|im_start|>system\n%d<|im_end|>\n", i) + base + "<|im_start|>assistant\n"
			if reuse {
				prompt = base + fmt.Sprintf("<|im_start|>user\n%d<|im_end|>\n<|im_start|>assistant\n", i)
			}
			i++
			t0 := time.Now()
			_, err := m.Generate(context.Background(), Request{Prompt: prompt, Sampling: greedy()},
				func(string) error { return errFirst })
			total += time.Since(t0)
			require.ErrorIs(b, err, errFirst)
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(i), "ms/first-token")
	}
	b.Run("first-token-fresh-500", func(b *testing.B) { firstToken(b, false) })
	b.Run("first-token-next-turn", func(b *testing.B) { firstToken(b, true) })
}
