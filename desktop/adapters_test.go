package desktop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/httpapi"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

const adapterTestToken = "adapters-test-token-0123456789abcdef"

// adapters are the two ways into one service: the HTTP API and the window's
// bound services, over the real service and a SQLite file.
type adapters struct {
	t     *testing.T
	svc   *service.Service
	http  *httptest.Server
	calls *Calls
}

func newAdapters(t *testing.T) *adapters {
	t.Helper()
	// The model asks one question, so a run waits for the user.
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "Thanks."}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName,
			Arguments: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`}}}
	})
	t.Cleanup(model.Close)
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	cfg := config.Config{BaseURL: model.URL(), Model: "scripted", QuestionTimeout: time.Hour, ModelsDir: t.TempDir(),
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	svc, err := service.New(context.Background(), service.Options{Store: db, Config: cfg, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close(); db.Close() })
	ts := httptest.NewServer(httpapi.New(httpapi.Options{Backend: svc, Token: adapterTestToken, Version: "test"}))
	t.Cleanup(ts.Close)
	return &adapters{t: t, svc: svc, http: ts, calls: newCalls(svc)}
}

// do sends one API request and returns the status and the "error" field.
func (a *adapters) do(method, path, body string) (int, string) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.http.URL+path, strings.NewReader(body))
	require.NoError(a.t, err)
	req.Header.Set("Authorization", "Bearer "+adapterTestToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := a.http.Client().Do(req)
	require.NoError(a.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	var out struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(raw, &out) // success bodies need not be objects
	return res.StatusCode, out.Error
}

// The same bad input through the HTTP API and through the bindings fails
// the same way: the API's status is the one for the binding error's kind,
// the window's rejected promise (windowError) carries that kind and status,
// and (where the adapter adds nothing) the message is the same.
func TestBothAdaptersRefuseTheSameInputTheSameWay(t *testing.T) {
	a := newAdapters(t)
	ctx := context.Background()
	idle, err := a.svc.CreateConversation(ctx, "Idle", "")
	require.NoError(t, err)
	busy, err := a.svc.CreateConversation(ctx, "Busy", "")
	require.NoError(t, err)
	_, err = a.svc.Send(ctx, busy.ID, api.SendRequest{Content: "Paint my room"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(a.svc.PendingQuestions()) == 1 }, 15*time.Second, 10*time.Millisecond,
		"the model's question never became a pending card")

	dir := t.TempDir()
	oversized := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(oversized, nil, 0o600))
	require.NoError(t, os.Truncate(oversized, service.MaxImportBytes+1)) // sparse: no disk used
	notAModel := filepath.Join(dir, "notes.gguf")
	require.NoError(t, os.WriteFile(notAModel, []byte("just notes"), 0o600))
	notAnExport := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(notAnExport, []byte(`{"format":"something.else"}`), 0o600))
	longName := strings.Repeat("n", 41)
	badSettings := a.svc.GetSettings()
	badSettings.Theme = "neon"
	bc := a.calls
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	collectionName := "Manuals"
	collection, err := a.svc.CreateCollection(ctx, api.CollectionRequest{Name: &collectionName, Paths: []string{t.TempDir()}})
	require.NoError(t, err)

	cases := []struct {
		name         string
		method, path string
		body         string
		bind         func() error
		want         fault.Kind
		sameMessage  bool // false where an adapter words its own (HTTP's body limit, the file path)
	}{
		{"page size zero", "GET", "/api/v1/conversations?limit=0", "",
			func() error { _, err := bc.ListConversations(api.ListConversationsArgs{Limit: num(0)}); return err }, fault.Input, true},
		{"page size too big", "GET", "/api/v1/conversations?limit=201", "",
			func() error { _, err := bc.ListConversations(api.ListConversationsArgs{Limit: num(201)}); return err }, fault.Input, true},
		{"unknown conversation", "GET", "/api/v1/conversations/nope", "",
			func() error { _, err := bc.GetConversation(api.GetConversationArgs{ID: "nope"}); return err }, fault.NotFound, true},
		{"message to an unknown conversation", "POST", "/api/v1/conversations/nope/messages", `{"content":"hi"}`,
			func() error { _, err := bc.Send(api.SendArgs{ID: "nope", Content: str("hi")}); return err }, fault.NotFound, true},
		{"empty message", "POST", "/api/v1/conversations/" + idle.ID + "/messages", `{"content":"  "}`,
			func() error { _, err := bc.Send(api.SendArgs{ID: idle.ID, Content: str("  ")}); return err }, fault.Input, true},
		{"message too long", "POST", "/api/v1/conversations/" + idle.ID + "/messages",
			`{"content":"` + strings.Repeat("a", service.MaxMessageChars+1) + `"}`,
			func() error {
				_, err := bc.Send(api.SendArgs{ID: idle.ID, Content: str(strings.Repeat("a", service.MaxMessageChars+1))})
				return err
			},
			fault.Input, true},
		{"message while a run is active", "POST", "/api/v1/conversations/" + busy.ID + "/messages", `{"content":"again"}`,
			func() error { _, err := bc.Send(api.SendArgs{ID: busy.ID, Content: str("again")}); return err }, fault.Conflict, true},
		{"retry while a run is active", "POST", "/api/v1/conversations/" + busy.ID + "/retry", "",
			func() error { _, err := bc.Retry(api.ByID{ID: busy.ID}); return err }, fault.Conflict, true},
		{"title too long", "PATCH", "/api/v1/conversations/" + idle.ID, `{"title":"` + strings.Repeat("t", service.MaxTitleChars+1) + `"}`,
			func() error {
				_, err := bc.UpdateConversation(api.UpdateConversationArgs{ID: idle.ID, ConversationUpdate: api.ConversationUpdate{Title: str(strings.Repeat("t", service.MaxTitleChars+1))}})
				return err
			}, fault.Input, true},
		{"unknown assistant", "POST", "/api/v1/conversations", `{"assistant":"ghost"}`,
			func() error {
				_, err := bc.CreateConversation(api.CreateConversationArgs{Assistant: "ghost"})
				return err
			}, fault.Input, true},
		{"cancel an unknown conversation", "POST", "/api/v1/conversations/nope/cancel", "",
			func() error { _, err := bc.Cancel(api.ByID{ID: "nope"}); return err }, fault.NotFound, true},
		{"bad export format", "GET", "/api/v1/conversations/" + idle.ID + "/export?format=pdf", "",
			func() error {
				_, err := bc.ExportConversation(api.ExportArgs{ID: idle.ID, Format: "pdf"})
				return err
			}, fault.Input, true},
		{"oversized import", "POST", "/api/v1/conversations/import", strings.Repeat(" ", service.MaxImportBytes+1),
			func() error { _, err := readImport(oversized); return err }, fault.TooLarge, false},
		{"not an export", "POST", "/api/v1/conversations/import", `{"format":"something.else"}`,
			func() error { _, err := importFile(bc, notAnExport); return err }, fault.Input, true},
		{"unknown card", "POST", "/api/v1/conversations/" + busy.ID + "/respond", `{"question_id":"nope","action":"submit"}`,
			func() error {
				_, err := bc.Respond(api.RespondArgs{ID: busy.ID, Response: questions.Response{QuestionID: "nope", Action: questions.ActionSubmit}})
				return err
			}, fault.NotFound, true},
		{"answer to a card of an unknown conversation", "POST", "/api/v1/conversations/nope/respond", `{"question_id":"latest","action":"decline"}`,
			func() error {
				_, err := bc.Respond(api.RespondArgs{ID: "nope", Response: questions.Response{QuestionID: "latest", Action: questions.ActionDecline}})
				return err
			}, fault.NotFound, true},
		{"invalid answer", "POST", "/api/v1/conversations/" + busy.ID + "/respond",
			`{"question_id":"latest","action":"submit","answers":{"Which colour?":{"selected":["Green"]}}}`,
			func() error {
				_, err := bc.Respond(api.RespondArgs{ID: busy.ID, Response: questions.Response{QuestionID: "latest", Action: questions.ActionSubmit,
					Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Green"}}}}})
				return err
			}, fault.Validation, true},
		{"unknown action", "POST", "/api/v1/conversations/" + busy.ID + "/respond", `{"question_id":"latest","action":"later"}`,
			func() error {
				_, err := bc.Respond(api.RespondArgs{ID: busy.ID, Response: questions.Response{QuestionID: "latest", Action: "later"}})
				return err
			}, fault.Input, true},
		{"no card id", "POST", "/api/v1/conversations/" + busy.ID + "/respond", `{"action":"decline"}`,
			func() error {
				_, err := bc.Respond(api.RespondArgs{ID: busy.ID, Response: questions.Response{Action: questions.ActionDecline}})
				return err
			},
			fault.Input, true},
		{"bad profile name", "PUT", "/api/v1/profiles/" + longName, `{"system_prompt":"x"}`,
			func() error {
				_, err := bc.SaveProfile(assistant.Profile{Name: longName, SystemPrompt: "x"})
				return err
			},
			fault.Input, true},
		{"unknown tool in a profile", "PUT", "/api/v1/profiles/writer", `{"tools":["rm"]}`,
			func() error {
				_, err := bc.SaveProfile(assistant.Profile{Name: "writer", Tools: []string{"rm"}})
				return err
			},
			fault.Input, true},
		{"delete an unknown profile", "DELETE", "/api/v1/profiles/ghost", "",
			func() error { _, err := bc.DeleteProfile(api.ByName{Name: "ghost"}); return err }, fault.NotFound, true},
		{"bad settings", "PUT", "/api/v1/settings", `{"theme":"neon"}`,
			func() error { _, err := bc.SaveSettings(badSettings); return err }, fault.Input, true},
		{"collection update with neither name nor paths", "PATCH", "/api/v1/knowledge/" + collection.ID, `{}`,
			func() error {
				_, err := bc.UpdateCollection(api.UpdateCollectionArgs{ID: collection.ID})
				return err
			},
			fault.Input, true},
		{"pull a model without a name", "POST", "/api/v1/models/pull", `{"model":" "}`,
			func() error { _, err := bc.PullModel(api.PullModelArgs{Model: " "}); return err }, fault.Input, true},
		{"empty memory", "POST", "/api/v1/memory", `{"text":" "}`,
			func() error { _, err := bc.CreateMemory(api.MemoryRequest{Text: " "}); return err }, fault.Input, true},
		{"change an unknown memory", "PATCH", "/api/v1/memory/nope", `{"text":"x"}`,
			func() error {
				_, err := bc.UpdateMemory(api.UpdateMemoryArgs{ID: "nope", MemoryUpdate: api.MemoryUpdate{Text: str("x")}})
				return err
			}, fault.NotFound, true},
		{"import a model by a relative path", "POST", "/api/v1/engine/models/import", `{"path":"models/x.gguf"}`,
			func() error { _, err := bc.ImportEngineModel(api.ImportModelArgs{Path: "models/x.gguf"}); return err }, fault.Input, true},
		{"import a file that is not a GGUF", "POST", "/api/v1/engine/models/import", `{"path":` + strconv.Quote(notAModel) + `}`,
			func() error { _, err := bc.ImportEngineModel(api.ImportModelArgs{Path: notAModel}); return err }, fault.Validation, true},
		{"download a file that is not a GGUF", "POST", "/api/v1/engine/downloads", `{"repo":"acme/tiny-GGUF","file":"README.md"}`,
			func() error {
				_, err := bc.StartEngineDownload(api.EngineDownloadRequest{Repo: "acme/tiny-GGUF", File: "README.md"})
				return err
			}, fault.Validation, true},
		{"pause an unknown download", "POST", "/api/v1/engine/downloads/nope/pause", "",
			func() error { _, err := bc.PauseEngineDownload(api.ByID{ID: "nope"}); return err }, fault.NotFound, true},
		{"remember a question the card does not have", "POST", "/api/v1/conversations/" + busy.ID + "/respond",
			`{"question_id":"latest","action":"submit","answers":{"Which colour?":{"selected":["Red"]}},"remember":["Which size?"]}`,
			func() error {
				_, err := bc.Respond(api.RespondArgs{ID: busy.ID, Response: questions.Response{QuestionID: "latest", Action: questions.ActionSubmit,
					Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}, Remember: []string{"Which size?"}}})
				return err
			}, fault.Input, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, msg := a.do(c.method, c.path, c.body)
			bindErr := c.bind()
			require.Error(t, bindErr, "the binding accepted it")
			assert.Equal(t, c.want, fault.KindOf(bindErr), "binding error kind (%v)", bindErr)
			assert.Equal(t, fault.HTTPStatus(c.want), status, "HTTP status (%s)", msg)
			reply, ok := windowError(bindErr).(fault.Reply)
			require.True(t, ok, "the window's error is a fault.Reply")
			assert.Equal(t, c.want, reply.Kind, "the window's kind")
			assert.Equal(t, status, reply.Status, "the window's status")
			if c.sameMessage {
				assert.Equal(t, bindErr.Error(), msg, "the adapters word the error differently")
				assert.Equal(t, msg, reply.Error, "the window words the error differently")
			}
		})
	}

	// Nothing was changed by any of it.
	d, err := a.svc.GetConversation(ctx, busy.ID)
	require.NoError(t, err)
	require.NotNil(t, d.PendingQuestion, "the card stays pending")
	assert.Equal(t, questions.StatusPending, d.PendingQuestion.Status)
	page, err := a.svc.ListConversations(ctx, service.DefaultPageSize, "", "", "")
	require.NoError(t, err)
	assert.Len(t, page.Items, 2, "no conversation was created or imported")
	assert.Equal(t, "system", a.svc.GetSettings().Theme)
	c, err := a.svc.Collection(ctx, collection.ID)
	require.NoError(t, err)
	assert.Equal(t, collectionName, c.Name, "the collection was not renamed")
}

// Issue 23: what the window's bound methods return has [] where the
// generated type says T[], never null (a fresh service has no cards, no
// messages, no MCP servers, no statistics; a URL server no args).
func TestBoundMethodsReturnEmptyListsNotNull(t *testing.T) {
	a := newAdapters(t)
	ctx := context.Background()
	conv, err := a.svc.CreateConversation(ctx, "Empty", "")
	require.NoError(t, err)
	asJSON := func(v any, err error) string {
		t.Helper()
		require.NoError(t, err)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	b := a.calls
	assert.Equal(t, `[]`, asJSON(b.Questions(api.QuestionsArgs{Status: "pending"})))
	assert.Equal(t, `[]`, asJSON(b.ConversationQuestions(api.ByID{ID: conv.ID})))
	assert.Equal(t, `[]`, asJSON(b.Memories(api.MemoriesArgs{})))
	assert.Equal(t, `[]`, asJSON(b.MCPServers()))
	assert.Equal(t, `[]`, asJSON(b.ModelStats()))
	assert.Equal(t, `[]`, asJSON(b.AgentTokens()))
	assert.Contains(t, asJSON(b.GetConversation(api.GetConversationArgs{ID: conv.ID})), `"messages":[]`)
	assert.Contains(t, asJSON(b.ListConversations(api.ListConversationsArgs{Q: "no such title"})), `"items":[]`)
	// A URL server has no args, env or tools: the service keeps those nil.
	off := false
	put := asJSON(b.PutMCPServer(api.PutMCPServerArgs{Name: "remote", MCPServerConfig: api.MCPServerConfig{URL: "http://127.0.0.1:9/mcp", Enabled: &off}}))
	for _, field := range []string{`"args":[]`, `"env_keys":[]`, `"header_keys":[]`, `"tools":[]`} {
		assert.Contains(t, put, field)
	}
	assert.Contains(t, asJSON(b.MCPServers()), `"args":[]`)
}

// importFile is what the window does to import: read the chosen file, then
// the ImportConversation call.
func importFile(c *Calls, path string) (*chat.Conversation, error) {
	data, err := readImport(path)
	if err != nil {
		return nil, err
	}
	return c.ImportConversation(api.ImportArgs{Data: data})
}
