package service

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"aead.dev/minisign"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/update"
)

// updateFeed serves a signed feed of 1.1.0 with a linux/amd64 tarball.
func updateFeed(t *testing.T) (string, minisign.PublicKey, *atomic.Int32) {
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	tgz := filepath.Join(dir, "parley_1.1.0_linux_amd64.tar.gz")
	f, err := os.Create(tgz)
	require.NoError(t, err)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	body := "new binary 1.1.0"
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "parley_1.1.0_linux_amd64/parley", Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))}))
	_, err = tw.Write([]byte(body))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	require.NoError(t, f.Close())
	feed, err := update.MakeFeed("1.1.0", time.Now().Add(-time.Hour), 24*time.Hour, map[string]string{"en": "Fixes."},
		[]update.ReleaseArtifact{{Path: tgz, OS: "linux", Arch: "amd64", Kind: update.KindTar}})
	require.NoError(t, err)
	require.NoError(t, update.WriteSignedFeed(dir, feed, &priv))
	var hits atomic.Int32
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); files.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	return srv.URL, pub, &hits
}

func updateService(t *testing.T, feedURL string, key minisign.PublicKey, settings func(*Service), applied chan update.Applied) (*Service, string) {
	data := t.TempDir()
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	bin := filepath.Join(t.TempDir(), "parley")
	require.NoError(t, os.WriteFile(bin, []byte("old"), 0o755))
	u := update.New(update.Config{Current: "1.0.0", Kind: update.KindTar, Keys: []minisign.PublicKey{key}, FeedURL: feedURL,
		DataDir: data, GOOS: "linux", GOARCH: "amd64", Binary: bin, FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	cfg := config.Config{DataDir: data, QuestionTimeout: time.Minute}
	svc, err := New(context.Background(), Options{Store: db, Events: events.NewRecorder(), Config: cfg, Version: "1.0.0",
		MCPOptions: fastMCP, Updater: u, UpdateFirstCheck: 10 * time.Millisecond,
		OnUpdateApplied: func(a update.Applied) { applied <- a }})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	if settings != nil {
		settings(svc)
	}
	return svc, bin
}

func TestAutomaticCheckStagesAndApplyRestarts(t *testing.T) {
	feedURL, key, _ := updateFeed(t)
	applied := make(chan update.Applied, 1)
	svc, bin := updateService(t, feedURL, key, nil, applied)
	ctx := context.Background()
	require.Eventually(t, func() bool { return svc.UpdateStatus().State == update.StateReady }, 10*time.Second, 10*time.Millisecond)
	st := svc.UpdateStatus()
	require.NotNil(t, st.Available)
	assert.Equal(t, "1.1.0", st.Available.Version)
	assert.True(t, st.Auto)

	_, err := svc.ApplyUpdate(ctx)
	require.NoError(t, err)
	select {
	case a := <-applied:
		assert.Equal(t, bin, a.Binary)
		assert.True(t, a.Restart)
	case <-time.After(5 * time.Second):
		t.Fatal("no restart after apply")
	}
	got, _ := os.ReadFile(bin)
	assert.Equal(t, "new binary 1.1.0", string(got))
}

func TestApplyWithNothingReadyIsAConflict(t *testing.T) {
	feedURL, key, _ := updateFeed(t)
	svc, _ := updateService(t, feedURL, key, func(s *Service) {
		set := s.GetSettings()
		set.UpdateChecks = MemoryOff
		_, err := s.SaveSettings(context.Background(), set)
		require.NoError(t, err)
	}, make(chan update.Applied, 1))
	_, err := svc.ApplyUpdate(context.Background())
	require.ErrorIs(t, err, ErrNoUpdateReady)
	assert.Equal(t, fault.Conflict, fault.KindOf(err))
}

func TestAutomaticChecksOffSendNothing(t *testing.T) {
	feedURL, key, hits := updateFeed(t)
	data := t.TempDir()
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	defer db.Close()
	// Saved off before the start: the first check never runs.
	set := DefaultSettings()
	set.UpdateChecks = MemoryOff
	require.NoError(t, db.SetSetting(context.Background(), settingsKey, set))
	u := update.New(update.Config{Current: "1.0.0", Kind: update.KindTar, Keys: []minisign.PublicKey{key}, FeedURL: feedURL, DataDir: data})
	svc, err := New(context.Background(), Options{Store: db, Events: events.NewRecorder(), Config: config.Config{DataDir: data, QuestionTimeout: time.Minute},
		Version: "1.0.0", MCPOptions: fastMCP, Updater: u, UpdateFirstCheck: time.Millisecond})
	require.NoError(t, err)
	defer svc.Close()
	// The loop is started (or not) by New itself: off, it never started,
	// so nothing can be sent later either.
	assert.False(t, svc.updateChecksRunning())
	assert.Zero(t, hits.Load())
	assert.False(t, svc.UpdateStatus().Auto)

	// A check the user asks for still checks.
	st, err := svc.CheckUpdate(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, st.Available)
	assert.NotZero(t, hits.Load())
}

func TestTurningAutomaticChecksOnAndOff(t *testing.T) {
	feedURL, key, hits := updateFeed(t)
	svc, _ := updateService(t, feedURL, key, func(s *Service) {
		set := s.GetSettings()
		set.UpdateChecks = MemoryOff
		_, err := s.SaveSettings(context.Background(), set)
		require.NoError(t, err)
	}, make(chan update.Applied, 1))
	// Turned off right after the start: the loop stopped (whether or not
	// its first check had run), and stays stopped.
	require.False(t, svc.updateChecksRunning())
	before := hits.Load()
	assert.False(t, svc.UpdateStatus().Auto)

	set := svc.GetSettings()
	set.UpdateChecks = MemoryOn
	_, err := svc.SaveSettings(context.Background(), set)
	require.NoError(t, err)
	assert.True(t, svc.updateChecksRunning())
	assert.True(t, svc.UpdateStatus().Auto)
	require.Eventually(t, func() bool { return hits.Load() > before }, 10*time.Second, 10*time.Millisecond)
}

func TestUpdateStateEventsFollowTheUpdater(t *testing.T) {
	feedURL, key, _ := updateFeed(t)
	rec := events.NewRecorder()
	data := t.TempDir()
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	defer db.Close()
	set := DefaultSettings()
	set.UpdateChecks = MemoryOff
	require.NoError(t, db.SetSetting(context.Background(), settingsKey, set))
	u := update.New(update.Config{Current: "1.0.0", Kind: update.KindTar, Keys: []minisign.PublicKey{key}, FeedURL: feedURL, DataDir: data,
		GOOS: "linux", GOARCH: "amd64", FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }})
	svc, err := New(context.Background(), Options{Store: db, Events: rec, Config: config.Config{DataDir: data, QuestionTimeout: time.Minute},
		Version: "1.0.0", MCPOptions: fastMCP, Updater: u})
	require.NoError(t, err)
	defer svc.Close()

	_, err = svc.CheckUpdate(context.Background())
	require.NoError(t, err)
	states := func() []string {
		var out []string
		for _, ev := range rec.Events() {
			if ev.Name == events.UpdateState {
				out = append(out, ev.Payload.(update.Status).State)
			}
		}
		return out
	}
	require.Eventually(t, func() bool {
		st := states()
		return len(st) > 0 && st[len(st)-1] == update.StateReady
	}, 10*time.Second, 10*time.Millisecond)
	// (An idle first: the setting, read at the start, turned auto off.)
	st := states()
	require.GreaterOrEqual(t, len(st), 4)
	assert.Equal(t, []string{update.StateChecking, update.StateIdle, update.StateDownloading, update.StateReady}, st[len(st)-4:])
	var last update.Status
	for _, ev := range rec.Events() {
		if ev.Name == events.UpdateState {
			last = ev.Payload.(update.Status)
		}
	}
	require.NotNil(t, last.Available)
	assert.Equal(t, "1.1.0", last.Available.Version)
}
