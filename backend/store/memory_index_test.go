package store

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/memory"
)

// The prompt index follows the memories: a write shows in the next index,
// a prompt's marks at once in the index and in the database once the run
// ends or memories are read; the index the store hands out agrees with
// the straightforward prompt over the memories in scope.
func TestMemoryIndexFollowsWritesAndMarks(t *testing.T) {
	s := newStore(t)
	prompt := func(sc memory.Scope) []string {
		t.Helper()
		x, err := s.MemoryIndex(ctx)
		require.NoError(t, err)
		_, ids := x.Prompt(sc, "", memory.PromptBudget, nil)
		return ids
	}
	a := &memory.Memory{Text: "A", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now().Add(-2 * time.Hour)}
	b := &memory.Memory{Text: "B", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now().Add(-time.Hour)}
	require.NoError(t, s.AddMemory(ctx, a))
	assert.Equal(t, []string{a.ID}, prompt(memory.Scope{}))
	require.NoError(t, s.AddMemory(ctx, b))
	assert.Equal(t, []string{b.ID, a.ID}, prompt(memory.Scope{}), "added: in the next index")

	runEnds := make(chan struct{})
	at := now()
	s.MarkMemoriesUsed([]string{a.ID}, at, runEnds)
	assert.Equal(t, []string{a.ID, b.ID}, prompt(memory.Scope{}), "marked: first at once")
	got, err := s.Memory(ctx, a.ID) // a read writes what is pending, run or not
	require.NoError(t, err)
	require.NotNil(t, got.UsedAt, "in the database once memories are read")
	assert.True(t, at.Equal(*got.UsedAt))

	at2 := at.Add(time.Minute)
	s.MarkMemoriesUsed([]string{b.ID}, at2, runEnds)
	close(runEnds)
	require.Eventually(t, func() bool {
		var used *string
		require.NoError(t, s.readers.QueryRowContext(ctx, `SELECT used_at FROM memories WHERE id = ?`, b.ID).Scan(&used))
		return used != nil
	}, 10*time.Second, time.Millisecond, "written once the run ended, without a read")
	assert.Equal(t, []string{b.ID, a.ID}, prompt(memory.Scope{}))

	require.NoError(t, s.DeleteMemory(ctx, b.ID))
	assert.Equal(t, []string{a.ID}, prompt(memory.Scope{}), "deleted: gone from the next index")
}

// Runs read the index while others mark memories used and memories are
// added: each run sees one version whole (-race clean, no memory twice).
func TestMemoryIndexReadWhileMarked(t *testing.T) {
	s := newStore(t)
	var ids []string
	for i := range 300 {
		m := &memory.Memory{Text: fmt.Sprintf("Fact %d about topic %d", i, i%7), Source: memory.Source{Type: memory.SourceUser},
			CreatedAt: now().Add(-time.Duration(i) * time.Minute)}
		require.NoError(t, s.AddMemory(ctx, m))
		ids = append(ids, m.ID)
	}
	never := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 50 {
				x, err := s.MemoryIndex(ctx)
				if !assert.NoError(t, err) {
					return
				}
				_, listed := x.Prompt(memory.Scope{}, "What about topic 3?", 200, nil)
				seen := map[string]bool{}
				for _, id := range listed {
					assert.False(t, seen[id], "listed once")
					seen[id] = true
				}
				if r == 0 && k%10 == 0 {
					m := &memory.Memory{Text: fmt.Sprintf("New %d", k), Source: memory.Source{Type: memory.SourceUser}}
					assert.NoError(t, s.AddMemory(ctx, m))
				}
				done := never
				if k%2 == 0 {
					done = closedRun
				}
				s.MarkMemoriesUsed(listed, time.Now(), done)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, s.TouchMemories(ctx, ids[:1], now().Add(time.Hour)))
	x, err := s.MemoryIndex(ctx)
	require.NoError(t, err)
	_, listed := x.Prompt(memory.Scope{}, "", memory.PromptBudget, nil)
	assert.Equal(t, ids[0], listed[0], "the last mark wins, in order")
}

var closedRun = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// A run's marks reach the cache's index without a read once the run has
// ended (the touch queue applies them after writing them), so that the
// next run's prompt does not pay for patching the index (issue #41).
func TestMemoryMarksAppliedOnceTheRunEnds(t *testing.T) {
	s := newStore(t)
	a := &memory.Memory{Text: "A", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now().Add(-2 * time.Hour)}
	b := &memory.Memory{Text: "B", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now().Add(-time.Hour)}
	require.NoError(t, s.AddMemory(ctx, a))
	require.NoError(t, s.AddMemory(ctx, b))
	_, err := s.MemoryIndex(ctx)
	require.NoError(t, err)
	pending := func() int {
		s.mems.mu.Lock()
		defer s.mems.mu.Unlock()
		return len(s.mems.marks)
	}
	runEnds := make(chan struct{})
	s.MarkMemoriesUsed([]string{a.ID}, now(), runEnds)
	assert.Equal(t, 1, pending(), "the run pays for a lock, not the patch")
	close(runEnds)
	require.Eventually(t, func() bool { return pending() == 0 }, 10*time.Second, time.Millisecond, "applied once the run ended")
	s.mems.mu.Lock()
	x := s.mems.index
	s.mems.mu.Unlock()
	_, ids := x.Prompt(memory.Scope{}, "", memory.PromptBudget, nil)
	assert.Equal(t, []string{a.ID, b.ID}, ids, "the index the cache holds has the mark")
	got, err := s.Memory(ctx, a.ID)
	require.NoError(t, err)
	assert.NotNil(t, got.UsedAt)
}
