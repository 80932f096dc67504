package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
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

// The fake backend of the handler tests has one project, "p1".
func (f *fakeBackend) Projects(context.Context) ([]chat.Project, error) { return nil, f.err }
func (f *fakeBackend) Project(_ context.Context, id string) (*chat.Project, error) {
	return &chat.Project{ID: id, Knowledge: []string{}}, f.err
}
func (f *fakeBackend) CreateProject(context.Context, api.ProjectRequest) (*chat.Project, error) {
	return &chat.Project{ID: "p1", Knowledge: []string{}}, f.err
}
func (f *fakeBackend) UpdateProject(_ context.Context, id string, _ api.ProjectRequest) (*chat.Project, error) {
	return &chat.Project{ID: id, Knowledge: []string{}}, f.err
}
func (f *fakeBackend) DeleteProject(context.Context, string, bool) error { return f.err }
func (f *fakeBackend) ExportBackup(context.Context) (string, error)      { return "{}", f.err }
func (f *fakeBackend) ImportBackup(context.Context, []byte) (api.BackupImported, error) {
	return api.BackupImported{}, f.err
}

// ---- the real service behind the API ----------------------------------------

type projectJSON struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Instructions string   `json:"instructions"`
	Knowledge    []string `json:"knowledge"`
	Profile      string   `json:"profile"`
	Model        string   `json:"model"`
}

type convJSON struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Assistant string  `json:"assistant"`
	Model     string  `json:"model"`
	ProjectID *string `json:"project_id"`
	State     string  `json:"state"`
	Messages  []struct {
		Role    string        `json:"role"`
		Content string        `json:"content"`
		Sources []chat.Source `json:"sources"`
	} `json:"messages"`
	PendingQuestion *questions.Card `json:"pending_question"`
}

func (k *knowledgeServer) newProject(body map[string]any) projectJSON {
	k.t.Helper()
	var p projectJSON
	status, text := do(k.t, k.ts, "POST", "/api/v1/projects", mustJSON(k.t, body), nil)
	require.Equal(k.t, http.StatusCreated, status, text)
	require.NoError(k.t, json.Unmarshal([]byte(text), &p))
	return p
}

func (k *knowledgeServer) conversation(id string) (convJSON, int) {
	k.t.Helper()
	var c convJSON
	return c, k.call("GET", "/api/v1/conversations/"+id, nil, &c)
}

func (k *knowledgeServer) listIDs(query string) []string {
	k.t.Helper()
	var page api.ConversationPage
	require.Equal(k.t, http.StatusOK, k.call("GET", "/api/v1/conversations"+query, nil, &page))
	ids := []string{}
	for _, c := range page.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

// idle waits until the conversation's run has ended with a reply, or asks.
func (k *knowledgeServer) idle(id string) convJSON {
	k.t.Helper()
	var c convJSON
	k.waitFor("reply", func() bool {
		c, _ = k.conversation(id)
		n := len(c.Messages)
		return c.State == chat.StateAwaitingUserResponse || c.State == chat.StateError ||
			c.State == chat.StateIdle && n > 0 && c.Messages[n-1].Role == chat.RoleAssistant
	})
	return c
}

func (k *knowledgeServer) eventsNamed(name string) []events.Event {
	var out []events.Event
	for _, e := range k.ev.Events() {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func TestProjectsAPIValidation(t *testing.T) {
	k := newKnowledgeServer(t)
	require.Equal(t, http.StatusOK, k.call("PUT", "/api/v1/profiles/coder", map[string]any{"system_prompt": "You write Go."}, nil))

	refused := []struct {
		body   map[string]any
		status int
		says   string
	}{
		{map[string]any{}, http.StatusBadRequest, "name"},
		{map[string]any{"name": "   "}, http.StatusBadRequest, "name"},
		{map[string]any{"name": strings.Repeat("n", api.MaxProjectName+1)}, http.StatusBadRequest, "name"},
		{map[string]any{"name": "P", "instructions": strings.Repeat("i", api.MaxProjectInstructions+1)}, http.StatusBadRequest, "instructions"},
		{map[string]any{"name": "P", "knowledge": []string{"no-such-collection"}}, http.StatusUnprocessableEntity, "no-such-collection"},
		{map[string]any{"name": "P", "profile": "no-such-profile"}, http.StatusBadRequest, "no-such-profile"},
		{map[string]any{"name": "P", "model": strings.Repeat("m", 201)}, http.StatusBadRequest, "model"},
	}
	for _, r := range refused {
		status, text := do(t, k.ts, "POST", "/api/v1/projects", mustJSON(t, r.body), nil)
		assert.Equal(t, r.status, status, "%v: %s", r.body, text)
		assert.Contains(t, text, r.says, "%v", r.body)
	}
	var list []projectJSON
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/projects", nil, &list))
	assert.Empty(t, list, "a refused project was stored")

	// The longest name and instructions are taken.
	p := k.newProject(map[string]any{"name": " " + strings.Repeat("n", api.MaxProjectName) + " ", "instructions": strings.Repeat("i", api.MaxProjectInstructions),
		"profile": "coder", "model": "big-model"})
	assert.Equal(t, strings.Repeat("n", api.MaxProjectName), p.Name, "trimmed")
	assert.Equal(t, "coder", p.Profile)
	assert.Equal(t, "big-model", p.Model)
	assert.Equal(t, []string{}, p.Knowledge)

	var got projectJSON
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/projects/"+p.ID, nil, &got))
	assert.Equal(t, p, got)
	assert.Equal(t, http.StatusNotFound, k.call("GET", "/api/v1/projects/nope", nil, nil))
	assert.Equal(t, http.StatusNotFound, k.call("PATCH", "/api/v1/projects/nope", map[string]any{"name": "x"}, nil))
	assert.Equal(t, http.StatusNotFound, k.call("DELETE", "/api/v1/projects/nope", nil, nil))

	// PATCH changes what it gives; a refused PATCH changes nothing.
	status, text := do(t, k.ts, "PATCH", "/api/v1/projects/"+p.ID, `{}`, nil)
	assert.Equal(t, http.StatusBadRequest, status, text)
	status, text = do(t, k.ts, "PATCH", "/api/v1/projects/"+p.ID, `{"name":"Renamed","profile":"ghost"}`, nil)
	assert.Equal(t, http.StatusBadRequest, status, text)
	got = projectJSON{}
	require.Equal(t, http.StatusOK, k.call("PATCH", "/api/v1/projects/"+p.ID, map[string]any{"instructions": "Be brief.", "profile": "", "model": ""}, &got))
	assert.Equal(t, p.Name, got.Name, "the refused rename was not kept")
	assert.Equal(t, "Be brief.", got.Instructions)
	assert.Empty(t, got.Profile+got.Model, `"" = none`)

	// Each change was announced.
	var changed []events.ProjectChangedPayload
	for _, e := range k.eventsNamed(events.ProjectChanged) {
		changed = append(changed, e.Payload.(events.ProjectChangedPayload))
	}
	require.Len(t, changed, 2, "one project:changed per stored change")
	assert.Equal(t, "Be brief.", changed[1].Project.Instructions)
}

func TestConversationsInProjectsThroughTheAPI(t *testing.T) {
	k := newKnowledgeServer(t)
	require.Equal(t, http.StatusOK, k.call("PUT", "/api/v1/profiles/coder", map[string]any{"system_prompt": "You write Go."}, nil))
	p := k.newProject(map[string]any{"name": "Airships", "profile": "coder"})
	other := k.newProject(map[string]any{"name": "Boats"})

	// Unknown project: refused, nothing stored.
	status, text := do(t, k.ts, "POST", "/api/v1/conversations", `{"title":"lost","project_id":"nope"}`, nil)
	assert.Equal(t, http.StatusBadRequest, status, text)
	assert.Contains(t, text, "nope")
	assert.Empty(t, k.listIDs(""), "a refused conversation was stored")

	// Created in a project: it gets the project's profile unless it names one.
	var c convJSON
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "one", "project_id": p.ID}, &c))
	require.NotNil(t, c.ProjectID)
	assert.Equal(t, p.ID, *c.ProjectID)
	assert.Equal(t, "coder", c.Assistant, "the project's profile")
	var own convJSON
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "two", "project_id": p.ID, "assistant": "default"}, &own))
	assert.Equal(t, "default", own.Assistant, "a profile asked for wins")
	var outside convJSON
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "three"}, &outside))
	assert.Nil(t, outside.ProjectID)
	status, text = do(t, k.ts, "GET", "/api/v1/conversations/"+outside.ID, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.NotContains(t, text, "project_id", "a conversation in no project has no project_id")

	// PATCH: an unknown project is refused with nothing changed.
	status, text = do(t, k.ts, "PATCH", "/api/v1/conversations/"+outside.ID, `{"title":"renamed","project_id":"nope"}`, nil)
	assert.Equal(t, http.StatusBadRequest, status, text)
	got, _ := k.conversation(outside.ID)
	assert.Equal(t, "three", got.Title, "the refused PATCH changed the title")
	assert.Nil(t, got.ProjectID)
	got = convJSON{}
	require.Equal(t, http.StatusOK, k.call("PATCH", "/api/v1/conversations/"+outside.ID, map[string]any{"project_id": other.ID}, &got))
	require.NotNil(t, got.ProjectID)
	assert.Equal(t, other.ID, *got.ProjectID)
	assert.Equal(t, "default", got.Assistant, "joining a project keeps the conversation's profile")

	// The list filters by project (newest first), with paging and search.
	assert.Equal(t, []string{own.ID, c.ID}, k.listIDs("?project="+p.ID))
	assert.Equal(t, []string{outside.ID}, k.listIDs("?project="+other.ID))
	assert.Equal(t, []string{c.ID}, k.listIDs("?project="+p.ID+"&q=one"))
	assert.Empty(t, k.listIDs("?project="+p.ID+"&q=three"), "a match outside the project")
	var page api.ConversationPage
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/conversations?limit=1&project="+p.ID, nil, &page))
	require.Len(t, page.Items, 1)
	require.NotEmpty(t, page.NextCursor)
	cursor := page.NextCursor
	page = api.ConversationPage{}
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/conversations?limit=1&project="+p.ID+"&cursor="+cursor, nil, &page))
	require.Len(t, page.Items, 1)
	assert.Equal(t, c.ID, page.Items[0].ID)
	assert.Empty(t, page.NextCursor)
	assert.Len(t, k.listIDs(""), 3, "no filter: every conversation")

	// "" leaves the project; the change is announced.
	got = convJSON{}
	require.Equal(t, http.StatusOK, k.call("PATCH", "/api/v1/conversations/"+outside.ID, map[string]any{"project_id": ""}, &got))
	assert.Nil(t, got.ProjectID)
	assert.Empty(t, k.listIDs("?project="+other.ID))
	var moves []string
	for _, e := range k.eventsNamed(events.ConversationUpdated) {
		if pl := e.Payload.(events.ConversationUpdatedPayload); pl.ProjectID != nil && pl.ConversationID == outside.ID {
			moves = append(moves, *pl.ProjectID)
		}
	}
	assert.Equal(t, []string{other.ID, ""}, moves, "conversation:updated carries project_id")
}

// A project's instructions open the system prompt the model receives, its
// collections are searched with the conversation's, and its model answers a
// conversation without a model of its own.
func TestProjectScopeReachesRuns(t *testing.T) {
	k := newKnowledgeServer(t)
	dir := t.TempDir()
	writeDoc(t, dir, "envelope.md", "# Envelope\n\nThe envelope of the airship is made of goldbeater's skin.\n")
	var col api.Collection
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/knowledge", map[string]any{"name": "Airship docs", "paths": []string{dir}}, &col))
	k.waitReady(col.ID)
	require.Equal(t, http.StatusOK, k.call("PUT", "/api/v1/profiles/captain", map[string]any{"system_prompt": "You are the captain's assistant."}, nil))
	p := k.newProject(map[string]any{"name": "Airships", "instructions": "Always answer in nautical terms.",
		"knowledge": []string{col.ID}, "profile": "captain", "model": "project-model"})

	var c convJSON
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"project_id": p.ID}, &c))
	require.Equal(t, http.StatusAccepted, k.call("POST", "/api/v1/conversations/"+c.ID+"/messages", map[string]string{"content": "What is the envelope made of?"}, nil))
	d := k.idle(c.ID)
	require.Equal(t, chat.StateIdle, d.State, "%+v", d)
	last := d.Messages[len(d.Messages)-1]
	require.NotEmpty(t, last.Sources, "the project's collection was searched: %+v", d.Messages)
	assert.Contains(t, last.Sources[0].Path, "envelope.md")

	reqs := k.model.Requests()
	require.NotEmpty(t, reqs)
	first := reqs[0]
	require.NotEmpty(t, first.Messages)
	assert.Equal(t, "system", first.Messages[0].Role)
	assert.True(t, strings.HasPrefix(first.Messages[0].Content, "Always answer in nautical terms.\n\nYou are the captain's assistant."),
		"the instructions open the system prompt, the profile's prompt follows: %q", first.Messages[0].Content)
	assert.Equal(t, "project-model", first.Model, "the project's model answers a conversation without its own")
	var offered []string
	for _, tool := range first.Tools {
		offered = append(offered, tool.Function.Name)
	}
	assert.Contains(t, offered, "search_knowledge")

	// The conversation's own model wins; a conversation out of the project
	// gets neither instructions nor collections.
	require.Equal(t, http.StatusOK, k.call("PATCH", "/api/v1/conversations/"+c.ID, map[string]any{"model": "own-model"}, nil))
	n := len(k.model.Requests())
	require.Equal(t, http.StatusAccepted, k.call("POST", "/api/v1/conversations/"+c.ID+"/messages", map[string]string{"content": "And the gas cells?"}, nil))
	k.idle(c.ID)
	assert.Equal(t, "own-model", k.model.Requests()[n].Model)

	require.Equal(t, http.StatusOK, k.call("PATCH", "/api/v1/conversations/"+c.ID, map[string]any{"project_id": "", "model": ""}, nil))
	n = len(k.model.Requests())
	require.Equal(t, http.StatusAccepted, k.call("POST", "/api/v1/conversations/"+c.ID+"/messages", map[string]string{"content": "Anything else?"}, nil))
	k.idle(c.ID)
	out := k.model.Requests()[n]
	assert.NotContains(t, out.Messages[0].Content, "nautical", "out of the project: no instructions")
	assert.Equal(t, "qwen3:8b", out.Model, "out of the project: the default model")
	for _, tool := range out.Tools {
		assert.NotEqual(t, "search_knowledge", tool.Function.Name, "out of the project: no collections")
	}
}

func TestDeleteProjectKeepsOrDeletesItsConversations(t *testing.T) {
	k := newKnowledgeServer(t)
	kept := k.newProject(map[string]any{"name": "Kept"})
	var a, b convJSON
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "a", "project_id": kept.ID}, &a))
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "b", "project_id": kept.ID}, &b))
	require.Equal(t, http.StatusOK, k.call("DELETE", "/api/v1/projects/"+kept.ID, nil, nil))
	for _, id := range []string{a.ID, b.ID} {
		c, status := k.conversation(id)
		require.Equal(t, http.StatusOK, status, "the conversation stays")
		assert.Nil(t, c.ProjectID, "and leaves the project")
	}
	assert.Equal(t, http.StatusNotFound, k.call("GET", "/api/v1/projects/"+kept.ID, nil, nil))
	var left []string
	for _, e := range k.eventsNamed(events.ConversationUpdated) {
		if pl := e.Payload.(events.ConversationUpdatedPayload); pl.ProjectID != nil && *pl.ProjectID == "" {
			left = append(left, pl.ConversationID)
		}
	}
	assert.ElementsMatch(t, []string{a.ID, b.ID}, left, "each conversation's leaving is announced")

	// With its conversations: a run waiting on a card is stopped and the
	// card cancelled, as DeleteConversation does.
	k = askingServer(t)
	a, b = convJSON{}, convJSON{}
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "a"}, &a))
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"title": "b"}, &b))
	gone := k.newProject(map[string]any{"name": "Gone"})
	var asking, quiet convJSON
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"project_id": gone.ID}, &asking))
	require.Equal(t, http.StatusCreated, k.call("POST", "/api/v1/conversations", map[string]any{"project_id": gone.ID}, &quiet))
	require.Equal(t, http.StatusAccepted, k.call("POST", "/api/v1/conversations/"+asking.ID+"/messages", map[string]string{"content": "Park it"}, nil))
	d := k.idle(asking.ID)
	require.Equal(t, chat.StateAwaitingUserResponse, d.State)
	cardID := d.PendingQuestion.ID

	require.Equal(t, http.StatusOK, k.call("DELETE", "/api/v1/projects/"+gone.ID+"?with_conversations=true", nil, nil))
	for _, id := range []string{asking.ID, quiet.ID} {
		_, status := k.conversation(id)
		assert.Equal(t, http.StatusNotFound, status, "deleted with the project")
	}
	var pending []*questions.Card
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/questions?status=pending", nil, &pending))
	assert.Empty(t, pending, "the card was cancelled")
	var resolved []string
	for _, e := range k.eventsNamed(events.QuestionResolved) {
		if c := e.Payload.(*questions.Card); c.ID == cardID {
			resolved = append(resolved, string(c.Status))
		}
	}
	assert.Equal(t, []string{string(questions.StatusCancelled)}, resolved)
	assert.Equal(t, []string{b.ID, a.ID}, k.listIDs(""), "the conversations outside the project are untouched")
	var deleted int
	for _, e := range k.eventsNamed(events.ProjectChanged) {
		if e.Payload.(events.ProjectChangedPayload).Deleted {
			deleted++
		}
	}
	assert.Equal(t, 1, deleted)
}

// askingServer is the real service behind the API with a model that asks
// a card about every message.
func askingServer(t *testing.T) *knowledgeServer {
	t.Helper()
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "Parked."}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName,
			Arguments: `{"questions":[{"question":"Which hangar?","options":["North","South"]}]}`}}}
	})
	t.Cleanup(model.Close)
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	cfg := config.Config{BaseURL: model.URL(), Model: "scripted", QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	ev := events.NewRecorder()
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: ev, Config: cfg, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	_, ts, _ := newTestServer(t, svc)
	return &knowledgeServer{t: t, ts: ts, model: model, ev: ev, svc: svc}
}
