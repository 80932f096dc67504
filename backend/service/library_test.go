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
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/store"
)

// A chosen built-in model whose file went missing behind Parley's back is
// shown broken, refused when chosen again (422), and a message sent to it
// ends in error saying why, before any engine starts.
func TestBrokenBuiltinModelIsRefused(t *testing.T) {
	data := t.TempDir()
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	defer db.Close()
	rec := events.NewRecorder()
	cfg := config.Config{DataDir: data, ModelsDir: filepath.Join(t.TempDir(), "models"), QuestionTimeout: time.Minute}
	svc, err := New(context.Background(), Options{Store: db, Events: rec, Config: cfg, Version: "test",
		MCPOptions: fastMCP, EngineCommand: []string{"/nonexistent/engine"}})
	require.NoError(t, err)
	defer svc.Close()
	ctx := context.Background()
	e := &env{t: t, svc: svc, rec: rec}

	st, err := svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, cfg.ModelsDir, st.ModelsDir, "--models-dir")
	assert.DirExists(t, cfg.ModelsDir, "made at start")

	p := filepath.Join(t.TempDir(), "pocket.gguf")
	require.NoError(t, ggufgen.Write(p, ggufgen.Spec{Answer: "Hi."}))
	m, err := svc.ImportEngineModel(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "pocket", m.ID)

	set := svc.GetSettings()
	set.Engine, set.Model = config.EngineBuiltin, "nothing-like-it"
	_, err = svc.SaveSettings(ctx, set)
	assert.Equal(t, fault.Validation, fault.KindOf(err), "a model that is not installed")
	set.Model = "pocket"
	_, err = svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	listed, err := svc.ListModels(ctx)
	require.NoError(t, err)
	assert.Equal(t, []ModelInfo{{Name: "pocket", SupportsTools: true}}, listed, "with the built-in engine, the models are the installed ones")

	require.NoError(t, os.Remove(p))
	models, err := svc.EngineModels(ctx)
	require.NoError(t, err)
	require.Len(t, models, 1)
	assert.Equal(t, "broken", models[0].State)

	_, err = svc.SaveSettings(ctx, set)
	require.NoError(t, err, "saving other settings keeps the chosen model")

	c, err := svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Hello"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateError)
	assert.Contains(t, d.Error, "pocket")
	assert.Contains(t, d.Error, "missing")
	st, err = svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, "stopped", st.State, "no engine started for a broken model")

	set.Engine, set.Model = config.EngineServer, ""
	_, err = svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	set.Engine, set.Model = config.EngineBuiltin, "pocket"
	_, err = svc.SaveSettings(ctx, set)
	assert.Equal(t, fault.Validation, fault.KindOf(err), "choosing a broken model")
}
