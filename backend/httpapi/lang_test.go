package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/i18n"
)

// With no language chosen in Settings, an HTTP client gets the backend's
// messages in its Accept-Language (when Parley speaks it); a language
// chosen in Settings wins over the header; a client without the header gets
// the process's language (English here).
func TestErrorsFollowAcceptLanguageUntilSettingsChooseALanguage(t *testing.T) {
	base := closedPortURL(t)
	ts, _ := realAPI(t, base)
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	english := "Cannot reach the model server at " + base + ". Is your model server running?"
	japanese := base + " のモデルサーバーに接続できません。モデルサーバーは起動していますか？"
	german := "Der Modellserver unter " + base + " ist nicht erreichbar. Läuft dein Modellserver?"

	status, out := do(t, ts, http.MethodGet, "/api/v1/models", "", nil)
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, english, errorOf(t, out))

	status, out = do(t, ts, http.MethodGet, "/api/v1/models", "", map[string]string{"Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"})
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, japanese, errorOf(t, out))

	_, out = do(t, ts, http.MethodGet, "/api/v1/models", "", map[string]string{"Accept-Language": "ko-KR"})
	assert.Equal(t, english, errorOf(t, out), "a language Parley does not speak")

	// A language chosen in Settings is the one spoken, whatever the header says.
	status, out = do(t, ts, http.MethodGet, "/api/v1/settings", "", nil)
	require.Equal(t, http.StatusOK, status, out)
	status, out = do(t, ts, http.MethodPut, "/api/v1/settings", withLanguage(t, out, "de"), nil)
	require.Equal(t, http.StatusOK, status, out)
	_, out = do(t, ts, http.MethodGet, "/api/v1/models", "", map[string]string{"Accept-Language": "ja"})
	assert.Equal(t, german, errorOf(t, out))
	_, out = do(t, ts, http.MethodGet, "/api/v1/models", "", nil)
	assert.Equal(t, german, errorOf(t, out))
}

// withLanguage is the settings JSON with its language set.
func withLanguage(t *testing.T, settings, lang string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(settings), &m), settings)
	m["language"] = lang
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}
