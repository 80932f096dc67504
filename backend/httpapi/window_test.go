package httpapi

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type windowDetail struct {
	wireDetail
	Earlier *int `json:"earlier"`
}

// A long conversation is opened with its newest messages and read back a
// page at a time (SPEC §7: GET /conversations/{id}?last=N&before=<id>).
func TestConversationWindowEndpoint(t *testing.T) {
	ts := treeServer(t)
	id := newConversation(t, ts)
	base := "/api/v1/conversations/" + id
	for i := range 4 {
		code, body := do(t, ts, "POST", base+"/messages", fmt.Sprintf(`{"content":"m%d"}`, i), nil)
		require.Equal(t, 202, code, body)
		settle(t, ts, id)
	}
	whole := settle(t, ts, id).Messages
	require.Len(t, whole, 8)

	get := func(query string) (int, windowDetail, string) {
		code, body := do(t, ts, "GET", base+query, "", nil)
		var d windowDetail
		if code == 200 {
			require.NoError(t, json.Unmarshal([]byte(body), &d), body)
		}
		return code, d, body
	}

	code, d, body := get("")
	require.Equal(t, 200, code, body)
	assert.Nil(t, d.Earlier, "the whole path says nothing of earlier messages: %s", body)

	code, d, body = get("?last=2")
	require.Equal(t, 200, code, body)
	assert.Equal(t, whole[6:], d.Messages, "the last exchange")
	require.NotNil(t, d.Earlier, body)
	assert.Equal(t, 6, *d.Earlier)
	assert.Equal(t, "idle", d.State, "the state comes with a window too")

	code, d, body = get("?last=1")
	require.Equal(t, 200, code, body)
	assert.Equal(t, whole[6:], d.Messages, "from the first message of the reply's run: the user's")
	require.NotNil(t, d.Earlier, body)
	assert.Equal(t, 6, *d.Earlier)

	code, d, body = get("?last=2&before=" + whole[6].ID)
	require.Equal(t, 200, code, body)
	assert.Equal(t, whole[4:6], d.Messages)
	require.NotNil(t, d.Earlier, body)
	assert.Equal(t, 4, *d.Earlier)

	code, d, body = get("?before=" + whole[2].ID)
	require.Equal(t, 200, code, body)
	assert.Equal(t, whole[:2], d.Messages)
	assert.Nil(t, d.Earlier, body)

	// Bad windows change nothing and say why.
	for query, want := range map[string]int{
		"?last=0":                   400,
		"?last=-2":                  400,
		"?last=many":                400,
		"?last=3&before=no-such-id": 404,
	} {
		code, _, body := get(query)
		assert.Equal(t, want, code, "%s: %s", query, body)
		if code == 400 {
			assert.Contains(t, body, `\"last\" must be a positive number`, query)
		}
	}

	// A message the user branched away from is no longer on the path: 409.
	code, body = do(t, ts, "POST", base+"/messages", fmt.Sprintf(`{"content":"edited","parent_id":%q}`, whole[5].ID), nil)
	require.Equal(t, 202, code, body)
	settle(t, ts, id)
	code, _, body = get("?last=2&before=" + whole[7].ID)
	assert.Equal(t, 409, code, body)
	code, d, body = get("?last=2")
	require.Equal(t, 200, code, body)
	assert.Equal(t, "edited", d.Messages[0].Content)
	require.NotNil(t, d.Earlier, body)
	assert.Equal(t, 6, *d.Earlier)

	// Switching back to the first version answers with the same window of the path.
	code, body = do(t, ts, "PUT", base+"/branch", fmt.Sprintf(`{"message_id":%q,"last":2}`, whole[6].ID), nil)
	require.Equal(t, 200, code, body)
	d = windowDetail{}
	require.NoError(t, json.Unmarshal([]byte(body), &d), body)
	ids := func(msgs []wireMessage) []string {
		out := make([]string, len(msgs))
		for i, m := range msgs {
			out[i] = m.ID
		}
		return out
	}
	assert.Equal(t, ids(whole[6:]), ids(d.Messages))
	assert.Equal(t, 2, d.Messages[0].Siblings, "the first version, now one of two")
	require.NotNil(t, d.Earlier, body)
	assert.Equal(t, 6, *d.Earlier)
	code, body = do(t, ts, "PUT", base+"/branch", fmt.Sprintf(`{"message_id":%q,"last":0}`, whole[6].ID), nil)
	assert.Equal(t, 400, code, body)
	code, body = do(t, ts, "PUT", base+"/branch", fmt.Sprintf(`{"message_id":%q}`, whole[6].ID), nil)
	require.Equal(t, 200, code, body)
	d = windowDetail{}
	require.NoError(t, json.Unmarshal([]byte(body), &d), body)
	assert.Equal(t, ids(whole), ids(d.Messages), "without last: the whole path")
}
