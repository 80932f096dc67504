package service

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/modelserver"
)

// newEmbedEnv is newEnv with a scripted server that also makes embeddings
// (Ollama's /api/embed; backend/modelserver/embed.go follows its docs).
func newEmbedEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, dbPath: filepath.Join(t.TempDir(), "parley.db"),
		model: modelserver.New(memoryScript(), modelserver.WithEmbeddingModels("nomic-embed-text"))}
	t.Cleanup(e.model.Close)
	e.cfg = config.Config{BaseURL: e.model.URL(), Model: "scripted", QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	e.open()
	t.Cleanup(e.close)
	return e
}

func (e *env) setEmbeddingModel(model string) {
	e.t.Helper()
	st := e.svc.GetSettings()
	st.EmbeddingModel = model
	_, err := e.svc.SaveSettings(context.Background(), st)
	require.NoError(e.t, err)
}

// With an embedding model set, memories get their vectors, and past the
// prompt's budget the memory nearest the user's message by meaning (no
// keyword shared: "automobile" for "car") is in the system prompt the
// model server receives; without the model it is not.
func TestMemoriesNearestByMeaningGoIntoThePrompt(t *testing.T) {
	e := newEmbedEnv(t)
	ctx := context.Background()
	e.setEmbeddingModel("nomic-embed-text")
	// The oldest memory, so recency alone never lists it.
	near, err := e.svc.CreateMemory(ctx, api.MemoryRequest{Text: "The user drives an old automobile."})
	require.NoError(t, err)
	for i := range 300 {
		_, err := e.svc.CreateMemory(ctx, api.MemoryRequest{Text: fmt.Sprintf("Filler fact number %d about nothing in particular at all.", i)})
		require.NoError(t, err)
	}
	e.svc.vectors.waitPass(ctx)
	without, err := e.db.MemoriesWithoutVector(ctx, "nomic-embed-text", 10)
	require.NoError(t, err)
	assert.Empty(t, without, "every memory has its vector")
	vs, err := e.db.MemoryVectors(ctx, "nomic-embed-text", []string{near.ID})
	require.NoError(t, err)
	assert.Len(t, vs[near.ID], modelserver.EmbeddingDims)

	// First without the model (a memory listed counts as used, and the
	// newest used are listed first: the near one must not be listed before).
	e.setEmbeddingModel("")
	c := e.sendNew("Which car should I buy now?")
	e.waitState(c.ID, chat.StateIdle)
	system := systemPromptOf(t, e.model, "Which car should I buy now?")
	assert.NotContains(t, system, "automobile", "by keyword alone it is not found")

	e.setEmbeddingModel("nomic-embed-text")
	c = e.sendNew("Which car should I buy?")
	e.waitState(c.ID, chat.StateIdle)
	system = systemPromptOf(t, e.model, "Which car should I buy?")
	assert.Contains(t, system, "The user drives an old automobile.", "nearest by meaning")
	assert.Less(t, len(system), 2000*4+2000, "past the budget, not everything is listed")

	// A changed text loses its vector and gets the new text's.
	_, err = e.svc.UpdateMemory(ctx, near.ID, api.MemoryUpdate{Text: new("The user rides a bicycle.")})
	require.NoError(t, err)
	e.svc.vectors.waitPass(ctx)
	vs2, err := e.db.MemoryVectors(ctx, "nomic-embed-text", []string{near.ID})
	require.NoError(t, err)
	require.Len(t, vs2[near.ID], modelserver.EmbeddingDims)
	assert.NotEqual(t, vs[near.ID], vs2[near.ID])
}
