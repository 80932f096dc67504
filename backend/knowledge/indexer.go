package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/yield"
)

// The indexer: scans of the collections, the purge of deleted ones, progress events.

// enqueue schedules a scan of the collection (once, however often asked).
func (m *Manager) enqueue(id string) {
	m.mu.Lock()
	if !m.queued[id] {
		m.queued[id] = true
		m.queue = append(m.queue, id)
	}
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *Manager) wakeEmbed() {
	select {
	case m.embedWake <- struct{}{}:
	default:
	}
}

func (m *Manager) wakePurge() {
	select {
	case m.purgeWake <- struct{}{}:
	default:
	}
}

// purgeLoop removes what deleted collections left, one short transaction
// at a time, so the chat's writes get the database in between.
func (m *Manager) purgeLoop() {
	w := m.opt.Gate.Worker()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.purgeWake:
		}
		for more := true; more && m.ctx.Err() == nil; {
			var err error
			if more, err = m.st.PurgeDeletedKnowledge(m.ctx); err != nil {
				if m.ctx.Err() == nil {
					m.log.Error("remove deleted collections' index", "err", err)
				}
				break
			}
			if more && m.opt.afterPurge != nil {
				m.opt.afterPurge(m.ctx)
			}
			if more && w.Yield(m.ctx) != nil {
				return
			}
		}
	}
}

func (m *Manager) indexLoop() {
	w := m.opt.Gate.Worker()
	for {
		m.mu.Lock()
		var id string
		if len(m.queue) > 0 {
			id = m.queue[0]
			m.queue = m.queue[1:]
			delete(m.queued, id)
		}
		var ctx context.Context
		done := make(chan struct{})
		if id != "" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(m.ctx)
			m.running, m.runCancel, m.runDone = id, cancel, done
		}
		m.mu.Unlock()
		if id == "" {
			select {
			case <-m.ctx.Done():
				return
			case <-m.wake:
				continue
			}
		}
		err := m.scan(ctx, id, w)
		m.mu.Lock()
		m.runCancel()
		m.running, m.runCancel, m.runDone = "", nil, nil
		m.stateChangedLocked()
		m.mu.Unlock()
		close(done)
		switch {
		case m.ctx.Err() != nil:
			return
		case errors.Is(err, context.Canceled):
		case err != nil && !errors.Is(err, ErrNotFound):
			m.log.Error("index collection", "collection", id, "err", err)
		}
		m.emitProgress(id, true)
		m.wakeEmbed()
	}
}

// scan brings a collection's index up to date with its files: new and
// changed files (by size and time, then content hash) are read, files gone
// are dropped. Files are stored in batches as they are read, so an
// interrupted scan resumes where it stopped (files still pending). The
// scan stops at the gate (w) before each file and each write, and walks
// and reads on the lane (lower OS priority).
func (m *Manager) scan(ctx context.Context, id string, w *yield.Worker) error {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return err
	}
	if c.Cancelled {
		return nil
	}
	stored, err := m.st.KnowledgeFiles(ctx, id)
	if err != nil {
		return err
	}
	known := make(map[string]store.KnowledgeFile, len(stored))
	for _, f := range stored {
		known[f.Path] = f
	}
	seen := map[string]bool{}
	var todo []foundFile
	var problems []error
	for _, root := range c.Paths {
		if err := w.Yield(ctx); err != nil {
			return err
		}
		var err error
		found := 0
		m.lowPriority(func() {
			err = walkRoot(root, func(f foundFile) {
				if found++; found%64 == 0 {
					_ = w.Yield(ctx) // a cancel is seen after the walk
				}
				m.keepFound(f, seen, known, &todo)
			}, m.watchDir)
		})
		if err != nil {
			problems = append(problems, err)
		}
		if m.watch != nil {
			m.watch.add(root)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.Yield(ctx); err != nil {
		return err
	}
	return m.readTodo(ctx, c, w, stored, seen, known, todo, problems)
}

// keepFound notes a file the walk found, and whether it must be read.
func (m *Manager) keepFound(f foundFile, seen map[string]bool, known map[string]store.KnowledgeFile, todo *[]foundFile) {
	if seen[f.path] {
		return // under two of the collection's paths
	}
	seen[f.path] = true
	k, ok := known[f.path]
	if !ok || k.Status == store.FilePending || k.Size != f.size || k.MtimeNs != f.mtimeNs {
		*todo = append(*todo, f)
	}
}

// listStep is how many files one step of the lists of files gone and new
// (pending) writes between two looks at the gate.
const listStep = 500

// readTodo drops the files gone, then reads the new and changed ones,
// storing them in batches.
func (m *Manager) readTodo(ctx context.Context, c *store.Collection, w *yield.Worker, stored []store.KnowledgeFile,
	seen map[string]bool, known map[string]store.KnowledgeFile, todo []foundFile, problems []error) error {
	id := c.ID
	var gone []string
	for _, f := range stored {
		if !seen[f.Path] {
			gone = append(gone, f.Path)
		}
	}
	// In steps, each after the gate: 20,000 new files are seconds of
	// writing, which must not go on once the user's run starts.
	for len(gone) > 0 {
		if err := w.Yield(ctx); err != nil {
			return err
		}
		n := min(len(gone), listStep)
		err := m.st.DeleteKnowledgeFiles(ctx, id, gone[:n])
		m.countsChanged()
		if err != nil {
			return err
		}
		m.vectorsChanged()
		gone = gone[n:]
	}
	for i := 0; i < len(todo); i += listStep {
		if err := w.Yield(ctx); err != nil {
			return err
		}
		step := todo[i:min(len(todo), i+listStep)]
		pending := make([]store.KnowledgeFile, 0, len(step))
		for _, f := range step {
			pending = append(pending, store.KnowledgeFile{Path: f.path, Size: f.size, MtimeNs: f.mtimeNs})
		}
		err := m.st.AddPendingFiles(ctx, id, pending)
		m.countsChanged()
		if err != nil {
			return err
		}
	}
	if msg := i18n.Store(problems...); msg != c.Error {
		c.Error = msg
		if err := m.st.UpdateCollection(ctx, c); err != nil {
			return err
		}
	}
	m.emitProgress(id, true)

	var batch []store.IndexedFile
	passages := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		// Stored even when cancelled: what was read is kept. Between its
		// short transactions the batch stops at the gate: once the user's
		// run starts, the rest of a batch under way (tens of ms of FTS
		// inserts at normal priority on a busy machine) waits, not the run.
		err := m.st.SaveIndexedFilesBetween(context.WithoutCancel(ctx), id, batch, func() {
			if m.opt.betweenTxs != nil {
				m.opt.betweenTxs()
			}
			_ = w.Yield(ctx) // cancelled: the rest of the batch is stored at once
		})
		m.countsChanged()
		batch, passages = nil, 0
		m.vectorsChanged()
		m.emitProgress(id, false)
		m.wakeEmbed()
		return err
	}
	for i := 0; i < len(todo); {
		if w.Yield(ctx) != nil {
			break
		}
		read := m.readGroup(ctx, todo[i:min(len(todo), i+readGroupFiles, i+m.opt.BatchFiles-len(batch))], known)
		i += len(read)
		for _, r := range read {
			if r.skip {
				err := m.st.DeleteKnowledgeFiles(ctx, id, []string{r.path})
				m.countsChanged()
				if err != nil {
					return err
				}
				continue
			}
			batch = append(batch, r.file)
			passages += len(r.file.Passages)
		}
		if len(batch) >= m.opt.BatchFiles || passages >= 2000 {
			if w.Yield(ctx) != nil {
				break // stored below
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// readGroupFiles and readGroupBytes bound the files read in one go on the
// lane: each hand-over wakes the lane's thread and then the scan's (two
// thread switches a file: ~5 % of indexing small files while idle).
const (
	readGroupFiles = 16
	readGroupBytes = 256 << 10
)

// groupRead is one file of a group read on the lane.
type groupRead struct {
	path string
	file store.IndexedFile
	skip bool
}

// readGroup reads the first of files, and those after it while the gate
// stays open (looked at before each, as the scan does between files) and
// the group is small, in one go on the lane.
func (m *Manager) readGroup(ctx context.Context, files []foundFile, known map[string]store.KnowledgeFile) []groupRead {
	read := make([]groupRead, 0, len(files))
	m.lowPriority(func() {
		var bytes int64
		for j, f := range files {
			if j > 0 && (bytes >= readGroupBytes || ctx.Err() != nil || m.opt.Gate.Mode() != yield.Open) {
				return
			}
			if m.opt.beforeRead != nil {
				m.opt.beforeRead(ctx, f.path)
			}
			done, skip := m.readFile(f, known[f.path])
			read = append(read, groupRead{path: f.path, file: done, skip: skip})
			bytes += f.size
		}
	})
	return read
}

// readFile reads one file into what the index stores. skip: the file is
// gone, or found in a folder and not text after all (not counted).
func (m *Manager) readFile(f foundFile, known store.KnowledgeFile) (out store.IndexedFile, skip bool) {
	out = store.IndexedFile{Path: f.path, Size: f.size, MtimeNs: f.mtimeNs}
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return out, true
	}
	if err != nil {
		out.Err = i18n.Store(fileErr("knowledge.fileUnreadable", err))
		return out, false
	}
	if len(data) > MaxFileBytes {
		return out, true
	}
	sum := sha256.Sum256(data)
	out.Hash = hex.EncodeToString(sum[:])
	if known.Hash == out.Hash && known.Status == store.FileIndexed {
		out.Unchanged = true // touched, not changed
		return out, false
	}
	ps, err := readPassages(f.path, data)
	switch {
	case (errors.Is(err, errNotText) || errors.Is(err, errNotDocument)) && !f.named:
		return out, true
	case err != nil:
		out.Err = i18n.Store(err)
	case len(ps) == 0:
		out.Err = i18n.Store(fileErr("knowledge.fileEmpty", nil))
	default:
		out.Passages = ps
	}
	return out, false
}

// emitProgress sends knowledge:progress for a collection, at most every
// 200 ms unless final (a few events a second: the page's work per event
// stays small). Events are read and sent one at a time, so none sent
// after the final one carries older figures: the UI ends at the exact counts.
// While the user's run works (gate closed) only final events are sent, and
// every 2 s while a card waits (paced): counting and the page's update are
// work that would take the cores from the user's run.
func (m *Manager) emitProgress(id string, final bool) {
	every := 200 * time.Millisecond
	switch m.opt.Gate.Mode() {
	case yield.Closed:
		if !final {
			return
		}
	case yield.Paced:
		every = 2 * time.Second
	}
	m.mu.Lock()
	if !final && time.Since(m.lastEmit[id]) < every {
		m.mu.Unlock()
		return
	}
	m.lastEmit[id] = time.Now()
	m.mu.Unlock()
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	ctx := context.WithoutCancel(m.ctx)
	k, err := m.knowledgeCounts(ctx, id)
	if err != nil {
		return // deleted meanwhile
	}
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return
	}
	m.ev.Emit(events.KnowledgeProgress, api.KnowledgeProgress{ID: id, IndexedFiles: k.IndexedFiles, Files: k.Files,
		Chunks: k.Chunks, Status: m.status(ctx, c)})
}

// stopScan removes the collection from the queue and stops its running
// scan, waiting until it has stopped.
func (m *Manager) stopScan(id string) {
	for {
		m.mu.Lock()
		if m.queued[id] {
			delete(m.queued, id)
			for i, q := range m.queue {
				if q == id {
					m.queue = append(m.queue[:i], m.queue[i+1:]...)
					break
				}
			}
			m.stateChangedLocked()
		}
		var done chan struct{}
		if m.running == id {
			m.runCancel()
			done = m.runDone
		}
		m.mu.Unlock()
		if done == nil {
			return
		}
		select { // the scan stops at its next file
		case <-m.ctx.Done():
			return
		case <-done:
		}
	}
}
