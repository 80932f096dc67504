package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
)

// A full backup moves projects and conversations to another Parley, under
// their ids; restoring it again, or into the Parley it came from, adds
// nothing twice.
func TestBackupRoundTripAndIdempotentImport(t *testing.T) {
	from := askingServer(t)
	p := from.newProject(map[string]any{"name": "Airships", "instructions": "Be nautical.", "model": "m1"})
	var in, out convJSON
	require.Equal(t, http.StatusCreated, from.call("POST", "/api/v1/conversations", map[string]any{"title": "In the project", "project_id": p.ID}, &in))
	require.Equal(t, http.StatusCreated, from.call("POST", "/api/v1/conversations", map[string]any{"title": "Outside"}, &out))
	require.Equal(t, http.StatusAccepted, from.call("POST", "/api/v1/conversations/"+in.ID+"/messages", map[string]string{"content": "Park it"}, nil))
	asked := from.idle(in.ID)
	require.NotNil(t, asked.PendingQuestion)
	require.Equal(t, http.StatusOK, from.call("POST", "/api/v1/conversations/"+in.ID+"/respond",
		map[string]any{"question_id": "latest", "action": "submit", "answers": map[string]any{"Which hangar?": map[string]any{"selected": []string{"North"}}},
			"remember": []string{"Which hangar?"}}, nil))
	// The answer sends the run on after Respond returns: wait for its reply
	// (the state read at once may still be the card's).
	var done convJSON
	from.waitFor("the reply after the answer", func() bool {
		done, _ = from.conversation(in.ID)
		n := len(done.Messages)
		return done.State == chat.StateError || done.State == chat.StateIdle && n > 0 && done.Messages[n-1].Content != ""
	})
	require.Equal(t, chat.StateIdle, done.State)
	require.Equal(t, "Parked.", done.Messages[len(done.Messages)-1].Content)
	// Memories go with the backup: the answer remembered (answering cards
	// from now on) and one typed into the project.
	var remembered []struct {
		ID         string  `json:"id"`
		Text       string  `json:"text"`
		ProjectID  *string `json:"project_id"`
		AutoAnswer bool    `json:"auto_answer"`
	}
	require.Equal(t, http.StatusOK, from.call("GET", "/api/v1/memory", nil, &remembered))
	require.Len(t, remembered, 1)
	require.Equal(t, http.StatusOK, from.call("PATCH", "/api/v1/memory/"+remembered[0].ID, map[string]any{"auto_answer": true}, nil))
	require.Equal(t, http.StatusCreated, from.call("POST", "/api/v1/memory", map[string]any{"text": "Prefers the north side.", "project_id": p.ID}, nil))
	require.Equal(t, http.StatusOK, from.call("GET", "/api/v1/memory", nil, &remembered))

	// A conversation's own exports carry its project's name.
	status, md := do(t, from.ts, "GET", "/api/v1/conversations/"+in.ID+"/export", "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, md, "Project: Airships.")
	status, js := do(t, from.ts, "GET", "/api/v1/conversations/"+in.ID+"/export?format=json", "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, js, `"project": "Airships"`)

	req, err := http.NewRequest("GET", from.ts.URL+"/api/v1/export", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := from.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Disposition"), "parley-backup-")
	var backup struct {
		Format        string            `json:"format"`
		Version       int               `json:"version"`
		Projects      []json.RawMessage `json:"projects"`
		Conversations []json.RawMessage `json:"conversations"`
	}
	file, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(file, &backup))
	assert.Equal(t, "parley.backup", backup.Format)
	assert.Equal(t, 1, backup.Version)
	assert.Len(t, backup.Projects, 1)
	assert.Len(t, backup.Conversations, 2)

	// Into the Parley it came from: everything is there already.
	var res api.BackupImported
	require.Equal(t, http.StatusOK, from.call("POST", "/api/v1/import", json.RawMessage(file), &res))
	assert.Equal(t, map[string]int{"projects": 0, "conversations": 0, "memories": 0}, res.Added)
	assert.Equal(t, map[string]int{"projects": 1, "conversations": 2, "memories": 2}, res.Skipped)

	// Into another Parley: everything comes, under the same ids.
	to := askingServer(t)
	res = api.BackupImported{}
	require.Equal(t, http.StatusOK, to.call("POST", "/api/v1/import", json.RawMessage(file), &res))
	assert.Equal(t, map[string]int{"projects": 1, "conversations": 2, "memories": 2}, res.Added)
	var restored []struct {
		ID         string  `json:"id"`
		Text       string  `json:"text"`
		ProjectID  *string `json:"project_id"`
		AutoAnswer bool    `json:"auto_answer"`
	}
	require.Equal(t, http.StatusOK, to.call("GET", "/api/v1/memory", nil, &restored))
	assert.ElementsMatch(t, remembered, restored, "the memories, their scope and auto-answer")
	var got projectJSON
	require.Equal(t, http.StatusOK, to.call("GET", "/api/v1/projects/"+p.ID, nil, &got))
	assert.Equal(t, p, got)
	assert.Equal(t, []string{in.ID}, to.listIDs("?project="+p.ID))
	moved, status := to.conversation(in.ID)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "In the project", moved.Title, "a restored title is not marked as a copy")
	require.Equal(t, len(done.Messages), len(moved.Messages))
	for i := range done.Messages {
		assert.Equal(t, done.Messages[i].Content, moved.Messages[i].Content)
	}
	var cards []json.RawMessage
	require.Equal(t, http.StatusOK, to.call("GET", "/api/v1/conversations/"+in.ID+"/questions", nil, &cards))
	assert.Len(t, cards, 1)

	// Again: nothing added twice.
	res = api.BackupImported{}
	require.Equal(t, http.StatusOK, to.call("POST", "/api/v1/import", json.RawMessage(file), &res))
	assert.Equal(t, map[string]int{"projects": 0, "conversations": 0, "memories": 0}, res.Added)
	var list []projectJSON
	require.Equal(t, http.StatusOK, to.call("GET", "/api/v1/projects", nil, &list))
	assert.Len(t, list, 1)
	assert.Len(t, to.listIDs(""), 2)
}

func TestImportBackupRefusesWhatItCannotRead(t *testing.T) {
	k := askingServer(t)
	k.newProject(map[string]any{"name": "Here"})
	for _, body := range []string{
		`{"format":"parley.conversation","version":2}`,
		`{"format":"parley.backup","version":99,"projects":[],"conversations":[]}`,
		`{"format":"parley.backup","version":1,"projects":[{"id":"","name":"x"}],"conversations":[]}`,
		`{"format":"parley.backup","version":1,"projects":[],"conversations":[{"format":"parley.conversation","version":2}]}`,
		`not json`,
	} {
		status, text := do(t, k.ts, "POST", "/api/v1/import", body, nil)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %s", body, text)
		assert.Contains(t, text, "Parley backup", body)
	}
	var list []projectJSON
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/projects", nil, &list))
	assert.Len(t, list, 1, "a refused backup stored nothing")
	var page api.ConversationPage
	require.Equal(t, http.StatusOK, k.call("GET", "/api/v1/conversations", nil, &page))
	assert.Empty(t, page.Items)
	status, text := do(t, k.ts, "POST", "/api/v1/import", strings.Repeat(" ", api.MaxBackupBytes+1), nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, status, text)
}
