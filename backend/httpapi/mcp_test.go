package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/mcp/mcptest"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

func (f *fakeBackend) MCPServers() []api.MCPServer { return nil }
func (f *fakeBackend) PutMCPServer(string, api.MCPServerConfig) (api.MCPServer, error) {
	return api.MCPServer{}, f.err
}
func (f *fakeBackend) DeleteMCPServer(string) error { return f.err }
func (f *fakeBackend) SetMCPToolPolicy(string, string, string) (api.MCPTool, error) {
	return api.MCPTool{}, f.err
}
func (f *fakeBackend) ImportMCPConfig([]byte) (api.MCPImportResult, error) {
	return api.MCPImportResult{}, f.err
}

// mcpService is the real service on a temporary data folder.
func mcpService(t *testing.T) (*service.Service, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: events.NewRecorder(),
		Config: config.Config{DataDir: dir}, Version: "test",
		MCPOptions: func(o *mcp.Options) { o.MinBackoff, o.Terminate = 20*time.Millisecond, 300*time.Millisecond }})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	return svc, dir
}

func TestMCPServerEndpoints(t *testing.T) {
	bin := mcptest.BuildTestServer(t)
	svc, dir := mcpService(t)
	_, ts, _ := newTestServer(t, svc)

	code, body := do(t, ts, "GET", "/api/v1/mcp/servers", "", nil)
	require.Equal(t, 200, code, body)
	assert.JSONEq(t, `[]`, body)

	put := `{"command":` + jsonStr(bin) + `,"args":[],"env":{"API_KEY":"very-secret-key"}}`
	code, body = do(t, ts, "PUT", "/api/v1/mcp/servers/local", put, nil)
	require.Equal(t, 200, code, body)
	assert.NotContains(t, body, "very-secret-key")
	var srv api.MCPServer
	require.NoError(t, json.Unmarshal([]byte(body), &srv))
	assert.Equal(t, "local", srv.Name)
	assert.Equal(t, []string{"API_KEY"}, srv.EnvKeys)
	assert.True(t, srv.Enabled)

	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/mcp/servers", "", nil)
		return strings.Contains(body, `"status":"connected"`) && strings.Contains(body, `"model_name":"local__echo"`)
	}, 20*time.Second, 20*time.Millisecond)
	_, body = do(t, ts, "GET", "/api/v1/mcp/servers", "", nil)
	assert.NotContains(t, body, "very-secret-key")
	code, one := do(t, ts, "GET", "/api/v1/mcp/servers/local", "", nil)
	require.Equal(t, 200, code, one)
	assert.JSONEq(t, strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(body), "["), "]"), one, "one server, as the list shows it")
	code, _ = do(t, ts, "GET", "/api/v1/mcp/servers/nope", "", nil)
	assert.Equal(t, 404, code)
	assert.Contains(t, body, `{"name":"echo","description":"Echoes back the message","policy":"ask","model_name":"local__echo"}`)

	code, body = do(t, ts, "PUT", "/api/v1/mcp/servers/local/tools/echo", `{"policy":"allow"}`, nil)
	require.Equal(t, 200, code, body)
	assert.JSONEq(t, `{"name":"echo","description":"Echoes back the message","policy":"allow","model_name":"local__echo"}`, body)

	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"PUT", "/api/v1/mcp/servers/local/tools/echo", `{"policy":"maybe"}`, 400},
		{"PUT", "/api/v1/mcp/servers/local/tools/nope", `{"policy":"allow"}`, 404},
		{"PUT", "/api/v1/mcp/servers/nope/tools/echo", `{"policy":"allow"}`, 404},
		{"PUT", "/api/v1/mcp/servers/bad%20name", `{"command":"x"}`, 400},
		{"PUT", "/api/v1/mcp/servers/both", `{"command":"x","url":"http://127.0.0.1:1/"}`, 400},
		{"PUT", "/api/v1/mcp/servers/none", `{"args":["x"]}`, 400},
		{"PUT", "/api/v1/mcp/servers/junk", `{"command":`, 400},
		{"DELETE", "/api/v1/mcp/servers/nope", ``, 404},
		{"POST", "/api/v1/mcp/import", `not json`, 400},
	} {
		code, body := do(t, ts, c.method, c.path, c.body, nil)
		assert.Equal(t, c.want, code, "%s %s: %s", c.method, c.path, body)
		assert.Contains(t, body, `"error":`)
	}

	code, body = do(t, ts, "POST", "/api/v1/mcp/import",
		`{"mcpServers":{"local":{"command":"x"},"web":{"url":"http://127.0.0.1:1/mcp","headers":{"X-Key":"hdr-secret"},"disabled":true},"bad!":{"command":"y"}}}`, nil)
	require.Equal(t, 200, code, body)
	var imp api.MCPImportResult
	require.NoError(t, json.Unmarshal([]byte(body), &imp))
	assert.Equal(t, []string{"web"}, imp.Added)
	assert.Len(t, imp.Skipped, 2)
	_, body = do(t, ts, "GET", "/api/v1/mcp/servers", "", nil)
	assert.Contains(t, body, `"header_keys":["X-Key"]`)
	assert.NotContains(t, body, "hdr-secret")

	code, body = do(t, ts, "DELETE", "/api/v1/mcp/servers/local", "", nil)
	require.Equal(t, 200, code, body)
	_, body = do(t, ts, "GET", "/api/v1/mcp/servers", "", nil)
	assert.NotContains(t, body, `"name":"local"`)
	assert.FileExists(t, filepath.Join(dir, mcp.ConfigFile))
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The respond endpoint with approval cards: 404 unknown or of another
// conversation, 422 edited arguments that fail the tool's schema (nothing
// changes), 200 with the whole card, then 409.
func TestRespondToAnApprovalCard(t *testing.T) {
	bin := mcptest.BuildTestServer(t)
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Tool said: " + last.Content}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "local__echo", Arguments: `{"message":"hi"}`}}}
	})
	t.Cleanup(model.Close)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, mcp.ConfigFile), []byte(`{"mcpServers":{"local":{"command":`+jsonStr(bin)+`}}}`), 0o600))
	db, err := store.Open(filepath.Join(dir, "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	cfg := config.Config{DataDir: dir, BaseURL: model.URL(), Model: "scripted", QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: events.NewRecorder(), Config: cfg, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	_, ts, _ := newTestServer(t, svc)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/mcp/servers", "", nil)
		return strings.Contains(body, `"status":"connected"`)
	}, 20*time.Second, 20*time.Millisecond)

	newConv := func() string {
		code, body := do(t, ts, "POST", "/api/v1/conversations", `{}`, nil)
		require.Equal(t, 201, code, body)
		var conv struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(body), &conv))
		return conv.ID
	}
	conv, other := newConv(), newConv()
	code, body := do(t, ts, "POST", "/api/v1/conversations/"+conv+"/messages", `{"content":"echo hi"}`, nil)
	require.Equal(t, 202, code, body)
	var pending map[string]any
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+conv+"/pending-question", "", nil)
		pending = nil
		_ = json.Unmarshal([]byte(body), &pending)
		return pending["has_pending_question"] == true
	}, 15*time.Second, 10*time.Millisecond)
	// The whole card: kind, source and the tool call.
	assert.Equal(t, "approval", pending["kind"])
	assert.Equal(t, map[string]any{"type": "mcp", "server": "local", "tool": "echo"}, pending["source"])
	tool := pending["tool"].(map[string]any)
	assert.Equal(t, map[string]any{"message": "hi"}, tool["arguments"])
	assert.Equal(t, "echo", tool["name"])
	id := pending["question_id"].(string)

	respond := func(conv, body string) (int, string) {
		return do(t, ts, "POST", "/api/v1/conversations/"+conv+"/respond", body, nil)
	}
	code, body = respond(conv, `{"question_id":"00000000-0000-4000-8000-000000000000","action":"approve"}`)
	assert.Equal(t, 404, code, body)
	code, body = respond(other, `{"question_id":"`+id+`","action":"approve"}`)
	assert.Equal(t, 404, code, body)
	code, body = respond(conv, `{"question_id":"`+id+`","action":"approve","arguments":{"message":5}}`)
	assert.Equal(t, 422, code, body)
	assert.Contains(t, body, "/message")
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv+"/respond", `{"question_id":"`+id+`","action":"approve","arguments":{"message":5}}`,
		map[string]string{"Accept-Language": "de"})
	assert.Equal(t, 422, code, body)
	assert.True(t, strings.HasPrefix(errorOf(t, body), "ungültige Antwort: die bearbeiteten Argumente passen nicht zum Eingabeschema des Werkzeugs: "), body)
	code, body = respond(conv, `{"question_id":"`+id+`","action":"accept"}`)
	assert.Equal(t, 422, code, body)
	code, body = respond(conv, `{"question_id":"`+id+`","action":"telepathy"}`)
	assert.Equal(t, 400, code, body)
	_, body = do(t, ts, "GET", "/api/v1/conversations/"+conv+"/pending-question", "", nil)
	assert.Contains(t, body, `"status":"pending"`, "a refused answer changed the card")

	code, body = respond(conv, `{"question_id":"`+id+`","action":"approve","arguments":{"message":"edited"}}`)
	require.Equal(t, 200, code, body)
	var card map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &card))
	assert.Equal(t, "approved", card["status"])
	assert.Equal(t, map[string]any{"message": "edited"}, card["approved_arguments"])
	code, body = respond(conv, `{"question_id":"`+id+`","action":"reject"}`)
	assert.Equal(t, 409, code, body)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+conv, "", nil)
		return strings.Contains(body, `"state":"idle"`) && strings.Contains(body, "Tool said: Echo: edited")
	}, 15*time.Second, 10*time.Millisecond)
	code, body = do(t, ts, "GET", "/api/v1/questions?status=approved", "", nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, id)
}

// Issue 23: a page of another site could make a browser send a form or a
// text/plain body with the login cookie and no Origin header; a new MCP
// server's command would then run at once. Both ways in are refused, and
// nothing is saved or started.
func TestForgedMCPServerIsNeitherSavedNorStarted(t *testing.T) {
	svc, dir := mcpService(t)
	_, ts, _ := newTestServer(t, svc)
	marker := filepath.Join(t.TempDir(), "ran")
	server := `{"command":"sh","args":["-c",` + jsonStr("touch "+marker) + `]}`
	cookie := map[string]string{"Authorization": "", "Cookie": CookieName + "=" + testToken}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
		cookie["Content-Type"] = ct
		code, body := do(t, ts, "PUT", "/api/v1/mcp/servers/evil", server, cookie)
		assert.Equal(t, 415, code, body)
		code, body = do(t, ts, "POST", "/api/v1/mcp/import", `{"mcpServers":{"evil":`+server+`}}`, cookie)
		assert.Equal(t, 415, code, body)
	}
	assert.Empty(t, svc.MCPServers())
	_, err := os.Stat(filepath.Join(dir, "mcp.json"))
	assert.True(t, os.IsNotExist(err), "mcp.json written: %v", err)
	_, err = os.Stat(marker)
	assert.True(t, os.IsNotExist(err), "the forged server's command ran")
}
