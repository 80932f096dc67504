package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// engineChildEnv makes this test binary, run again, the engine process.
const engineChildEnv = "PARLEY_ENGINE_TEST_CHILD"

// engineContextEnv sets that engine's context size in tokens.
const engineContextEnv = "PARLEY_ENGINE_TEST_CONTEXT"

// builtinEnv is a service on the built-in engine (a real process on the
// real libraries: this test binary run again as the engine) with the
// given fixture models in <data>/models.
func builtinEnv(t *testing.T, models map[string]ggufgen.Spec) (*env, string) {
	t.Helper()
	return builtinEnvWith(t, models, nil)
}

// builtinEnvWith is builtinEnv with its service's options changed.
func builtinEnvWith(t *testing.T, models map[string]ggufgen.Spec, change func(*Options)) (*env, string) {
	t.Helper()
	enginetest.LibDir(t)
	t.Setenv(engineChildEnv, "1")
	data := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(data, "models"), 0o755))
	for id, spec := range models {
		require.NoError(t, ggufgen.Write(filepath.Join(data, "models", id+".gguf"), spec))
	}
	db, err := store.Open(filepath.Join(data, "parley.db"))
	require.NoError(t, err)
	rec := events.NewRecorder()
	cfg := config.Config{DataDir: data, Engine: config.EngineBuiltin, QuestionTimeout: time.Minute,
		Set: map[string]bool{"engine": true}}
	opt := Options{Store: db, Events: rec, Config: cfg, Version: "test",
		MCPOptions: fastMCP, EngineCommand: []string{os.Args[0]}}
	if change != nil {
		change(&opt)
	}
	svc, err := New(context.Background(), opt)
	require.NoError(t, err)
	e := &env{t: t, svc: svc, rec: rec, db: db}
	t.Cleanup(e.close)
	return e, data
}

// TestBuiltinEngineAsksACard: with "engine":"builtin", a message is
// answered by Parley's own engine, here with the fixture model whose
// greedy output is a question card call in its template's format: the
// card arrives; once it is answered, the run goes on and the model (which
// now sees the tool's result) answers in words.
func TestBuiltinEngineAsksACard(t *testing.T) {
	e, data := builtinEnv(t, map[string]ggufgen.Spec{"card": enginetest.CardSpec("")})
	svc, rec := e.svc, e.rec

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

	next := e.answerBlue(c, d)
	d = next
	require.Equal(t, chat.StateIdle, d.State, "error: %s", d.Error)
	last := d.Messages[len(d.Messages)-1]
	assert.Equal(t, "assistant", last.Role)
	assert.Equal(t, enginetest.CardFollowUp, last.Content, "the run went on after the answer")
	var tool *chat.Message
	for i := range d.Messages {
		if d.Messages[i].Role == "tool" {
			tool = &d.Messages[i]
		}
	}
	require.NotNil(t, tool, "the answer is the tool's result")
	assert.Contains(t, tool.Content, "Blue")
}

// When the engine is killed mid-reply (kill -9, as an out-of-memory kill
// does), the reply ends in error with one sentence saying so, the text
// that came before stays, and the next message starts the engine again.
func TestBuiltinEngineKilledMidReply(t *testing.T) {
	e, _ := builtinEnv(t, map[string]ggufgen.Spec{
		"loop":  {Answer: "la la la, ", Loop: true},
		"fixed": {Answer: enginetest.Answer},
	})
	ctx := context.Background()
	set := e.svc.GetSettings()
	set.Model = "loop"
	_, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Sing"})
	require.NoError(t, err)

	// Mid-reply: text has streamed.
	require.Eventually(t, func() bool {
		for _, ev := range e.rec.Events() {
			if ev.Name == events.MessageDelta {
				return true
			}
		}
		return false
	}, time.Minute, 5*time.Millisecond, "the reply streams")
	e.svc.mu.Lock()
	sup := e.svc.sup
	e.svc.mu.Unlock()
	pid := sup.PID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))

	d := e.waitState(c.ID, chat.StateError, chat.StateIdle)
	require.Equal(t, chat.StateError, d.State)
	assert.Equal(t, "The built-in engine stopped while answering (it crashed or ran out of memory). Send the message again to restart it.", d.Error)
	last := d.Messages[len(d.Messages)-1]
	assert.Equal(t, "assistant", last.Role)
	assert.True(t, strings.HasPrefix(last.Content, "la"), "the text that came before stays: %q", last.Content)

	set.Model = "fixed"
	_, err = e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Hello again"})
	require.NoError(t, err)
	d = e.waitState(c.ID, chat.StateIdle, chat.StateError)
	require.Equal(t, chat.StateIdle, d.State, "error: %s", d.Error)
	assert.Equal(t, enginetest.Answer, d.Messages[len(d.Messages)-1].Content, "the next message works")
	assert.NotEqual(t, pid, sup.PID(), "on an engine started again")
}

// The engine a start uses (SPEC §12): a fresh install starts on the
// built-in engine unless a server is given; settings saved before the
// engine existed keep their server; a saved choice and --engine hold.
func TestDefaultEngine(t *testing.T) {
	open := func(t *testing.T, dbPath string, cfg config.Config) *Service {
		t.Helper()
		db, err := store.Open(dbPath)
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		svc, err := New(context.Background(), Options{Store: db, Config: cfg, Version: "test", MCPOptions: fastMCP})
		require.NoError(t, err)
		t.Cleanup(svc.Close)
		return svc
	}
	fresh := func(t *testing.T) string { return filepath.Join(t.TempDir(), "parley.db") }

	t.Run("fresh install", func(t *testing.T) {
		assert.Equal(t, config.EngineBuiltin, open(t, fresh(t), config.Config{}).GetSettings().Engine)
	})
	t.Run("a server given", func(t *testing.T) {
		svc := open(t, fresh(t), config.Config{BaseURL: "http://127.0.0.1:1", Set: map[string]bool{"base-url": true}})
		assert.Equal(t, config.EngineServer, svc.GetSettings().Engine)
	})
	t.Run("--engine wins over a server given", func(t *testing.T) {
		svc := open(t, fresh(t), config.Config{BaseURL: "http://127.0.0.1:1", Engine: config.EngineBuiltin,
			Set: map[string]bool{"base-url": true, "engine": true}})
		assert.Equal(t, config.EngineBuiltin, svc.GetSettings().Engine)
	})
	t.Run("settings saved before the engine keep their server", func(t *testing.T) {
		path := fresh(t)
		db, err := store.Open(path)
		require.NoError(t, err)
		// What a version without the engine saved: no "engine" key.
		require.NoError(t, db.SetSetting(context.Background(), settingsKey, map[string]any{
			"base_url": "http://127.0.0.1:11434", "model": "qwen3", "onboarded": true, "theme": "dark",
			"question_timeout_seconds": 300, "rate_limit_seconds": 5, "max_pending_questions": 10}))
		require.NoError(t, db.Close())
		svc := open(t, path, config.Config{})
		st := svc.GetSettings()
		assert.Equal(t, config.EngineServer, st.Engine, "migrated: the server stays")
		assert.Equal(t, "qwen3", st.Model)
		assert.Equal(t, "dark", st.Theme)
	})
	t.Run("a saved choice holds", func(t *testing.T) {
		path := fresh(t)
		svc := open(t, path, config.Config{})
		st := svc.GetSettings()
		st.Engine = config.EngineServer
		_, err := svc.SaveSettings(context.Background(), st)
		require.NoError(t, err)
		svc.Close()
		assert.Equal(t, config.EngineServer, open(t, path, config.Config{}).GetSettings().Engine)
	})
}

// With "engine":"builtin", knowledge's vectors come from the built-in
// engine's /v1/embeddings (here a generated model, pooled by the mean):
// every passage of a collection gets one, and search finds by them.
func TestBuiltinEngineEmbedsKnowledge(t *testing.T) {
	e, _ := builtinEnv(t, map[string]ggufgen.Spec{"embed": {Seed: 3}})
	ctx := context.Background()
	set := e.svc.GetSettings()
	set.EmbeddingModel = "embed"
	_, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)

	docs := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(docs, "garden.txt"), []byte("Tomatoes need sun and water every day in summer."), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(docs, "car.txt"), []byte("Change the oil of the car every ten thousand kilometres."), 0o644))
	name := "Notes"
	c, err := e.svc.CreateCollection(ctx, api.CollectionRequest{Name: &name, Paths: []string{docs}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		got, err := e.svc.Collection(ctx, c.ID)
		if err != nil {
			return false
		}
		c = got
		return c.EmbeddingError != "" || (c.Chunks == 2 && c.EmbeddedChunks == c.Chunks)
	}, time.Minute, 10*time.Millisecond, "every passage gets a vector from the engine")
	require.Empty(t, c.EmbeddingError)
	require.NotNil(t, c.EmbeddingModel)
	assert.Equal(t, "embed", *c.EmbeddingModel)
	st, err := e.svc.EngineStatus(ctx)
	require.NoError(t, err)
	assert.Equal(t, engine.StateReady, st.State, "the engine ran")

	res, err := e.svc.SearchCollection(ctx, c.ID, api.KnowledgeSearchRequest{Query: "Change the oil of the car every ten thousand kilometres."})
	require.NoError(t, err)
	require.NotEmpty(t, res.Results)
	assert.Equal(t, "car.txt", filepath.Base(res.Results[0].Path), "the same text's vector is the nearest")
}

// The engine's threads setting (SPEC §12, issue #40): automatic (0) by
// default; a number outside 0..256 is refused and changes nothing; a new
// number starts the engine again with it at the next message.
func TestBuiltinEngineThreadsSetting(t *testing.T) {
	e, _ := builtinEnv(t, map[string]ggufgen.Spec{"fixed": {Answer: enginetest.Answer}})
	ctx := context.Background()
	set := e.svc.GetSettings()
	assert.Equal(t, 0, set.EngineThreads, "automatic by default")
	set.Model = "fixed"
	_, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	threadsOfEngine := func(text string) string {
		c, err := e.svc.CreateConversation(ctx, "", "")
		require.NoError(t, err)
		_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: text})
		require.NoError(t, err)
		d := e.waitState(c.ID, chat.StateIdle, chat.StateError)
		require.Equal(t, chat.StateIdle, d.State, "error: %s", d.Error)
		e.svc.mu.Lock()
		sup := e.svc.sup
		e.svc.mu.Unlock()
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", sup.PID()))
		require.NoError(t, err)
		args := strings.Split(string(cmdline), "\x00")
		i := slices.Index(args, "--threads")
		require.GreaterOrEqual(t, i, 0, "the engine's arguments %q", args)
		return args[i+1]
	}
	assert.Equal(t, "0", threadsOfEngine("Hello"), "automatic: the engine picks one per core")

	for _, bad := range []int{-1, 257} {
		wrong := set
		wrong.EngineThreads = bad
		_, err = e.svc.SaveSettings(ctx, wrong)
		require.Error(t, err, "%d threads", bad)
		assert.Equal(t, fault.Input, fault.As(err).Kind)
		assert.Equal(t, 0, e.svc.GetSettings().EngineThreads, "nothing changed")
	}

	set.EngineThreads = 1
	saved, err := e.svc.SaveSettings(ctx, set)
	require.NoError(t, err)
	assert.Equal(t, 1, saved.EngineThreads)
	assert.Equal(t, "1", threadsOfEngine("Hello again"), "the engine started again with the new number")
}

// answerBlue answers the fixtures' colour card with "Blue" and waits until
// the run ends or asks again (a new card): the conversation then. Whether
// the run is over is read before what is stored: the other way round, a
// run ending between the two reads left a stale "streaming" judged as the
// end.
func (e *env) answerBlue(c *chat.Conversation, d *api.ConversationDetail) *api.ConversationDetail {
	t, svc, ctx := e.t, e.svc, context.Background()
	t.Helper()
	_, err := svc.Respond(ctx, c.ID, questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	first := d.PendingQuestion.ID
	var next *api.ConversationDetail
	require.Eventually(t, func() bool {
		active := svc.rt.Active(c.ID)
		next, err = svc.GetConversation(ctx, c.ID)
		require.NoError(t, err)
		again := next.PendingQuestion != nil && next.PendingQuestion.ID != first
		return again || (!active && next.State != chat.StateAwaitingUserResponse)
	}, time.Minute, 5*time.Millisecond)
	return next
}
