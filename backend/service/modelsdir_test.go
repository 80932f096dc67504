package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/hubtest"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/engine/ram"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/store"
)

// libraryEnv is a service whose model library downloads from hub (the
// loopback hub of backend/engine/hubtest, Hugging Face's wire format),
// on a machine of the given memory, with no engine process.
func libraryEnv(t *testing.T, hub *hubtest.Server, memory uint64, cfg config.Config, change func(*Options)) (*env, string) {
	t.Helper()
	data := cfg.DataDir
	if data == "" {
		data = t.TempDir()
	}
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	cfg.DataDir, cfg.QuestionTimeout = data, time.Minute
	if hub != nil {
		cfg.HFEndpoint = hub.URL()
	}
	opt := Options{Store: db, Events: events.NewRecorder(), Config: cfg, Version: "test",
		MCPOptions: fastMCP, EngineCommand: []string{"/nonexistent/engine"},
		MachineMemory: func() (ram.Machine, error) { return ram.Machine{Total: memory, Available: memory}, nil },
		LibraryOptions: func(o *library.Options) {
			o.FreeSpace = func(string) (uint64, error) { return 100 << 30, nil }
			o.RetryDelay = 5 * time.Millisecond
		}}
	if change != nil {
		change(&opt)
	}
	svc, err := New(context.Background(), opt)
	require.NoError(t, err)
	e := &env{t: t, svc: svc, db: db}
	t.Cleanup(e.close)
	return e, data
}

// fixtureBytes is a generated GGUF's content.
func fixtureBytes(t *testing.T, spec ggufgen.Spec) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.gguf")
	require.NoError(t, ggufgen.Write(p, spec))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// A GGUF asked for by repository and file is judged before it downloads:
// its size from the hub, the memory it needs (the estimate of installed
// models) against the machine's, the disk; nothing is downloaded.
func TestCheckHubFileBeforeDownload(t *testing.T) {
	hub := hubtest.New()
	defer hub.Close()
	content := fixtureBytes(t, ggufgen.Spec{Answer: "Hi."})
	const repo, file = "acme/tiny-GGUF", "tiny-Q4_K_M.gguf"
	hub.Add(repo, file, content, hubtest.Mode{Redirect: true})
	hub.Add(repo, "README.md", []byte("# hi"), hubtest.Mode{})
	ctx := context.Background()
	need := library.EstimateRAM(int64(len(content)))

	big, _ := libraryEnv(t, hub, 8<<30, config.Config{}, nil)
	f, err := big.svc.CheckHubFile(ctx, api.HubFileArgs{Repo: repo, File: file})
	require.NoError(t, err)
	assert.Equal(t, library.HubFile{Repo: repo, File: file, Revision: "main", Size: int64(len(content)), RAM: need,
		Memory: 8 << 30, Fits: true, FreeDisk: 100 << 30, DiskFits: true}, f, "size after the redirect; fits")

	small, data := libraryEnv(t, hub, 256<<20, config.Config{}, nil)
	f, err = small.svc.CheckHubFile(ctx, api.HubFileArgs{Repo: repo, File: file})
	require.NoError(t, err)
	assert.Equal(t, need, f.RAM)
	assert.False(t, f.Fits, "needs %d, the machine has 256 MB", need)
	assert.EqualValues(t, 256<<20, f.Memory)

	for _, c := range []struct {
		args api.HubFileArgs
		kind fault.Kind
		says string
	}{
		{api.HubFileArgs{Repo: repo, File: "missing.gguf"}, fault.Validation, "404"},
		{api.HubFileArgs{Repo: "acme/nothing", File: file}, fault.Validation, "Hugging Face hub"},
		{api.HubFileArgs{Repo: repo, File: "README.md"}, fault.Validation, "GGUF"},
		{api.HubFileArgs{Repo: "not a repo", File: file}, fault.Input, "not a repo"},
	} {
		_, err := small.svc.CheckHubFile(ctx, c.args)
		require.Error(t, err, "%+v", c.args)
		assert.Equal(t, c.kind, fault.KindOf(err), "%+v: %v", c.args, err)
		assert.Contains(t, err.Error(), c.says)
		// The download says the same.
		_, derr := small.svc.StartEngineDownload(ctx, api.EngineDownloadRequest{Repo: c.args.Repo, File: c.args.File})
		assert.Equal(t, fault.KindOf(derr), fault.KindOf(err), "the same refusal as the download")
	}

	hub.Close()
	_, err = small.svc.CheckHubFile(ctx, api.HubFileArgs{Repo: repo, File: file})
	require.Error(t, err)
	assert.Equal(t, fault.Upstream, fault.KindOf(err))
	assert.Contains(t, err.Error(), "cannot be reached")

	downloads, err := small.svc.EngineDownloads(ctx)
	require.NoError(t, err)
	assert.Empty(t, downloads, "nothing is downloaded by a check")
	parts, err := filepath.Glob(filepath.Join(data, "models", ".downloads", "*"))
	require.NoError(t, err)
	assert.Empty(t, parts)
}

// The disk is judged as the download judges it: size + 1 GB free.
func TestCheckHubFileSaysTheDiskIsTooSmall(t *testing.T) {
	hub := hubtest.New()
	defer hub.Close()
	content := fixtureBytes(t, ggufgen.Spec{Answer: "Hi."})
	hub.Add("acme/tiny-GGUF", "tiny.gguf", content, hubtest.Mode{})
	e, _ := libraryEnv(t, hub, 8<<30, config.Config{}, func(o *Options) {
		o.LibraryOptions = func(lo *library.Options) {
			lo.FreeSpace = func(string) (uint64, error) { return 1 << 30, nil }
		}
	})
	f, err := e.svc.CheckHubFile(context.Background(), api.HubFileArgs{Repo: "acme/tiny-GGUF", File: "tiny.gguf"})
	require.NoError(t, err)
	assert.EqualValues(t, 1<<30, f.FreeDisk)
	assert.False(t, f.DiskFits, "%d bytes + the 1 GB reserve > 1 GB free", len(content))
	assert.True(t, f.Fits)
}

// The models folder is a setting: the library reopens on the new folder
// (its GGUFs listed, partial files not, the old folder's models no longer
// listed and left on disk), bad folders are refused with nothing changed,
// and the choice is kept across a restart.
func TestModelsFolderSetting(t *testing.T) {
	e, data := libraryEnv(t, nil, 8<<30, config.Config{}, nil)
	ctx := context.Background()
	oldDir := filepath.Join(data, "models")
	require.NoError(t, ggufgen.Write(filepath.Join(oldDir, "old.gguf"), ggufgen.Spec{Answer: "Old."}))
	other := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.MkdirAll(filepath.Join(other, ".downloads"), 0o755))
	require.NoError(t, ggufgen.Write(filepath.Join(other, "found.gguf"), ggufgen.Spec{Answer: "Found."}))
	require.NoError(t, os.WriteFile(filepath.Join(other, ".downloads", "abc.part"), []byte("GGUF partial"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(other, "half.gguf.part"), []byte("GGUF partial"), 0o644))

	ids := func() []string {
		models, err := e.svc.EngineModels(ctx)
		require.NoError(t, err)
		var out []string
		for _, m := range models {
			out = append(out, m.ID)
		}
		return out
	}
	dirNow := func() string {
		st, err := e.svc.EngineStatus(ctx)
		require.NoError(t, err)
		assert.False(t, st.ModelsDirByFlag)
		return st.ModelsDir
	}
	assert.Equal(t, []string{"old"}, ids())
	assert.Equal(t, oldDir, dirNow(), "the default: <data dir>/models")

	// Bad folders: a clear error, nothing changed.
	notAFolder := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notAFolder, []byte("x"), 0o644))
	for _, c := range []struct {
		dir  string
		kind fault.Kind
		says string
	}{
		{"models", fault.Input, "absolute"},
		{"./rel/models", fault.Input, "absolute"},
		{notAFolder, fault.Validation, "not a folder"},
		{filepath.Join(notAFolder, "sub"), fault.Validation, "cannot be used"},
	} {
		set := e.svc.GetSettings()
		set.EngineModelsDir = c.dir
		_, err := e.svc.SaveSettings(ctx, set)
		require.Error(t, err, c.dir)
		assert.Equal(t, c.kind, fault.KindOf(err), "%s: %v", c.dir, err)
		assert.Contains(t, err.Error(), c.says)
		assert.Equal(t, "", e.svc.GetSettings().EngineModelsDir, "nothing changed")
		assert.Equal(t, oldDir, dirNow())
		assert.Equal(t, []string{"old"}, ids())
	}

	oldBefore, err := os.ReadDir(oldDir)
	require.NoError(t, err)
	set := e.svc.GetSettings()
	set.EngineModelsDir = "  " + other + "/ "
	saved, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	assert.Equal(t, other, saved.EngineModelsDir, "trimmed, cleaned")
	assert.Equal(t, other, dirNow())
	assert.Equal(t, []string{"found"}, ids(), "the new folder's GGUFs; no partial file; not the old folder's")
	oldAfter, err := os.ReadDir(oldDir)
	require.NoError(t, err)
	assert.Equal(t, names(oldBefore), names(oldAfter), "the old folder is left as it was")
	assert.FileExists(t, filepath.Join(oldDir, "old.gguf"))

	// A folder that does not exist yet is made.
	fresh := filepath.Join(t.TempDir(), "a", "b")
	set.EngineModelsDir = fresh
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	assert.DirExists(t, fresh)
	assert.Empty(t, ids())
	set.EngineModelsDir = other
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)

	// Kept across a restart.
	e.svc.Close()
	e.db.Close()
	e.svc, e.db = nil, nil
	e2, _ := libraryEnv(t, nil, 8<<30, config.Config{DataDir: data}, nil)
	e = e2
	assert.Equal(t, other, e.svc.GetSettings().EngineModelsDir)
	assert.Equal(t, other, dirNow())
	assert.Equal(t, []string{"found"}, ids())

	// Back to the default.
	set = e.svc.GetSettings()
	set.EngineModelsDir = ""
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	assert.Equal(t, oldDir, dirNow())
	assert.Equal(t, []string{"old"}, ids())
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// --models-dir / PARLEY_MODELS_DIR wins over the setting: the status says
// so, and changing the setting is refused while it is given.
func TestModelsFolderFlagWins(t *testing.T) {
	data := t.TempDir()
	saved := filepath.Join(t.TempDir(), "saved")
	e, _ := libraryEnv(t, nil, 8<<30, config.Config{DataDir: data}, nil)
	ctx := context.Background()
	set := e.svc.GetSettings()
	set.EngineModelsDir = saved
	_, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	e.close()

	flag := filepath.Join(t.TempDir(), "flag")
	e, _ = libraryEnv(t, nil, 8<<30, config.Config{DataDir: data, ModelsDir: flag, Set: map[string]bool{"models-dir": true}}, nil)
	st, err := e.svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, flag, st.ModelsDir, "the flag wins over the saved setting")
	assert.True(t, st.ModelsDirByFlag)
	assert.Equal(t, saved, e.svc.GetSettings().EngineModelsDir, "the setting stays saved for a start without the flag")

	set = e.svc.GetSettings()
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err, "saving other settings is fine")
	set.EngineModelsDir = filepath.Join(t.TempDir(), "other")
	_, err = e.svc.SaveSettings(ctx, set)
	require.Error(t, err)
	assert.Equal(t, fault.Conflict, fault.KindOf(err))
	assert.Contains(t, err.Error(), "command line")
	assert.Equal(t, saved, e.svc.GetSettings().EngineModelsDir, "nothing changed")
}

// The folder does not change under a download with work to do (its
// partial file is in the old folder): 409 with the reason, nothing
// changed; once it is cancelled the change goes through.
func TestModelsFolderRefusedWhileADownloadRuns(t *testing.T) {
	hub := hubtest.New()
	defer hub.Close()
	content := fixtureBytes(t, ggufgen.Spec{Answer: "Hi.", Size: 4 << 20})
	hub.Add("acme/slow-GGUF", "slow.gguf", content, hubtest.Mode{BytesPerSecond: 64 << 10})
	e, data := libraryEnv(t, hub, 8<<30, config.Config{}, nil)
	ctx := context.Background()
	d, err := e.svc.StartEngineDownload(ctx, api.EngineDownloadRequest{Repo: "acme/slow-GGUF", File: "slow.gguf"})
	require.NoError(t, err)

	set := e.svc.GetSettings()
	set.EngineModelsDir = filepath.Join(t.TempDir(), "new")
	_, err = e.svc.SaveSettings(ctx, set)
	require.Error(t, err)
	assert.Equal(t, fault.Conflict, fault.KindOf(err))
	assert.Contains(t, err.Error(), "1 download")
	assert.Equal(t, "", e.svc.GetSettings().EngineModelsDir, "nothing changed")
	st, err := e.svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(data, "models"), st.ModelsDir)

	_, err = e.svc.PauseEngineDownload(ctx, d.ID)
	require.NoError(t, err)
	_, err = e.svc.SaveSettings(ctx, set)
	assert.Equal(t, fault.Conflict, fault.KindOf(err), "a paused download too")

	_, err = e.svc.CancelEngineDownload(ctx, d.ID)
	require.NoError(t, err)
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	st, err = e.svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, set.EngineModelsDir, st.ModelsDir)
}

// Changing the folder while the engine streams a reply: the reply ends
// (cleanly: the run is over, in error with a sentence or idle), nothing
// crashes or races, and the next message is answered by the model of the
// new folder.
func TestModelsFolderChangeWhileStreaming(t *testing.T) {
	e, _ := builtinEnv(t, map[string]ggufgen.Spec{"endless": {Answer: "and again ", Loop: true}})
	ctx := context.Background()
	set := e.svc.GetSettings()
	set.Model = "endless"
	_, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	other := t.TempDir()
	require.NoError(t, ggufgen.Write(filepath.Join(other, "fixed.gguf"), ggufgen.Spec{Answer: enginetest.Answer}))

	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Go on"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		deltas := 0
		for _, ev := range e.rec.Events() {
			if ev.Name == events.MessageDelta {
				deltas++
			}
		}
		return deltas >= 3
	}, time.Minute, 5*time.Millisecond, "the reply streams")

	set.EngineModelsDir, set.Model = other, "fixed"
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateError, chat.StateIdle)
	if d.State == chat.StateError {
		assert.NotEmpty(t, d.Error, "a sentence says why the reply ended")
	}
	assert.Equal(t, "Go on", d.Messages[0].Content, "the user's message is kept")

	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Hello"})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle, chat.StateError)
	require.Equal(t, chat.StateIdle, d.State, "error: %s", d.Error)
	assert.Equal(t, enginetest.Answer, d.Messages[len(d.Messages)-1].Content, "the new folder's model answers")
}
