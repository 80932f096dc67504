package httpapi

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// The fake backend of the handler tests has no memories.
func (f *fakeBackend) Memories(context.Context, string) ([]memory.Memory, error) { return nil, f.err }
func (f *fakeBackend) CreateMemory(context.Context, api.MemoryRequest) (memory.Memory, error) {
	return memory.Memory{}, f.err
}
func (f *fakeBackend) UpdateMemory(context.Context, string, api.MemoryUpdate) (memory.Memory, error) {
	return memory.Memory{}, f.err
}
func (f *fakeBackend) DeleteMemory(context.Context, string) error { return f.err }
func (f *fakeBackend) DeleteAllMemories(context.Context) error    { return f.err }

// The memory endpoints (SPEC §14) on the real service: status codes, the
// project filter, the errors, and "remember" on respond.
func TestMemoryEndpoints(t *testing.T) {
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Noted."}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName,
			Arguments: `{"questions":[{"question":"Which colour?","header":"Colour","options":["Red","Blue"]}]}`}}}
	})
	t.Cleanup(model.Close)
	db, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	cfg := config.Config{BaseURL: model.URL(), Model: "scripted", QuestionTimeout: time.Minute,
		Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: events.NewRecorder(), Config: cfg, Version: "test"})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	_, ts, _ := newTestServer(t, svc)

	code, body := do(t, ts, "POST", "/api/v1/memory", `{"text":"  Prefers metric units.  "}`, nil)
	require.Equal(t, 201, code, body)
	var global memory.Memory
	require.NoError(t, json.Unmarshal([]byte(body), &global))
	assert.Equal(t, "Prefers metric units.", global.Text)
	assert.Contains(t, body, `"source":{"type":"user"}`)
	assert.Contains(t, body, `"project_id":null`)
	assert.Contains(t, body, `"used_at":null`)
	assert.Contains(t, body, `"auto_answer":false`)

	code, body = do(t, ts, "POST", "/api/v1/memory", `{"text":"Deploys on Fridays.","project_id":"proj-1"}`, nil)
	assert.Equal(t, 400, code, "a project that does not exist: %s", body)
	code, body = do(t, ts, "POST", "/api/v1/projects", `{"name":"Ops"}`, nil)
	require.Equal(t, 201, code, body)
	var project struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &project))
	code, body = do(t, ts, "POST", "/api/v1/memory", `{"text":"Deploys on Fridays.","project_id":"`+project.ID+`"}`, nil)
	require.Equal(t, 201, code, body)
	assert.Contains(t, body, `"project_id":"`+project.ID+`"`)

	code, body = do(t, ts, "POST", "/api/v1/memory", `{"text":"   "}`, nil)
	assert.Equal(t, 400, code, "blank: %s", body)
	code, body = do(t, ts, "POST", "/api/v1/memory", `{"text":"`+strings.Repeat("x", 501)+`"}`, nil)
	assert.Equal(t, 400, code, "too long: %s", body)
	assert.Contains(t, body, "500")

	list := func(query string) []memory.Memory {
		code, body := do(t, ts, "GET", "/api/v1/memory"+query, "", nil)
		require.Equal(t, 200, code, body)
		var out []memory.Memory
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		return out
	}
	assert.Len(t, list(""), 2, "every memory")
	assert.Len(t, list("?project=all"), 2, "every memory")
	assert.Len(t, list("?project=none"), 1, "those of no project")
	if proj := list("?project=" + project.ID); assert.Len(t, proj, 1, "the project's own") {
		assert.Equal(t, "Deploys on Fridays.", proj[0].Text)
	}

	code, body = do(t, ts, "PATCH", "/api/v1/memory/"+global.ID, `{"text":"Prefers SI units."}`, nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, "Prefers SI units.")
	code, body = do(t, ts, "PATCH", "/api/v1/memory/"+global.ID, `{"auto_answer":true}`, nil)
	assert.Equal(t, 400, code, "a typed memory answers no card: %s", body)
	code, _ = do(t, ts, "PATCH", "/api/v1/memory/"+global.ID, `{}`, nil)
	assert.Equal(t, 400, code, "nothing to change")
	code, _ = do(t, ts, "PATCH", "/api/v1/memory/nope", `{"text":"x"}`, nil)
	assert.Equal(t, 404, code)

	// Respond with remember: an unknown question is refused and nothing changes.
	code, body = do(t, ts, "POST", "/api/v1/conversations", `{"title":"Colours"}`, nil)
	require.Equal(t, 201, code, body)
	var conv struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &conv))
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/messages", `{"content":"Paint my room"}`, nil)
	require.Equal(t, 202, code, body)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+conv.ID+"/pending-question", "", nil)
		return strings.Contains(body, `"has_pending_question":true`)
	}, 15*time.Second, 10*time.Millisecond)
	answer := `"answers":{"Which colour?":{"selected":["Blue"]}}`
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/respond",
		`{"question_id":"latest","action":"submit",`+answer+`,"remember":["Which color?"]}`, nil)
	assert.Equal(t, 400, code, "an unknown question: %s", body)
	assert.Contains(t, body, "Which color?", "the error names it")
	_, body = do(t, ts, "GET", "/api/v1/conversations/"+conv.ID+"/pending-question", "", nil)
	assert.Contains(t, body, `"has_pending_question":true`, "the card is still pending")
	assert.Len(t, list(""), 2, "nothing kept")

	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/respond",
		`{"question_id":"latest","action":"submit",`+answer+`,"remember":["Which colour?"]}`, nil)
	require.Equal(t, 200, code, body)
	all := list("")
	require.Len(t, all, 3)
	made := all[0]
	assert.Equal(t, "Colour: Which colour? — Blue", made.Text)
	assert.Equal(t, memory.SourceAnswer, made.Source.Type)
	assert.Equal(t, conv.ID, made.Source.ConversationID)
	assert.NotEmpty(t, made.Source.QuestionID)

	code, body = do(t, ts, "PATCH", "/api/v1/memory/"+made.ID, `{"auto_answer":true}`, nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"auto_answer":true`)

	code, _ = do(t, ts, "DELETE", "/api/v1/memory/"+made.ID, "", nil)
	assert.Equal(t, 200, code)
	code, _ = do(t, ts, "DELETE", "/api/v1/memory/"+made.ID, "", nil)
	assert.Equal(t, 404, code, "deleted twice")
	code, body = do(t, ts, "DELETE", "/api/v1/memory", "", nil)
	require.Equal(t, 200, code, body)
	assert.Empty(t, list(""), "every memory deleted")
}
