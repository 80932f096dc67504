package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkPromptWith10000Memories is the prompt assembly of a run whose
// scope holds 10,000 memories, as runs make it: from the index the store
// keeps (built once per version of the memories, reported as build-ms),
// then marking those listed used (the index patched). Every memory shares
// the message's words, so the keyword pass reads 10,000 postings a word.
func BenchmarkPromptWith10000Memories(b *testing.B) {
	ms := benchMemories()
	msg := "Which option do I prefer for project 42 and topic-17?"
	built := time.Now()
	x := NewIndex(ms)
	buildMS := float64(time.Since(built).Nanoseconds()) / 1e6
	b.ReportAllocs()
	var took []time.Duration
	for b.Loop() {
		t0 := time.Now()
		text, ids := x.Prompt(Scope{Conversation: "c1"}, msg, PromptBudget, nil)
		x = x.Touched(ids, t0)
		took = append(took, time.Since(t0))
		require.NotEmpty(b, text)
		require.NotEmpty(b, ids)
	}
	b.ReportMetric(buildMS, "build-ms")
	slices.Sort(took)
	p95 := float64(took[min(len(took)-1, len(took)*95/100)].Nanoseconds()) / 1e6
	b.ReportMetric(p95, "p95-ms")
	verdict := "met"
	if p95 > 5 {
		verdict = "MISSED"
	}
	b.Logf("prompt assembly with 10,000 memories: p95 %.3f ms (target <= 5 ms: %s); index built in %.1f ms", p95, verdict, buildMS)
}

// benchMemories are 10,000 memories, each sharing the bench message's words.
func benchMemories() []Memory {
	ms := make([]Memory, 10_000)
	for i := range ms {
		used := t0.Add(time.Duration(i%977) * time.Hour)
		ms[i] = Memory{ID: fmt.Sprintf("m%05d", i), CreatedAt: t0.Add(time.Duration(i) * time.Minute), UsedAt: &used,
			Text: fmt.Sprintf("Fact %d: the user prefers option %d for project %d and likes topic-%d.", i, i%7, i%113, i%1009)}
	}
	return ms
}
