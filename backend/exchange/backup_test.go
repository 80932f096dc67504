package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// A part (memories, say) rides in the backup under its own key, is checked
// before anything is stored, and is restored after projects and
// conversations; a backup without it restores without it.
func TestBackupPartsRoundTrip(t *testing.T) {
	from := newStore(t)
	p, err := from.CreateProject(ctx, chat.Project{Name: "P"})
	require.NoError(t, err)
	c, err := from.CreateConversationWith(ctx, chat.Conversation{Title: "c", Assistant: "default", ProjectID: &p.ID})
	require.NoError(t, err)
	_, err = from.CreateConversation(ctx, "another", "default")
	require.NoError(t, err)
	_, _, err = from.AgentConversation(ctx, "deploy-bot")
	require.NoError(t, err)

	type note struct {
		Text           string `json:"text"`
		ConversationID string `json:"conversationId"`
	}
	var restored []note
	part := BackupPart{
		Name:   "notes",
		Export: func(context.Context) (any, error) { return []note{{Text: "hi", ConversationID: c.ID}}, nil },
		Check: func(section json.RawMessage) error {
			var ns []note
			if err := json.Unmarshal(section, &ns); err != nil {
				return err
			}
			for _, n := range ns {
				if n.Text == "" {
					return errors.New("a note without text")
				}
			}
			return nil
		},
		Import: func(ctx context.Context, section json.RawMessage) (int, int, error) {
			require.NoError(t, json.Unmarshal(section, &restored))
			return len(restored), 0, nil
		},
	}
	data, err := ExportBackup(ctx, from, part)
	require.NoError(t, err)
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &top), "the backup is one JSON object")
	assert.Contains(t, top, "notes")

	to := newStore(t)
	res, err := ImportBackup(ctx, to, data, BackupOptions{Parts: []BackupPart{part}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"projects": 1, "conversations": 2, "notes": 1}, res.Added, "an agent's conversation is left out")
	require.Len(t, restored, 1)
	got, err := to.GetConversation(ctx, restored[0].ConversationID)
	require.NoError(t, err, "a part's reference to a conversation holds after the restore")
	require.NotNil(t, got.ProjectID)
	assert.Equal(t, p.ID, *got.ProjectID)

	// Without the part's code, its section is left alone; without its
	// section, the part is not called.
	other := newStore(t)
	_, err = ImportBackup(ctx, other, data, BackupOptions{})
	require.NoError(t, err)
	restored = nil
	plain, err := ExportBackup(ctx, from)
	require.NoError(t, err)
	_, err = ImportBackup(ctx, newStore(t), plain, BackupOptions{Parts: []BackupPart{part}})
	require.NoError(t, err)
	assert.Nil(t, restored)

	// A section its check refuses stores nothing at all.
	bad, err := ExportBackup(ctx, from, BackupPart{Name: "notes", Export: func(context.Context) (any, error) { return []note{{}}, nil }})
	require.NoError(t, err)
	empty := newStore(t)
	_, err = ImportBackup(ctx, empty, bad, BackupOptions{Parts: []BackupPart{part}})
	require.ErrorIs(t, err, ErrInvalidBackup)
	assert.Equal(t, rowCounts{}, countRows(t, empty))
	projects, err := empty.Projects(ctx)
	require.NoError(t, err)
	assert.Empty(t, projects)
}

// A conversation's exports name its project; importing one conversation
// puts the copy back in its project when that project exists there.
func TestConversationExportCarriesItsProject(t *testing.T) {
	s := newStore(t)
	p, err := s.CreateProject(ctx, chat.Project{Name: "Zeppelin *works*"})
	require.NoError(t, err)
	c, err := s.CreateConversationWith(ctx, chat.Conversation{Title: "In it", Assistant: "default", ProjectID: &p.ID})
	require.NoError(t, err)
	md, err := ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	assert.Contains(t, md, `Project: Zeppelin \*works\*.`)
	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	var doc exportDoc
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "Zeppelin *works*", doc.Conversation.Project)
	assert.Equal(t, p.ID, doc.Conversation.ProjectID)

	copied, err := ImportJSON(ctx, s, data)
	require.NoError(t, err)
	require.NotNil(t, copied.ProjectID, "the copy stays in the project")
	assert.Equal(t, p.ID, *copied.ProjectID)
	elsewhere, err := ImportJSON(ctx, newStore(t), data)
	require.NoError(t, err)
	assert.Nil(t, elsewhere.ProjectID, "no such project there")

	out := mustConversation(t, s, "Outside")
	md, err = ExportMarkdown(ctx, s, out.ID)
	require.NoError(t, err)
	assert.NotContains(t, md, "Project:")
}
