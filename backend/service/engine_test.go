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
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/store"
)

// engineChildEnv makes this test binary, run again, the engine process.
const engineChildEnv = "PARLEY_ENGINE_TEST_CHILD"

// TestBuiltinEngineAsksACard: with "engine":"builtin", a message is
// answered by Parley's own engine (a real process on the real libraries),
// here with the fixture model whose greedy output is a question card call,
// in its template's format: the card arrives.
func TestBuiltinEngineAsksACard(t *testing.T) {
	enginetest.LibDir(t)
	t.Setenv(engineChildEnv, "1")
	data := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(data, "models"), 0o755))
	require.NoError(t, ggufgen.Write(filepath.Join(data, "models", "card.gguf"),
		ggufgen.Spec{Answer: "Let me ask.\n<tool_call>\n" + enginetest.Card + "\n</tool_call>"}))

	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	defer db.Close()
	rec := events.NewRecorder()
	cfg := config.Config{DataDir: data, Engine: config.EngineBuiltin, QuestionTimeout: time.Minute,
		Set: map[string]bool{"engine": true}}
	svc, err := New(context.Background(), Options{Store: db, Events: rec, Config: cfg, Version: "test",
		MCPOptions: fastMCP, EngineCommand: []string{os.Args[0]}})
	require.NoError(t, err)
	defer svc.Close()
	e := &env{t: t, svc: svc, rec: rec}

	st, err := svc.EngineStatus(context.Background())
	require.NoError(t, err)
	assert.Equal(t, engine.StateStopped, st.State, "nothing runs before the first message")
	assert.Equal(t, filepath.Join(data, "models"), st.ModelsDir)

	ctx := context.Background()
	c, err := svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Pick a colour for my bedroom"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse, chat.StateError)
	require.Equal(t, chat.StateAwaitingUserResponse, d.State, "error: %s", d.Error)
	require.NotNil(t, d.PendingQuestion)
	assert.Equal(t, "Which colour?", d.PendingQuestion.Questions[0].Question)

	st, err = svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, engine.StateReady, st.State)
	require.NotNil(t, st.Model)
	assert.Equal(t, "card", *st.Model, "the first installed model, none being chosen")

	// engine:state told each change, the engine object as payload.
	var states []string
	for _, ev := range rec.Events() {
		if ev.Name == events.EngineState {
			states = append(states, ev.Payload.(engine.Status).State)
		}
	}
	assert.Subset(t, states, []string{engine.StateStarting, engine.StateReady}, "engine:state events: %v", states)
}
