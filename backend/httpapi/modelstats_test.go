package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// A model without native tools asks in text form; the card's outcome shows
// in GET /models/stats and the settings export, and DELETE resets it.
func TestModelStatsEndpointsAndSettingsExport(t *testing.T) {
	srv := modelserver.New(modelserver.TextTools(modelserver.Demo(), modelserver.FormTag, 3),
		modelserver.WithModels([]string{"small"}, "small"), modelserver.WithoutTools())
	t.Cleanup(srv.Close)
	ts, _ := realAPI(t, srv.URL())

	status, out := do(t, ts, http.MethodGet, "/api/v1/models/stats", "", nil)
	require.Equal(t, http.StatusOK, status, out)
	assert.JSONEq(t, `[]`, out)

	status, out = do(t, ts, http.MethodPost, "/api/v1/conversations", `{}`, nil)
	require.Equal(t, http.StatusCreated, status, out)
	var conv struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &conv))
	status, out = do(t, ts, http.MethodPost, "/api/v1/conversations/"+conv.ID+"/messages", `{"content":"Plan a trip"}`, nil)
	require.Equal(t, http.StatusAccepted, status, out)
	var pending struct {
		Has bool `json:"has_pending_question"`
	}
	require.Eventually(t, func() bool {
		_, out := do(t, ts, http.MethodGet, "/api/v1/conversations/"+conv.ID+"/pending-question", "", nil)
		return json.Unmarshal([]byte(out), &pending) == nil && pending.Has
	}, 15*time.Second, 20*time.Millisecond)
	status, out = do(t, ts, http.MethodPost, "/api/v1/conversations/"+conv.ID+"/respond", `{"question_id":"latest","action":"decline"}`, nil)
	require.Equal(t, http.StatusOK, status, out)

	var stats []struct {
		Model      string `json:"model"`
		CardsAsked int    `json:"cards_asked"`
		Declined   int    `json:"declined"`
	}
	require.Eventually(t, func() bool {
		_, out := do(t, ts, http.MethodGet, "/api/v1/models/stats", "", nil)
		return json.Unmarshal([]byte(out), &stats) == nil && len(stats) == 1 && stats[0].Declined == 1
	}, 15*time.Second, 20*time.Millisecond)
	assert.Equal(t, "small", stats[0].Model)
	assert.Equal(t, 1, stats[0].CardsAsked)

	status, out = do(t, ts, http.MethodGet, "/api/v1/settings/export", "", nil)
	require.Equal(t, http.StatusOK, status, out)
	var export struct {
		Format     string            `json:"format"`
		Settings   map[string]any    `json:"settings"`
		ModelStats []json.RawMessage `json:"model_stats"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &export))
	assert.Equal(t, "parley-settings", export.Format)
	assert.Len(t, export.ModelStats, 1)
	assert.Equal(t, "", export.Settings["api_key"])

	status, out = do(t, ts, http.MethodDelete, "/api/v1/models/stats", "", nil)
	require.Equal(t, http.StatusOK, status, out)
	_, out = do(t, ts, http.MethodGet, "/api/v1/models/stats", "", nil)
	assert.JSONEq(t, `[]`, out)
}
