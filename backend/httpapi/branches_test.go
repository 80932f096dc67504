package httpapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

type wireMessage struct {
	ID           string   `json:"id"`
	ParentID     string   `json:"parent_id"`
	Role         string   `json:"role"`
	Content      string   `json:"content"`
	Siblings     int      `json:"siblings"`
	SiblingIndex int      `json:"sibling_index"`
	SiblingIDs   []string `json:"sibling_ids"`
	Attachments  []struct {
		Name string `json:"name"`
		Size int    `json:"size"`
		Data []byte `json:"data"`
	} `json:"attachments"`
	Stats *struct {
		Model            string `json:"model"`
		CompletionTokens int    `json:"completion_tokens"`
	} `json:"stats"`
}

type wireDetail struct {
	State           string        `json:"state"`
	Messages        []wireMessage `json:"messages"`
	PendingQuestion *struct {
		ID string `json:"question_id"`
	} `json:"pending_question"`
}

// treeServer is the API over the real service, SQLite and a scripted model
// that echoes the last user message or tool result, and asks a card when
// told to.
func treeServer(t *testing.T) *httptest.Server {
	t.Helper()
	model := modelserver.New(func(req modelserver.ChatRequest) modelserver.Turn {
		last := req.LastMessage()
		switch {
		case last.Role == "tool":
			return modelserver.Turn{Text: "said: " + last.Content}
		case strings.Contains(last.Content, "ask me"):
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: questions.ToolName,
				Arguments: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`}}}
		}
		return modelserver.Turn{Text: "re: " + last.Content}
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
	return ts
}

func newConversation(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	code, body := do(t, ts, "POST", "/api/v1/conversations", `{"title":"Tree"}`, nil)
	require.Equal(t, 201, code, body)
	var conv struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &conv))
	return conv.ID
}

// settle waits until the conversation is idle with a reply last (or, with
// card, awaiting a card) and returns it.
func settle(t *testing.T, ts *httptest.Server, id string, card ...bool) wireDetail {
	t.Helper()
	var d wireDetail
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", "/api/v1/conversations/"+id, "", nil)
		d = wireDetail{}
		if json.Unmarshal([]byte(body), &d) != nil || len(d.Messages) == 0 {
			return false
		}
		if len(card) > 0 {
			return d.State == "awaiting_user_response" && d.PendingQuestion != nil
		}
		last := d.Messages[len(d.Messages)-1]
		return d.State == "idle" && last.Role == "assistant" && last.Content != ""
	}, 15*time.Second, 10*time.Millisecond)
	return d
}

func TestMessagesRegenerateAndBranchEndpoints(t *testing.T) {
	ts := treeServer(t)
	id := newConversation(t, ts)
	base := "/api/v1/conversations/" + id

	code, body := do(t, ts, "POST", base+"/messages", `{"content":"hello"}`, nil)
	require.Equal(t, 202, code, body)
	d := settle(t, ts, id)
	require.Len(t, d.Messages, 2)
	hello, reply := d.Messages[0], d.Messages[1]
	assert.Equal(t, "", hello.ParentID)
	assert.Equal(t, hello.ID, reply.ParentID)
	assert.Equal(t, 1, reply.Siblings)
	assert.Equal(t, 0, reply.SiblingIndex)
	require.NotNil(t, reply.Stats)
	assert.Equal(t, "scripted", reply.Stats.Model)
	assert.Equal(t, 7, reply.Stats.CompletionTokens)

	// Edit: a new first message (parent_id "").
	code, body = do(t, ts, "POST", base+"/messages", `{"content":"hello again","parent_id":""}`, nil)
	require.Equal(t, 202, code, body)
	d = settle(t, ts, id)
	require.Len(t, d.Messages, 2)
	assert.Equal(t, "hello again", d.Messages[0].Content)
	assert.Equal(t, 2, d.Messages[0].Siblings)
	assert.Equal(t, 1, d.Messages[0].SiblingIndex)

	// Regenerate the new reply.
	code, body = do(t, ts, "POST", base+"/regenerate", fmt.Sprintf(`{"message_id":%q}`, d.Messages[1].ID), nil)
	require.Equal(t, 202, code, body)
	assert.Contains(t, body, `"run_id"`)
	d = settle(t, ts, id)
	assert.Equal(t, 2, d.Messages[1].Siblings)
	assert.Equal(t, 1, d.Messages[1].SiblingIndex)

	// Switch back to the first branch: 200 with the conversation.
	code, body = do(t, ts, "PUT", base+"/branch", fmt.Sprintf(`{"message_id":%q}`, hello.ID), nil)
	require.Equal(t, 200, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &d))
	require.Len(t, d.Messages, 2)
	assert.Equal(t, []string{"hello", "re: hello"}, []string{d.Messages[0].Content, d.Messages[1].Content})
	assert.Equal(t, 0, d.Messages[0].SiblingIndex)
	// The switcher's ids: both first messages, in sibling_index order.
	var switched wireDetail
	require.NoError(t, json.Unmarshal([]byte(body), &switched))
	require.Len(t, switched.Messages[0].SiblingIDs, 2)
	assert.Equal(t, hello.ID, switched.Messages[0].SiblingIDs[0])
	assert.Nil(t, switched.Messages[1].SiblingIDs, "no siblings, no ids")

	// Files: stored, returned, and base64 on the wire.
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	file := base64.StdEncoding.EncodeToString([]byte("a,b\n1,2\n"))
	code, body = do(t, ts, "POST", base+"/messages", `{"content":"see","attachments":[{"name":"t.csv","mime_type":"text/csv","data":"`+file+`"}]}`, nil)
	require.Equal(t, 202, code, body)
	d = settle(t, ts, id)
	u := d.Messages[len(d.Messages)-2]
	require.Len(t, u.Attachments, 1)
	assert.Equal(t, "t.csv", u.Attachments[0].Name)
	assert.Equal(t, []byte("a,b\n1,2\n"), u.Attachments[0].Data)

	// Errors.
	for _, tc := range []struct {
		method, path, body string
		status             int
		says               string
	}{
		{"POST", base + "/messages", `{"content":"x","parent_id":"no-such-message"}`, 404, "not found"},
		{"POST", base + "/messages", `{"content":"x","attachments":[{"name":"p.png","mime_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(png) + `"}]}`, 422, "cannot read images"},
		{"POST", base + "/messages", `{"content":"x","attachments":[{"name":"big.txt","data":"` + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("a", api.MaxTextFileBytes+1))) + `"}]}`, 413, "a text file can be at most 1 MB"},
		{"POST", base + "/messages", `{"content":"x","attachments":[{"name":"a.bin","data":"AAEC"}]}`, 422, "neither a text file nor an image"},
		{"POST", base + "/regenerate", `{"message_id":"no-such-message"}`, 404, "not found"},
		{"POST", base + "/regenerate", `{}`, 400, "message_id"},
		{"POST", base + "/regenerate", fmt.Sprintf(`{"message_id":%q}`, hello.ID), 400, "regenerate takes a reply"},
		{"PUT", base + "/branch", `{"message_id":"no-such-message"}`, 404, "not found"},
		{"PUT", base + "/branch", `{}`, 400, "message_id"},
		{"PUT", "/api/v1/conversations/no-such-conversation/branch", fmt.Sprintf(`{"message_id":%q}`, hello.ID), 404, "not found"},
		{"POST", "/api/v1/conversations/no-such-conversation/regenerate", fmt.Sprintf(`{"message_id":%q}`, hello.ID), 404, "not found"},
	} {
		code, body := do(t, ts, tc.method, tc.path, tc.body, nil)
		assert.Equal(t, tc.status, code, "%s %s %s: %s", tc.method, tc.path, tc.body[:min(len(tc.body), 80)], body)
		assert.Contains(t, body, tc.says, "%s %s", tc.method, tc.path)
	}
}

func TestForkEndpoint(t *testing.T) {
	ts := treeServer(t)
	id := newConversation(t, ts)
	base := "/api/v1/conversations/" + id
	code, body := do(t, ts, "POST", base+"/messages", `{"content":"ask me"}`, nil)
	require.Equal(t, 202, code, body)
	d := settle(t, ts, id, true)
	require.NotNil(t, d.PendingQuestion)
	card := d.PendingQuestion.ID
	blue := `{"answers":{"Which colour?":{"selected":["Blue"]}}}`

	// 409 while the run (waiting for this card) is active; 409 for the other endpoints too.
	code, body = do(t, ts, "POST", base+"/questions/"+card+"/fork", blue, nil)
	assert.Equal(t, 409, code, body)
	code, body = do(t, ts, "PUT", base+"/branch", fmt.Sprintf(`{"message_id":%q}`, d.Messages[0].ID), nil)
	assert.Equal(t, 409, code, body)
	code, body = do(t, ts, "POST", base+"/regenerate", fmt.Sprintf(`{"message_id":%q}`, d.Messages[1].ID), nil)
	assert.Equal(t, 409, code, body)
	code, body = do(t, ts, "POST", base+"/messages", `{"content":"x","parent_id":""}`, nil)
	assert.Equal(t, 409, code, body)

	code, body = do(t, ts, "POST", base+"/respond", `{"question_id":"latest","action":"submit","answers":{"Which colour?":{"selected":["Red"]}}}`, nil)
	require.Equal(t, 200, code, body)
	// Wait for the reply: just after respond the state may still read "awaiting_user_response".
	require.Eventually(t, func() bool {
		d = settle(t, ts, id)
		return d.Messages[len(d.Messages)-1].Content == `said: {"answers":{"Which colour?":"Red"}}`
	}, 15*time.Second, 10*time.Millisecond)

	code, body = do(t, ts, "POST", base+"/questions/"+card+"/fork", `{"answers":{"Which colour?":{"selected":["Green"]}}}`, nil)
	assert.Equal(t, 422, code, body)
	code, body = do(t, ts, "POST", base+"/questions/no-such-card/fork", blue, nil)
	assert.Equal(t, 404, code, body)

	code, body = do(t, ts, "POST", base+"/questions/"+card+"/fork", blue, nil)
	require.Equal(t, 202, code, body)
	assert.Contains(t, body, `"run_id"`)
	require.Eventually(t, func() bool {
		_, body := do(t, ts, "GET", base, "", nil)
		return strings.Contains(body, `said: {\"answers\":{\"Which colour?\":\"Blue\"}}`) && strings.Contains(body, `"state":"idle"`)
	}, 15*time.Second, 10*time.Millisecond)
	d = settle(t, ts, id)
	tool := d.Messages[len(d.Messages)-2]
	assert.Equal(t, "tool", tool.Role)
	assert.Equal(t, 2, tool.Siblings)
	assert.Equal(t, 1, tool.SiblingIndex)
	code, body = do(t, ts, "GET", base+"/questions", "", nil)
	require.Equal(t, 200, code)
	assert.Contains(t, body, `"Which colour?":"Red"`, "the card keeps its answer")
}
