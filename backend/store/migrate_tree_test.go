package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// TestMigrationMovesListsToTrees opens a database made by the schema before
// trees (version 3: conversations as lists), filled as that Parley filled
// it, with the current code: every message is kept, each one's parent is the
// message before it (tool messages included), the whole list is the visible
// path, and runs, cards and search still work.
func TestMigrationMovesListsToTrees(t *testing.T) {
	const before = 3
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, before)
	type conv struct {
		id   string
		msgs []oldMessage
	}
	var convs []conv
	for n := range 3 {
		c := mustConversation(t, old, fmt.Sprintf("Conversation %d", n))
		run := fmt.Sprintf("run-%d", n)
		call := fmt.Sprintf(`[{"id":"call_%d","name":"ask_user_question","arguments":"{\"questions\":[{\"question\":\"Which?\",\"options\":[\"A\",\"B\"]}]}"}]`, n)
		msgs := []oldMessage{
			{ID: fmt.Sprintf("m%d-1", n), RunID: run, Role: chat.RoleUser, Content: fmt.Sprintf("question number %d", n)},
			{ID: fmt.Sprintf("m%d-2", n), RunID: run, Role: chat.RoleAssistant, Content: "Let me ask.", ToolCalls: call},
			{ID: fmt.Sprintf("m%d-3", n), RunID: run, Role: chat.RoleTool, Content: `{"answers":{"Which?":"B"}}`, ToolCallID: fmt.Sprintf("call_%d", n), ToolName: "ask_user_question"},
			{ID: fmt.Sprintf("m%d-4", n), RunID: run, Role: chat.RoleAssistant, Content: fmt.Sprintf("You chose B, answer %d.", n)},
		}
		for _, m := range msgs {
			insertOldMessage(t, old, c.ID, m)
		}
		require.NoError(t, old.SaveRun(ctx, &chat.Run{ID: run, ConversationID: c.ID, Status: chat.RunCompleted}))
		// As version 3 stores a card (0004 added the kind columns).
		_, err := old.writer.ExecContext(ctx, `INSERT INTO cards (id, conversation_id, run_id, tool_call_id, status, questions, answers, created_at)
			VALUES (?, ?, ?, ?, 'answered', '[{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}]', '{"Which?":"B"}', '2026-01-02T03:04:05.000000000Z')`,
			fmt.Sprintf("card-%d", n), c.ID, run, fmt.Sprintf("call_%d", n))
		require.NoError(t, err)
		convs = append(convs, conv{c.ID, msgs})
	}
	empty := mustConversation(t, old, "Empty")
	require.NoError(t, old.Close())

	s := openAt(t, path, 0)
	for n, c := range convs {
		got := visible(t, s, c.id)
		require.Len(t, got, len(c.msgs), "conversation %d", n)
		for i, want := range c.msgs {
			m := got[i]
			assert.Equal(t, want.ID, m.ID)
			assert.Equal(t, want.Role, m.Role)
			assert.Equal(t, want.Content, m.Content)
			assert.Equal(t, want.RunID, m.RunID)
			assert.Equal(t, want.ToolCallID, m.ToolCallID)
			assert.Equal(t, want.ToolName, m.ToolName)
			assert.Equal(t, 1, m.Siblings)
			assert.Equal(t, 0, m.SiblingIndex)
			if i == 0 {
				assert.Equal(t, "", m.ParentID, "first message")
			} else {
				assert.Equal(t, c.msgs[i-1].ID, m.ParentID, "message %d's parent", i)
			}
		}
		require.Len(t, got[1].ToolCalls, 1)
		assert.Equal(t, fmt.Sprintf("call_%d", n), got[1].ToolCalls[0].ID)
		all, err := s.AllMessages(ctx, c.id)
		require.NoError(t, err)
		assert.Equal(t, contents(got), contents(all), "nothing off the path")
		card, err := s.Card(ctx, fmt.Sprintf("card-%d", n))
		require.NoError(t, err)
		assert.Equal(t, "B", card.Answers["Which?"])
		r, err := s.Run(ctx, fmt.Sprintf("run-%d", n))
		require.NoError(t, err)
		assert.Equal(t, chat.RunCompleted, r.Status)

		// Search still finds it, pointing at the message.
		page, _, err := s.ListConversations(ctx, ListOptions{Query: fmt.Sprintf("question number %d", n)})
		require.NoError(t, err)
		if assert.Len(t, page, 1) {
			assert.Equal(t, c.msgs[0].ID, page[0].Match.MessageID)
		}
		// It goes on as a tree: a new message follows the last one.
		next := mustAppend(t, s, c.id, chat.RoleUser, "and now?")
		assert.Equal(t, c.msgs[len(c.msgs)-1].ID, next.ParentID)
		// And can branch: regenerate the last reply.
		require.NoError(t, s.SetLeaf(ctx, c.id, c.msgs[2].ID))
		alt := mustAppend(t, s, c.id, chat.RoleAssistant, "Another reply")
		assert.Equal(t, 2, alt.Siblings)
	}
	assert.Empty(t, visible(t, s, empty.ID))
}
