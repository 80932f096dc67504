package engine

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/sidecar"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/llm"
)

// The engine process in these tests is this test binary run again with
// childEnv set: it then runs the engine, as `parley engine` does.
const childEnv = "PARLEY_ENGINE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(sidecar.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func newSupervisor(t *testing.T, idle time.Duration) *Supervisor {
	t.Helper()
	s, err := New(Config{
		Command: []string{os.Args[0]}, Env: []string{childEnv + "=1"},
		LibDir: enginetest.LibDir(t), StateDir: t.TempDir(), ModelsDir: "/models",
		IdleTimeout: idle, Context: 2048, Threads: 1,
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	var models []Model
	for _, e := range enginetest.Write(t, t.TempDir()) {
		models = append(models, Model{ID: e.ID, Path: e.Path})
	}
	require.NoError(t, s.SetModels(models))
	return s
}

func model(t *testing.T, s *Supervisor, id string) llm.Model {
	t.Helper()
	m, err := llm.NewOpenAI(llm.Config{BaseURL: BaseURL, Model: id, Transport: s.Transport()})
	require.NoError(t, err)
	return m
}

func ask(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "user", Content: text}}}
}

// stats asks the running engine for its counters.
func stats(t *testing.T, s *Supervisor) sidecar.Stats {
	t.Helper()
	res, err := (&http.Client{Transport: s.Transport()}).Get("http://parley-engine/debug/stats")
	require.NoError(t, err)
	defer res.Body.Close()
	var st sidecar.Stats
	require.NoError(t, json.NewDecoder(res.Body).Decode(&st))
	return st
}

func TestStartsOnFirstNeedAndStreams(t *testing.T) {
	s := newSupervisor(t, 0)
	st := s.Status()
	assert.Equal(t, StateStopped, st.State, "nothing runs before it is needed")
	assert.Nil(t, st.Model)
	assert.Equal(t, "/models", st.ModelsDir)

	var deltas []string
	res, err := model(t, s, "fixed").Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: "user", Content: "Hi"}},
		OnDelta:  func(d string) { deltas = append(deltas, d) },
	})
	require.NoError(t, err)
	assert.Equal(t, enginetest.Answer, res.Text)
	assert.Greater(t, len(deltas), 3, "streamed in pieces")
	require.NotNil(t, res.Usage)
	assert.Positive(t, res.Usage.PromptTokens)

	st = s.Status()
	assert.Equal(t, StateReady, st.State)
	require.NotNil(t, st.Model)
	assert.Equal(t, "fixed", *st.Model)
	assert.NotEmpty(t, st.Backend, "the backend ggml chose")
	t.Logf("backend: %s", st.Backend)

	again, err := model(t, s, "fixed").Chat(context.Background(), ask("Hi"))
	require.NoError(t, err)
	assert.Equal(t, res.Text, again.Text, "the same request, the same text")
}

func TestQuestionCardCallThroughTheEngine(t *testing.T) {
	s := newSupervisor(t, 0)
	req := ask("Pick a colour for me")
	req.Tools = []llm.Tool{{Name: "ask_user_question", Description: "Ask the user", Parameters: map[string]any{"type": "object"}}}
	res, err := model(t, s, "card").Chat(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, res.ToolCalls, 1)
	assert.Equal(t, "ask_user_question", res.ToolCalls[0].Name)
	assert.JSONEq(t, enginetest.CardArguments, res.ToolCalls[0].Arguments)
}

func TestSecretIsRequired(t *testing.T) {
	s := newSupervisor(t, 0)
	_, err := model(t, s, "fixed").Chat(context.Background(), ask("Hi"))
	require.NoError(t, err)
	addr := s.Addr()
	require.NotEmpty(t, addr)
	assert.True(t, strings.HasPrefix(addr, "127.0.0.1:"), "loopback only: %s", addr)
	res, err := http.Get("http://" + addr + "/v1/models")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "a request without the secret is refused")
}

func TestKillMidReplyThenRestart(t *testing.T) {
	s := newSupervisor(t, 0)
	killed, old := false, 0
	res, err := model(t, s, "loop").Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: "user", Content: "Sing"}},
		OnDelta: func(string) {
			if !killed {
				killed, old = true, s.PID()
				require.NoError(t, syscall.Kill(old, syscall.SIGKILL))
			}
		},
	})
	require.True(t, killed)
	require.Error(t, err, "the reply in progress fails")
	var fe *fault.Error
	require.True(t, errors.As(err, &fe), "a *fault.Error: %v", err)
	assert.Equal(t, CodeStopped, fe.Code)
	assert.Equal(t, "The built-in engine stopped while answering (it crashed or ran out of memory). Send the message again to restart it.", err.Error())
	assert.NotEmpty(t, res.Text, "the text that came before stays")
	require.Eventually(t, func() bool { return s.Status().State == StateError }, 10*time.Second, 5*time.Millisecond)
	assert.Contains(t, s.Status().Error, "stopped while answering")

	next, err := model(t, s, "fixed").Chat(context.Background(), ask("Hi again"))
	require.NoError(t, err, "the next message starts the engine again")
	assert.Equal(t, enginetest.Answer, next.Text)
	assert.Equal(t, StateReady, s.Status().State)
	assert.NotEqual(t, old, s.PID())
}

func TestCancelStopsTheEnginesGeneration(t *testing.T) {
	s := newSupervisor(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	got := 0
	_, err := model(t, s, "loop").Chat(ctx, llm.Request{
		Messages: []llm.Message{{Role: "user", Content: "Sing"}},
		OnDelta: func(string) {
			if got++; got == 5 {
				cancel()
			}
		},
	})
	require.ErrorIs(t, err, context.Canceled)
	var st sidecar.Stats
	require.Eventually(t, func() bool {
		st = stats(t, s)
		return st.Cancelled == 1 && !st.Active
	}, 10*time.Second, 5*time.Millisecond, "the engine stopped generating")
	again := stats(t, s)
	assert.Equal(t, st.GeneratedTokens, again.GeneratedTokens, "no token after the stop")
	assert.Less(t, st.GeneratedTokens, int64(1500), "it stopped well before the context's end")
}

func TestIdleEngineIsStoppedAndStartsAgain(t *testing.T) {
	s := newSupervisor(t, 300*time.Millisecond)
	_, err := model(t, s, "fixed").Chat(context.Background(), ask("Hi"))
	require.NoError(t, err)
	first := s.PID()
	require.NotZero(t, first)
	require.Eventually(t, func() bool { return s.Status().State == StateStopped && s.IdleStops() == 1 },
		10*time.Second, 10*time.Millisecond, "an idle engine is stopped (its model unloaded)")
	assert.Nil(t, s.Status().Model)
	assert.Zero(t, s.PID())

	res, err := model(t, s, "fixed").Chat(context.Background(), ask("Hi"))
	require.NoError(t, err)
	assert.Equal(t, enginetest.Answer, res.Text)
	assert.NotEqual(t, first, s.PID())
}

func TestStartFailureIsSaid(t *testing.T) {
	s, err := New(Config{Command: []string{os.Args[0]}, Env: []string{childEnv + "=1"}, LibDir: t.TempDir(), StateDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	_, err = model(t, s, "fixed").Chat(context.Background(), ask("Hi"))
	require.Error(t, err)
	var fe *fault.Error
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, CodeStartFailed, fe.Code)
	assert.Contains(t, err.Error(), "The built-in engine could not start")
	assert.Equal(t, StateError, s.Status().State)
}
