package httpapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
)

// Settings → Knowledge shows the backend's refusals and the files it could
// not read: in the client's language (Accept-Language) until a language is
// chosen in Settings, and a file read while German is chosen is listed in
// German. Nothing refused is saved.
func TestKnowledgeErrorsFollowTheLanguage(t *testing.T) {
	k := newKnowledgeServer(t)
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	lang := func(code string) map[string]string { return map[string]string{"Accept-Language": code} }
	missing := filepath.Join(t.TempDir(), "nope")

	code, out := do(t, k.ts, http.MethodPost, "/api/v1/knowledge", `{"name":"docs","paths":["`+missing+`"]}`, lang("de-DE,de;q=0.9"))
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, "der Pfad "+missing+" existiert nicht", errorOf(t, out))
	code, out = do(t, k.ts, http.MethodPost, "/api/v1/knowledge", `{"name":"docs","paths":["`+missing+`"]}`, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, "path "+missing+" does not exist", errorOf(t, out))
	code, out = do(t, k.ts, http.MethodPost, "/api/v1/knowledge", `{"name":"docs","paths":["docs/manual"]}`, lang("ja"))
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, `パス "docs/manual" は絶対パスではありません`, errorOf(t, out))
	code, out = do(t, k.ts, http.MethodPost, "/api/v1/knowledge", `{"name":"`+strings.Repeat("x", api.MaxCollectionName+1)+`","paths":["/"]}`, lang("fr"))
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, "le nom d'une collection doit compter de 1 à 80 caractères", errorOf(t, out))
	var none []api.Collection
	require.Equal(t, http.StatusOK, k.call(http.MethodGet, "/api/v1/knowledge", nil, &none))
	assert.Empty(t, none, "nothing refused was saved")

	dir := t.TempDir()
	writeDoc(t, dir, "guide.md", "# Setup\n\nThe refund window is 30 days.\n")
	var c api.Collection
	require.Equal(t, http.StatusCreated, k.call(http.MethodPost, "/api/v1/knowledge", map[string]any{"name": "docs", "paths": []string{dir}}, &c))
	k.waitReady(c.ID)
	code, out = do(t, k.ts, http.MethodPost, "/api/v1/knowledge/"+c.ID+"/search", `{"query":"refund","top_k":51}`, lang("es"))
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, "top_k debe estar entre 1 y 50", errorOf(t, out))
	code, out = do(t, k.ts, http.MethodPost, "/api/v1/knowledge/"+c.ID+"/search", `{"query":"  "}`, lang("pt-BR"))
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Contains(t, errorOf(t, out), "a busca deve ter de 1 a")
	conv := k.newConversation(c.ID)
	code, out = do(t, k.ts, http.MethodPatch, "/api/v1/conversations/"+conv, `{"knowledge":["no-such-collection"]}`, lang("zh-CN"))
	assert.Equal(t, http.StatusUnprocessableEntity, code, out)
	assert.Equal(t, `未知的知识库文档集 "no-such-collection"`, errorOf(t, out))

	// German chosen in Settings: the files read from now on are listed in German.
	code, out = do(t, k.ts, http.MethodGet, "/api/v1/settings", "", nil)
	require.Equal(t, http.StatusOK, code, out)
	code, out = do(t, k.ts, http.MethodPut, "/api/v1/settings", withLanguage(t, out, "de"), nil)
	require.Equal(t, http.StatusOK, code, out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scan.pdf"), []byte("not a PDF at all"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.txt"), nil, 0o600))
	require.Equal(t, http.StatusAccepted, k.call(http.MethodPost, "/api/v1/knowledge/"+c.ID+"/reindex", nil, nil))
	var after api.Collection
	k.waitFor("the new files listed", func() bool {
		require.Equal(t, http.StatusOK, k.call(http.MethodGet, "/api/v1/knowledge/"+c.ID, nil, &after))
		return after.Status == api.KnowledgeReady && len(after.Errors) == 2
	})
	problems := map[string]string{}
	for _, e := range after.Errors {
		problems[filepath.Base(e.Path)] = e.Error
	}
	assert.True(t, strings.HasPrefix(problems["scan.pdf"], "unlesbares PDF: "), problems["scan.pdf"])
	assert.Equal(t, "kein Text zum Indexieren: die Datei ist leer", problems["empty.txt"])
	assert.Equal(t, 1, after.IndexedFiles, "the readable file stays indexed")

	// The list is said in the language chosen when it is shown: French now,
	// without reading the files again; the library's own words stay as they were.
	code, out = do(t, k.ts, http.MethodGet, "/api/v1/settings", "", nil)
	require.Equal(t, http.StatusOK, code, out)
	code, out = do(t, k.ts, http.MethodPut, "/api/v1/settings", withLanguage(t, out, "fr"), nil)
	require.Equal(t, http.StatusOK, code, out)
	var french api.Collection
	require.Equal(t, http.StatusOK, k.call(http.MethodGet, "/api/v1/knowledge/"+c.ID, nil, &french))
	require.Len(t, french.Errors, 2, "%+v", french)
	for _, e := range french.Errors {
		switch filepath.Base(e.Path) {
		case "scan.pdf":
			require.True(t, strings.HasPrefix(e.Error, "PDF illisible : "), e.Error)
			assert.Equal(t, strings.TrimPrefix(problems["scan.pdf"], "unlesbares PDF: "), strings.TrimPrefix(e.Error, "PDF illisible : "))
		case "empty.txt":
			assert.Equal(t, "aucun texte à indexer : le fichier est vide", e.Error)
		default:
			t.Errorf("unexpected file listed: %+v", e)
		}
	}

	// A collection whose folder is gone says so in the language shown, too.
	gone := t.TempDir()
	writeDoc(t, gone, "notes.md", "# Notes\n\nSomething to index.\n")
	var second api.Collection
	require.Equal(t, http.StatusCreated, k.call(http.MethodPost, "/api/v1/knowledge", map[string]any{"name": "notes", "paths": []string{gone}}, &second))
	k.waitReady(second.ID)
	require.NoError(t, os.RemoveAll(gone))
	require.Equal(t, http.StatusAccepted, k.call(http.MethodPost, "/api/v1/knowledge/"+second.ID+"/reindex", nil, nil))
	k.waitFor("the collection's error", func() bool {
		require.Equal(t, http.StatusOK, k.call(http.MethodGet, "/api/v1/knowledge/"+second.ID, nil, &second))
		return second.Status == api.KnowledgeError
	})
	assert.Equal(t, gone+" n'existe plus", second.Error)
	code, out = do(t, k.ts, http.MethodGet, "/api/v1/settings", "", nil)
	require.Equal(t, http.StatusOK, code, out)
	code, out = do(t, k.ts, http.MethodPut, "/api/v1/settings", withLanguage(t, out, "en"), nil)
	require.Equal(t, http.StatusOK, code, out)
	require.Equal(t, http.StatusOK, k.call(http.MethodGet, "/api/v1/knowledge/"+second.ID, nil, &second))
	assert.Equal(t, gone+" no longer exists", second.Error)
	require.Equal(t, http.StatusOK, k.call(http.MethodGet, "/api/v1/knowledge/"+c.ID, nil, &french))
	for _, e := range french.Errors {
		if filepath.Base(e.Path) == "empty.txt" {
			assert.Equal(t, "no text to index: the file is empty", e.Error)
		}
	}
}
