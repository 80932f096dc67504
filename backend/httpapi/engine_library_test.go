package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/hubtest"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// The fake backend of the handler tests has an empty model library.
func (f *fakeBackend) EngineModels(context.Context) ([]library.Model, error) { return nil, f.err }
func (f *fakeBackend) EngineCatalog(context.Context) ([]library.CatalogEntry, error) {
	return nil, f.err
}
func (f *fakeBackend) EngineDownloads(context.Context) ([]library.Download, error) { return nil, f.err }
func (f *fakeBackend) StartEngineDownload(context.Context, api.EngineDownloadRequest) (library.Download, error) {
	return library.Download{}, f.err
}
func (f *fakeBackend) PauseEngineDownload(context.Context, string) (library.Download, error) {
	return library.Download{}, f.err
}
func (f *fakeBackend) ResumeEngineDownload(context.Context, string) (library.Download, error) {
	return library.Download{}, f.err
}
func (f *fakeBackend) CancelEngineDownload(context.Context, string) (library.Download, error) {
	return library.Download{}, f.err
}
func (f *fakeBackend) ImportEngineModel(context.Context, string) (library.Model, error) {
	return library.Model{}, f.err
}
func (f *fakeBackend) UpdateEngineModel(context.Context, api.UpdateEngineModelArgs) (library.Model, error) {
	return library.Model{}, f.err
}
func (f *fakeBackend) DeleteEngineModel(context.Context, string) error { return f.err }

// The model library's endpoints (SPEC §12) on the real service, against a
// fake hub: statuses, downloads to the end, pause/resume/cancel, import,
// delete, 422 and 507, the engine:download events, and choosing a model.
func TestEngineLibraryEndpoints(t *testing.T) {
	hub := hubtest.New()
	t.Cleanup(hub.Close)
	gen := func(name string, seed uint64) []byte {
		p := filepath.Join(t.TempDir(), name)
		require.NoError(t, ggufgen.Write(p, ggufgen.Spec{Seed: seed}))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return b
	}
	hub.Add("acme/tiny-GGUF", "tiny.gguf", gen("tiny.gguf", 1), hubtest.Mode{Redirect: true})
	hub.Add("acme/tiny-GGUF", "slow.gguf", gen("slow.gguf", 2), hubtest.Mode{BytesPerSecond: 20_000})
	hub.Add("acme/tiny-GGUF", "notes.txt", []byte("hello"), hubtest.Mode{})

	data := t.TempDir()
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	var free atomic.Uint64
	free.Store(100 << 30)
	rec := events.NewRecorder()
	cfg := config.Config{DataDir: data, HFEndpoint: hub.URL(), QuestionTimeout: time.Minute}
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: rec, Config: cfg, Version: "test",
		LibraryOptions: func(o *library.Options) {
			o.FreeSpace = func(string) (uint64, error) { return free.Load(), nil }
			o.Catalog = []library.CatalogEntry{{ID: "tiny", Name: "Tiny", Repo: "acme/tiny-GGUF", File: "tiny.gguf", Size: 1, RAM: 2, Capabilities: []string{}}}
		}})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	_, ts, _ := newTestServer(t, svc)

	code, body := do(t, ts, "GET", "/api/v1/engine/models", "", nil)
	require.Equal(t, 200, code, body)
	assert.JSONEq(t, `[]`, body)
	code, body = do(t, ts, "GET", "/api/v1/engine/catalog", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"installed":false`)
	code, body = do(t, ts, "GET", "/api/v1/engine", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"models_dir":`+quoteJSON(filepath.Join(data, "models")))
	assert.Contains(t, body, `"memory":{"total":`, "the machine's memory")

	// A catalogue download, to the end.
	code, body = do(t, ts, "POST", "/api/v1/engine/downloads", `{"catalog_id":"tiny"}`, nil)
	require.Equal(t, 202, code, body)
	var d library.Download
	require.NoError(t, json.Unmarshal([]byte(body), &d))
	assert.Equal(t, "acme/tiny-GGUF", d.Repo)
	waitDownload := func(id, want string) library.Download {
		t.Helper()
		var got library.Download
		require.Eventually(t, func() bool {
			code, body := do(t, ts, "GET", "/api/v1/engine/downloads", "", nil)
			require.Equal(t, 200, code, body)
			var list []library.Download
			require.NoError(t, json.Unmarshal([]byte(body), &list))
			for _, x := range list {
				if x.ID == id {
					got = x
				}
			}
			return got.State == want
		}, 30*time.Second, 10*time.Millisecond, "download %s: want %s, last %+v", id, want, got)
		return got
	}
	d = waitDownload(d.ID, library.DownloadDone)
	code, body = do(t, ts, "GET", "/api/v1/engine/models", "", nil)
	require.Equal(t, 200, code, body)
	var models []library.Model
	require.NoError(t, json.Unmarshal([]byte(body), &models))
	require.Len(t, models, 1)
	assert.Equal(t, d.Model, models[0].ID)
	assert.Equal(t, library.StateReady, models[0].State)
	assert.Equal(t, "acme/tiny-GGUF", models[0].Source.Repo)
	assert.Contains(t, body, `"source":{"repo":"acme/tiny-GGUF","file":"tiny.gguf","revision":"main"}`)
	assert.NotContains(t, body, `"path"`, "the file's place on disk is not said for a downloaded model")
	code, body = do(t, ts, "GET", "/api/v1/engine/catalog", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"installed":true`)
	require.Eventually(t, func() bool {
		for _, ev := range rec.Events() {
			if p, ok := ev.Payload.(library.Download); ev.Name == events.EngineDownload && ok && p.State == library.DownloadDone {
				return true
			}
		}
		return false
	}, 5*time.Second, 5*time.Millisecond, "engine:download says done")
	code, body = do(t, ts, "POST", "/api/v1/engine/downloads", `{"catalog_id":"tiny"}`, nil)
	assert.Equal(t, 409, code, "already installed: %s", body)

	// Refusals: 422 (not a GGUF, not on the hub), 400, 404, 507.
	for _, c := range []struct {
		body string
		code int
	}{
		{`{"repo":"acme/tiny-GGUF","file":"notes.txt"}`, 422},
		{`{"repo":"acme/tiny-GGUF","file":"missing.gguf"}`, 422},
		{`{"repo":"acme/other","file":"tiny.gguf"}`, 422},
		{`{"repo":"no spaces/allowed here","file":"tiny.gguf"}`, 400},
		{`{}`, 400},
		{`{"catalog_id":"nope"}`, 404},
	} {
		code, body := do(t, ts, "POST", "/api/v1/engine/downloads", c.body, nil)
		assert.Equal(t, c.code, code, "%s: %s", c.body, body)
	}
	free.Store(1 << 30)
	code, body = do(t, ts, "POST", "/api/v1/engine/downloads", `{"repo":"acme/tiny-GGUF","file":"slow.gguf"}`, nil)
	assert.Equal(t, 507, code, "not enough free disk: %s", body)
	assert.Contains(t, body, `"error":`)
	free.Store(100 << 30)

	// Pause, resume, cancel.
	code, body = do(t, ts, "POST", "/api/v1/engine/downloads", `{"repo":"acme/tiny-GGUF","file":"slow.gguf"}`, nil)
	require.Equal(t, 202, code, body)
	d = library.Download{}
	require.NoError(t, json.Unmarshal([]byte(body), &d))
	waitDownload(d.ID, library.DownloadDownloading)
	code, body = do(t, ts, "POST", "/api/v1/engine/downloads/"+d.ID+"/pause", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"state":"paused"`)
	code, body = do(t, ts, "POST", "/api/v1/engine/downloads/"+d.ID+"/resume", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"state":"queued"`)
	code, body = do(t, ts, "DELETE", "/api/v1/engine/downloads/"+d.ID, "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"state":"cancelled"`)
	assert.NoFileExists(t, filepath.Join(data, "models", ".downloads", d.ID+".part"))
	code, _ = do(t, ts, "POST", "/api/v1/engine/downloads/nope/pause", "", nil)
	assert.Equal(t, 404, code)
	code, _ = do(t, ts, "POST", "/api/v1/engine/downloads/"+d.ID+"/resume", "", nil)
	assert.Equal(t, 409, code, "a cancelled download does not resume")

	// Import: 201, in place; 422 for what is not a GGUF; 400 for a relative path.
	elsewhere := filepath.Join(t.TempDir(), "mine.gguf")
	require.NoError(t, ggufgen.Write(elsewhere, ggufgen.Spec{Answer: "Hi."}))
	code, body = do(t, ts, "POST", "/api/v1/engine/models/import", `{"path":`+quoteJSON(elsewhere)+`}`, nil)
	require.Equal(t, 201, code, body)
	assert.Contains(t, body, `"source":{"path":`+quoteJSON(elsewhere)+`}`)
	assert.Contains(t, body, `"capabilities":["tools"]`)
	text := filepath.Join(t.TempDir(), "notes.gguf")
	require.NoError(t, os.WriteFile(text, []byte("notes"), 0o600))
	code, body = do(t, ts, "POST", "/api/v1/engine/models/import", `{"path":`+quoteJSON(text)+`}`, nil)
	assert.Equal(t, 422, code, body)
	code, body = do(t, ts, "POST", "/api/v1/engine/models/import", `{"path":"models/x.gguf"}`, nil)
	assert.Equal(t, 400, code, body)

	// Choosing a built-in model: installed and readable, else 422.
	code, body = do(t, ts, "PUT", "/api/v1/settings", `{"engine":"builtin","model":"nope"}`, nil)
	assert.Equal(t, 422, code, "not installed: %s", body)
	code, body = do(t, ts, "PUT", "/api/v1/settings", `{"engine":"builtin","model":"mine"}`, nil)
	require.Equal(t, 200, code, body)
	require.NoError(t, os.Remove(elsewhere))
	code, body = do(t, ts, "GET", "/api/v1/engine/models", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"state":"broken"`, "a file deleted behind Parley's back")
	code, body = do(t, ts, "PUT", "/api/v1/settings", `{"engine":"builtin","model":"slow"}`, nil)
	require.Equal(t, 422, code, "a download that was cancelled is no model: %s", body)
	code, body = do(t, ts, "PUT", "/api/v1/settings", `{"engine":"builtin","model":"tiny"}`, nil)
	require.Equal(t, 200, code, body)
	code, body = do(t, ts, "PUT", "/api/v1/settings", `{"engine":"builtin","model":"mine"}`, nil)
	assert.Equal(t, 422, code, "a broken model is refused when chosen: %s", body)
	assert.Contains(t, body, "missing")

	// "Load anyway", remembered per model (SPEC §12).
	code, body = do(t, ts, "PATCH", "/api/v1/engine/models/tiny", `{"allow_large":true}`, nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"allow_large":true`)
	code, body = do(t, ts, "PATCH", "/api/v1/engine/models/nope", `{"allow_large":true}`, nil)
	assert.Equal(t, 404, code, body)
	code, body = do(t, ts, "PATCH", "/api/v1/engine/models/tiny", `{"allow_large":"yes"}`, nil)
	assert.Equal(t, 400, code, body)

	// Delete: the downloaded file goes; the imported one is forgotten.
	code, body = do(t, ts, "DELETE", "/api/v1/engine/models/tiny", "", nil)
	require.Equal(t, 200, code, body)
	assert.NoFileExists(t, filepath.Join(data, "models", "tiny.gguf"))
	code, body = do(t, ts, "DELETE", "/api/v1/engine/models/mine", "", nil)
	require.Equal(t, 200, code, body)
	code, _ = do(t, ts, "DELETE", "/api/v1/engine/models/mine", "", nil)
	assert.Equal(t, 404, code)
	code, body = do(t, ts, "GET", "/api/v1/engine/models", "", nil)
	require.Equal(t, 200, code, body)
	assert.JSONEq(t, `[]`, body)
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
