package events

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// The typed payloads send the same bytes as the map payloads they replaced
// (what the window and SSE clients already parse).
func TestPayloadsMarshalLikeTheMapsTheyReplaced(t *testing.T) {
	m := &chat.Message{ID: "m1", ConversationID: "c1", RunID: "r1", Role: chat.RoleAssistant, Content: "hi", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	cases := map[string]struct{ typed, old any }{
		"delta":        {MessageDeltaPayload{ConversationID: "c1", RunID: "r1", MessageID: "m1", Delta: "He"}, map[string]any{"conversationId": "c1", "runId": "r1", "messageId": "m1", "delta": "He"}},
		"done":         {MessageDonePayload{ConversationID: "c1", RunID: "r1", Message: *m}, map[string]any{"conversationId": "c1", "runId": "r1", "message": m}},
		"done late":    {MessageDonePayload{ConversationID: "c1", Message: *m}, map[string]any{"conversationId": "c1", "message": m}},
		"run error":    {RunErrorPayload{ConversationID: "c1", RunID: "r1", Error: "boom"}, map[string]any{"conversationId": "c1", "runId": "r1", "error": "boom"}},
		"title":        {TitleChanged("c1", "Trip"), map[string]any{"conversationId": "c1", "title": "Trip"}},
		"unpinned":     {PinnedChanged("c1", false), map[string]any{"conversationId": "c1", "pinned": false}},
		"assistant":    {AssistantChanged("c1", "coder"), map[string]any{"conversationId": "c1", "assistant": "coder"}},
		"deleted":      {ConversationDeletedPayload{ConversationID: "c1"}, map[string]any{"conversationId": "c1"}},
		"project":      {ProjectIDChanged("c1", "p1"), map[string]any{"conversationId": "c1", "project_id": "p1"}},
		"left project": {ProjectIDChanged("c1", ""), map[string]any{"conversationId": "c1", "project_id": ""}},
		"project gone": {ProjectChangedPayload{ID: "p1", Deleted: true}, map[string]any{"conversationId": "", "deleted": true, "id": "p1", "project": nil}},
		"pull":         {PullProgress("qwen3", "pulling manifest", 0, 0), map[string]any{"conversationId": "", "model": "qwen3", "status": "pulling manifest", "total": int64(0), "completed": int64(0)}},
		"pull failure": {PullFailed("qwen3", "no space"), map[string]any{"conversationId": "", "model": "qwen3", "status": "error", "error": "no space"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			typed, err := json.Marshal(c.typed)
			require.NoError(t, err)
			old, err := json.Marshal(c.old)
			require.NoError(t, err)
			assert.Equal(t, string(old), string(typed))
		})
	}
}
