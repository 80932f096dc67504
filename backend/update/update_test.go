package update

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"aead.dev/minisign"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

type env struct {
	t         *testing.T
	pub       minisign.PublicKey
	priv      minisign.PrivateKey
	feedDir   string
	dataDir   string
	bin       string
	srv       *httptest.Server
	cut       atomic.Int64 // > 0: a full artifact GET is cut after this many bytes
	artifacts atomic.Int32 // artifact requests
	mu        sync.Mutex
	ranges    []string
	agents    []string
	cookies   int
}

func newEnv(t *testing.T) *env {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	e := &env{t: t, pub: pub, priv: priv, feedDir: t.TempDir(), dataDir: t.TempDir()}
	e.bin = filepath.Join(t.TempDir(), "parley")
	require.NoError(t, os.WriteFile(e.bin, []byte("old binary 1.0.0"), 0o755))
	files := http.FileServer(http.Dir(e.feedDir))
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.agents = append(e.agents, r.UserAgent())
		if len(r.Cookies()) > 0 {
			e.cookies++
		}
		e.mu.Unlock()
		if strings.HasSuffix(r.URL.Path, ".tar.gz") || strings.HasSuffix(r.URL.Path, ".deb") {
			e.artifacts.Add(1)
			e.mu.Lock()
			e.ranges = append(e.ranges, r.Header.Get("Range"))
			e.mu.Unlock()
			if n := e.cut.Load(); n > 0 && r.Header.Get("Range") == "" {
				b, err := os.ReadFile(filepath.Join(e.feedDir, filepath.Base(r.URL.Path)))
				require.NoError(t, err)
				w.Header().Set("Content-Length", itoa(len(b)))
				w.WriteHeader(http.StatusOK)
				w.Write(b[:n])
				return // the connection ends short of Content-Length
			}
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func itoa(n int) string { return strconv.Itoa(n) }

// tarball writes a release tarball whose parley binary says content.
func (e *env) tarball(name, content string) string {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	dir := strings.TrimSuffix(name, ".tar.gz")
	require.NoError(e.t, tw.WriteHeader(&tar.Header{Name: dir + "/", Typeflag: tar.TypeDir, Mode: 0o755}))
	for _, f := range []struct{ name, body string }{{dir + "/parley.desktop", "[Desktop Entry]"}, {dir + "/parley", content}} {
		require.NoError(e.t, tw.WriteHeader(&tar.Header{Name: f.name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(f.body))}))
		_, err := tw.Write([]byte(f.body))
		require.NoError(e.t, err)
	}
	require.NoError(e.t, tw.Close())
	require.NoError(e.t, gz.Close())
	p := filepath.Join(e.feedDir, name)
	require.NoError(e.t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// publish writes a signed feed of version with one linux/amd64 tarball.
func (e *env) publish(version string, key *minisign.PrivateKey, arts ...ReleaseArtifact) *Feed {
	if len(arts) == 0 {
		name := "parley_" + version + "_linux_amd64.tar.gz"
		// A large binary so a cut download is really cut.
		e.tarball(name, "new binary "+version+"\n"+strings.Repeat(version, 20000))
		arts = []ReleaseArtifact{{Path: filepath.Join(e.feedDir, name), OS: "linux", Arch: "amd64", Kind: KindTar}}
	}
	f, err := MakeFeed(version, now.Add(-time.Hour), 30*24*time.Hour, map[string]string{"en": "Fixes.", "de": "Korrekturen."}, arts)
	require.NoError(e.t, err)
	if key == nil {
		key = &e.priv
	}
	os.Remove(filepath.Join(e.feedDir, SignatureFile))
	require.NoError(e.t, WriteSignedFeed(e.feedDir, f, key))
	return f
}

func (e *env) updater(mod ...func(*Config)) *Updater {
	cfg := Config{Current: "1.0.0", Kind: KindTar, Keys: []minisign.PublicKey{e.pub}, FeedURL: e.srv.URL, DataDir: e.dataDir,
		GOOS: "linux", GOARCH: "amd64", Binary: e.bin, DBPath: filepath.Join(e.dataDir, "parley.db"),
		Lang: func() string { return "de" }, Now: func() time.Time { return now },
		FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }}
	for _, m := range mod {
		m(&cfg)
	}
	return New(cfg)
}

func stagingEntries(t *testing.T, dataDir string) []string {
	entries, err := os.ReadDir(filepath.Join(Dir(dataDir), "staging"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestValidUpdateIsStagedAndAppliedInPlace(t *testing.T) {
	e := newEnv(t)
	e.publish("1.1.0", nil)
	u := e.updater()
	s, err := u.CheckAndStage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, StateReady, s.State)
	require.NotNil(t, s.Available)
	assert.Equal(t, "1.1.0", s.Available.Version)
	assert.Equal(t, "Korrekturen.", s.Available.Notes)
	assert.Equal(t, "1.0.0", s.Current)
	assert.Equal(t, KindTar, s.Kind)
	require.NotNil(t, s.CheckedAt)

	applied, err := u.Apply(context.Background())
	require.NoError(t, err)
	assert.True(t, applied.Restart)
	got, err := os.ReadFile(e.bin)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "new binary 1.1.0"))
	old, err := os.ReadFile(e.bin + ".old")
	require.NoError(t, err)
	assert.Equal(t, "old binary 1.0.0", string(old))
	info, err := os.Stat(e.bin)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())

	rec, err := LoadRecord(e.dataDir)
	require.NoError(t, err)
	require.NotNil(t, rec.Pending)
	assert.Equal(t, "1.1.0", rec.Pending.To)
	assert.Equal(t, e.bin+".old", rec.Pending.Backup)

	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ua := range e.agents {
		assert.Equal(t, "Parley/1.0.0 (linux/amd64)", ua)
	}
	assert.Zero(t, e.cookies)
}

func TestNotesFallBackToEnglish(t *testing.T) {
	e := newEnv(t)
	e.publish("1.1.0", nil)
	u := e.updater(func(c *Config) { c.Lang = func() string { return "ja" } })
	s, err := u.Check(context.Background())
	require.NoError(t, err)
	require.NotNil(t, s.Available)
	assert.Equal(t, "Fixes.", s.Available.Notes)
	assert.Equal(t, StateIdle, s.State, "check alone downloads nothing")
	assert.Zero(t, e.artifacts.Load())
}

func TestApplyWithoutAReadyUpdate(t *testing.T) {
	e := newEnv(t)
	_, err := e.updater().Apply(context.Background())
	require.ErrorIs(t, err, ErrNothingReady)
}

func TestTamperedArtifactIsRefusedAndDeleted(t *testing.T) {
	e := newEnv(t)
	f := e.publish("1.1.0", nil)
	p := filepath.Join(e.feedDir, f.Artifacts[0].URL)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[len(b)/2] ^= 0xff
	require.NoError(t, os.WriteFile(p, b, 0o644))

	s, err := e.updater().CheckAndStage(context.Background())
	require.Error(t, err)
	assert.True(t, IsRefusal(err))
	assert.Equal(t, StateRefused, s.State)
	assert.Contains(t, s.Error, "sha256")
	assert.Empty(t, stagingEntries(t, e.dataDir))
	got, _ := os.ReadFile(e.bin)
	assert.Equal(t, "old binary 1.0.0", string(got))
}

func TestHostileFeedsAreRefusedWithNothingDownloaded(t *testing.T) {
	other, otherPriv, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_ = other
	cases := []struct {
		name   string
		setup  func(e *env)
		reason string
	}{
		{"no signature", func(e *env) {
			e.publish("1.1.0", nil)
			require.NoError(t, os.Remove(filepath.Join(e.feedDir, SignatureFile)))
		}, "not signed"},
		{"signed by another key", func(e *env) { e.publish("1.1.0", &otherPriv) }, "unknown key"},
		{"tampered feed", func(e *env) {
			e.publish("1.1.0", nil)
			p := filepath.Join(e.feedDir, FeedFile)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, bytes.Replace(b, []byte("1.1.0"), []byte("1.9.0"), 1), 0o644))
		}, "tampered"},
		{"expired", func(e *env) {
			name := "parley_1.1.0_linux_amd64.tar.gz"
			e.tarball(name, "new")
			f, err := MakeFeed("1.1.0", now.Add(-40*24*time.Hour), 30*24*time.Hour, nil,
				[]ReleaseArtifact{{Path: filepath.Join(e.feedDir, name), OS: "linux", Arch: "amd64", Kind: KindTar}})
			require.NoError(t, err)
			require.NoError(t, WriteSignedFeed(e.feedDir, f, &e.priv))
		}, "expired"},
		{"downgrade", func(e *env) { e.publish("0.9.0", nil) }, "downgrade"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			c.setup(e)
			u := e.updater()
			s, err := u.CheckAndStage(context.Background())
			require.Error(t, err)
			assert.True(t, IsRefusal(err), err)
			assert.Equal(t, StateRefused, s.State)
			assert.Contains(t, s.Error, c.reason)
			assert.Nil(t, s.Available)
			assert.Zero(t, e.artifacts.Load(), "nothing downloaded")
			assert.Empty(t, stagingEntries(t, e.dataDir))
			_, err = u.Apply(context.Background())
			require.ErrorIs(t, err, ErrNothingReady)
		})
	}
}

func TestReplayOfAnOlderSignedFeedIsRefused(t *testing.T) {
	e := newEnv(t)
	e.publish("1.2.0", nil)
	s, err := e.updater().Check(context.Background())
	require.NoError(t, err)
	require.NotNil(t, s.Available)

	e.publish("1.1.0", nil) // an older, validly signed feed
	s, err = e.updater().Check(context.Background())
	require.Error(t, err)
	assert.Equal(t, StateRefused, s.State)
	assert.Contains(t, s.Error, "replayed")
	assert.Zero(t, e.artifacts.Load())
}

func TestFeedOfTheRunningVersionIsUpToDate(t *testing.T) {
	e := newEnv(t)
	e.publish("1.0.0", nil)
	s, err := e.updater().CheckAndStage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, StateIdle, s.State)
	assert.Nil(t, s.Available)
	assert.Zero(t, e.artifacts.Load())
}

func TestWrongKindOrArchIsNoUpdate(t *testing.T) {
	for _, c := range []struct{ name, os, arch, kind string }{{"kind", "linux", "amd64", KindDeb}, {"arch", "linux", "arm64", KindTar}, {"os", "windows", "amd64", KindTar}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			name := "parley_1.1.0_other.tar.gz"
			e.tarball(name, "x")
			e.publish("1.1.0", nil, ReleaseArtifact{Path: filepath.Join(e.feedDir, name), OS: c.os, Arch: c.arch, Kind: c.kind})
			s, err := e.updater().CheckAndStage(context.Background())
			require.NoError(t, err)
			assert.Nil(t, s.Available)
			assert.Equal(t, StateIdle, s.State)
			assert.Zero(t, e.artifacts.Load())
		})
	}
}

func TestCutDownloadResumesWithRange(t *testing.T) {
	e := newEnv(t)
	f := e.publish("1.1.0", nil)
	half := f.Artifacts[0].Size / 2
	e.cut.Store(half)
	u := e.updater()
	s, err := u.CheckAndStage(context.Background())
	require.ErrorIs(t, err, ErrUnreachable)
	assert.Equal(t, StateError, s.State)
	parts := stagingEntries(t, e.dataDir)
	require.Len(t, parts, 1)
	assert.True(t, strings.HasSuffix(parts[0], ".part"))

	e.cut.Store(0)
	s, err = u.Stage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, StateReady, s.State)
	e.mu.Lock()
	assert.Equal(t, []string{"", "bytes=" + itoa(int(half)) + "-"}, e.ranges)
	e.mu.Unlock()
	_, err = u.Apply(context.Background())
	require.NoError(t, err)
	got, _ := os.ReadFile(e.bin)
	assert.True(t, strings.HasPrefix(string(got), "new binary 1.1.0"))
}

type fullDisk struct {
	w    io.Writer
	left int
}

func (f *fullDisk) Write(b []byte) (int, error) {
	if len(b) > f.left {
		n, _ := f.w.Write(b[:f.left])
		f.left = 0
		return n, &os.PathError{Op: "write", Path: "staging", Err: syscall.ENOSPC}
	}
	f.left -= len(b)
	return f.w.Write(b)
}

func TestDiskFullWhileStagingCleansTheStaging(t *testing.T) {
	e := newEnv(t)
	e.publish("1.1.0", nil)
	u := e.updater(func(c *Config) { c.WrapWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, left: 100} } })
	s, err := u.CheckAndStage(context.Background())
	require.ErrorIs(t, err, ErrNoSpace)
	assert.Equal(t, StateError, s.State)
	assert.Empty(t, stagingEntries(t, e.dataDir))
}

func TestTooLittleFreeSpaceDownloadsNothing(t *testing.T) {
	e := newEnv(t)
	e.publish("1.1.0", nil)
	u := e.updater(func(c *Config) { c.FreeSpace = func(string) (uint64, error) { return 10, nil } })
	_, err := u.CheckAndStage(context.Background())
	require.ErrorIs(t, err, ErrNoSpace)
	assert.Zero(t, e.artifacts.Load())
	assert.Empty(t, stagingEntries(t, e.dataDir))
}

func TestNoInstallKindNeverUpdates(t *testing.T) {
	e := newEnv(t)
	e.publish("1.1.0", nil)
	_, err := e.updater(func(c *Config) { c.Kind = "" }).Check(context.Background())
	require.ErrorIs(t, err, ErrNoKind)
	e.mu.Lock()
	assert.Empty(t, e.agents, "nothing sent")
	e.mu.Unlock()
}

func TestUnreachableFeed(t *testing.T) {
	e := newEnv(t)
	e.srv.Close()
	s, err := e.updater().Check(context.Background())
	require.ErrorIs(t, err, ErrUnreachable)
	assert.Equal(t, StateError, s.State)
}

func TestNewVersionThatNeverMarksItselfHealthyIsRolledBack(t *testing.T) {
	e := newEnv(t)
	db := filepath.Join(e.dataDir, "parley.db")
	require.NoError(t, os.WriteFile(db, []byte("conversations of 1.0.0"), 0o600))
	// 1.0.0 ran on this data folder.
	l, err := AtLaunch(e.dataDir, db, "1.0.0", now)
	require.NoError(t, err)
	assert.False(t, l.RolledBack)

	e.publish("1.1.0", nil)
	u := e.updater()
	_, err = u.CheckAndStage(context.Background())
	require.NoError(t, err)
	_, err = u.Apply(context.Background())
	require.NoError(t, err)

	// 1.1.0 starts: the database is copied before it opens it, then it migrates and dies.
	l, err = AtLaunch(e.dataDir, db, "1.1.0", now.Add(5*time.Second))
	require.NoError(t, err)
	assert.False(t, l.RolledBack)
	assert.Equal(t, DatabaseCopy(db, "1.1.0"), l.DatabaseCopy)
	require.NoError(t, os.WriteFile(db, []byte("migrated by 1.1.0"), 0o600))

	// Started again 30 s later (still within the window): nothing yet.
	l, err = AtLaunch(e.dataDir, db, "1.1.0", now.Add(35*time.Second))
	require.NoError(t, err)
	assert.False(t, l.RolledBack)

	// Next launch, past 60 s without a healthy mark: roll back.
	l, err = AtLaunch(e.dataDir, db, "1.1.0", now.Add(2*time.Minute))
	require.NoError(t, err)
	assert.True(t, l.RolledBack)
	assert.Equal(t, e.bin, l.Binary)
	assert.Equal(t, "1.0.0", l.From)
	got, _ := os.ReadFile(e.bin)
	assert.Equal(t, "old binary 1.0.0", string(got))
	dbNow, _ := os.ReadFile(db)
	assert.Equal(t, "conversations of 1.0.0", string(dbNow))
	rec, err := LoadRecord(e.dataDir)
	require.NoError(t, err)
	assert.Nil(t, rec.Pending)
	assert.True(t, rec.IsBad("1.1.0"))

	// The rolled-back version is not offered again.
	s, err := e.updater().Check(context.Background())
	require.NoError(t, err)
	assert.Nil(t, s.Available)
}

func TestHealthyNewVersionIsKept(t *testing.T) {
	e := newEnv(t)
	db := filepath.Join(e.dataDir, "parley.db")
	require.NoError(t, os.WriteFile(db, []byte("v1"), 0o600))
	_, err := AtLaunch(e.dataDir, db, "1.0.0", now)
	require.NoError(t, err)
	e.publish("1.1.0", nil)
	u := e.updater()
	_, err = u.CheckAndStage(context.Background())
	require.NoError(t, err)
	_, err = u.Apply(context.Background())
	require.NoError(t, err)
	_, err = AtLaunch(e.dataDir, db, "1.1.0", now)
	require.NoError(t, err)
	require.NoError(t, MarkHealthy(e.dataDir, "1.1.0"))
	l, err := AtLaunch(e.dataDir, db, "1.1.0", now.Add(time.Hour))
	require.NoError(t, err)
	assert.False(t, l.RolledBack)
	got, _ := os.ReadFile(e.bin)
	assert.True(t, strings.HasPrefix(string(got), "new binary 1.1.0"))
}

func TestDebIsHandedToThePackageManagerAndWaitedFor(t *testing.T) {
	e := newEnv(t)
	name := "parley_1.1.0_amd64.deb"
	require.NoError(t, os.WriteFile(filepath.Join(e.feedDir, name), []byte("a deb"), 0o644))
	e.publish("1.1.0", nil, ReleaseArtifact{Path: filepath.Join(e.feedDir, name), OS: "linux", Arch: "amd64", Kind: KindDeb})
	var ran []Command
	u := e.updater(func(c *Config) {
		c.Kind = KindDeb
		c.Root = func() bool { return false }
		c.LookPath = func(p string) (string, error) { return "/usr/bin/" + p, nil }
		c.Run = func(_ context.Context, cmd Command) error { ran = append(ran, cmd); return nil }
	})
	_, err := u.CheckAndStage(context.Background())
	require.NoError(t, err)
	applied, err := u.Apply(context.Background())
	require.NoError(t, err)
	assert.True(t, applied.Restart)
	require.Len(t, ran, 1)
	assert.Equal(t, "pkexec", ran[0].Path)
	assert.True(t, ran[0].Wait)
	require.Len(t, ran[0].Args, 6)
	assert.Equal(t, []string{"apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y"}, ran[0].Args[:5])
	assert.True(t, filepath.IsAbs(ran[0].Args[5]))
	assert.True(t, strings.HasSuffix(ran[0].Args[5], name))
	rec, err := LoadRecord(e.dataDir)
	require.NoError(t, err)
	require.NotNil(t, rec.Pending)
	assert.Equal(t, KindDeb, rec.Pending.Kind)
}

func TestRefusedByThePackageManagerChangesNothing(t *testing.T) {
	e := newEnv(t)
	name := "parley_1.1.0_amd64.deb"
	require.NoError(t, os.WriteFile(filepath.Join(e.feedDir, name), []byte("a deb"), 0o644))
	e.publish("1.1.0", nil, ReleaseArtifact{Path: filepath.Join(e.feedDir, name), OS: "linux", Arch: "amd64", Kind: KindDeb})
	u := e.updater(func(c *Config) {
		c.Kind = KindDeb
		c.LookPath = func(p string) (string, error) { return "/usr/bin/" + p, nil }
		// The user dismissed the consent prompt: pkexec exits 126.
		c.Run = func(context.Context, Command) error { return errors.New("exit status 126") }
	})
	_, err := u.CheckAndStage(context.Background())
	require.NoError(t, err)
	_, err = u.Apply(context.Background())
	require.ErrorContains(t, err, "package manager")
	assert.Equal(t, StateError, u.Status().State)
	rec, err := LoadRecord(e.dataDir)
	require.NoError(t, err)
	assert.Nil(t, rec.Pending)
}

func TestNSISInstallerRunsSilentlyIntoTheInstalledFolderThenParleyQuits(t *testing.T) {
	e := newEnv(t)
	name := "parley_1.1.0_windows_amd64_installer.exe"
	require.NoError(t, os.WriteFile(filepath.Join(e.feedDir, name), []byte("MZ installer"), 0o644))
	e.publish("1.1.0", nil, ReleaseArtifact{Path: filepath.Join(e.feedDir, name), OS: "windows", Arch: "amd64", Kind: KindNSIS})
	var ran []Command
	u := e.updater(func(c *Config) {
		c.Kind, c.GOOS = KindNSIS, "windows"
		c.Run = func(_ context.Context, cmd Command) error { ran = append(ran, cmd); return nil }
	})
	s, err := u.CheckAndStage(context.Background())
	require.NoError(t, err)
	require.Equal(t, StateReady, s.State)
	applied, err := u.Apply(context.Background())
	require.NoError(t, err)
	assert.False(t, applied.Restart, "the installer replaces Parley: Parley only quits")
	require.Len(t, ran, 1)
	staged := ran[0].Args[3]
	assert.True(t, strings.HasSuffix(staged, name))
	b, err := os.ReadFile(staged)
	require.NoError(t, err)
	assert.Equal(t, "MZ installer", string(b), "the verified file")
	assert.Equal(t, NSISCommand(staged, filepath.Dir(e.bin)), ran[0])
	assert.False(t, ran[0].Wait)
}

func TestCommandLines(t *testing.T) {
	look := func(have ...string) func(string) (string, error) {
		return func(p string) (string, error) {
			for _, h := range have {
				if h == p {
					return "/usr/bin/" + p, nil
				}
			}
			return "", os.ErrNotExist
		}
	}
	apt := []string{"apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "/tmp/p.deb"}
	// As root (CI): the package manager itself, non-interactive, waited for.
	c, err := DebCommand("/tmp/p.deb", true, look("pkexec", "apt-get"))
	require.NoError(t, err)
	assert.Equal(t, Command{Path: "apt-get", Args: apt[1:], Env: []string{"DEBIAN_FRONTEND=noninteractive"}, Wait: true}, c)
	// A user: through the system's consent prompt.
	c, err = DebCommand("/tmp/p.deb", false, look("pkexec", "sudo", "apt-get"))
	require.NoError(t, err)
	assert.Equal(t, Command{Path: "pkexec", Args: apt, Wait: true}, c)
	c, err = DebCommand("/tmp/p.deb", false, look("sudo", "apt-get"))
	require.NoError(t, err)
	assert.Equal(t, Command{Path: "sudo", Args: apt, Wait: true}, c)
	c, err = DebCommand("/tmp/p.deb", false, look("pkexec"))
	require.NoError(t, err)
	assert.Equal(t, Command{Path: "pkexec", Args: []string{"dpkg", "-i", "/tmp/p.deb"}, Wait: true}, c)
	_, err = DebCommand("/tmp/p.deb", false, look("apt-get"))
	require.ErrorContains(t, err, "apt-get install /tmp/p.deb")

	// NSIS: silently, into the installed folder, through the shell (UAC);
	// Parley does not wait for it.
	n := NSISCommand(`C:\Users\a b\AppData\Roaming\Parley\update\staging\x-setup.exe`, `C:\Program Files\Parley`)
	assert.False(t, n.Wait)
	assert.Equal(t, "cmd.exe", n.Path)
	assert.Equal(t, []string{"/c", "start", "", `C:\Users\a b\AppData\Roaming\Parley\update\staging\x-setup.exe`, "/S", `/D=C:\Program Files\Parley`}, n.Args)
	assert.Equal(t, `cmd.exe /c start "" "C:\Users\a b\AppData\Roaming\Parley\update\staging\x-setup.exe" /S /D=C:\Program Files\Parley`, n.WindowsCmdLine)
	assert.Equal(t, []string{"/c", "start", "", "setup.exe", "/S"}, NSISCommand("setup.exe", "").Args)

	mac := MacCommands("/tmp/P.zip", "/Applications/.u", "TEAM123")
	require.Len(t, mac, 2)
	assert.Equal(t, []string{"-x", "-k", "/tmp/P.zip", "/Applications/.u"}, mac[0].Args)
	assert.Contains(t, mac[1].Args[3], `"TEAM123"`)
	assert.Equal(t, "/Applications/.u/Parley.app", mac[1].Args[4])
}

func TestSwapBundleKeepsTheOldOne(t *testing.T) {
	dir := t.TempDir()
	installed := filepath.Join(dir, "Parley.app")
	unpacked := filepath.Join(dir, "u", "Parley.app")
	require.NoError(t, os.MkdirAll(filepath.Join(installed, "Contents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(installed, "Contents", "v"), []byte("old"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(unpacked, "Contents"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(unpacked, "Contents", "v"), []byte("new"), 0o644))
	backup, err := SwapBundle(unpacked, installed)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "Parley.old.app"), backup)
	b, _ := os.ReadFile(filepath.Join(installed, "Contents", "v"))
	assert.Equal(t, "new", string(b))
	b, _ = os.ReadFile(filepath.Join(backup, "Contents", "v"))
	assert.Equal(t, "old", string(b))
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.0.0", "1.0.0", 0}, {"v1.0.0", "1.0.0", 0}, {"1.0.0", "1.0.1", -1}, {"1.10.0", "1.9.0", 1},
		{"1.0.0-rc.1", "1.0.0", -1}, {"1.0.0-rc.2", "1.0.0-rc.10", -1}, {"dev", "0.0.1", -1}, {"1.0", "1.0.0", 0},
		// git describe: after the tag, not before it; a commit hash is no release.
		{"v1.2.3-4-gabc1234", "1.2.3", 0}, {"v1.2.3-4-gabc1234-dirty", "1.2.4", -1}, {"v1.2.3-dirty", "1.2.3", 0},
		{"1011392", "0.1.1", -1}, {"1011392-dirty", "0.1.1", -1}, {"1.2.3+git4.abc", "1.2.3", 0}} {
		assert.Equal(t, c.want, CompareVersions(c.a, c.b), "%s vs %s", c.a, c.b)
	}
	assert.False(t, ValidVersion("1011392"))
	assert.True(t, ValidVersion("v0.1.1"))
}

func TestParseKeysTakesTwoForRotation(t *testing.T) {
	a, _, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	b, bPriv, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	keys, err := ParseKeys(a.String() + ", " + b.String())
	require.NoError(t, err)
	require.Len(t, keys, 2)
	body := []byte(`{"schema":1}`)
	_, err = VerifyFeed(body, minisign.Sign(bPriv, body), keys)
	require.NoError(t, err, "the second key verifies")
	_, err = ParseKeys("not a key")
	require.Error(t, err)
}

func TestMacBundleIsCheckedForItsTeamThenSwappedWithABackup(t *testing.T) {
	e := newEnv(t)
	apps := t.TempDir()
	bundle := filepath.Join(apps, "Parley.app")
	require.NoError(t, os.MkdirAll(filepath.Join(bundle, "Contents", "MacOS"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bundle, "Contents", "MacOS", "parley"), []byte("old"), 0o755))
	name := "parley_1.1.0_macos_universal.zip"
	require.NoError(t, os.WriteFile(filepath.Join(e.feedDir, name), []byte("PK zipped app"), 0o644))
	e.publish("1.1.0", nil, ReleaseArtifact{Path: filepath.Join(e.feedDir, name), OS: "darwin", Arch: "arm64", Kind: KindMac})
	var ran []Command
	signedBy := "TEAM123456"
	u := e.updater(func(c *Config) {
		c.Kind, c.GOOS, c.GOARCH, c.Binary = KindMac, "darwin", "arm64", bundle
		c.TeamOf = func(b string) (string, error) { assert.Equal(t, bundle, b); return "TEAM123456", nil }
		c.Run = func(_ context.Context, cmd Command) error {
			ran = append(ran, cmd)
			switch cmd.Path {
			case "/usr/bin/ditto": // unpacks the verified zip
				app := filepath.Join(cmd.Args[3], "Parley.app", "Contents", "MacOS")
				require.NoError(t, os.MkdirAll(app, 0o755))
				return os.WriteFile(filepath.Join(app, "parley"), []byte("new"), 0o755)
			case "/usr/bin/codesign": // the requirement names the running app's team
				if !strings.Contains(strings.Join(cmd.Args, " "), `"`+signedBy+`"`) {
					return errors.New("code failed to satisfy specified code requirement(s)")
				}
			}
			return nil
		}
	})
	_, err := u.CheckAndStage(context.Background())
	require.NoError(t, err)
	applied, err := u.Apply(context.Background())
	require.NoError(t, err)
	require.Len(t, ran, 2)
	assert.Equal(t, filepath.Join(bundle, "Contents", "MacOS", "parley"), applied.Binary, "the program inside the new bundle starts")
	b, _ := os.ReadFile(filepath.Join(bundle, "Contents", "MacOS", "parley"))
	assert.Equal(t, "new", string(b))
	b, _ = os.ReadFile(filepath.Join(apps, "Parley.old.app", "Contents", "MacOS", "parley"))
	assert.Equal(t, "old", string(b), "the old bundle kept until the new one starts")
	_, err = os.Stat(filepath.Join(apps, ".parley-update"))
	assert.True(t, os.IsNotExist(err))

	// Signed by another team: refused at codesign, the installed bundle untouched.
	e2 := newEnv(t)
	require.NoError(t, os.WriteFile(filepath.Join(e2.feedDir, name), []byte("PK other"), 0o644))
	e2.publish("1.1.0", nil, ReleaseArtifact{Path: filepath.Join(e2.feedDir, name), OS: "darwin", Arch: "arm64", Kind: KindMac})
	signedBy = "OTHERTEAM9"
	ran = nil
	u2 := e2.updater(func(c *Config) {
		c.Kind, c.GOOS, c.GOARCH, c.Binary, c.TeamOf, c.Run = KindMac, "darwin", "arm64", bundle, u.cfg.TeamOf, u.cfg.Run
	})
	_, err = u2.CheckAndStage(context.Background())
	require.NoError(t, err)
	_, err = u2.Apply(context.Background())
	require.ErrorContains(t, err, "code requirement")
	b, _ = os.ReadFile(filepath.Join(bundle, "Contents", "MacOS", "parley"))
	assert.Equal(t, "new", string(b))
	_, err = os.Stat(filepath.Join(apps, ".parley-update"))
	assert.True(t, os.IsNotExist(err))

	// An unsigned running app cannot check an update's team: nothing runs.
	ran = nil
	u3 := e2.updater(func(c *Config) {
		c.Kind, c.GOOS, c.GOARCH, c.Binary, c.Run = KindMac, "darwin", "arm64", bundle, u.cfg.Run
		c.TeamOf = func(string) (string, error) { return ParseTeam("Identifier=parley\nTeamIdentifier=not set\n") }
	})
	_, err = u3.CheckAndStage(context.Background())
	require.NoError(t, err)
	_, err = u3.Apply(context.Background())
	require.ErrorContains(t, err, "signing team is unknown")
	assert.Empty(t, ran)
}

func TestParseTeam(t *testing.T) {
	team, err := ParseTeam("Executable=/Applications/Parley.app/Contents/MacOS/parley\nIdentifier=com.wails.parley\nAuthority=Developer ID Application: Parley (AB12CD34EF)\nTeamIdentifier=AB12CD34EF\n")
	require.NoError(t, err)
	assert.Equal(t, "AB12CD34EF", team)
	_, err = ParseTeam("Signature=adhoc\nTeamIdentifier=not set\n")
	require.Error(t, err)
}
