package knowledge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/store"
)

var ctx = context.Background()

type harness struct {
	t     *testing.T
	dbDir string
	st    *store.Store
	ev    *events.Recorder
	m     *Manager
	mu    sync.Mutex
	embed EmbedConfig
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newHarness opens a store in a temp folder and starts a Manager on it.
func newHarness(t *testing.T, tune func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, dbDir: t.TempDir()}
	h.open(tune)
	return h
}

func (h *harness) open(tune func(*Options)) {
	h.t.Helper()
	st, err := store.OpenWith(filepath.Join(h.dbDir, "parley.db"), store.Options{Logger: quietLogger()})
	require.NoError(h.t, err)
	h.st, h.ev = st, events.NewRecorder()
	opt := Options{Store: st, Events: h.ev, Logger: quietLogger(), Debounce: 50 * time.Millisecond, EmbedRetry: time.Hour,
		Embed: func() EmbedConfig { h.mu.Lock(); defer h.mu.Unlock(); return h.embed }}
	if tune != nil {
		tune(&opt)
	}
	h.m = New(opt)
	require.NoError(h.t, h.m.Start(ctx))
	h.t.Cleanup(h.close)
}

func (h *harness) close() {
	if h.m != nil {
		h.m.Close()
		_ = h.st.Close()
		h.m = nil
	}
}

func (h *harness) setEmbed(cfg EmbedConfig) {
	h.mu.Lock()
	h.embed = cfg
	h.mu.Unlock()
	h.m.EmbeddingChanged()
}

// waitFor waits until cond holds, checking after every event (no sleeps).
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-h.ev.Changed():
		case <-time.After(100 * time.Millisecond): // changes made by the test itself, not announced
		case <-deadline:
			require.FailNow(h.t, "timed out waiting", what)
		}
	}
}

// waitReady waits until the collection is ready with files indexed files.
func (h *harness) waitReady(id string, indexed int) api.Collection {
	h.t.Helper()
	var info api.Collection
	h.waitFor(fmt.Sprintf("collection %s ready with %d files", id, indexed), func() bool {
		var err error
		info, err = h.m.Info(ctx, id)
		require.NoError(h.t, err)
		return info.Status != api.KnowledgeIndexing && info.IndexedFiles == indexed
	})
	return info
}

func (h *harness) search(id, query string, k int) []Result {
	h.t.Helper()
	rs, err := h.m.Search(ctx, []string{id}, query, k)
	require.NoError(h.t, err)
	return rs
}

func paths(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = filepath.Base(r.Path) + " (" + r.Locator + ")"
	}
	return out
}

// library writes the folder the tests index: Markdown with headings, HTML,
// a source file, a PDF (text on page 2), a DOCX, a broken PDF, and what is
// skipped (hidden, node_modules, .git, an image).
func library(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "guide.md", []byte(setupMarkdown))
	writeFile(t, dir, "site/billing.html", []byte(`<html><body><h1>Billing</h1><p>Invoices are sent on the first Monday of each month.</p></body></html>`))
	writeFile(t, dir, "src/server.go", []byte("package server\n\n// ListenPort is where the daemon listens.\nconst ListenPort = 8765\n"))
	writeFile(t, dir, "handbook.pdf", makePDF([][]string{{"Cover page."}, {"Refund policy: a reimbursement is paid within 30 days."}}))
	writeFile(t, dir, "hr/leave.docx", makeDOCX(t, []docxParagraph{{"Heading1", "Leave"}, {"", "Staff get 25 days of holiday a year."}}))
	writeFile(t, dir, "broken.pdf", []byte("%PDF-1.4\nthis is not really a PDF"))
	writeFile(t, dir, ".hidden/secret.md", []byte("# Hidden\nhiddenword"))
	writeFile(t, dir, ".notes.md", []byte("hiddenword"))
	writeFile(t, dir, "node_modules/pkg/readme.md", []byte("modulesword"))
	writeFile(t, dir, ".git/config", []byte("gitword"))
	writeFile(t, dir, "photo.png", []byte("\x89PNG\r\n\x1a\n"))
	return dir
}

func TestIndexFolderSearchLocatorsAndErrors(t *testing.T) {
	h := newHarness(t, nil)
	dir := library(t)
	c, err := h.m.Create(ctx, "Library", []string{dir})
	require.NoError(t, err)
	info := h.waitReady(c.ID, 5)
	assert.Equal(t, api.KnowledgeReady, info.Status)
	assert.Equal(t, 6, info.Files, "5 documents and the broken PDF; hidden, node_modules, .git and the image are skipped")
	require.Len(t, info.Errors, 1)
	assert.Equal(t, filepath.Join(dir, "broken.pdf"), info.Errors[0].Path)
	assert.Contains(t, info.Errors[0].Error, "unreadable PDF")
	assert.Nil(t, info.EmbeddingModel, "no embedding model: keyword search only")
	assert.Greater(t, info.Chunks, 6)

	top := func(q string) Result {
		rs := h.search(c.ID, q, 3)
		require.NotEmpty(t, rs, "no result for %q", q)
		return rs[0]
	}
	r := top("how do I install the package on linux")
	assert.Equal(t, filepath.Join(dir, "guide.md"), r.Path)
	assert.Equal(t, "Setup › Linux", r.Locator)
	assert.Equal(t, "p. 2", top("refund policy").Locator)
	assert.Equal(t, "Billing", top("when are invoices sent").Locator)
	assert.Equal(t, "Leave", top("days of holiday").Locator)
	r = top("ListenPort daemon")
	assert.Equal(t, "lines 1–4", r.Locator)
	assert.Equal(t, filepath.Join(dir, "src", "server.go"), r.Path)
	for _, skipped := range []string{"hiddenword", "modulesword", "gitword"} {
		assert.Empty(t, h.search(c.ID, skipped, 5), "skipped file indexed: %s", skipped)
	}
	// Scores are the fused ranks, best first.
	rs := h.search(c.ID, "setup linux macos", 5)
	require.GreaterOrEqual(t, len(rs), 2)
	for i := 1; i < len(rs); i++ {
		assert.GreaterOrEqual(t, rs[i-1].Score, rs[i].Score)
	}

	// Progress was announced, ending with the final figures.
	var last api.KnowledgeProgress
	for _, e := range h.ev.Events() {
		if p, ok := e.Payload.(api.KnowledgeProgress); ok && e.Name == events.KnowledgeProgress && p.ID == c.ID {
			last = p
		}
	}
	assert.Equal(t, api.KnowledgeProgress{ID: c.ID, IndexedFiles: 5, Files: 6, Chunks: info.Chunks, Status: api.KnowledgeReady}, last)
}

func TestCreateRefusesBadNamesAndPaths(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	for name, paths := range map[string][]string{
		"":           {dir},
		"Fine":       {"relative/path"},
		"Also fine":  {filepath.Join(dir, "missing")},
		"Empty list": {},
	} {
		_, err := h.m.Create(ctx, name, paths)
		assert.ErrorIs(t, err, ErrInvalid, "%q %v", name, paths)
	}
	_, err := h.m.Create(ctx, strings.Repeat("n", api.MaxCollectionName+1), []string{dir})
	assert.ErrorIs(t, err, ErrInvalid)
	list, err := h.m.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list, "a refused collection was stored")
}

func TestChangesArePickedUpWhileRunning(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	writeFile(t, dir, "a.md", []byte("# Alpha\nThe old wording about zeppelins."))
	writeFile(t, dir, "b.md", []byte("# Beta\nDoomed text about blimps."))
	c, err := h.m.Create(ctx, "Notes", []string{dir})
	require.NoError(t, err)
	h.waitReady(c.ID, 2)

	// Edited, added (in a new folder), deleted.
	writeFile(t, dir, "a.md", []byte("# Alpha\nThe new wording about airships."))
	writeFile(t, dir, "new/c.md", []byte("# Gamma\nFresh notes about dirigibles."))
	require.NoError(t, os.Remove(filepath.Join(dir, "b.md")))
	h.waitFor("edit, addition and deletion picked up by the watcher", func() bool {
		return len(h.search(c.ID, "airships", 5)) == 1 && len(h.search(c.ID, "dirigibles", 5)) == 1 &&
			len(h.search(c.ID, "blimps", 5)) == 0 && len(h.search(c.ID, "zeppelins", 5)) == 0
	})
	info := h.waitReady(c.ID, 2)
	assert.Equal(t, 2, info.Files)

	// A file in the new folder changes too: the folder is watched now.
	writeFile(t, dir, "new/c.md", []byte("# Gamma\nRewritten notes about balloons."))
	h.waitFor("a change in a folder created after the start", func() bool {
		return len(h.search(c.ID, "balloons", 5)) == 1 && len(h.search(c.ID, "dirigibles", 5)) == 0
	})
}

func TestChangesWhileClosedArePickedUpAtStart(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.NoWatch = true })
	dir := t.TempDir()
	writeFile(t, dir, "a.md", []byte("original alpha"))
	writeFile(t, dir, "b.md", []byte("original beta"))
	writeFile(t, dir, "same.md", []byte("untouched"))
	c, err := h.m.Create(ctx, "Notes", []string{dir})
	require.NoError(t, err)
	h.waitReady(c.ID, 3)
	h.close()

	writeFile(t, dir, "a.md", []byte("changed alpha"))
	require.NoError(t, os.Remove(filepath.Join(dir, "b.md")))
	writeFile(t, dir, "d.md", []byte("added delta"))
	// Touched without a change of content: compared by hash, not read into passages again.
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "same.md"), later, later))

	var mu sync.Mutex
	var read []string
	h.open(func(o *Options) {
		o.NoWatch = true
		o.beforeRead = func(_ context.Context, p string) { mu.Lock(); read = append(read, filepath.Base(p)); mu.Unlock() }
	})
	h.waitFor("start scan", func() bool { return len(h.search(c.ID, "delta", 5)) == 1 })
	h.waitReady(c.ID, 3)
	assert.Len(t, h.search(c.ID, "changed", 5), 1)
	assert.Empty(t, h.search(c.ID, "beta", 5), "a deleted file's passages are gone")
	assert.Len(t, h.search(c.ID, "untouched", 5), 1)
	mu.Lock()
	assert.ElementsMatch(t, []string{"a.md", "d.md", "same.md"}, read, "only changed files are read")
	mu.Unlock()
}

func TestIndexingResumesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		writeFile(t, dir, fmt.Sprintf("f%d.md", i), []byte(fmt.Sprintf("# File %d\nword%d content", i, i)))
	}
	reached := make(chan struct{})
	h := newHarness(t, func(o *Options) {
		o.NoWatch = true
		o.BatchFiles = 1
		o.beforeRead = func(ctx context.Context, p string) {
			if filepath.Base(p) == "f3.md" {
				close(reached)
				<-ctx.Done() // hold the indexer until the app closes
			}
		}
	})
	c, err := h.m.Create(ctx, "Big", []string{dir})
	require.NoError(t, err)
	<-reached
	// Searchable while indexing: the files stored so far answer.
	assert.Len(t, h.search(c.ID, "word0", 5), 1)
	info, err := h.m.Info(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, api.KnowledgeIndexing, info.Status)
	assert.Equal(t, 6, info.Files)
	assert.Equal(t, 3, info.IndexedFiles, "f0–f2 stored one by one before f3")
	// The app quits in the middle: the file being read is kept, nothing after it is read.
	h.close()

	var mu sync.Mutex
	var read []string
	h.open(func(o *Options) {
		o.NoWatch = true
		o.beforeRead = func(_ context.Context, p string) { mu.Lock(); read = append(read, filepath.Base(p)); mu.Unlock() }
	})
	info = h.waitReady(c.ID, 6)
	assert.Equal(t, 6, info.Files)
	mu.Lock()
	assert.ElementsMatch(t, []string{"f4.md", "f5.md"}, read, "the restart reads only what was left")
	mu.Unlock()
	assert.Len(t, h.search(c.ID, "word5", 5), 1)
}

func TestCancelReindexRenameDelete(t *testing.T) {
	dir := t.TempDir()
	for i := range 4 {
		writeFile(t, dir, fmt.Sprintf("f%d.txt", i), []byte(fmt.Sprintf("token%d", i)))
	}
	var held sync.Once
	reached := make(chan struct{})
	h := newHarness(t, func(o *Options) {
		o.BatchFiles = 1
		o.beforeRead = func(ctx context.Context, p string) {
			if filepath.Base(p) == "f2.txt" {
				held.Do(func() { close(reached); <-ctx.Done() }) // until cancelled
			}
		}
	})
	c, err := h.m.Create(ctx, "Texts", []string{dir})
	require.NoError(t, err)
	<-reached
	info, err := h.m.Cancel(ctx, c.ID) // the file being read finishes; nothing after it is read
	require.NoError(t, err)
	assert.True(t, info.Cancelled)
	assert.Equal(t, api.KnowledgeReady, info.Status, "cancelled: searchable with what was indexed")
	assert.Equal(t, 3, info.IndexedFiles)
	assert.Empty(t, h.search(c.ID, "token3", 5), "indexing went on after the cancel")
	assert.Len(t, h.search(c.ID, "token0", 5), 1, "what was indexed stays searchable")

	require.NoError(t, h.m.Reindex(ctx, c.ID))
	info = h.waitReady(c.ID, 4)
	assert.False(t, info.Cancelled)

	name := "Renamed"
	info, err = h.m.Update(ctx, c.ID, &name, nil)
	require.NoError(t, err)
	assert.Equal(t, "Renamed", info.Name)
	other := t.TempDir()
	writeFile(t, other, "g.txt", []byte("elsewhere"))
	_, err = h.m.Update(ctx, c.ID, nil, []string{other})
	require.NoError(t, err)
	h.waitReady(c.ID, 1)
	assert.Empty(t, h.search(c.ID, "token1", 5), "passages of a path no longer in the collection")
	assert.Len(t, h.search(c.ID, "elsewhere", 5), 1)

	require.NoError(t, h.m.Delete(ctx, c.ID))
	_, err = h.m.Info(ctx, c.ID)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = os.Stat(filepath.Join(other, "g.txt"))
	assert.NoError(t, err, "the files are never touched")
	assert.ErrorIs(t, h.m.Delete(ctx, c.ID), ErrNotFound)
}

func TestDeleteIsAtOnceAndItsRemovalFinishesAfterARestart(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 30 {
		var doc strings.Builder
		for j := range 20 {
			fmt.Fprintf(&doc, "# Section %d\n\nThe lighthouse keeper of file %d writes entry %d.\n\n", j, i, j)
		}
		writeFile(t, dir, fmt.Sprintf("f%02d.md", i), []byte(doc.String()))
		want = append(want, doc.String())
	}
	purging := make(chan struct{})
	var once sync.Once
	h := newHarness(t, func(o *Options) {
		o.NoWatch = true
		o.afterPurge = func(ctx context.Context) {
			// The first short transaction is done: the app dies here.
			once.Do(func() { close(purging); <-ctx.Done() })
		}
	})
	c, err := h.m.Create(ctx, "Logs", []string{dir})
	require.NoError(t, err)
	info := h.waitReady(c.ID, 30)
	require.Equal(t, 600, info.Chunks)
	require.NotEmpty(t, h.search(c.ID, "lighthouse keeper", 5))

	require.NoError(t, h.m.Delete(ctx, c.ID))
	// Gone at once from the API and from search, its passages still stored.
	_, err = h.m.Info(ctx, c.ID)
	assert.ErrorIs(t, err, ErrNotFound)
	list, err := h.m.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Empty(t, h.search(c.ID, "lighthouse keeper", 5), "a deleted collection's passages are found")
	assert.ErrorIs(t, h.m.Delete(ctx, c.ID), ErrNotFound)
	<-purging
	files, passages, err := h.st.DeletedKnowledgeLeft(ctx)
	require.NoError(t, err)
	assert.Greater(t, passages, 0, "the purge is in short transactions: passages left after the first")
	assert.Less(t, passages, 600, "the first transaction removed some")
	assert.Positive(t, files)
	h.close() // in the middle of the removal

	h.open(func(o *Options) { o.NoWatch = true })
	h.waitFor("the removal finished at start", func() bool {
		files, passages, err := h.st.DeletedKnowledgeLeft(ctx)
		require.NoError(h.t, err)
		return files == 0 && passages == 0
	})
	for i, doc := range want {
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%02d.md", i)))
		require.NoError(t, err, "the files are never touched")
		assert.Equal(t, doc, string(got))
	}
	// A collection of the same folder indexes it all again.
	again, err := h.m.Create(ctx, "Logs", []string{dir})
	require.NoError(t, err)
	assert.Equal(t, 600, h.waitReady(again.ID, 30).Chunks)
}

func TestNamedFileOfAnUnreadableKindIsAnError(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	img := writeFile(t, dir, "photo.png", []byte("\x89PNG"))
	doc := writeFile(t, dir, "notes.txt", []byte("plain words"))
	c, err := h.m.Create(ctx, "Mixed", []string{img, doc})
	require.NoError(t, err)
	info := h.waitReady(c.ID, 1)
	assert.Equal(t, 2, info.Files)
	require.Len(t, info.Errors, 1)
	assert.Equal(t, img, info.Errors[0].Path)
	assert.Contains(t, info.Errors[0].Error, "not a kind of file Parley reads")
}

func TestMissingPathMakesTheCollectionAnError(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	writeFile(t, sub, "a.md", []byte("alpha words"))
	c, err := h.m.Create(ctx, "Gone", []string{sub})
	require.NoError(t, err)
	h.waitReady(c.ID, 1)
	require.NoError(t, os.RemoveAll(sub))
	require.NoError(t, h.m.Reindex(ctx, c.ID))
	h.waitFor("error status", func() bool {
		info, err := h.m.Info(ctx, c.ID)
		require.NoError(t, err)
		return info.Status == api.KnowledgeError && strings.Contains(info.Error, "no longer exists") && info.Files == 0
	})
	assert.Empty(t, h.search(c.ID, "alpha", 5))
}

// The scripted embedding model puts synonyms near each other: the vectors
// find what the keywords miss.
func TestVectorsFindWhatKeywordsMiss(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithEmbeddingModels("nomic-embed-text"))
	t.Cleanup(srv.Close)
	h := newHarness(t, func(o *Options) { o.EmbedBatch = 2 })
	dir := t.TempDir()
	writeFile(t, dir, "garage.md", []byte("# Garage\nThe automobile is parked next to the bicycles."))
	writeFile(t, dir, "kitchen.md", []byte("# Kitchen\nThe oven and the fridge stand by the window."))
	writeFile(t, dir, "garden.md", []byte("# Garden\nRoses and tulips grow along the fence."))
	c, err := h.m.Create(ctx, "House", []string{dir})
	require.NoError(t, err)
	h.waitReady(c.ID, 3)
	assert.Empty(t, h.search(c.ID, "vehicle", 3), "keyword search knows no synonyms")

	h.setEmbed(EmbedConfig{BaseURL: srv.URL(), Model: "nomic-embed-text"})
	h.waitFor("passages embedded", func() bool {
		info, err := h.m.Info(ctx, c.ID)
		require.NoError(t, err)
		return info.Status == api.KnowledgeReady && info.EmbeddedChunks == info.Chunks
	})
	rs := h.search(c.ID, "vehicle", 3)
	require.NotEmpty(t, rs)
	assert.Equal(t, "garage.md (Garage)", paths(rs)[0], "the vector search finds the automobile: %v", paths(rs))
	reqs := srv.EmbedRequests()
	require.NotEmpty(t, reqs)
	assert.Equal(t, "/api/embed", reqs[0].Path, "Ollama's native endpoint")
	assert.Len(t, reqs[0].Inputs, 2, "passages are sent in batches")

	// The model server goes down: keyword search still answers.
	srv.SetEmbeddingsDown(true)
	_, stats, err := h.m.SearchWithStats(ctx, []string{c.ID}, "fridge", 3)
	require.NoError(t, err)
	assert.Error(t, stats.VectorError)
	assert.Equal(t, 1, stats.Keyword)
	rs = h.search(c.ID, "fridge", 3)
	require.NotEmpty(t, rs)
	assert.Equal(t, "kitchen.md", filepath.Base(rs[0].Path))
}

func TestOpenAICompatibleEmbeddingsAndModelChange(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI(),
		modelserver.WithEmbeddingModels("embed-a", "embed-b"))
	t.Cleanup(srv.Close)
	h := newHarness(t, nil)
	dir := t.TempDir()
	writeFile(t, dir, "doc.md", []byte("# Clinic\nThe physician sees patients on Tuesdays."))
	writeFile(t, dir, "other.md", []byte("# Market\nApples and pears are sold here."))
	h.setEmbed(EmbedConfig{BaseURL: srv.URL(), Model: "embed-a"})
	c, err := h.m.Create(ctx, "Town", []string{dir})
	require.NoError(t, err)
	embedded := func(model string) func() bool {
		return func() bool {
			info, err := h.m.Info(ctx, c.ID)
			require.NoError(t, err)
			return info.Status == api.KnowledgeReady && info.EmbeddingModel != nil && *info.EmbeddingModel == model &&
				info.EmbeddedChunks == info.Chunks && info.Chunks > 0
		}
	}
	h.waitFor("embedded with embed-a", embedded("embed-a"))
	rs := h.search(c.ID, "doctor", 2)
	require.NotEmpty(t, rs)
	assert.Equal(t, "doc.md", filepath.Base(rs[0].Path))
	for _, r := range srv.EmbedRequests() {
		assert.Equal(t, "/v1/embeddings", r.Path, "a server without Ollama's API")
	}

	// Another model: everything is embedded again, in the background.
	before := len(srv.EmbedRequests())
	h.setEmbed(EmbedConfig{BaseURL: srv.URL(), Model: "embed-b"})
	h.waitFor("embedded with embed-b", embedded("embed-b"))
	var models []string
	for _, r := range srv.EmbedRequests()[before:] {
		models = append(models, r.Model)
	}
	assert.Contains(t, models, "embed-b")
	n, err := h.st.CountWithVector(ctx, c.ID, "embed-a")
	require.NoError(t, err)
	assert.Equal(t, 0, n, "vectors of the old model replaced")

	// A chat model is not an embedding model: the collection says why, and keyword search goes on.
	h.setEmbed(EmbedConfig{BaseURL: srv.URL(), Model: "qwen3:8b"})
	h.waitFor("embedding error shown", func() bool {
		info, err := h.m.Info(ctx, c.ID)
		require.NoError(t, err)
		return strings.Contains(info.EmbeddingError, "does not support embeddings") && info.Status == api.KnowledgeReady
	})
	assert.NotEmpty(t, h.search(c.ID, "apples", 2))
	// Said in the language chosen when it is shown; the server's words as it sent them.
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	i18n.SetCurrent("de")
	info, err := h.m.Info(ctx, c.ID)
	require.NoError(t, err)
	assert.Contains(t, info.EmbeddingError, " antwortete ")
	assert.Contains(t, info.EmbeddingError, "does not support embeddings")
}
