package crash

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// ---------------------------------------------------------------------------
// A full backup's import (SPEC §14) killed part of the way.

// TestKillDuringBackupImport SIGKILLs `parley serve` while it imports a
// large backup, then checks after a restart that nothing that was there
// before changed (not even the conversation the backup holds under the
// same id), that every conversation the import stored is whole, and that
// importing the same backup again completes it, a third time adding
// nothing.
func TestKillDuringBackupImport(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PARLEY_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "PARLEY_CRASH_SEED=%q", s)
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 14))
	ms := modelserver.New(crashScript())
	defer ms.Close()
	dataDir, logDir := t.TempDir(), t.TempDir()

	a, err := startChild("import child", dataDir, ms.URL(), filepath.Join(logDir, "import-crashed.log"))
	require.NoError(t, err)
	defer a.kill()
	api := newAPI(a.url)

	// What is there before: a project with a conversation that has a reply,
	// and a conversation outside it.
	type before struct {
		title, project string
		messages       []string
	}
	var project struct {
		ID string `json:"id"`
	}
	require.NoError(t, api.expect(http.MethodPost, "/api/v1/projects", map[string]any{"name": "Kept project", "instructions": "Be brief."}, http.StatusCreated, &project))
	existing := map[string]*before{}
	for i, pid := range []string{project.ID, ""} {
		var c struct {
			ID string `json:"id"`
		}
		body := map[string]any{"title": fmt.Sprintf("kept %d", i)}
		if pid != "" {
			body["project_id"] = pid
		}
		require.NoError(t, api.expect(http.MethodPost, "/api/v1/conversations", body, http.StatusCreated, &c))
		require.NoError(t, api.expect(http.MethodPost, "/api/v1/conversations/"+c.ID+"/messages",
			map[string]any{"content": fmt.Sprintf("[%s] kept conversation %d", kindPlain, i)}, http.StatusAccepted, nil))
		d := waitIdle(t, api, c.ID)
		existing[c.ID] = &before{title: d.Title, project: d.ProjectID, messages: contents(d.Messages)}
		require.GreaterOrEqual(t, len(d.Messages), 2, "a reply")
	}
	var clash string
	for id := range existing {
		clash = id
	}

	// The backup: a project and many conversations, the first under the id
	// of a conversation that is here.
	const n = 400
	file, ids := syntheticBackup(n, clash)
	stop := 1 + rng.IntN(n-2)
	t.Logf("seed %d (PARLEY_CRASH_SEED=%d): kill once conversation #%d of %d is stored", seed, seed, stop, n)

	done := make(chan error, 1)
	go func() {
		status, body, err := api.call(http.MethodPost, "/api/v1/import", json.RawMessage(file))
		if err == nil {
			err = fmt.Errorf("the import answered %d before the kill: %s", status, clip(string(body)))
		}
		done <- err
	}()
	deadline := time.Now().Add(driveTimeout)
	for {
		status, _, err := api.call(http.MethodGet, "/api/v1/conversations/"+ids[stop], nil)
		require.NoError(t, err)
		if status == http.StatusOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "conversation #%d of the backup never appeared", stop)
		select {
		case err := <-done:
			t.Logf("the import ended before the kill: %v", err)
			done <- err
		case <-time.After(time.Millisecond):
		}
	}
	a.kill()
	require.False(t, a.running(), "the child survived SIGKILL")
	t.Logf("killed: %v", <-done)
	require.NoError(t, checkIntegrity(dataDir, t.TempDir()), "database after the kill")

	b, err := startChild("import restarted child", dataDir, ms.URL(), filepath.Join(logDir, "import-restarted.log"))
	require.NoError(t, err)
	defer b.kill()
	api = newAPI(b.url)

	checkBefore := func(when string) {
		for id, want := range existing {
			var d importedConv
			require.NoError(t, api.get("/api/v1/conversations/"+id, &d), "%s: a conversation that was there", when)
			assert.Equal(t, want.title, d.Title, "%s: %s's title", when, id)
			assert.Equal(t, want.project, d.ProjectID, "%s: %s's project", when, id)
			assert.Equal(t, want.messages, contents(d.Messages), "%s: %s's messages", when, id)
		}
		var p struct {
			Name         string `json:"name"`
			Instructions string `json:"instructions"`
		}
		require.NoError(t, api.get("/api/v1/projects/"+project.ID, &p), when)
		assert.Equal(t, "Kept project", p.Name, when)
		assert.Equal(t, "Be brief.", p.Instructions, when)
	}
	// present counts the backup's conversations stored, each whole.
	present := func(when string) int {
		stored := 0
		for i, id := range ids[1:] {
			status, body, err := api.call(http.MethodGet, "/api/v1/conversations/"+id, nil)
			require.NoError(t, err)
			if status == http.StatusNotFound {
				continue
			}
			require.Equal(t, http.StatusOK, status, "%s: %s", when, body)
			var d importedConv
			require.NoError(t, json.Unmarshal(body, &d))
			assert.Equal(t, fmt.Sprintf("backup conversation %d", i+1), d.Title, when)
			assert.Len(t, d.Messages, 3, "%s: conversation #%d of the backup is not whole", when, i+1)
			stored++
		}
		return stored
	}
	checkBefore("after the kill")
	stored := present("after the kill")
	t.Logf("%d of the backup's %d new conversations were stored before the kill", stored, n-1)
	assert.GreaterOrEqual(t, stored, stop, "what the server showed before the kill is kept")

	var res struct {
		Added   map[string]int `json:"added"`
		Skipped map[string]int `json:"skipped"`
	}
	require.NoError(t, api.expect(http.MethodPost, "/api/v1/import", json.RawMessage(file), http.StatusOK, &res))
	assert.Equal(t, n-1-stored, res.Added["conversations"], "the second import adds what the first did not")
	assert.Equal(t, stored+1, res.Skipped["conversations"], "and leaves what is there (the clash too)")
	assert.Equal(t, n-1, present("after the second import"))
	checkBefore("after the second import")

	require.NoError(t, api.expect(http.MethodPost, "/api/v1/import", json.RawMessage(file), http.StatusOK, &res))
	assert.Equal(t, map[string]int{"projects": 0, "conversations": 0}, res.Added, "a third import adds nothing")
	require.NoError(t, b.terminate())
}

type importedConv struct {
	Title     string       `json:"title"`
	ProjectID string       `json:"project_id"`
	State     string       `json:"state"`
	Messages  []apiMessage `json:"messages"`
}

func contents(msgs []apiMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + m.Content
	}
	return out
}

// waitIdle waits until the conversation's run has ended with a reply.
func waitIdle(t *testing.T, api *apiClient, id string) importedConv {
	t.Helper()
	deadline := time.Now().Add(settleTimeout)
	for {
		var d importedConv
		require.NoError(t, api.get("/api/v1/conversations/"+id, &d))
		if d.State == "idle" && len(d.Messages) > 0 && d.Messages[len(d.Messages)-1].Role == "assistant" {
			return d
		}
		require.True(t, time.Now().Before(deadline), "conversation %s never got its reply (state %s)", id, d.State)
		<-time.After(5 * time.Millisecond)
	}
}

// syntheticBackup is a backup of one project and n conversations of three
// messages each (half of them in the project); the first has the id clash.
func syntheticBackup(n int, clash string) ([]byte, []string) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	type msg struct {
		ID        string    `json:"id"`
		ParentID  string    `json:"parent_id,omitempty"`
		Role      string    `json:"role"`
		Content   string    `json:"content"`
		CreatedAt time.Time `json:"created_at"`
	}
	var convs []map[string]any
	ids := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("backup-conversation-%04d", i)
		title := fmt.Sprintf("backup conversation %d", i)
		if i == 0 {
			id, title = clash, "the backup's version, which must not replace the one here"
		}
		ids[i] = id
		conv := map[string]any{"id": id, "title": title, "assistant": "default", "pinned": false, "created_at": at, "updated_at": at.Add(time.Duration(i) * time.Second)}
		if i%2 == 1 {
			conv["project"], conv["project_id"] = "Imported project", "backup-project"
		}
		var msgs []msg
		for j, role := range []string{"user", "assistant", "user"} {
			m := msg{ID: fmt.Sprintf("%s-m%d", id, j), Role: role, Content: fmt.Sprintf("%s says %d: %s", role, j, prose("backup", 40, i*3+j)), CreatedAt: at}
			if j > 0 {
				m.ParentID = msgs[j-1].ID
			}
			msgs = append(msgs, m)
		}
		convs = append(convs, map[string]any{"format": "parley.conversation", "version": 2, "exported_at": at, "conversation": conv,
			"messages": msgs, "leaf_id": msgs[2].ID, "runs": []any{}, "cards": []any{}})
	}
	doc := map[string]any{"format": "parley.backup", "version": 1, "exported_at": at,
		"projects":      []any{map[string]any{"id": "backup-project", "name": "Imported project", "created_at": at, "updated_at": at}},
		"conversations": convs}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b, ids
}
