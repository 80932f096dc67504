package service

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/modelserver"
)

// envAt opens a service whose model server is baseURL; model and apiKey
// are set on the command line when not empty.
func envAt(t *testing.T, baseURL, model, apiKey string) *env {
	t.Helper()
	set := map[string]bool{"base-url": true}
	if model != "" {
		set["model"] = true
	}
	if apiKey != "" {
		set["api-key"] = true
	}
	e := &env{t: t, dbPath: filepath.Join(t.TempDir(), "parley.db"),
		cfg: config.Config{BaseURL: baseURL, Model: model, APIKey: apiKey, Set: set}}
	e.open()
	t.Cleanup(e.close)
	return e
}

// closedPortURL is a base URL where nothing listens.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/v1"
}

func statusJSON(t *testing.T, st ModelStatus) map[string]any {
	t.Helper()
	b, err := json.Marshal(st)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// llama.cpp's server (and LM Studio, vLLM) have no Ollama API: their
// models come from GET /v1/models, and whether they call tools is unknown.
func TestModelStatusOfAnOpenAICompatibleServer(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithoutOllamaAPI(), modelserver.WithAPIKey("sk-local"),
		modelserver.WithModels([]string{"org/qwen3-8b-Q4_K_M.gguf"}))
	t.Cleanup(srv.Close)
	e := envAt(t, srv.URL(), "", "sk-local")

	st := statusJSON(t, e.svc.CheckModelServer(context.Background()))
	assert.Equal(t, true, st["reachable"], st["message"])
	assert.Equal(t, false, st["ollama"])
	assert.Equal(t, []any{map[string]any{"name": "org/qwen3-8b-Q4_K_M.gguf", "supports_tools": false, "tools_unknown": true}}, st["models"])
}

func TestModelStatusOfOllamaKnowsTools(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{"parley-fixture:latest", "tiny:1b"}, "tiny:1b"))
	t.Cleanup(srv.Close)
	e := envAt(t, srv.URL(), "parley-fixture", "")

	st := statusJSON(t, e.svc.CheckModelServer(context.Background()))
	assert.Equal(t, true, st["reachable"])
	assert.Equal(t, true, st["ollama"])
	assert.Equal(t, []any{
		map[string]any{"name": "parley-fixture:latest", "supports_tools": true},
		map[string]any{"name": "tiny:1b", "supports_tools": false},
	}, st["models"])
}

// With no model chosen, Parley picks one from an OpenAI-compatible
// server's list as it does from Ollama's.
func TestPicksAModelOfAnOpenAICompatibleServer(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "hello back"}), modelserver.WithoutOllamaAPI(),
		modelserver.WithModels([]string{"org/model.gguf"}))
	t.Cleanup(srv.Close)
	e := envAt(t, srv.URL(), "", "")
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateIdle, chat.StateError)
	require.Equal(t, chat.StateIdle, d.State, d.Error)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "org/model.gguf", reqs[0].Model)
}

// Sending with no model server running names that cause, in plain words:
// not "no model is chosen", and no Markdown backticks.
func TestSendWithNoServerSaysItCannotBeReached(t *testing.T) {
	base := closedPortURL(t)
	e := envAt(t, base, "", "")
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateError)
	assert.Equal(t, "Cannot reach the model server at "+base+". Is your model server running?", d.Error)

	st := e.svc.CheckModelServer(ctx)
	assert.False(t, st.Reachable)
	assert.Equal(t, d.Error, st.Message, "the status and the run name the same cause")
}

func TestSendWithNoModelOnTheServerSaysSo(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{}))
	t.Cleanup(srv.Close)
	e := envAt(t, srv.URL(), "", "")
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	d := e.waitState(c.ID, chat.StateError)
	assert.Contains(t, d.Error, "The model server at "+srv.URL()+" has no models yet.")
	assert.NotContains(t, d.Error, "`")
	assert.Empty(t, srv.Requests(), "no chat request without a model")
}

// A pull that fails says why and whose fault it is, and the model:pull
// events end with that error too.
func TestPullFailures(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(),
		modelserver.WithPullFault("offline", modelserver.PullRegistryDown),
		modelserver.WithPullFault("flaky", modelserver.PullFailsMidway))
	t.Cleanup(srv.Close)
	e := envAt(t, srv.URL(), "", "")
	ctx := context.Background()

	err := e.svc.PullModel(ctx, "no such model!")
	require.Equal(t, fault.Input, fault.KindOf(err), "%v", err)
	assert.Contains(t, err.Error(), `Ollama refused the model name "no such model!"`)

	err = e.svc.PullModel(ctx, "offline")
	require.Equal(t, fault.Upstream, fault.KindOf(err), "%v", err)
	assert.Contains(t, err.Error(), "Ollama could not reach its model library to download offline.")

	err = e.svc.PullModel(ctx, "flaky")
	require.Equal(t, fault.Upstream, fault.KindOf(err), "%v", err)
	assert.Equal(t, "Downloading flaky failed: max retries exceeded: read tcp 10.0.0.2:51234->104.21.75.227:443: read: connection reset by peer", err.Error())

	var flaky []events.ModelPullPayload
	for _, ev := range e.rec.Events() {
		if p, ok := ev.Payload.(events.ModelPullPayload); ok && ev.Name == events.ModelPull && p.Model == "flaky" {
			flaky = append(flaky, p)
		}
	}
	require.GreaterOrEqual(t, len(flaky), 2)
	assert.Equal(t, "pulling manifest", flaky[0].Status)
	last := flaky[len(flaky)-1]
	assert.Equal(t, "error", last.Status)
	assert.Equal(t, err.Error(), last.Error)

	require.NoError(t, e.svc.PullModel(ctx, "qwen3"))
	st := e.svc.CheckModelServer(ctx)
	assert.Contains(t, st.Models, ModelInfo{Name: "qwen3:latest", SupportsTools: true})

	err = envAt(t, closedPortURL(t), "", "").svc.PullModel(ctx, "qwen3")
	require.Equal(t, fault.Upstream, fault.KindOf(err), "%v", err)
	assert.True(t, strings.HasPrefix(err.Error(), "Cannot reach the model server at "), err.Error())
}

// Issue 23: in demo mode the status also lists the configured server's
// models, so that turning demo mode off in Settings shows them at once.
func TestModelStatusInDemoModeListsTheServersModelsToo(t *testing.T) {
	srv := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{"parley-fixture:latest", "tiny:1b"}, "tiny:1b"))
	t.Cleanup(srv.Close)
	e := envAt(t, srv.URL(), "parley-fixture", "")
	e.enableDemo()

	st := e.svc.CheckModelServer(context.Background())
	assert.True(t, st.Demo)
	assert.Equal(t, []ModelInfo{{Name: "parley-demo", SupportsTools: true}}, st.Models)
	var names []string
	for _, m := range st.ServerModels {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"parley-fixture:latest", "tiny:1b"}, names)

	srv.Close() // the server goes away: demo mode still answers, without its models
	st = e.svc.CheckModelServer(context.Background())
	assert.True(t, st.Reachable)
	assert.Empty(t, st.ServerModels)
}
