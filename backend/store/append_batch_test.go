package store

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// A batch continues the visible path: the first message is the child of
// the leaf, each next one the child of the one before, the last the leaf.
func TestAppendMessagesChainsFromTheLeaf(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "batch")
	first := mustAppend(t, s, c.ID, chat.RoleUser, "question")
	batch := []*chat.Message{
		{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "calling tools", ToolCalls: []chat.ToolCall{{ID: "a", Name: "calculator"}, {ID: "b", Name: "calculator"}}},
		{ConversationID: c.ID, Role: chat.RoleTool, Content: "1", ToolCallID: "a", ToolName: "calculator"},
		{ConversationID: c.ID, Role: chat.RoleTool, Content: "2", ToolCallID: "b", ToolName: "calculator"},
	}
	require.NoError(t, s.AppendMessages(ctx, batch))
	parent := first.ID
	for i, m := range batch {
		assert.NotEmpty(t, m.ID, "message %d id", i)
		assert.False(t, m.CreatedAt.IsZero(), "message %d created_at", i)
		assert.Equal(t, parent, m.ParentID, "message %d parent", i)
		assert.Equal(t, 1, m.Siblings, "message %d siblings", i)
		assert.Equal(t, 0, m.SiblingIndex, "message %d sibling index", i)
		// Time-ordered ids (chat.NewMessageID), so that the indexes keyed
		// by them grow at their end.
		assert.Equal(t, uuid.Version(7), uuid.MustParse(m.ID).Version(), "message %d id %s", i, m.ID)
		parent = m.ID
	}
	leaf, err := s.Leaf(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, batch[2].ID, leaf, "leaf")
	path, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"question", "calling tools", "1", "2"}, contents(path))
	assert.Equal(t, batch[0].ToolCalls, path[1].ToolCalls, "tool calls stored")
	assert.Equal(t, "b", path[3].ToolCallID, "tool call id stored")

	// The next single append goes on from the batch's last message.
	after := mustAppend(t, s, c.ID, chat.RoleAssistant, "done")
	assert.Equal(t, batch[2].ID, after.ParentID, "parent of the message after the batch")
}

// A batch appended where the leaf already has children starts a new
// branch with its first message, shown from then on; the rest follow it.
func TestAppendMessagesBranchesLikeAppendMessage(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "batch")
	q := mustAppend(t, s, c.ID, chat.RoleUser, "question")
	old := mustAppend(t, s, c.ID, chat.RoleAssistant, "old answer")
	require.NoError(t, s.SetLeaf(ctx, c.ID, q.ID))
	batch := []*chat.Message{
		{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "new answer"},
		{ConversationID: c.ID, Role: chat.RoleUser, Content: "follow-up"},
	}
	require.NoError(t, s.AppendMessages(ctx, batch))
	assert.Equal(t, q.ID, batch[0].ParentID, "first of the batch")
	assert.Equal(t, 2, batch[0].Siblings, "first of the batch")
	assert.Equal(t, 1, batch[0].SiblingIndex, "first of the batch")
	assert.Equal(t, []string{old.ID, batch[0].ID}, batch[0].SiblingIDs, "first of the batch")
	assert.Equal(t, batch[0].ID, batch[1].ParentID, "second of the batch")
	assert.Equal(t, 1, batch[1].Siblings, "second of the batch")
	path, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"question", "new answer", "follow-up"}, contents(path))
	// The branch point remembers the new branch: selecting the old one and
	// back lands on the batch's last message.
	require.NoError(t, s.SelectBranch(ctx, c.ID, old.ID))
	require.NoError(t, s.SelectBranch(ctx, c.ID, batch[0].ID))
	leaf, err := s.Leaf(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, batch[1].ID, leaf, "leaf after selecting the branch again")
}

// Messages of two conversations in one batch each continue their own path.
func TestAppendMessagesTwoConversations(t *testing.T) {
	s := newStore(t)
	a, b := mustConversation(t, s, "a"), mustConversation(t, s, "b")
	mustAppend(t, s, b.ID, chat.RoleUser, "b0")
	batch := []*chat.Message{
		{ConversationID: a.ID, Role: chat.RoleUser, Content: "a1"},
		{ConversationID: b.ID, Role: chat.RoleAssistant, Content: "b1"},
		{ConversationID: a.ID, Role: chat.RoleAssistant, Content: "a2"},
		{ConversationID: b.ID, Role: chat.RoleUser, Content: "b2"},
	}
	require.NoError(t, s.AppendMessages(ctx, batch))
	pa, err := s.Messages(ctx, a.ID)
	require.NoError(t, err)
	pb, err := s.Messages(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"a1", "a2"}, contents(pa))
	assert.Equal(t, []string{"b0", "b1", "b2"}, contents(pb))
	assert.Equal(t, "", batch[0].ParentID, "first message of a")
	assert.Equal(t, batch[0].ID, batch[2].ParentID, "a2")
	assert.Equal(t, batch[1].ID, batch[3].ParentID, "b2")
}

// A batch is all or nothing: a failure at any message (an invalid one, an
// id already stored, a conversation that does not exist) stores none of
// them and leaves the path and the search index as they were.
func TestAppendMessagesIsAllOrNothing(t *testing.T) {
	cases := map[string]func(convID, existingID string) *chat.Message{
		"invalid role": func(convID, _ string) *chat.Message {
			return &chat.Message{ConversationID: convID, Role: "narrator", Content: "zebra third"}
		},
		"duplicate id": func(convID, existingID string) *chat.Message {
			return &chat.Message{ID: existingID, ConversationID: convID, Role: chat.RoleUser, Content: "zebra third"}
		},
		"missing conversation": func(string, string) *chat.Message {
			return &chat.Message{ConversationID: "no-such-conversation", Role: chat.RoleUser, Content: "zebra third"}
		},
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			c := mustConversation(t, s, "batch")
			existing := mustAppend(t, s, c.ID, chat.RoleUser, "before")
			before, err := s.GetConversation(ctx, c.ID)
			require.NoError(t, err)
			batch := []*chat.Message{
				{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "zebra first"},
				{ConversationID: c.ID, Role: chat.RoleUser, Content: "zebra second"},
				bad(c.ID, existing.ID),
				{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "zebra fourth"},
			}
			err = s.AppendMessages(ctx, batch)
			require.Error(t, err, "a batch with a bad message was stored")
			all, err := s.AllMessages(ctx, c.ID)
			require.NoError(t, err)
			assert.Equal(t, []string{"before"}, contents(all), "messages after the failed batch")
			leaf, err := s.Leaf(ctx, c.ID)
			require.NoError(t, err)
			assert.Equal(t, existing.ID, leaf, "leaf after the failed batch")
			after, err := s.GetConversation(ctx, c.ID)
			require.NoError(t, err)
			assert.Equal(t, before.UpdatedAt, after.UpdatedAt, "updated_at after the failed batch")
			found, _, err := s.ListConversations(ctx, ListOptions{Limit: 10, Query: "zebra"})
			require.NoError(t, err)
			assert.Empty(t, found, "search finds messages of the failed batch")
			// The store still takes the same messages once the bad one is gone.
			require.NoError(t, s.AppendMessages(ctx, []*chat.Message{batch[0], batch[1], batch[3]}))
			all, err = s.AllMessages(ctx, c.ID)
			require.NoError(t, err)
			assert.Equal(t, []string{"before", "zebra first", "zebra second", "zebra fourth"}, contents(all))
		})
	}
}

func TestAppendMessagesEmptyBatchAndLeafErrors(t *testing.T) {
	s := newStore(t)
	require.NoError(t, s.AppendMessages(ctx, nil), "an empty batch")
	c := mustConversation(t, s, "empty")
	leaf, err := s.Leaf(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "", leaf, "leaf of an empty conversation")
	_, err = s.Leaf(ctx, "no-such-conversation")
	assert.ErrorIs(t, err, chat.ErrNotFound, "leaf of a missing conversation")
}

// SaveRunAndAppend stores the run and the messages in one transaction:
// when either fails, neither is stored.
func TestSaveRunAndAppendIsAllOrNothing(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "run")
	other := mustConversation(t, s, "other")
	run := &chat.Run{ID: "run-1", ConversationID: c.ID, Status: chat.RunRunning}
	user := &chat.Message{ConversationID: c.ID, RunID: run.ID, Role: chat.RoleUser, Content: "hello"}
	require.NoError(t, s.SaveRunAndAppend(ctx, run, []*chat.Message{user}))
	got, err := s.Run(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, chat.RunRunning, got.Status, "run saved with the message")
	assert.False(t, run.StartedAt.IsZero(), "started_at filled")

	// A bad message: the run's new status is not stored either.
	run.Status = chat.RunAwaiting
	bad := &chat.Message{ID: user.ID, ConversationID: c.ID, RunID: run.ID, Role: chat.RoleTool, Content: "duplicate id"}
	require.Error(t, s.SaveRunAndAppend(ctx, run, []*chat.Message{bad}))
	got, err = s.Run(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, chat.RunRunning, got.Status, "run status after the failed append")

	// A run that cannot be saved (it belongs to another conversation): the
	// messages are not stored.
	moved := &chat.Run{ID: run.ID, ConversationID: other.ID, Status: chat.RunRunning}
	msg := &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "never stored"}
	require.Error(t, s.SaveRunAndAppend(ctx, moved, []*chat.Message{msg}))
	all, err := s.AllMessages(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"hello"}, contents(all), "messages after the failed run save")
	require.Error(t, s.SaveRunAndAppend(ctx, &chat.Run{ConversationID: c.ID, Status: chat.RunRunning}, nil), "a run without id")
}
