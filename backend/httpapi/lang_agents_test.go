package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/i18n"
)

// Settings → Tools shows the MCP servers' configuration errors in the
// client's language (Settings choose none here), English without the header.
func TestMCPSettingsErrorsFollowAcceptLanguage(t *testing.T) {
	svc, _ := mcpService(t)
	_, ts, _ := newTestServer(t, svc)
	de := map[string]string{"Accept-Language": "de-DE,de;q=0.9"}

	code, out := do(t, ts, http.MethodPut, "/api/v1/mcp/servers/bad%20name", `{"command":"x"}`, de)
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Equal(t, `Ein Servername besteht aus 1 bis 32 Buchstaben, Ziffern, _ oder - (nicht "bad name").`, errorOf(t, out))

	// A configuration error names its server, both in the same language.
	code, out = do(t, ts, http.MethodPut, "/api/v1/mcp/servers/gh", `{"command":"x","url":"http://127.0.0.1:1/mcp"}`, de)
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Equal(t, `Server "gh": gib entweder "command" (stdio) oder "url" (Streamable HTTP) an, nicht beides`, errorOf(t, out))
	code, out = do(t, ts, http.MethodPut, "/api/v1/mcp/servers/gh", `{"command":"x","url":"http://127.0.0.1:1/mcp"}`, nil)
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Equal(t, `Server "gh": give either "command" (stdio) or "url" (streamable HTTP), not both`, errorOf(t, out))

	code, out = do(t, ts, http.MethodPut, "/api/v1/mcp/servers/gh", `{"url":"ftp://example.com"}`, map[string]string{"Accept-Language": "ja"})
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Equal(t, `サーバー "gh"："url" は http:// か https:// で始まるアドレスにしてください（"ftp://example.com" は使えません）`, errorOf(t, out))

	code, out = do(t, ts, http.MethodPost, "/api/v1/mcp/import", `{"other":{}}`, map[string]string{"Accept-Language": "fr"})
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Contains(t, errorOf(t, out), "Aucun serveur dans ce fichier.")

	code, out = do(t, ts, http.MethodDelete, "/api/v1/mcp/servers/nope", "", de)
	assert.Equal(t, http.StatusNotFound, code, out)
	assert.Equal(t, `Es gibt keinen MCP-Server namens "nope".`, errorOf(t, out))
	code, out = do(t, ts, http.MethodPut, "/api/v1/mcp/servers/nope/tools/echo", `{"policy":"sometimes"}`, de)
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Equal(t, `Die Regel muss allow, ask oder block sein (nicht "sometimes").`, errorOf(t, out))

	// Nothing was saved by the refused requests.
	code, out = do(t, ts, http.MethodGet, "/api/v1/mcp/servers", "", nil)
	require.Equal(t, http.StatusOK, code, out)
	assert.JSONEq(t, `[]`, out)
}

// The errors an agent relays to its person: over REST in the client's
// language, over MCP (which carries none) in the language chosen in
// Settings. The texts the SPEC fixes for the agent's model stay English.
func TestAgentErrorsSpeakTheUsersLanguage(t *testing.T) {
	svc, _, ts := agentServer(t, nil)
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	de := map[string]string{"Accept-Language": "de"}

	code, out := do(t, ts, http.MethodPost, "/api/v1/asks", `{"questions":[{"question":"One?"}],"agent":"a"}`, de)
	require.Equal(t, http.StatusCreated, code, out)
	code, out = do(t, ts, http.MethodPost, "/api/v1/asks", `{"questions":[{"question":"Two?"}],"agent":"a"}`, de)
	assert.Equal(t, http.StatusTooManyRequests, code, out)
	assert.Regexp(t, `^abgelehnt: zu viele Fragen in kurzer Zeit – warte \d+,\d s, bevor du wieder fragst$`, errorOf(t, out),
		"the wait is written with the German decimal comma")
	code, out = do(t, ts, http.MethodPost, "/api/v1/asks", `{"questions":[{"question":"Two?"}],"agent":"a"}`, nil)
	assert.Equal(t, http.StatusTooManyRequests, code, out)
	assert.Regexp(t, `^refused: rate limited: wait \d+\.\ds before asking again$`, errorOf(t, out))

	code, out = do(t, ts, http.MethodGet, "/api/v1/asks/nope", "", map[string]string{"Accept-Language": "ja"})
	assert.Equal(t, http.StatusNotFound, code, out)
	assert.Equal(t, "question_id が見つかりません（または別のエージェントのカードです）", errorOf(t, out))
	code, out = do(t, ts, http.MethodGet, "/api/v1/asks/nope?wait=601", "", map[string]string{"Accept-Language": "es"})
	assert.Equal(t, http.StatusBadRequest, code, out)
	assert.Equal(t, "wait debe ser de 0 a 600 segundos", errorOf(t, out))
	code, out = do(t, ts, http.MethodPost, "/api/v1/asks", `{"questions":[{"question":"A?"}],"timeout_seconds":-1}`, map[string]string{"Accept-Language": "pt-BR"})
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, "entrada inválida: timeout_seconds deve ser 0 (nunca) ou mais", errorOf(t, out))

	code, out = do(t, ts, http.MethodPost, "/api/v1/asks", `{"questions":[{"question":"A?","options":["x","y","z","w","v"]}]}`, de)
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, "ungültige Eingabe: questions[0].options muss 2 bis 4 Einträge haben (hier 5)", errorOf(t, out))

	// A revoked token: the script's person reads why.
	tok := newAgentToken(t, ts, "cron")
	code, out = do(t, ts, http.MethodDelete, "/api/v1/agent-tokens/"+tok.ID, "", nil)
	require.Equal(t, http.StatusNoContent, code, out)
	code, out = do(t, ts, http.MethodDelete, "/api/v1/agent-tokens/"+tok.ID, "", map[string]string{"Accept-Language": "zh-CN"})
	assert.Equal(t, http.StatusNotFound, code, out)
	assert.Equal(t, "没有这个智能体令牌（可能已被撤销）。", errorOf(t, out))
	code, out = do(t, ts, http.MethodPost, "/api/v1/asks", `{"questions":[{"question":"A?"}]}`,
		map[string]string{"Authorization": "Bearer " + tok.Token, "Accept-Language": "de"})
	assert.Equal(t, http.StatusUnauthorized, code, out)
	assert.Equal(t, "Token fehlt oder ist falsch", errorOf(t, out))

	// Over MCP: English until Settings choose German.
	live := newAgentToken(t, ts, "claude-code")
	cs := mcpClient(t, ts, live.Token, "claude-code", nil)
	defer cs.Close()
	unknown := &sdk.CallToolParams{Name: "get_answer", Arguments: map[string]any{"question_id": "nope", "wait_seconds": 1}}
	text, isErr := callText(t, cs, unknown)
	assert.True(t, isErr, text)
	assert.Equal(t, "unknown question_id (or a card of another agent)", text)

	set := svc.GetSettings()
	set.Language = "de"
	_, err := svc.SaveSettings(context.Background(), set)
	require.NoError(t, err)
	text, isErr = callText(t, cs, unknown)
	assert.True(t, isErr, text)
	assert.Equal(t, "unbekannte question_id (oder die Karte eines anderen Agenten)", text)

	ask := &sdk.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{
		"questions": []any{map[string]any{"question": "Ship it?", "options": []any{"Yes", "No"}}}, "wait_seconds": 1}}
	text, isErr = callText(t, cs, ask)
	require.False(t, isErr, text)
	var pending struct {
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal([]byte(text), &pending), text)
	assert.Equal(t, agentinbox.PendingMessage, pending.Message, "the pending object is the SPEC's, in English")
	text, isErr = callText(t, cs, ask)
	assert.True(t, isErr, text)
	assert.Regexp(t, `^abgelehnt: zu viele Fragen in kurzer Zeit – warte \d+,\d s, bevor du wieder fragst$`, text)

	text, isErr = callText(t, cs, &sdk.CallToolParams{Name: "ask_user_question", Arguments: map[string]any{
		"questions": []any{map[string]any{"question": "", "options": []any{"Yes", "No"}}}}})
	assert.True(t, isErr, text)
	assert.Equal(t, "ungültige Eingabe: questions[0].question muss 1 bis 500 Zeichen lang sein (hier 0)", text)

	text, isErr = callText(t, cs, &sdk.CallToolParams{Name: "notify_user", Arguments: map[string]any{"message": "done", "level": "loud"}})
	assert.True(t, isErr, text)
	assert.Equal(t, `ungültige Eingabe: level muss "info", "success" oder "warning" sein (nicht "loud")`, text)
}
