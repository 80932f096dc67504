package store

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// contents lists the contents of msgs.
func contents(msgs []chat.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

// branchShape is "content siblings/index" per message, what the UI's < 2/3 > shows.
type branchShape struct {
	Content      string
	Siblings     int
	SiblingIndex int
}

func shape(msgs []chat.Message) []branchShape {
	out := make([]branchShape, len(msgs))
	for i, m := range msgs {
		out[i] = branchShape{m.Content, m.Siblings, m.SiblingIndex}
	}
	return out
}

func visible(t *testing.T, s *Store, convID string) []chat.Message {
	t.Helper()
	msgs, err := s.Messages(ctx, convID)
	require.NoError(t, err)
	return msgs
}

func TestAppendBuildsAChainWithParents(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "chain")
	u := mustAppend(t, s, c.ID, chat.RoleUser, "hello")
	a := mustAppend(t, s, c.ID, chat.RoleAssistant, "hi")
	assert.Equal(t, "", u.ParentID, "first message has no parent")
	assert.Equal(t, u.ID, a.ParentID)
	assert.Equal(t, 1, a.Siblings)
	msgs := visible(t, s, c.ID)
	assert.Equal(t, []branchShape{{"hello", 1, 0}, {"hi", 1, 0}}, shape(msgs))
	assert.Equal(t, "", msgs[0].ParentID)
	assert.Equal(t, u.ID, msgs[1].ParentID)
}

func TestEditRegenerateAndSwitchBranches(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "tree")
	u1 := mustAppend(t, s, c.ID, chat.RoleUser, "u1")
	a1 := mustAppend(t, s, c.ID, chat.RoleAssistant, "a1")
	u2 := mustAppend(t, s, c.ID, chat.RoleUser, "u2")
	mustAppend(t, s, c.ID, chat.RoleAssistant, "a2")

	// Edit u2: a sibling under a1.
	require.NoError(t, s.SetLeaf(ctx, c.ID, a1.ID))
	assert.Equal(t, []string{"u1", "a1"}, contents(visible(t, s, c.ID)), "path ends at the parent while the edit is sent")
	u2b := mustAppend(t, s, c.ID, chat.RoleUser, "u2 edited")
	assert.Equal(t, a1.ID, u2b.ParentID)
	assert.Equal(t, 2, u2b.Siblings)
	assert.Equal(t, 1, u2b.SiblingIndex)
	mustAppend(t, s, c.ID, chat.RoleAssistant, "a2 for edit")
	assert.Equal(t, []branchShape{{"u1", 1, 0}, {"a1", 1, 0}, {"u2 edited", 2, 1}, {"a2 for edit", 1, 0}}, shape(visible(t, s, c.ID)))

	// Regenerate a1: a sibling under u1; the model would get the path up to u1.
	require.NoError(t, s.SetLeaf(ctx, c.ID, u1.ID))
	assert.Equal(t, []string{"u1"}, contents(visible(t, s, c.ID)))
	mustAppend(t, s, c.ID, chat.RoleAssistant, "a1 again")
	assert.Equal(t, []branchShape{{"u1", 1, 0}, {"a1 again", 2, 1}}, shape(visible(t, s, c.ID)))

	// Back to a1: the path below it is as it was last shown (the edit).
	require.NoError(t, s.SelectBranch(ctx, c.ID, a1.ID))
	assert.Equal(t, []branchShape{{"u1", 1, 0}, {"a1", 2, 0}, {"u2 edited", 2, 1}, {"a2 for edit", 1, 0}}, shape(visible(t, s, c.ID)))
	// To the original u2: its own reply follows.
	require.NoError(t, s.SelectBranch(ctx, c.ID, u2.ID))
	assert.Equal(t, []branchShape{{"u1", 1, 0}, {"a1", 2, 0}, {"u2", 2, 0}, {"a2", 1, 0}}, shape(visible(t, s, c.ID)))
	// Selecting u1 goes down the way last shown at every branch point.
	require.NoError(t, s.SelectBranch(ctx, c.ID, u1.ID))
	assert.Equal(t, []string{"u1", "a1", "u2", "a2"}, contents(visible(t, s, c.ID)))

	// Edit the first message: a new first message.
	require.NoError(t, s.SetLeaf(ctx, c.ID, ""))
	assert.Empty(t, visible(t, s, c.ID))
	root2 := mustAppend(t, s, c.ID, chat.RoleUser, "u1 edited")
	assert.Equal(t, "", root2.ParentID)
	assert.Equal(t, []branchShape{{"u1 edited", 2, 1}}, shape(visible(t, s, c.ID)))
	require.NoError(t, s.SelectBranch(ctx, c.ID, u1.ID))
	assert.Equal(t, []branchShape{{"u1", 2, 0}, {"a1", 2, 0}, {"u2", 2, 0}, {"a2", 1, 0}}, shape(visible(t, s, c.ID)))

	// Nothing was lost: every message is in the tree.
	all, err := s.AllMessages(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"u1", "a1", "u2", "a2", "u2 edited", "a2 for edit", "a1 again", "u1 edited"}, contents(all))
}

func TestBranchErrorsChangeNothing(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "a")
	other := mustConversation(t, s, "b")
	mustAppend(t, s, c.ID, chat.RoleUser, "u1")
	theirs := mustAppend(t, s, other.ID, chat.RoleUser, "elsewhere")
	wantNotFound(t, s.SelectBranch(ctx, c.ID, "no-such-message"))
	wantNotFound(t, s.SelectBranch(ctx, c.ID, theirs.ID))
	wantNotFound(t, s.SetLeaf(ctx, c.ID, theirs.ID))
	wantNotFound(t, s.SelectBranch(ctx, "no-such-conversation", theirs.ID))
	require.Error(t, s.SelectBranch(ctx, c.ID, ""))
	assert.Equal(t, []string{"u1"}, contents(visible(t, s, c.ID)))
	_, err := s.Messages(ctx, "no-such-conversation")
	wantNotFound(t, err)
	_, err = s.Message(ctx, c.ID, theirs.ID)
	wantNotFound(t, err)
}

func TestAttachmentsAndStatsAreStoredWithTheMessage(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "files")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	png := []byte("\x89PNG\r\n\x1a\n fake image")
	m := &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: "see files", Attachments: []chat.Attachment{
		{Name: "notes.txt", MIMEType: "text/plain", Data: big},
		{Name: "shot.png", MIMEType: "image/png", Data: png},
	}}
	require.NoError(t, s.AppendMessage(ctx, m))
	stats := &chat.MessageStats{Model: "m", TimeToFirstTokenMs: 12, DurationMs: 80, TokensPerSecond: 100, PromptTokens: 5, CompletionTokens: 7, ContextLength: 4096}
	require.NoError(t, s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "ok", Stats: stats}))

	msgs := visible(t, s, c.ID)
	require.Len(t, msgs, 2)
	require.Len(t, msgs[0].Attachments, 2)
	assert.Equal(t, "notes.txt", msgs[0].Attachments[0].Name)
	assert.Equal(t, int64(len(big)), msgs[0].Attachments[0].Size)
	assert.True(t, bytes.Equal(big, msgs[0].Attachments[0].Data), "text file changed")
	assert.Equal(t, chat.Attachment{Name: "shot.png", MIMEType: "image/png", Size: int64(len(png)), Data: png}, msgs[0].Attachments[1])
	assert.Empty(t, msgs[1].Attachments)
	assert.Nil(t, msgs[0].Stats)
	assert.Equal(t, stats, msgs[1].Stats)

	// Deleting the conversation deletes its files.
	require.NoError(t, s.DeleteConversation(ctx, c.ID))
	assert.Equal(t, 0, count(t, s, `SELECT count(*) FROM attachments`))
}

func TestSearchFindsHiddenBranchesWithASnippet(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "Travel plans")
	u1 := mustAppend(t, s, c.ID, chat.RoleUser, "Where should we go in spring?")
	old := mustAppend(t, s, c.ID, chat.RoleAssistant, "Consider the quiet fjords of western Norway in April.")
	require.NoError(t, s.SetLeaf(ctx, c.ID, u1.ID))
	mustAppend(t, s, c.ID, chat.RoleAssistant, "Lisbon is lovely in spring.")
	require.NotContains(t, contents(visible(t, s, c.ID)), old.Content, "the old reply is on a hidden branch")

	page, _, err := s.ListConversations(ctx, ListOptions{Query: "fjords"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.NotNil(t, page[0].Match)
	assert.Equal(t, old.ID, page[0].Match.MessageID)
	assert.Equal(t, "Consider the quiet [[fjords]] of western Norway in April.", page[0].Match.Snippet)

	// Opening the match shows its branch.
	require.NoError(t, s.SelectBranch(ctx, c.ID, page[0].Match.MessageID))
	assert.Equal(t, []string{"Where should we go in spring?", old.Content}, contents(visible(t, s, c.ID)))

	// A title match says so, without a message.
	page, _, err = s.ListConversations(ctx, ListOptions{Query: "travel"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, &chat.SearchMatch{Snippet: "[[Travel]] plans"}, page[0].Match)

	// Without a query there is no match.
	page, _, err = s.ListConversations(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Nil(t, page[0].Match)
}

func TestTranscriptImportKeepsTheTree(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "Tree")
	u1 := mustAppend(t, s, c.ID, chat.RoleUser, "u1")
	a1 := mustAppend(t, s, c.ID, chat.RoleAssistant, "a1")
	require.NoError(t, s.SetLeaf(ctx, c.ID, u1.ID))
	require.NoError(t, s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "a1b",
		Stats: &chat.MessageStats{Model: "m2", CompletionTokens: 3}}))
	require.NoError(t, s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: "with file",
		Attachments: []chat.Attachment{{Name: "a.csv", MIMEType: "text/csv", Data: []byte("x,y\n1,2\n")}}}))
	require.NoError(t, s.SelectBranch(ctx, c.ID, a1.ID))

	tr, err := s.Transcript(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"u1", "a1"}, contents(tr.VisiblePath()))
	imported, err := s.ImportTranscript(ctx, tr)
	require.NoError(t, err)

	assert.Equal(t, []branchShape{{"u1", 1, 0}, {"a1", 2, 0}}, shape(visible(t, s, imported.ID)))
	all, err := s.AllMessages(ctx, imported.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "a1", "a1b", "with file"}, contents(all))
	assert.Equal(t, all[0].ID, all[2].ParentID)
	assert.Equal(t, all[2].ID, all[3].ParentID)
	assert.Equal(t, "m2", all[2].Stats.Model)
	require.Len(t, all[3].Attachments, 1)
	assert.Equal(t, []byte("x,y\n1,2\n"), all[3].Attachments[0].Data)
	// The other branch is there to switch to.
	require.NoError(t, s.SelectBranch(ctx, imported.ID, all[2].ID))
	assert.Equal(t, []string{"u1", "a1b", "with file"}, contents(visible(t, s, imported.ID)))

	// A parent that is not an earlier message is refused, and nothing is written.
	bad := &Transcript{Conversation: tr.Conversation, Messages: []chat.Message{
		{ID: "x", Role: chat.RoleUser, Content: "orphan", ParentID: "missing", CreatedAt: now()}}}
	before := count(t, s, `SELECT count(*) FROM conversations`)
	_, err = s.ImportTranscript(ctx, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not an earlier message")
	assert.Equal(t, before, count(t, s, `SELECT count(*) FROM conversations`))
}

// The UI's < 2/3 > switches to a sibling by its id, so each message of a
// branch point names its siblings, in the order sibling_index counts.
func TestBranchedMessagesNameTheirSiblings(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "siblings")
	u1 := mustAppend(t, s, c.ID, chat.RoleUser, "u1")
	a1 := mustAppend(t, s, c.ID, chat.RoleAssistant, "a1")
	assert.Nil(t, a1.SiblingIDs, "a message without siblings names none")
	require.NoError(t, s.SetLeaf(ctx, c.ID, u1.ID))
	a2 := mustAppend(t, s, c.ID, chat.RoleAssistant, "a2")
	assert.Equal(t, []string{a1.ID, a2.ID}, a2.SiblingIDs, "the appended message names its siblings (for message:done)")
	require.NoError(t, s.SetLeaf(ctx, c.ID, u1.ID))
	a3 := mustAppend(t, s, c.ID, chat.RoleAssistant, "a3")
	assert.Equal(t, []string{a1.ID, a2.ID, a3.ID}, a3.SiblingIDs)

	msgs := visible(t, s, c.ID)
	require.Len(t, msgs, 2)
	assert.Nil(t, msgs[0].SiblingIDs)
	assert.Equal(t, []string{a1.ID, a2.ID, a3.ID}, msgs[1].SiblingIDs)
	assert.Equal(t, 2, msgs[1].SiblingIndex)

	// Switching to the id at index 0 shows that sibling.
	require.NoError(t, s.SelectBranch(ctx, c.ID, msgs[1].SiblingIDs[0]))
	msgs = visible(t, s, c.ID)
	assert.Equal(t, []branchShape{{"u1", 1, 0}, {"a1", 3, 0}}, shape(msgs))
	assert.Equal(t, []string{a1.ID, a2.ID, a3.ID}, msgs[1].SiblingIDs)
}

// A damaged file whose parents loop (a message its own ancestor) must not
// hang an open: the path stops where it would come round again.
// loopedConversation stores "first" and "second" as a damaged file could
// hold them: each the parent of the other.
func loopedConversation(t *testing.T, s *Store) (convID string, first, second *chat.Message) {
	t.Helper()
	c := mustConversation(t, s, "loop")
	u := mustAppend(t, s, c.ID, chat.RoleUser, "first")
	a := mustAppend(t, s, c.ID, chat.RoleAssistant, "second")
	_, err := s.writer.Exec(`UPDATE messages SET parent_id = ? WHERE id = ?`, a.ID, u.ID)
	require.NoError(t, err)
	return c.ID, u, a
}

func TestAParentLoopEndsThePath(t *testing.T) {
	s := newStore(t)
	id, _, _ := loopedConversation(t, s)
	msgs := visible(t, s, id)
	assert.Equal(t, []string{"first", "second"}, contents(msgs), "each message once, the leaf last")
}
