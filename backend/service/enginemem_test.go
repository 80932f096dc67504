package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/engine/ram"
	"github.com/parley-app/parley/backend/fault"
)

// A model that needs more memory than the machine has in all (SPEC §12):
// a message to it ends in error with one sentence saying so, before any
// engine starts, the user's message kept; choosing it is refused (422)
// with the same sentence. Once the user insists ("Load anyway",
// remembered), it loads and answers. The machine's memory is injected:
// 256 MB, below the fixture's estimated need (its file plus the context's
// half gigabyte).
func TestModelTooBigForTheMachineIsRefusedUnlessAllowed(t *testing.T) {
	machine := ram.Machine{Total: 256 << 20, Available: 200 << 20}
	e, data := builtinEnvWith(t, map[string]ggufgen.Spec{"fixed": {Answer: enginetest.Answer}}, func(o *Options) {
		o.MachineMemory = func() (ram.Machine, error) { return machine, nil }
	})
	svc := e.svc
	ctx := context.Background()

	st, err := svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, machine, st.Memory, "the engine's status says the machine's memory")
	models, err := svc.EngineModels(ctx)
	require.NoError(t, err)
	require.Len(t, models, 1)
	fi, err := os.Stat(filepath.Join(data, "models", "fixed.gguf"))
	require.NoError(t, err)
	need := library.EstimateRAM(fi.Size())
	assert.Equal(t, need, models[0].RAM, "an imported or found model's need is estimated from its file")
	assert.False(t, models[0].AllowLarge)
	sentence := "fixed needs about " + memoryText(uint64(need)) + " of memory; this computer has 256 MB. " +
		"Choose a smaller model, or allow it in Settings → Models."

	c, err := svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Hello, big model"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateError, chat.StateIdle)
	require.Equal(t, chat.StateError, d.State)
	assert.Equal(t, sentence, d.Error, "one clear sentence")
	require.NotEmpty(t, d.Messages)
	assert.Equal(t, "user", d.Messages[0].Role)
	assert.Equal(t, "Hello, big model", d.Messages[0].Content, "the user's message is kept")
	for _, m := range d.Messages {
		assert.NotEqual(t, "assistant", m.Role, "no answer was made up")
	}
	st, err = svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, engine.StateStopped, st.State, "no engine started for a model that does not fit")

	// Choosing it is refused the same way, and nothing changes.
	set := svc.GetSettings()
	before := set.Model
	set.Model = "fixed"
	_, err = svc.SaveSettings(ctx, set)
	require.Error(t, err)
	assert.Equal(t, fault.Validation, fault.KindOf(err))
	assert.Equal(t, CodeTooBig, fault.CodeOf(err))
	assert.Equal(t, sentence, err.Error())
	assert.Equal(t, before, svc.GetSettings().Model)

	// The user insists: remembered per model, then it loads.
	m, err := svc.UpdateEngineModel(ctx, api.UpdateEngineModelArgs{ID: "fixed", AllowLarge: new(true)})
	require.NoError(t, err)
	assert.True(t, m.AllowLarge)
	_, err = svc.UpdateEngineModel(ctx, api.UpdateEngineModelArgs{ID: "nope", AllowLarge: new(true)})
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
	_, err = svc.SaveSettings(ctx, set)
	require.NoError(t, err, "an allowed model may be chosen")
	_, err = svc.Send(ctx, c.ID, api.SendRequest{Content: "Please answer anyway"})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle, chat.StateError)
	require.Equal(t, chat.StateIdle, d.State, "error: %s", d.Error)
	assert.Equal(t, enginetest.Answer, d.Messages[len(d.Messages)-1].Content)
	assert.Equal(t, "Hello, big model", d.Messages[0].Content)
}

// With PARLEY_MACHINE_MEMORY (Config.MachineMemory) the service takes that
// figure; the default reads the system's.
func TestMachineMemoryFromConfigAndSystem(t *testing.T) {
	e, _ := builtinEnvWith(t, map[string]ggufgen.Spec{}, func(o *Options) { o.Config.MachineMemory = 3 << 30 })
	st, err := e.svc.EngineStatus(context.Background())
	require.NoError(t, err)
	assert.Equal(t, uint64(3<<30), st.Memory.Total)

	e, _ = builtinEnv(t, map[string]ggufgen.Spec{})
	st, err = e.svc.EngineStatus(context.Background())
	require.NoError(t, err)
	sys, err := ram.Read()
	require.NoError(t, err)
	assert.Equal(t, sys.Total, st.Memory.Total, "the system's answer")
}
