package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// The fake backend of the handler tests has no collections.
func (f *fakeBackend) Collections(context.Context) ([]api.Collection, error) { return nil, f.err }
func (f *fakeBackend) Collection(context.Context, string) (api.Collection, error) {
	return api.Collection{}, f.err
}
func (f *fakeBackend) CreateCollection(context.Context, api.CollectionRequest) (api.Collection, error) {
	return api.Collection{}, f.err
}
func (f *fakeBackend) UpdateCollection(context.Context, string, api.CollectionRequest) (api.Collection, error) {
	return api.Collection{}, f.err
}
func (f *fakeBackend) ReindexCollection(context.Context, string) error { return f.err }
func (f *fakeBackend) CancelCollection(context.Context, string) (api.Collection, error) {
	return api.Collection{}, f.err
}
func (f *fakeBackend) DeleteCollection(context.Context, string) error { return f.err }
func (f *fakeBackend) SearchCollection(context.Context, string, api.KnowledgeSearchRequest) (api.KnowledgeSearchResponse, error) {
	return api.KnowledgeSearchResponse{}, f.err
}
func (f *fakeBackend) SetConversationKnowledge(context.Context, string, []string) error { return f.err }

// knowledgeServer is the API over the real service and SQLite, with the
// scripted model that searches, cites and asks (modelserver.Knowledge) and
// an embedding model.
type knowledgeServer struct {
	t     *testing.T
	ts    *httptest.Server
	model *modelserver.Server
	ev    *events.Recorder
	svc   *service.Service
}

func newKnowledgeServer(t *testing.T) *knowledgeServer {
	t.Helper()
	model := modelserver.New(modelserver.Knowledge(modelserver.Turns()), modelserver.WithEmbeddingModels("nomic-embed-text"))
	t.Cleanup(model.Close)
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	cfg := config.Config{BaseURL: model.URL(), Model: "qwen3:8b", QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	ev := events.NewRecorder()
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: ev, Config: cfg, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	_, ts, _ := newTestServer(t, svc)
	return &knowledgeServer{t: t, ts: ts, model: model, ev: ev, svc: svc}
}

// call sends a JSON request and decodes the answer into out (when given).
func (k *knowledgeServer) call(method, path string, body any, out any) int {
	k.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(k.t, err)
	if body == nil {
		b = nil
	}
	status, text := do(k.t, k.ts, method, path, string(b), nil)
	if out != nil && status < 300 {
		require.NoError(k.t, json.Unmarshal([]byte(text), out), "%s %s: %s", method, path, text)
	}
	return status
}

// waitFor checks cond after each event (the service announces progress and
// messages), never sleeping as synchronisation.
func (k *knowledgeServer) waitFor(what string, cond func() bool) {
	k.t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-k.ev.Changed():
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			require.FailNow(k.t, "timed out waiting", what)
		}
	}
}

func (k *knowledgeServer) waitReady(id string) api.Collection {
	var c api.Collection
	k.waitFor("collection ready", func() bool {
		require.Equal(k.t, http.StatusOK, k.call("GET", "/api/v1/knowledge/"+id, nil, &c))
		return c.Status == api.KnowledgeReady && c.IndexedFiles+len(c.Errors) == c.Files && c.Files > 0
	})
	return c
}

type knowledgeMessage struct {
	Role       string        `json:"role"`
	Content    string        `json:"content"`
	ToolName   string        `json:"tool_name"`
	Sources    []chat.Source `json:"sources"`
	ToolCallID string        `json:"tool_call_id"`
}

type knowledgeDetail struct {
	State           string             `json:"state"`
	Knowledge       []string           `json:"knowledge"`
	Messages        []knowledgeMessage `json:"messages"`
	PendingQuestion *questions.Card    `json:"pending_question"`
}

// converse sends text and waits until the conversation is idle or asks.
func (k *knowledgeServer) converse(convID, text string) knowledgeDetail {
	k.t.Helper()
	require.Equal(k.t, http.StatusAccepted, k.call("POST", "/api/v1/conversations/"+convID+"/messages", map[string]string{"content": text}, nil))
	return k.settle(convID)
}

func (k *knowledgeServer) settle(convID string) knowledgeDetail {
	k.t.Helper()
	var d knowledgeDetail
	k.waitFor("reply", func() bool {
		d = knowledgeDetail{}
		require.Equal(k.t, http.StatusOK, k.call("GET", "/api/v1/conversations/"+convID, nil, &d))
		last := d.Messages[len(d.Messages)-1]
		return d.State == chat.StateAwaitingUserResponse || d.State == chat.StateIdle && last.Role == chat.RoleAssistant && len(last.Sources) > 0 ||
			d.State == chat.StateError
	})
	return d
}

func (k *knowledgeServer) newConversation(collections ...string) string {
	var c struct {
		ID string `json:"id"`
	}
	require.Equal(k.t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]string{"title": "docs"}, &c))
	var d knowledgeDetail
	require.Equal(k.t, http.StatusOK, k.call("PATCH", "/api/v1/conversations/"+c.ID, map[string]any{"knowledge": collections}, &d))
	assert.Equal(k.t, collections, d.Knowledge)
	return c.ID
}

func writeDoc(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestKnowledgeAPICollections(t *testing.T) {
	k := newKnowledgeServer(t)
	dir := t.TempDir()
	guide := writeDoc(t, dir, "guide.md", "# Setup\n\n## Linux\n\nInstall with apt install parley.\n\n## Windows\n\nRun the installer.\n")
	writeDoc(t, dir, "broken.pdf", "%PDF-1.4 not really")

	// Bad input changes nothing.
	for _, body := range []map[string]any{
		{"name": "", "paths": []string{dir}},
		{"name": "Docs", "paths": []string{filepath.Join(dir, "missing")}},
		{"name": "Docs", "paths": []string{"relative/dir"}},
		{"name": "Docs"},
	} {
		status, text := do(t, k.ts, "POST", "/api/v1/knowledge", mustJSON(t, body), nil)
		assert.Equal(t, http.StatusUnprocessableEntity, status, "%v: %s", body, text)
		assert.Contains(t, text, `"error"`)
	}
	var list []api.Collection
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/knowledge", nil, &list))
	assert.Empty(t, list)

	var c api.Collection
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/knowledge", map[string]any{"name": "Docs", "paths": []string{dir}}, &c))
	assert.Equal(t, "Docs", c.Name)
	assert.Equal(t, []string{dir}, c.Paths)
	c = k.waitReady(c.ID)
	assert.Equal(t, 1, c.IndexedFiles, "guide.md indexed")
	assert.Equal(t, 2, c.Files)
	require.Len(t, c.Errors, 1)
	assert.Equal(t, filepath.Join(dir, "broken.pdf"), c.Errors[0].Path)
	assert.Nil(t, c.EmbeddingModel)

	var res api.KnowledgeSearchResponse
	require.Equal(t, http.StatusOK, k.call("POST", "/api/v1/knowledge/"+c.ID+"/search", map[string]any{"query": "installer windows"}, &res))
	require.NotEmpty(t, res.Results)
	assert.Equal(t, api.KnowledgeResult{Path: guide, Locator: "Setup › Windows", Text: "Run the installer.", Score: res.Results[0].Score}, res.Results[0])
	assert.Greater(t, res.Results[0].Score, 0.0)
	for body, want := range map[string]int{`{"query":""}`: 422, `{"query":"x","top_k":51}`: 422, `{"query":"x","top_k":-1}`: 422} {
		status, _ := do(t, k.ts, "POST", "/api/v1/knowledge/"+c.ID+"/search", body, nil)
		assert.Equal(t, want, status, body)
	}
	status, _ := do(t, k.ts, "POST", "/api/v1/knowledge/nope/search", `{"query":"x"}`, nil)
	assert.Equal(t, http.StatusNotFound, status)

	// Rename; reindex; an embedding model in the settings makes vectors.
	require.Equal(t, http.StatusOK, k.call("PATCH", "/api/v1/knowledge/"+c.ID, map[string]any{"name": "Manuals"}, &c))
	assert.Equal(t, "Manuals", c.Name)
	status, _ = do(t, k.ts, "PATCH", "/api/v1/knowledge/"+c.ID, `{"name":""}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status)
	require.Equal(t, http.StatusAccepted, k.call("POST", "/api/v1/knowledge/"+c.ID+"/reindex", nil, nil))
	var settings map[string]any
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/settings", nil, &settings))
	assert.Equal(t, "", settings["embedding_model"])
	settings["embedding_model"] = "nomic-embed-text"
	require.Equal(t, http.StatusOK, k.call("PUT", "/api/v1/settings", settings, &settings))
	k.waitFor("passages embedded", func() bool {
		require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/knowledge/"+c.ID, nil, &c))
		return c.EmbeddingModel != nil && c.EmbeddedChunks == c.Chunks && c.Status == api.KnowledgeReady
	})
	assert.Equal(t, "nomic-embed-text", *c.EmbeddingModel)
	require.NotEmpty(t, k.model.EmbedRequests())

	// Progress went out as knowledge:progress.
	var progress []api.KnowledgeProgress
	for _, e := range k.ev.Events() {
		if e.Name == events.KnowledgeProgress {
			progress = append(progress, e.Payload.(api.KnowledgeProgress))
		}
	}
	require.NotEmpty(t, progress)
	assert.Equal(t, c.ID, progress[len(progress)-1].ID)

	require.Equal(t, http.StatusOK, k.call("DELETE", "/api/v1/knowledge/"+c.ID, nil, nil))
	status, _ = do(t, k.ts, "GET", "/api/v1/knowledge/"+c.ID, "", nil)
	assert.Equal(t, http.StatusNotFound, status)
	_, err := os.Stat(guide)
	assert.NoError(t, err, "deleting a collection never touches its files")
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestAssistantSearchesCitesAndCarriesSources(t *testing.T) {
	k := newKnowledgeServer(t)
	dir := t.TempDir()
	guide := writeDoc(t, dir, "guide.md", "# Setup\n\n## Linux\n\nInstall with apt install parley.\n\n## Windows\n\nDouble-click the setup file.\n")
	var c api.Collection
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/knowledge", map[string]any{"name": "Docs", "paths": []string{dir}}, &c))
	k.waitReady(c.ID)

	status, text := do(t, k.ts, "PATCH", "/api/v1/conversations/"+"x", `{"knowledge":["nope"]}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status, text)
	conv := k.newConversation(c.ID)
	status, text = do(t, k.ts, "PATCH", "/api/v1/conversations/"+conv, `{"knowledge":["nope"]}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status, text)

	d := k.converse(conv, "How do I install it on Linux?")
	require.Equal(t, chat.StateIdle, d.State)

	// The model was offered the tool with the citing and asking instructions.
	reqs := k.model.Requests()
	require.Len(t, reqs, 2)
	var tool *modelserver.ToolDef
	for i, td := range reqs[0].Tools {
		if td.Function.Name == "search_knowledge" {
			tool = &reqs[0].Tools[i]
		}
	}
	require.NotNil(t, tool, "search_knowledge offered")
	assert.Contains(t, tool.Function.Description, "[n]")
	assert.Contains(t, tool.Function.Description, "ask_user_question")
	// The exact tool result it received.
	got := reqs[1].LastMessage()
	assert.Equal(t, "tool", got.Role)
	assert.Equal(t, fmt.Sprintf("[1] %s (Setup › Linux)\nInstall with apt install parley.", guide), got.Content)

	// The reply cites [1] and carries its source; the tool result keeps it too.
	last := d.Messages[len(d.Messages)-1]
	assert.Equal(t, "According to guide.md, Install with apt install parley [1]", last.Content)
	assert.Equal(t, []chat.Source{{N: 1, Path: guide, Locator: "Setup › Linux", Text: "Install with apt install parley."}}, last.Sources)
	var toolMsg knowledgeMessage
	for _, m := range d.Messages {
		if m.ToolName == "search_knowledge" {
			toolMsg = m
		}
	}
	assert.Equal(t, last.Sources, toolMsg.Sources)
}

func TestDocumentsThatDisagreeMakeTheModelAsk(t *testing.T) {
	k := newKnowledgeServer(t)
	dir := t.TempDir()
	old := writeDoc(t, dir, "policy-2023.md", "# Vacation\n\nStaff get 20 vacation days a year.\n")
	cur := writeDoc(t, dir, "policy-2024.md", "# Vacation\n\nStaff get 25 vacation days a year.\n")
	var c api.Collection
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/knowledge", map[string]any{"name": "HR", "paths": []string{dir}}, &c))
	k.waitReady(c.ID)
	conv := k.newConversation(c.ID)

	d := k.converse(conv, "How many vacation days do staff get?")
	require.Equal(t, chat.StateAwaitingUserResponse, d.State)
	// The tool result groups the passages by file and reminds the model to ask.
	result := k.model.Requests()[1].LastMessage().Content
	first, second := old, cur
	if strings.Index(result, cur) < strings.Index(result, old) {
		first, second = cur, old
	}
	firstText := map[string]string{old: "Staff get 20 vacation days a year.", cur: "Staff get 25 vacation days a year."}
	assert.Equal(t, fmt.Sprintf("[1] %s (Vacation)\n%s\n\n[2] %s (Vacation)\n%s\n\n"+
		"(These passages come from 2 files. Cite them as [n]. If they disagree, or more than one could be meant, ask the user which one applies with ask_user_question instead of choosing.)",
		first, firstText[first], second, firstText[second]), result)
	// The card offers the files.
	card := d.PendingQuestion
	require.NotNil(t, card)
	require.Len(t, card.Questions, 1)
	var labels []string
	for _, o := range card.Questions[0].Options {
		labels = append(labels, o.Label)
	}
	assert.ElementsMatch(t, []string{"policy-2023.md", "policy-2024.md"}, labels)

	status, text := do(t, k.ts, "POST", "/api/v1/conversations/"+conv+"/respond", mustJSON(t, map[string]any{
		"question_id": card.ID, "action": "submit",
		"answers": map[string]any{card.Questions[0].Question: map[string]any{"selected": []string{"policy-2024.md"}}}}), nil)
	require.Equal(t, http.StatusOK, status, text)
	d = k.settle(conv)
	last := d.Messages[len(d.Messages)-1]
	n := "1"
	if first == old {
		n = "2"
	}
	assert.Equal(t, "Going by According to policy-2024.md, Staff get 25 vacation days a year ["+n+"]", last.Content)
	require.Len(t, last.Sources, 2, "the reply carries every passage it was given")
}

func TestToolCallingOffPutsPassagesInTheSystemPrompt(t *testing.T) {
	k := newKnowledgeServer(t)
	dir := t.TempDir()
	guide := writeDoc(t, dir, "guide.md", "# Billing\n\nInvoices are sent on the first Monday of the month.\n")
	var c api.Collection
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/knowledge", map[string]any{"name": "Docs", "paths": []string{dir}}, &c))
	k.waitReady(c.ID)
	// A profile without tool calling, whose conversations search the collection.
	require.Equal(t, http.StatusOK, k.call("PUT", "/api/v1/profiles/plain", map[string]any{
		"system_prompt": "Be brief.", "tools": []string{}, "tool_calling": "off", "knowledge": []string{c.ID}}, nil))
	status, text := do(t, k.ts, "PUT", "/api/v1/profiles/bad", `{"knowledge":["nope"]}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, status, text)
	var conv struct {
		ID string `json:"id"`
	}
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]string{"assistant": "plain"}, &conv))

	d := k.converse(conv.ID, "When are invoices sent?")
	require.Equal(t, chat.StateIdle, d.State)
	reqs := k.model.Requests()
	require.Len(t, reqs, 1)
	assert.Empty(t, reqs[0].Tools, "no tools with tool calling off")
	system := reqs[0].Messages[0]
	assert.Equal(t, "system", system.Role)
	assert.True(t, strings.HasPrefix(system.Content, "Be brief.\n\nPassages from the user's documents"), system.Content)
	assert.Contains(t, system.Content, fmt.Sprintf("[1] %s (Billing)\nInvoices are sent on the first Monday of the month.", guide))
	last := d.Messages[len(d.Messages)-1]
	assert.Equal(t, "According to guide.md, Invoices are sent on the first Monday of the month [1]", last.Content)
	assert.Equal(t, []chat.Source{{N: 1, Path: guide, Locator: "Billing", Text: "Invoices are sent on the first Monday of the month."}}, last.Sources)
}
