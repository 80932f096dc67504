package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkPromptWith10000Memories is the prompt assembly of a run whose
// scope holds 10,000 memories: the ordering, the budget and the keyword
// pass over all of them.
func BenchmarkPromptWith10000Memories(b *testing.B) {
	ms := make([]Memory, 10_000)
	for i := range ms {
		used := t0.Add(time.Duration(i%977) * time.Hour)
		ms[i] = Memory{ID: fmt.Sprintf("m%05d", i), CreatedAt: t0.Add(time.Duration(i) * time.Minute), UsedAt: &used,
			Text: fmt.Sprintf("Fact %d: the user prefers option %d for project %d and likes topic-%d.", i, i%7, i%113, i%1009)}
	}
	msg := "Which option do I prefer for project 42 and topic-17?"
	b.ReportAllocs()
	var took []time.Duration
	for b.Loop() {
		t0 := time.Now()
		text, ids := Prompt(ms, msg, PromptBudget, nil)
		took = append(took, time.Since(t0))
		require.NotEmpty(b, text)
		require.NotEmpty(b, ids)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[min(len(took)-1, len(took)*95/100)].Nanoseconds())/1e6, "p95-ms")
}
