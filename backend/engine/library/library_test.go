package library_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/hubtest"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/fault"
)

const (
	repo = "acme/tiny-GGUF"
	file = "tiny-Q4_K_M.gguf"
)

// model is a generated GGUF's bytes (a few hundred KB).
func model(t *testing.T, seed uint64) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.gguf")
	require.NoError(t, ggufgen.Write(p, ggufgen.Spec{Name: "Tiny " + strconv.FormatUint(seed, 10), Seed: seed}))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// env is a library on a models folder, with a hub and its events.
type env struct {
	t    *testing.T
	dir  string
	hub  *hubtest.Server
	free atomic.Uint64

	mu     sync.Mutex
	events []library.Download
	times  []time.Time
}

func newEnv(t *testing.T) *env {
	e := &env{t: t, dir: t.TempDir(), hub: hubtest.New()}
	t.Cleanup(e.hub.Close)
	e.free.Store(100 << 30)
	return e
}

func (e *env) open(change ...func(*library.Options)) *library.Library {
	opt := library.Options{
		Dir: e.dir, Endpoint: e.hub.URL(), RetryDelay: 5 * time.Millisecond, StallTimeout: 5 * time.Second,
		FreeSpace: func(string) (uint64, error) { return e.free.Load(), nil },
		OnDownload: func(d library.Download) {
			e.mu.Lock()
			e.events = append(e.events, d)
			e.times = append(e.times, time.Now())
			e.mu.Unlock()
		},
		Catalog: []library.CatalogEntry{{ID: "tiny", Name: "Tiny", Repo: repo, File: file, Size: 1, RAM: 2, Capabilities: []string{"tools"}}},
	}
	for _, c := range change {
		c(&opt)
	}
	l, err := library.Open(opt)
	require.NoError(e.t, err)
	e.t.Cleanup(l.Close)
	return l
}

func (e *env) lastEvent() library.Download {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.events) == 0 {
		return library.Download{}
	}
	return e.events[len(e.events)-1]
}

// wait waits until the download satisfies cond.
func wait(t *testing.T, l *library.Library, id string, what string, cond func(library.Download) bool) library.Download {
	t.Helper()
	var d library.Download
	require.Eventually(t, func() bool {
		var err error
		d, err = l.GetDownload(id)
		require.NoError(t, err)
		return cond(d)
	}, 30*time.Second, 5*time.Millisecond, "download %s: %s (last: %+v)", id, what, d)
	return d
}

func state(s string) func(library.Download) bool {
	return func(d library.Download) bool { return d.State == s }
}

func finished(d library.Download) bool {
	return d.State == library.DownloadDone || d.State == library.DownloadError || d.State == library.DownloadCancelled
}

func TestDownloadIsVerifiedThenListed(t *testing.T) {
	e := newEnv(t)
	content := model(t, 1)
	sha := e.hub.Add(repo, file, content, hubtest.Mode{Redirect: true})
	l := e.open()

	d, err := l.Start(context.Background(), api.EngineDownloadRequest{CatalogID: "tiny"})
	require.NoError(t, err)
	assert.Equal(t, repo, d.Repo)
	assert.Equal(t, file, d.File)
	assert.Equal(t, "main", d.Revision)
	assert.Equal(t, "tiny", d.CatalogID)
	assert.Equal(t, sha, d.SHA256, "the hub's X-Linked-Etag")
	assert.Equal(t, int64(len(content)), d.Total, "the hub's X-Linked-Size")
	again, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	assert.Equal(t, d.ID, again.ID, "asking twice gives the one download")

	d = wait(t, l, d.ID, "done", finished)
	require.Equal(t, library.DownloadDone, d.State, d.Error)
	assert.Equal(t, d.Total, d.Bytes)
	assert.Equal(t, "tiny-Q4_K_M", d.Model)
	require.Eventually(t, func() bool { return e.lastEvent().State == library.DownloadDone }, 5*time.Second, 5*time.Millisecond,
		"the last engine:download event says done")

	models := l.Models()
	require.Len(t, models, 1)
	m := models[0]
	assert.Equal(t, "tiny-Q4_K_M", m.ID)
	assert.Equal(t, "Tiny 1", m.Name, "general.name")
	assert.Equal(t, file, m.File)
	assert.Equal(t, int64(len(content)), m.Size)
	assert.Equal(t, sha, m.SHA256)
	assert.Equal(t, library.Source{Repo: repo, File: file, Revision: "main"}, m.Source)
	assert.Equal(t, library.StateReady, m.State)
	assert.Equal(t, []string{"tools"}, m.Capabilities)
	assert.Equal(t, filepath.Join(e.dir, file), m.Path)
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.Equal(t, content, got)
	left, err := os.ReadDir(filepath.Join(e.dir, ".downloads"))
	require.NoError(t, err)
	assert.Empty(t, left, "no partial file or state is left")

	cat := l.Catalog()
	require.Len(t, cat, 1)
	assert.True(t, cat[0].Installed)
	assert.Equal(t, m.ID, cat[0].Model)
	_, err = l.Start(context.Background(), api.EngineDownloadRequest{CatalogID: "tiny"})
	assert.Equal(t, fault.Conflict, fault.KindOf(err), "already installed")

	// A downloaded model is deleted with its file.
	_, err = l.Delete(m.ID)
	require.NoError(t, err)
	assert.NoFileExists(t, m.Path)
	assert.Empty(t, l.Models())
	assert.False(t, l.Catalog()[0].Installed)
	_, err = l.Delete(m.ID)
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
}

func TestPauseThenResumeWithRange(t *testing.T) {
	e := newEnv(t)
	content := model(t, 2)
	e.hub.Add(repo, file, content, hubtest.Mode{BytesPerSecond: 40_000})
	l := e.open()
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	wait(t, l, d.ID, "some bytes", func(d library.Download) bool { return d.Bytes > 0 })

	d, err = l.Pause(d.ID)
	require.NoError(t, err)
	assert.Equal(t, library.DownloadPaused, d.State)
	part, err := os.Stat(filepath.Join(e.dir, ".downloads", d.ID+".part"))
	require.NoError(t, err, "the partial file stays")
	have := part.Size()
	require.Positive(t, have)
	require.Less(t, have, int64(len(content)))
	assert.Empty(t, l.Models(), "a partial file is never listed")
	paused, err := l.Pause(d.ID)
	require.NoError(t, err, "pausing twice is fine")
	assert.Equal(t, library.DownloadPaused, paused.State)

	e.hub.SetMode(repo, file, hubtest.Mode{})
	d, err = l.Resume(d.ID)
	require.NoError(t, err)
	d = wait(t, l, d.ID, "done", finished)
	require.Equal(t, library.DownloadDone, d.State, d.Error)
	ranges := e.hub.Ranges(file)
	require.Len(t, ranges, 2, "one GET, then one resuming it: %v", ranges)
	assert.Equal(t, "", ranges[0])
	assert.Equal(t, "bytes="+strconv.FormatInt(have, 10)+"-", ranges[1], "the resume asks for the rest only")
	m, ok := l.Model(d.Model)
	require.True(t, ok)
	assert.Equal(t, library.StateReady, m.State)

	_, err = l.Pause(d.ID)
	assert.Equal(t, fault.Conflict, fault.KindOf(err), "a finished download cannot be paused")
	_, err = l.Pause("nope")
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
}

func TestDroppedConnectionsAreResumed(t *testing.T) {
	e := newEnv(t)
	content := model(t, 3)
	require.Greater(t, len(content), 120_000)
	e.hub.Add(repo, file, content, hubtest.Mode{Drops: 2, DropAfter: 50_000})
	l := e.open()
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	d = wait(t, l, d.ID, "done", finished)
	require.Equal(t, library.DownloadDone, d.State, d.Error)
	assert.Equal(t, []string{"", "bytes=50000-", "bytes=100000-"}, e.hub.Ranges(file),
		"each retry asks for what is missing")
	m, ok := l.Model(d.Model)
	require.True(t, ok)
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.Equal(t, content, got)
}

func TestConnectionThatKeepsDroppingEndsInErrorAndResumes(t *testing.T) {
	e := newEnv(t)
	content := model(t, 4)
	e.hub.Add(repo, file, content, hubtest.Mode{Drops: 100, DropAfter: 0})
	l := e.open(func(o *library.Options) { o.MaxRetries = 2 })
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	d = wait(t, l, d.ID, "error", finished)
	require.Equal(t, library.DownloadError, d.State)
	assert.Contains(t, d.Error, "Resume")

	e.hub.SetMode(repo, file, hubtest.Mode{})
	_, err = l.Resume(d.ID)
	require.NoError(t, err)
	d = wait(t, l, d.ID, "done", finished)
	assert.Equal(t, library.DownloadDone, d.State, d.Error)
}

// A restart of Parley (here a kill-like stop: Close writes nothing) leaves
// the download's state and partial file; the next library resumes it with
// a Range request and finishes it.
func TestRestartResumesAnInterruptedDownload(t *testing.T) {
	e := newEnv(t)
	content := model(t, 5)
	e.hub.Add(repo, file, content, hubtest.Mode{BytesPerSecond: 40_000})
	first := e.open()
	d, err := first.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	wait(t, first, d.ID, "some bytes", func(d library.Download) bool { return d.Bytes > 0 })
	first.Close()

	var saved library.Download
	b, err := os.ReadFile(filepath.Join(e.dir, ".downloads", d.ID+".json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &saved))
	assert.Equal(t, library.DownloadDownloading, saved.State, "the state on disk is the running one")
	part, err := os.Stat(filepath.Join(e.dir, ".downloads", d.ID+".part"))
	require.NoError(t, err)
	have := part.Size()
	require.Positive(t, have)

	e.hub.SetMode(repo, file, hubtest.Mode{})
	second := e.open()
	d = wait(t, second, d.ID, "done", finished)
	require.Equal(t, library.DownloadDone, d.State, d.Error)
	ranges := e.hub.Ranges(file)
	require.NotEmpty(t, ranges)
	assert.Equal(t, "bytes="+strconv.FormatInt(have, 10)+"-", ranges[len(ranges)-1], "the new run asks for the rest")
	m, ok := second.Model(d.Model)
	require.True(t, ok)
	assert.Equal(t, library.StateReady, m.State)
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.Equal(t, content, got)
}

func TestPausedDownloadStaysPausedAfterRestart(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 6), hubtest.Mode{BytesPerSecond: 40_000})
	first := e.open()
	d, err := first.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	wait(t, first, d.ID, "some bytes", func(d library.Download) bool { return d.Bytes > 0 })
	_, err = first.Pause(d.ID)
	require.NoError(t, err)
	first.Close()

	second := e.open()
	list := second.Downloads()
	require.Len(t, list, 1)
	assert.Equal(t, library.DownloadPaused, list[0].State)
	assert.Positive(t, list[0].Bytes, "the bytes on disk")
}

func TestWrongHashIsRefusedAndDeleted(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 7), hubtest.Mode{WrongHash: true})
	l := e.open()
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	d = wait(t, l, d.ID, "error", finished)
	require.Equal(t, library.DownloadError, d.State)
	assert.Contains(t, d.Error, "sha256")
	assert.NoFileExists(t, filepath.Join(e.dir, ".downloads", d.ID+".part"), "the file that does not match is deleted")
	assert.NoFileExists(t, filepath.Join(e.dir, file))
	assert.Empty(t, l.Models())
	require.Eventually(t, func() bool { return e.lastEvent().State == library.DownloadError }, 5*time.Second, 5*time.Millisecond)

	// Trying again starts from nothing and, served right, succeeds.
	e.hub.SetMode(repo, file, hubtest.Mode{})
	_, err = l.Resume(d.ID)
	require.NoError(t, err)
	d = wait(t, l, d.ID, "done", finished)
	assert.Equal(t, library.DownloadDone, d.State, d.Error)
}

func TestNotEnoughDiskIsRefused(t *testing.T) {
	e := newEnv(t)
	content := model(t, 8)
	e.hub.Add(repo, file, content, hubtest.Mode{})
	e.free.Store(uint64(len(content)) + 1<<30 - 1)
	l := e.open()
	_, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.Error(t, err)
	assert.Equal(t, fault.Storage, fault.KindOf(err), "507: size + 1 GB is not free")
	assert.Contains(t, err.Error(), "free")
	assert.Empty(t, l.Downloads())

	e.free.Store(uint64(len(content)) + 1<<30)
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err, "exactly enough")
	wait(t, l, d.ID, "done", state(library.DownloadDone))
}

func TestRefusals(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 9), hubtest.Mode{})
	e.hub.Add(repo, "README.md", []byte("# hi"), hubtest.Mode{})
	e.hub.Add(repo, "fake.gguf", []byte("not a gguf at all, but named like one"), hubtest.Mode{})
	l := e.open()
	ctx := context.Background()
	cases := []struct {
		req  api.EngineDownloadRequest
		kind fault.Kind
	}{
		{api.EngineDownloadRequest{Repo: repo, File: "README.md"}, fault.Validation},
		{api.EngineDownloadRequest{Repo: repo, File: "missing.gguf"}, fault.Validation},
		{api.EngineDownloadRequest{Repo: "acme/nothing", File: file}, fault.Validation},
		{api.EngineDownloadRequest{Repo: repo, File: file, Revision: "v9"}, fault.Validation},
		{api.EngineDownloadRequest{Repo: "not a repo", File: file}, fault.Input},
		{api.EngineDownloadRequest{Repo: repo, File: "../x.gguf"}, fault.Input},
		{api.EngineDownloadRequest{Repo: repo}, fault.Input},
		{api.EngineDownloadRequest{CatalogID: "nope"}, fault.NotFound},
	}
	for _, c := range cases {
		_, err := l.Start(ctx, c.req)
		assert.Equal(t, c.kind, fault.KindOf(err), "%+v: %v", c.req, err)
	}

	// A file named .gguf that is not one is downloaded, then refused.
	d, err := l.Start(ctx, api.EngineDownloadRequest{Repo: repo, File: "fake.gguf"})
	require.NoError(t, err)
	d = wait(t, l, d.ID, "error", finished)
	assert.Equal(t, library.DownloadError, d.State)
	assert.Contains(t, d.Error, "GGUF")
	assert.Empty(t, l.Models())

	// The hub cannot be reached.
	e.hub.Close()
	_, err = l.Start(ctx, api.EngineDownloadRequest{Repo: repo, File: file})
	assert.Equal(t, fault.Upstream, fault.KindOf(err))
}

func TestCancelDeletesThePartialFile(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 10), hubtest.Mode{BytesPerSecond: 40_000})
	l := e.open()
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	wait(t, l, d.ID, "some bytes", func(d library.Download) bool { return d.Bytes > 0 })
	d, err = l.Cancel(d.ID)
	require.NoError(t, err)
	assert.Equal(t, library.DownloadCancelled, d.State)
	assert.NoFileExists(t, filepath.Join(e.dir, ".downloads", d.ID+".part"))
	assert.NoFileExists(t, filepath.Join(e.dir, ".downloads", d.ID+".json"))
	assert.Empty(t, l.Models())
	_, err = l.Resume(d.ID)
	assert.Equal(t, fault.Conflict, fault.KindOf(err))
}

func TestDownloadsQueueOneAtATime(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 11), hubtest.Mode{BytesPerSecond: 40_000})
	e.hub.Add(repo, "second.gguf", model(t, 12), hubtest.Mode{})
	l := e.open()
	first, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	wait(t, l, first.ID, "downloading", state(library.DownloadDownloading))
	second, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: "second.gguf"})
	require.NoError(t, err)
	assert.Equal(t, library.DownloadQueued, second.State)
	// While the first one goes on, the second one waits.
	now, err := l.GetDownload(first.ID)
	require.NoError(t, err)
	wait(t, l, first.ID, "more bytes", func(d library.Download) bool { return d.Bytes > now.Bytes })
	got, err := l.GetDownload(second.ID)
	require.NoError(t, err)
	assert.Equal(t, library.DownloadQueued, got.State, "one download at a time")

	e.hub.SetMode(repo, file, hubtest.Mode{})
	_, err = l.Pause(first.ID)
	require.NoError(t, err)
	wait(t, l, second.ID, "done", state(library.DownloadDone))
	list := l.Downloads()
	require.Len(t, list, 2)
	assert.Equal(t, first.ID, list[0].ID, "oldest first")
}

// engine:download comes at most 5 times a second per download.
func TestDownloadEventsAreThrottled(t *testing.T) {
	e := newEnv(t)
	content := model(t, 13)
	e.hub.Add(repo, file, content, hubtest.Mode{BytesPerSecond: len(content)})
	l := e.open()
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	wait(t, l, d.ID, "done", state(library.DownloadDone))
	require.Eventually(t, func() bool { return e.lastEvent().State == library.DownloadDone }, 5*time.Second, 5*time.Millisecond)
	e.mu.Lock()
	defer e.mu.Unlock()
	require.Greater(t, len(e.events), 3, "progress is told")
	for i := 1; i < len(e.times); i++ {
		gap := e.times[i].Sub(e.times[i-1])
		assert.GreaterOrEqual(t, gap, 190*time.Millisecond, "event %d came %s after the one before", i, gap)
	}
	var last int64
	for _, ev := range e.events {
		assert.GreaterOrEqual(t, ev.Bytes, last, "progress only grows")
		last = ev.Bytes
	}
}

func TestImportUsesTheFileInPlace(t *testing.T) {
	e := newEnv(t)
	l := e.open()
	elsewhere := filepath.Join(t.TempDir(), "My Model.gguf")
	require.NoError(t, ggufgen.Write(elsewhere, ggufgen.Spec{Name: "Mine", Answer: "Hi."}))

	m, err := l.Import(elsewhere)
	require.NoError(t, err)
	assert.Equal(t, "My Model", m.ID)
	assert.Equal(t, "Mine", m.Name)
	assert.Equal(t, library.Source{Path: elsewhere}, m.Source)
	assert.Equal(t, library.StateReady, m.State)
	assert.Equal(t, "", m.SHA256)
	assert.Equal(t, elsewhere, m.Path, "used in place, not copied")
	entries, _ := os.ReadDir(e.dir)
	for _, en := range entries {
		assert.False(t, strings.HasSuffix(en.Name(), ".gguf"), "nothing is copied into the models folder: %s", en.Name())
	}
	again, err := l.Import(elsewhere)
	require.NoError(t, err)
	assert.Equal(t, m.ID, again.ID, "importing twice gives the one model")
	require.Len(t, l.Models(), 1)

	// It survives a restart.
	l.Close()
	l = e.open()
	require.Len(t, l.Models(), 1)

	// Deleting forgets it; the file stays.
	_, err = l.Delete(m.ID)
	require.NoError(t, err)
	assert.FileExists(t, elsewhere)
	assert.Empty(t, l.Models())

	text := filepath.Join(t.TempDir(), "notes.gguf")
	require.NoError(t, os.WriteFile(text, []byte("just notes"), 0o600))
	_, err = l.Import(text)
	assert.Equal(t, fault.Validation, fault.KindOf(err), "not a GGUF: 422")
	_, err = l.Import(filepath.Join(t.TempDir(), "missing.gguf"))
	assert.Equal(t, fault.Validation, fault.KindOf(err))
	_, err = l.Import("relative/model.gguf")
	assert.Equal(t, fault.Input, fault.KindOf(err))
	assert.Empty(t, l.Models())
}

func TestModelsBrokenBehindParleysBack(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 14), hubtest.Mode{})
	l := e.open()
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{Repo: repo, File: file})
	require.NoError(t, err)
	d = wait(t, l, d.ID, "done", state(library.DownloadDone))
	found := filepath.Join(e.dir, "found.gguf")
	require.NoError(t, ggufgen.Write(found, ggufgen.Spec{Answer: "Hi."}))
	imported := filepath.Join(t.TempDir(), "imported.gguf")
	require.NoError(t, ggufgen.Write(imported, ggufgen.Spec{Answer: "Hi."}))
	_, err = l.Import(imported)
	require.NoError(t, err)

	byID := func() map[string]library.Model {
		out := map[string]library.Model{}
		for _, m := range l.Models() {
			out[m.ID] = m
		}
		return out
	}
	models := byID()
	require.Len(t, models, 3)
	for id, m := range models {
		assert.Equal(t, library.StateReady, m.State, id)
	}
	assert.Equal(t, library.Source{Path: found}, models["found"].Source, "a file someone put in the folder is listed")

	require.NoError(t, os.Remove(filepath.Join(e.dir, file)))
	require.NoError(t, os.Remove(imported))
	b, err := os.ReadFile(found)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(found, b[:len(b)/2], 0o600))

	models = byID()
	require.Len(t, models, 3, "broken models stay listed")
	assert.Equal(t, library.StateBroken, models[d.Model].State)
	assert.Contains(t, models[d.Model].Error, "missing")
	assert.Equal(t, library.StateBroken, models["imported"].State)
	assert.Equal(t, library.StateBroken, models["found"].State)
	assert.Contains(t, models["found"].Error, "GGUF")
	assert.Empty(t, l.Ready())

	// A broken downloaded model can be deleted (forgotten) like any other.
	_, err = l.Delete(d.Model)
	require.NoError(t, err)
	assert.Len(t, l.Models(), 2)
}

func TestBuiltInCatalogue(t *testing.T) {
	cat := library.Catalog()
	require.NotEmpty(t, cat)
	ids := map[string]bool{}
	embedding := 0
	for _, c := range cat {
		assert.False(t, ids[c.ID], "id %s twice", c.ID)
		ids[c.ID] = true
		assert.NotEmpty(t, c.Name)
		assert.Regexp(t, `^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`, c.Repo)
		assert.True(t, strings.HasSuffix(c.File, ".gguf"), c.File)
		assert.Positive(t, c.Size, c.ID)
		assert.Greater(t, c.RAM, c.Size, "%s needs more memory than its file", c.ID)
		assert.NotNil(t, c.Capabilities)
		for _, cp := range c.Capabilities {
			assert.Contains(t, library.Capabilities, cp)
			if cp == "embedding" {
				embedding++
			}
		}
	}
	assert.Equal(t, 1, embedding, "one embedding model")
}

// A model's memory need: its catalogue entry's figure when downloaded from
// one, else the estimate from its file's size; "Load anyway" is remembered
// per model across a restart, and forgotten with the model.
func TestMemoryNeedAndLoadAnyway(t *testing.T) {
	e := newEnv(t)
	e.hub.Add(repo, file, model(t, 3), hubtest.Mode{})
	l := e.open(func(o *library.Options) { o.Catalog[0].RAM = 7 << 30 })
	d, err := l.Start(context.Background(), api.EngineDownloadRequest{CatalogID: "tiny"})
	require.NoError(t, err)
	d = wait(t, l, d.ID, "done", state(library.DownloadDone))
	found := filepath.Join(e.dir, "found.gguf")
	require.NoError(t, ggufgen.Write(found, ggufgen.Spec{Answer: "Hi."}))
	st, err := os.Stat(found)
	require.NoError(t, err)

	byID := func(l *library.Library) map[string]library.Model {
		out := map[string]library.Model{}
		for _, m := range l.Models() {
			out[m.ID] = m
		}
		return out
	}
	models := byID(l)
	assert.Equal(t, int64(7<<30), models[d.Model].RAM, "the catalogue's figure")
	assert.Equal(t, library.EstimateRAM(st.Size()), models["found"].RAM, "estimated from the file")
	assert.False(t, models["found"].AllowLarge)

	m, err := l.SetAllowLarge("found", true)
	require.NoError(t, err)
	assert.True(t, m.AllowLarge)
	_, err = l.SetAllowLarge("nope", true)
	assert.Equal(t, fault.NotFound, fault.KindOf(err))

	l.Close()
	l = e.open()
	models = byID(l)
	assert.True(t, models["found"].AllowLarge, "remembered across a restart")
	assert.False(t, models[d.Model].AllowLarge, "per model")

	m, err = l.SetAllowLarge("found", false)
	require.NoError(t, err)
	assert.False(t, m.AllowLarge)
	_, err = l.SetAllowLarge("found", true)
	require.NoError(t, err)
	_, err = l.Delete("found")
	require.NoError(t, err)
	require.NoError(t, ggufgen.Write(found, ggufgen.Spec{Answer: "Hi."}))
	assert.False(t, byID(l)["found"].AllowLarge, "a deleted model's choice goes with it")
}

// The estimate agrees with the catalogue's chat models' figures (from the
// models' cards) within 8% (an embedding model needs less: a small
// context, no generation).
func TestEstimateMatchesTheCatalogue(t *testing.T) {
	assert.Zero(t, library.EstimateRAM(0))
	for _, c := range library.Catalog() {
		if slices.Contains(c.Capabilities, "embedding") {
			continue
		}
		est := float64(library.EstimateRAM(c.Size))
		assert.InDelta(t, float64(c.RAM), est, 0.08*float64(c.RAM), "%s: the catalogue says %d, the estimate %d", c.ID, c.RAM, int64(est))
	}
}
