package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SPEC §9: PATCH /conversations/{id} and the profile API take "thinking";
// an unknown value is a 422 and changes nothing.
func TestThinkingSettingThroughTheAPI(t *testing.T) {
	ts := treeServer(t)
	id := newConversation(t, ts)
	thinking := func() string {
		t.Helper()
		code, body := do(t, ts, "GET", "/api/v1/conversations/"+id, "", nil)
		require.Equal(t, 200, code, body)
		var c struct{ Thinking string }
		require.NoError(t, json.Unmarshal([]byte(body), &c))
		return c.Thinking
	}
	assert.Equal(t, "", thinking(), "a new conversation takes its profile's")

	code, body := do(t, ts, "PATCH", "/api/v1/conversations/"+id, `{"thinking":"off"}`, nil)
	require.Equal(t, 200, code, body)
	assert.Equal(t, "off", thinking())

	code, body = do(t, ts, "PATCH", "/api/v1/conversations/"+id, `{"thinking":"extreme","title":"Renamed"}`, nil)
	assert.Equal(t, 422, code, body)
	assert.Contains(t, body, "thinking must be")
	assert.Equal(t, "off", thinking(), "nothing changed")
	code, body = do(t, ts, "GET", "/api/v1/conversations/"+id, "", nil)
	require.Equal(t, 200, code)
	assert.NotContains(t, body, "Renamed", "the title did not change either")

	code, body = do(t, ts, "PUT", "/api/v1/profiles/thinker", `{"name":"thinker","tools":[],"thinking":"high"}`, nil)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"thinking":"high"`)
	code, body = do(t, ts, "PUT", "/api/v1/profiles/dreamer", `{"name":"dreamer","tools":[],"thinking":"lots"}`, nil)
	assert.Equal(t, 422, code, body)
	code, body = do(t, ts, "GET", "/api/v1/profiles", "", nil)
	require.Equal(t, 200, code)
	assert.NotContains(t, body, "dreamer")
	assert.Contains(t, body, `"thinking":"high"`)
}
