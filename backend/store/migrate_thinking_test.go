package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// TestMigrationAddsThinking opens a database made by the schema before
// thinking (version 7), filled as that Parley filled it, with the current
// code: every message, figure, profile and model choice is kept, nothing
// has thinking yet, and from then on replies keep their thinking and
// profiles and conversations their setting.
func TestMigrationAddsThinking(t *testing.T) {
	const before = 7
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, before)
	c := mustConversation(t, old, "Telescope mirror")
	_, err := old.writer.ExecContext(ctx, `UPDATE conversations SET model = 'qwen3:8b' WHERE id = ?`, c.ID)
	require.NoError(t, err)
	stats := &chat.MessageStats{Model: "qwen3:8b", TimeToFirstTokenMs: 120, DurationMs: 900, PromptTokens: 40, CompletionTokens: 12}
	insertTreeMessage(t, old, c.ID, chat.Message{ID: "u1", RunID: "run-1", Role: chat.RoleUser, Content: "How thick is the glass?"})
	insertTreeMessage(t, old, c.ID, chat.Message{ID: "a1", RunID: "run-1", Role: chat.RoleAssistant, Content: "About 25 mm.", Stats: stats})
	_, err = old.writer.ExecContext(ctx, `INSERT INTO profiles (name, system_prompt, model, tools, tool_calling, created_at, updated_at)
		VALUES ('optician', 'Be exact.', 'qwen3:8b', '["calculator"]', 'text', ?, ?)`, formatTime(now()), formatTime(now()))
	require.NoError(t, err)
	require.NoError(t, old.Close())

	s := openAt(t, path, 0)
	msgs := visible(t, s, c.ID)
	require.Len(t, msgs, 2)
	assert.Equal(t, "About 25 mm.", msgs[1].Content)
	assert.Equal(t, stats, msgs[1].Stats, "the figures are kept")
	assert.Equal(t, "u1", msgs[1].ParentID)
	for _, m := range msgs {
		assert.Empty(t, m.Reasoning, "no message thought before")
		assert.Zero(t, m.ReasoningMs)
		assert.Empty(t, m.ReasoningSource)
	}
	conv, err := s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "qwen3:8b", conv.Model)
	assert.Empty(t, conv.Thinking, "the profile's setting")
	p, err := s.Profile(ctx, "optician")
	require.NoError(t, err)
	assert.Equal(t, "text", p.ToolCalling)
	assert.Equal(t, []string{"calculator"}, p.Tools)
	assert.Empty(t, p.Thinking, "auto")

	// New replies keep their thinking; settings are stored.
	reply := &chat.Message{ConversationID: c.ID, RunID: "run-2", Role: chat.RoleAssistant, Content: "",
		Reasoning: "Newtonian mirrors are usually 1/6 of the diameter…", ReasoningMs: 12345, ReasoningSource: "reasoning"}
	require.NoError(t, s.AppendMessage(ctx, reply))
	got, err := s.Message(ctx, c.ID, reply.ID)
	require.NoError(t, err)
	assert.Equal(t, reply.Reasoning, got.Reasoning)
	assert.Equal(t, int64(12345), got.ReasoningMs)
	assert.Equal(t, "reasoning", got.ReasoningSource)
	require.NoError(t, s.SetThinking(ctx, c.ID, "off"))
	conv, err = s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "off", conv.Thinking)
	wantNotFound(t, s.SetThinking(ctx, "missing", "off"))
	p.Thinking = "high"
	require.NoError(t, s.SaveProfile(ctx, *p))
	p, err = s.Profile(ctx, "optician")
	require.NoError(t, err)
	assert.Equal(t, "high", p.Thinking)

	// The thinking is not searched: it is not what was said.
	page, _, err := s.ListConversations(ctx, ListOptions{Query: "Newtonian"})
	require.NoError(t, err)
	assert.Empty(t, page)

	// An exported and imported copy keeps the thinking and the setting.
	tr, err := s.Transcript(ctx, c.ID)
	require.NoError(t, err)
	imported, err := s.ImportTranscript(ctx, tr)
	require.NoError(t, err)
	assert.Equal(t, "off", imported.Thinking)
	copies := visible(t, s, imported.ID)
	require.Len(t, copies, 3)
	assert.Equal(t, reply.Reasoning, copies[2].Reasoning)
	assert.Equal(t, int64(12345), copies[2].ReasoningMs)
	assert.Equal(t, "reasoning", copies[2].ReasoningSource)
}
