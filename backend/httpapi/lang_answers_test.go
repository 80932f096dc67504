package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/questions"
)

// An answer the card refuses (422) says why in the user's language: the
// client's Accept-Language, else the language chosen in Settings (which the
// desktop window's error text follows too). English reads as it always did.
// The card stays pending.
func TestRefusedAnswersSpeakTheUsersLanguage(t *testing.T) {
	svc, _, ts := agentServer(t, nil)
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	code, body := do(t, ts, http.MethodPost, "/api/v1/asks",
		`{"questions":[{"question":"Deploy?","options":["Yes","No"]},{"question":"Why?","options":[]}],"agent":"deploy-bot","timeout_seconds":0}`, nil)
	require.Equal(t, http.StatusCreated, code, body)
	var filed api.AskFiled
	require.NoError(t, json.Unmarshal([]byte(body), &filed))
	respond := func(answers string, hdr map[string]string) (int, string) {
		return do(t, ts, http.MethodPost, "/api/v1/conversations/"+filed.ConversationID+"/respond",
			`{"question_id":"`+filed.QuestionID+`","action":"submit","answers":`+answers+`}`, hdr)
	}
	spoofed := `{"Deploy?":{"selected":["Maybe"]},"Why?":{"custom":"tests pass"}}`

	code, body = respond(spoofed, map[string]string{"Accept-Language": "de-DE"})
	assert.Equal(t, http.StatusUnprocessableEntity, code, body)
	assert.Equal(t, `ungültige Antwort auf "Deploy?": "Maybe" ist keine ihrer Optionen`, errorOf(t, body))
	code, body = respond(spoofed, map[string]string{"Accept-Language": "ja"})
	assert.Equal(t, http.StatusUnprocessableEntity, code, body)
	assert.Equal(t, `"Deploy?" への回答が無効です: "Maybe" はこの質問の選択肢ではありません`, errorOf(t, body))
	code, body = respond(spoofed, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, code, body)
	assert.Equal(t, `invalid answer to "Deploy?": "Maybe" is not one of its options`, errorOf(t, body))
	code, body = respond(`{"Deploy?":{"selected":["Yes"]},"Why?":{"custom":"`+strings.Repeat("x", questions.MaxCustomLen+1)+`"}}`, map[string]string{"Accept-Language": "fr"})
	assert.Equal(t, http.StatusUnprocessableEntity, code, body)
	assert.Equal(t, `réponse invalide à "Why?" : le texte libre doit compter de 1 à 1000 caractères (ici 1001)`, errorOf(t, body))

	// German chosen in Settings: the window shows the error's own text.
	i18n.SetCurrent("de")
	_, err := svc.Respond(t.Context(), filed.ConversationID, questions.Response{QuestionID: filed.QuestionID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Deploy?": {Selected: []string{"Yes"}}}})
	require.Error(t, err)
	assert.Equal(t, `ungültige Antwort auf "Why?": eine Antwort ist nötig; schreib eine`, err.Error())

	code, body = do(t, ts, http.MethodGet, "/api/v1/asks/"+filed.QuestionID+"?wait=0", "", nil)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `"status":"pending"`, "a refused answer changed the card")
}

// Settings → Profiles lists Parley's own tool entries in the client's
// language; the built-in tools keep the description their model reads.
func TestToolListFollowsAcceptLanguage(t *testing.T) {
	_, _, ts := agentServer(t, nil)
	list := func(hdr map[string]string) map[string]string {
		code, body := do(t, ts, http.MethodGet, "/api/v1/tools", "", hdr)
		require.Equal(t, http.StatusOK, code, body)
		var tools []struct{ Name, Description string }
		require.NoError(t, json.Unmarshal([]byte(body), &tools))
		out := map[string]string{}
		for _, tl := range tools {
			out[tl.Name] = tl.Description
		}
		return out
	}
	es := list(map[string]string{"Accept-Language": "es-MX"})
	assert.Equal(t, "Te hace preguntas (una tarjeta en el chat) antes de adivinar", es["ask_user_question"])
	assert.Equal(t, "Las herramientas de todos los servidores MCP activados (según sus reglas)", es["mcp:*"])
	assert.True(t, strings.HasPrefix(es["current_time"], "Returns the current local date"), es["current_time"])
	assert.Equal(t, "Ask you questions (a card in the chat) before guessing", list(nil)["ask_user_question"])
}
