package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/modelserver"
)

// The refusals the interface shows (Settings, profiles, a rename, a model
// pull, a running reply) are said in the language chosen in Settings, and
// can be said again in an HTTP client's (i18n.Localize); a refused value
// changes nothing.
func TestUserFacingRefusalsSpeakTheChosenLanguage(t *testing.T) {
	e := newEnv(t, askThenAnswer(), time.Minute)
	ctx := context.Background()
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })

	st := e.svc.GetSettings()
	st.Language = "de"
	_, err := e.svc.SaveSettings(ctx, st)
	require.NoError(t, err)

	bad := e.svc.GetSettings()
	bad.BaseURL = "ftp://example.org"
	_, err = e.svc.SaveSettings(ctx, bad)
	require.Error(t, err)
	assert.Equal(t, fault.Input, fault.KindOf(err))
	assert.Equal(t, `die Basis-URL "ftp://example.org" muss eine http(s)-URL sein, etwa http://127.0.0.1:11434/v1`, err.Error())
	assert.Equal(t, `base URL "ftp://example.org" must be an http(s) URL such as http://127.0.0.1:11434/v1`, i18n.Localize(err, i18n.English))
	assert.Equal(t, `ベース URL "ftp://example.org" は http://127.0.0.1:11434/v1 のような http(s) の URL にしてください`, i18n.Localize(err, "ja"))
	assert.Equal(t, st.BaseURL, e.svc.GetSettings().BaseURL, "a refused base URL is not kept")

	bad = e.svc.GetSettings()
	bad.QuestionTimeoutSeconds = -1
	_, err = e.svc.SaveSettings(ctx, bad)
	require.Error(t, err)
	assert.Equal(t, "die Wartezeit für Fragen muss 0 (unbegrenzt warten) bis 604.800 Sekunden sein", err.Error(), "numbers the language's way")

	_, err = e.svc.SaveProfile(ctx, assistant.Profile{Name: "???"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "der Profilname muss")

	err = e.svc.PullModel(ctx, "  ")
	require.Error(t, err)
	assert.Equal(t, "der Modellname darf nicht leer sein", err.Error())

	// A sentinel says itself in the language of the moment it is shown.
	assert.Equal(t, "in diesem Chat läuft bereits eine Antwort", ErrRunActive.Error())
	assert.True(t, errors.Is(errors.Join(errors.New("x"), ErrRunActive), ErrRunActive))
	assert.Equal(t, fault.Conflict, fault.KindOf(ErrRunActive))
	i18n.SetCurrent("fr")
	assert.Equal(t, "une réponse est déjà en cours dans cette conversation", ErrRunActive.Error())
	assert.Equal(t, "a run is already active in this conversation", i18n.Localize(ErrRunActive, i18n.English))
}

// Parley's own texts outside refusals follow the chosen language too: the
// banner of a reply cut short by closing the app, the model server with no
// models, and Parley's own entries in the profiles' tool list (the built-in
// tools keep the description their model reads).
func TestParleysOwnTextsSpeakTheChosenLanguage(t *testing.T) {
	slow := func(modelserver.ChatRequest) modelserver.Turn {
		return modelserver.Turn{Text: "late", FirstTokenDelay: time.Minute}
	}
	e := newEnv(t, slow, time.Minute)
	ctx := context.Background()
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	c, err := e.svc.CreateConversation(ctx, "Slow", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(e.model.Requests()) > 0 }, 10*time.Second, 10*time.Millisecond, "the model was asked")
	e.close()
	e.open()
	d := e.waitState(c.ID, chat.StateError)
	assert.Equal(t, "Parley was closed before the assistant finished. Retry to continue.", d.Error)
	i18n.SetCurrent("fr")
	d, err = e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "Parley a été fermé avant que l'assistant ait fini. Réessayez pour continuer.", d.Error)

	i18n.SetCurrent("de")
	tools := map[string]ToolInfo{}
	for _, tl := range e.svc.AvailableTools() {
		tools[tl.Name] = tl
	}
	assert.Equal(t, "Stellt dir Fragen (eine Karte im Chat), statt zu raten", tools["ask_user_question"].Description)
	assert.Equal(t, "Lässt bis zu 4 Unteragenten parallel an Teilen einer Aufgabe arbeiten", tools["spawn_agents"].Description)
	assert.Equal(t, "Run up to 4 sub-agents in parallel on parts of a task", tools["spawn_agents"].Text.In(i18n.English), "said again in a client's language")
	assert.True(t, strings.HasPrefix(tools["current_time"].Description, "Returns the current local date"), "the model's description")

	empty := modelserver.New(modelserver.Turns(), modelserver.WithModels([]string{}))
	t.Cleanup(empty.Close)
	ja := envAt(t, empty.URL(), "", "")
	i18n.SetCurrent("ja")
	c, err = ja.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = ja.svc.Send(ctx, c.ID, api.SendRequest{Content: "hello"})
	require.NoError(t, err)
	d = ja.waitState(c.ID, chat.StateError)
	assert.True(t, strings.HasPrefix(d.Error, empty.URL()+" のモデルサーバーにはまだモデルがありません。"), d.Error)

	// The banner of that failed run is said in the language chosen later (the
	// events said it in the one of the moment), and so is the export.
	// The state is stored before the event is sent: wait for the event.
	var announced []string
	require.Eventually(t, func() bool {
		announced = announced[:0]
		for _, ev := range ja.rec.Events() {
			if p, ok := ev.Payload.(events.RunErrorPayload); ok && p.ConversationID == c.ID {
				announced = append(announced, p.Error)
			}
		}
		return len(announced) > 0
	}, 10*time.Second, 5*time.Millisecond, "run:error was sent")
	require.Len(t, announced, 1)
	assert.Equal(t, d.Error, announced[0])
	i18n.SetCurrent("de")
	d, err = ja.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, chat.StateError, d.State)
	assert.True(t, strings.HasPrefix(d.Error, "Der Modellserver unter "+empty.URL()+" hat noch keine Modelle."), d.Error)
	doc, err := ja.svc.ExportConversation(ctx, c.ID, "json")
	require.NoError(t, err)
	assert.Contains(t, doc, "hat noch keine Modelle", "the export says it in words")
	assert.NotContains(t, doc, "i18n:")
}
