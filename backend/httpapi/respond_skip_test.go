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

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// "skip" (the word the UI and README use) is accepted by the respond
// endpoint as "decline": the real service, SQLite and a scripted model.
func TestRespondAcceptsSkipAsDecline(t *testing.T) {
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Tool said: " + last.Content}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName,
			Arguments: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`}}}
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

	code, body := do(t, ts, "POST", "/api/v1/conversations", `{"title":"Colours"}`, nil)
	require.Equal(t, 201, code, body)
	var conv struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &conv))
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/messages", `{"content":"Paint my room"}`, nil)
	require.Equal(t, 202, code, body)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+conv.ID+"/pending-question", "", nil)
		return strings.Contains(body, `"has_pending_question":true`)
	}, 15*time.Second, 10*time.Millisecond)

	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/respond", `{"question_id":"latest","action":"skip"}`, nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"status":"declined"`)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+conv.ID, "", nil)
		return strings.Contains(body, `"state":"idle"`) && strings.Contains(body, "Tool said: ")
	}, 15*time.Second, 10*time.Millisecond)
	_, body = do(t, ts, "GET", "/api/v1/conversations/"+conv.ID, "", nil)
	assert.Contains(t, body, "declined", "the model got the decline result")

	// Other unknown actions are still refused, naming the choices.
	code, body = do(t, ts, "POST", "/api/v1/conversations/"+conv.ID+"/respond", `{"question_id":"latest","action":"later"}`, nil)
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "skip")
}
