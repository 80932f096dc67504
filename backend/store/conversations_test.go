package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

func TestConversationCRUD(t *testing.T) {
	s := newStore(t)
	c, err := s.CreateConversation(ctx, "First", "coder")
	require.NoError(t, err)
	require.NotEmpty(t, c.ID, "created: %+v", c)
	require.False(t, c.CreatedAt.IsZero(), "created: %+v", c)
	require.True(t, c.UpdatedAt.Equal(c.CreatedAt), "created: %+v", c)
	require.False(t, c.Pinned, "created: %+v", c)
	got, err := s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, c, got, "get")

	require.NoError(t, s.RenameConversation(ctx, c.ID, "Renamed"))
	require.NoError(t, s.SetPinned(ctx, c.ID, true))
	got, _ = s.GetConversation(ctx, c.ID)
	assert.Equal(t, "Renamed", got.Title, "after rename and pin: %+v", got)
	assert.True(t, got.Pinned, "after rename and pin: %+v", got)
	assert.Equal(t, "coder", got.Assistant, "after rename and pin: %+v", got)
	require.NoError(t, s.SetPinned(ctx, c.ID, false))
	got, _ = s.GetConversation(ctx, c.ID)
	assert.False(t, got.Pinned, "still pinned")

	require.NoError(t, s.DeleteConversation(ctx, c.ID))
	_, err = s.GetConversation(ctx, c.ID)
	wantNotFound(t, err)
	wantNotFound(t, s.DeleteConversation(ctx, c.ID))
	wantNotFound(t, s.RenameConversation(ctx, "missing", "x"))
	wantNotFound(t, s.SetPinned(ctx, "missing", true))
}

func TestDeleteConversationCascades(t *testing.T) {
	s := newStore(t)
	keep := mustConversation(t, s, "keep")
	mustAppend(t, s, keep.ID, chat.RoleUser, "keep this walrus")
	gone := mustConversation(t, s, "gone")
	mustAppend(t, s, gone.ID, chat.RoleUser, "delete this walrus")
	mustAppend(t, s, gone.ID, chat.RoleTool, "tool output")
	require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: "r1", ConversationID: gone.ID, Status: chat.RunCompleted}))
	require.NoError(t, s.SaveCard(ctx, &questions.Card{ID: "q1", ConversationID: gone.ID, Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "?"}}}))

	require.NoError(t, s.DeleteConversation(ctx, gone.ID))
	for table, want := range map[string]int{"messages": 1, "runs": 0, "cards": 0, "conversations": 1} {
		assert.Equal(t, want, count(t, s, "SELECT count(*) FROM "+table), "%s rows", table)
	}
	page, _, err := s.ListConversations(ctx, ListOptions{Query: "walrus"})
	if assert.NoError(t, err, "search after delete") && assert.Len(t, page, 1, "search after delete: %+v", page) {
		assert.Equal(t, keep.ID, page[0].ID, "search after delete: %+v", page)
	}
	for _, idx := range []string{"message_search", "conversation_search"} {
		_, err := s.writer.Exec("INSERT INTO " + idx + "(" + idx + ") VALUES ('integrity-check')")
		assert.NoError(t, err, "%s integrity", idx)
	}
}

func TestMessagesRoundTripInOrder(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	same := at("2026-03-01T10:00:00.123456789Z")
	in := []chat.Message{
		{Role: chat.RoleUser, Content: "What is 2+2?", CreatedAt: same},
		{Role: chat.RoleAssistant, RunID: "run-1", CreatedAt: same,
			ToolCalls: []chat.ToolCall{{ID: "call-1", Name: "calculator", Arguments: `{"expression":"2+2"}`}}},
		{Role: chat.RoleTool, RunID: "run-1", Content: "4", ToolCallID: "call-1", ToolName: "calculator", CreatedAt: same},
		{Role: chat.RoleAssistant, RunID: "run-1", Content: "It is **4**.", CreatedAt: same},
		{ID: "my-id", Role: chat.RoleSystem, Content: "note"},
	}
	for i := range in {
		in[i].ConversationID = c.ID
		require.NoError(t, s.AppendMessage(ctx, &in[i]))
		require.NotEmpty(t, in[i].ID, "ID not filled: %+v", in[i])
		require.False(t, in[i].CreatedAt.IsZero(), "CreatedAt not filled: %+v", in[i])
	}
	assert.Equal(t, "my-id", in[4].ID, "given id replaced")
	got, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, in, got, "messages differ")
}

func TestAppendMessageBumpsUpdatedAt(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	time.Sleep(2 * time.Millisecond)
	m := mustAppend(t, s, c.ID, chat.RoleUser, "hi")
	got, _ := s.GetConversation(ctx, c.ID)
	assert.True(t, got.UpdatedAt.After(c.UpdatedAt), "updated_at %v, created %v, message %v", got.UpdatedAt, c.UpdatedAt, m.CreatedAt)
	assert.False(t, got.UpdatedAt.Before(m.CreatedAt), "updated_at %v, created %v, message %v", got.UpdatedAt, c.UpdatedAt, m.CreatedAt)
	assert.True(t, got.CreatedAt.Equal(c.CreatedAt), "created_at changed")
}

func TestMessageErrors(t *testing.T) {
	s := newStore(t)
	wantNotFound(t, s.AppendMessage(ctx, &chat.Message{ConversationID: "missing", Role: chat.RoleUser}))
	_, err := s.Messages(ctx, "missing")
	wantNotFound(t, err)
	c := mustConversation(t, s, "t")
	assert.Error(t, s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: "wizard"}), "unknown role accepted")
	assert.Error(t, s.AppendMessage(ctx, &chat.Message{Role: chat.RoleUser}), "empty conversation id accepted")
	m := mustAppend(t, s, c.ID, chat.RoleUser, "once")
	dup := &chat.Message{ID: m.ID, ConversationID: c.ID, Role: chat.RoleUser}
	assert.Error(t, s.AppendMessage(ctx, dup), "duplicate message id accepted")
	msgs, err := s.Messages(ctx, c.ID)
	assert.NoError(t, err, "after refused appends")
	assert.Len(t, msgs, 1, "after refused appends")
	empty := mustConversation(t, s, "empty")
	msgs, err = s.Messages(ctx, empty.ID)
	assert.NoError(t, err, "empty conversation")
	assert.NotNil(t, msgs, "empty conversation: %#v", msgs)
	assert.Empty(t, msgs, "empty conversation")
}

func TestTouchConversationMovesItUp(t *testing.T) {
	s := newStore(t)
	a := mustConversation(t, s, "a")
	b := mustConversation(t, s, "b")
	_, err := s.writer.Exec(`UPDATE conversations SET updated_at = ? WHERE id = ?`,
		formatTime(at("2020-01-01T00:00:00Z")), a.ID)
	require.NoError(t, err)
	page, _, err := s.ListConversations(ctx, ListOptions{})
	require.NoError(t, err, "before touch")
	require.Len(t, page, 2, "before touch: %+v", page)
	require.Equal(t, b.ID, page[0].ID, "before touch: %+v", page)
	require.NoError(t, s.TouchConversation(ctx, a.ID))
	page, _, err = s.ListConversations(ctx, ListOptions{})
	require.NoError(t, err, "after touch")
	require.Len(t, page, 2, "after touch: %+v", page)
	require.Equal(t, a.ID, page[0].ID, "after touch: %+v", page)
	wantNotFound(t, s.TouchConversation(ctx, "missing"))
}

func TestSchemaTableNames(t *testing.T) {
	s := newStore(t)
	for _, name := range []string{"conversations", "messages", "runs", "cards", "settings", "profiles"} {
		assert.Equal(t, 1, count(t, s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name), "table %s missing", name)
	}
}
