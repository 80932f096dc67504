package knowledge

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/yield"
)

// Issue #42: the indexer gives way to the user at the gate. Closed, it
// stops before its next file (what it read stays in memory, nothing more
// is read or written); reopened, it finishes.
func TestIndexingStopsAtTheClosedGateAndFinishesAfter(t *testing.T) {
	dir := t.TempDir()
	const files, closeAt = 40, 10
	for i := range files {
		writeFile(t, dir, fmt.Sprintf("f%02d.md", i), fmt.Appendf(nil, "# File %d\nword%d content", i, i))
	}
	gate := yield.New(yield.Options{Linger: yield.NoLinger})
	var reads atomic.Int32
	h := newHarness(t, func(o *Options) {
		o.NoWatch = true
		o.BatchFiles = 4
		o.Gate = gate
		o.beforeRead = func(context.Context, string) {
			if reads.Add(1) == closeAt {
				gate.Set("runs", yield.Closed) // a run starts while this file is read
			}
		}
	})
	c, err := h.m.Create(ctx, "Big", []string{dir})
	require.NoError(t, err)
	h.waitFor("the indexer to stop at the closed gate", func() bool { return gate.Waiting() == 1 })
	info, err := h.m.Info(ctx, c.ID)
	require.NoError(t, err)
	require.Equal(t, int32(closeAt), reads.Load(), "no file read after the gate closed but the one under way")
	require.Equal(t, 8, info.IndexedFiles, "no batch written after the gate closed (two batches of 4 before it)")
	require.Equal(t, files, info.Files)

	gate.Set("runs", yield.Open)
	h.waitReady(c.ID, files)
	require.Equal(t, int32(files), reads.Load(), "each file read once")
}

// Closed before a scan begins, the gate holds the scan before it walks the
// folder; paced, the indexer still finishes.
func TestIndexingWaitsForTheGateBeforeItWalks(t *testing.T) {
	dir := t.TempDir()
	for i := range 12 {
		writeFile(t, dir, fmt.Sprintf("f%02d.md", i), fmt.Appendf(nil, "# File %d\nword%d content", i, i))
	}
	gate := yield.New(yield.Options{Linger: yield.NoLinger})
	gate.Set("runs", yield.Closed)
	var reads atomic.Int32
	h := newHarness(t, func(o *Options) {
		o.NoWatch = true
		o.Gate = gate
		o.beforeRead = func(context.Context, string) { reads.Add(1) }
	})
	c, err := h.m.Create(ctx, "Held", []string{dir})
	require.NoError(t, err)
	h.waitFor("the indexer to wait at the closed gate", func() bool { return gate.Waiting() == 1 })
	info, err := h.m.Info(ctx, c.ID)
	require.NoError(t, err)
	require.Zero(t, reads.Load())
	require.Zero(t, info.Files, "the folder was not walked")

	gate.Set("runs", yield.Paced) // a card waits for the user: slower, not stopped
	h.waitReady(c.ID, 12)
	require.Equal(t, int32(12), reads.Load())
}

// While the gate is closed the indexer sends no progress but the final
// one (counting and the page's update would take the user's cores).
func TestNoProgressEventsWhileTheGateIsClosed(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.md", []byte("# A\nalpha"))
	gate := yield.New(yield.Options{Linger: yield.NoLinger})
	h := newHarness(t, func(o *Options) { o.NoWatch = true; o.Gate = gate })
	c, err := h.m.Create(ctx, "Quiet", []string{dir})
	require.NoError(t, err)
	h.waitReady(c.ID, 1)
	// The scan's own last event (ready) is sent just after it counts as
	// done: counted from before it, it was one event too many.
	h.waitFor("the scan's last event", func() bool {
		var last *api.KnowledgeProgress
		for _, e := range h.ev.Events() {
			if p, ok := e.Payload.(api.KnowledgeProgress); ok && e.Name == events.KnowledgeProgress {
				last = &p
			}
		}
		return last != nil && last.Status == api.KnowledgeReady
	})
	progress := func() int {
		n := 0
		for _, name := range h.ev.Names() {
			if name == events.KnowledgeProgress {
				n++
			}
		}
		return n
	}

	unthrottle := func() { // as if the last event were long ago
		h.m.mu.Lock()
		h.m.lastEmit[c.ID] = time.Time{}
		h.m.mu.Unlock()
	}
	gate.Set("runs", yield.Closed)
	before := progress()
	unthrottle()
	h.m.emitProgress(c.ID, false)
	require.Equal(t, before, progress(), "a progress event while the gate is closed")
	h.m.emitProgress(c.ID, true)
	require.Equal(t, before+1, progress(), "the final event is sent")

	gate.Set("runs", yield.Open)
	unthrottle()
	h.m.emitProgress(c.ID, false)
	require.Equal(t, before+2, progress(), "open: progress is sent")
}

// A batch of files being stored when the user's run starts stops at its
// next commit (the store writes it in short transactions), not at the end
// of the batch: the rest of it waits for the gate to open again, and is
// stored then, each file whole.
func TestABatchUnderWayStopsAtItsNextCommitWhenTheGateCloses(t *testing.T) {
	dir := t.TempDir()
	const files, sections = 6, 80 // about 80 passages a file: a batch spans several transactions
	for i := range files {
		var text []byte
		text = fmt.Appendf(text, "# File %d\n\n", i)
		for s := range sections {
			text = fmt.Appendf(text, "## Section %d\n\nword%d section%d of file %d, with enough text to be a passage of its own. %s\n\n",
				s, i, s, i, "More words about the section follow here so that the paragraph is long enough to stand alone as one passage in the index.")
		}
		writeFile(t, dir, fmt.Sprintf("f%02d.md", i), text)
	}
	gate := yield.New(yield.Options{Linger: yield.NoLinger})
	var between atomic.Int32
	h := newHarness(t, func(o *Options) {
		o.NoWatch = true
		o.BatchFiles = files // one batch: it would end only with the last file
		o.Gate = gate
		o.betweenTxs = func() {
			if between.Add(1) == 1 {
				gate.Set("runs", yield.Closed) // a run starts while the batch is stored
			}
		}
	})
	c, err := h.m.Create(ctx, "Long", []string{dir})
	require.NoError(t, err)
	h.waitFor("the indexer to stop at the closed gate", func() bool { return gate.Waiting() == 1 })
	require.Equal(t, int32(1), between.Load(), "no transaction of the batch after the gate closed")
	info, err := h.m.Info(ctx, c.ID)
	require.NoError(t, err)
	require.Less(t, info.IndexedFiles, files, "the batch stopped before its end")

	gate.Set("runs", yield.Open)
	h.waitReady(c.ID, files)
	require.Greater(t, between.Load(), int32(1), "the rest of the batch was stored in more transactions")
	rs := h.search(c.ID, fmt.Sprintf("word%d section%d", files-1, sections-1), 1)
	require.Len(t, rs, 1, "the last passage of the last file is searchable")
}
