package service

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/i18n"
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
	assert.Equal(t, KindInput, KindOf(err))
	assert.Equal(t, `die Basis-URL "ftp://example.org" muss eine http(s)-URL sein, etwa http://127.0.0.1:11434/v1`, err.Error())
	assert.Equal(t, `base URL "ftp://example.org" must be an http(s) URL such as http://127.0.0.1:11434/v1`, i18n.Localize(err, i18n.English))
	assert.Equal(t, `ベース URL "ftp://example.org" は http://127.0.0.1:11434/v1 のような http(s) の URL にしてください`, i18n.Localize(err, "ja"))
	assert.Equal(t, st.BaseURL, e.svc.GetSettings().BaseURL, "a refused base URL is not kept")

	bad = e.svc.GetSettings()
	bad.QuestionTimeoutSeconds = -1
	_, err = e.svc.SaveSettings(ctx, bad)
	require.Error(t, err)
	assert.Equal(t, "die Wartezeit für Fragen muss 0 (unbegrenzt warten) bis 604.800 Sekunden sein", err.Error(), "numbers the language's way")

	_, err = e.svc.SaveProfile(ctx, Profile{Name: "???"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "der Profilname muss")

	err = e.svc.PullModel(ctx, "  ")
	require.Error(t, err)
	assert.Equal(t, "der Modellname darf nicht leer sein", err.Error())

	// A sentinel says itself in the language of the moment it is shown.
	assert.Equal(t, "in diesem Chat läuft bereits eine Antwort", ErrRunActive.Error())
	assert.True(t, errors.Is(errors.Join(errors.New("x"), ErrRunActive), ErrRunActive))
	assert.Equal(t, KindConflict, KindOf(ErrRunActive))
	i18n.SetCurrent("fr")
	assert.Equal(t, "une réponse est déjà en cours dans cette conversation", ErrRunActive.Error())
	assert.Equal(t, "a run is already active in this conversation", i18n.Localize(ErrRunActive, i18n.English))
}
