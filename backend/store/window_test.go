package store

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
)

// pagedConversation stores a conversation of n exchanges with a file and a
// tool call. Branched, its visible path went through an edit and a
// regenerated reply, so its messages are not simply all of the
// conversation in stored order (and a window is found by walking the path).
func pagedConversation(t *testing.T, s *Store, n int, branched bool) string {
	t.Helper()
	c := mustConversation(t, s, "long")
	var editAt string
	for i := range n {
		if branched && i == n/3 {
			editAt = mustAppend(t, s, c.ID, chat.RoleUser, fmt.Sprintf("u%d old", i)).ParentID
			mustAppend(t, s, c.ID, chat.RoleAssistant, fmt.Sprintf("a%d old", i))
			require.NoError(t, s.SetLeaf(ctx, c.ID, editAt))
		}
		u := &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: fmt.Sprintf("u%d", i)}
		if i == n/2 {
			u.Attachments = []chat.Attachment{{Name: "a.txt", MIMEType: "text/plain", Data: []byte("file")}}
		}
		require.NoError(t, s.AppendMessage(ctx, u))
		a := &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: fmt.Sprintf("a%d", i)}
		if i == n-2 {
			a.ToolCalls = []chat.ToolCall{{ID: "call-1", Name: "calculator", Arguments: `{"expression":"2+2"}`}}
			a.Stats = &chat.MessageStats{Model: "m", CompletionTokens: 3}
		}
		require.NoError(t, s.AppendMessage(ctx, a))
		if branched && i == 2*n/3 {
			// A regenerated reply: a sibling of a, which stays the one shown.
			require.NoError(t, s.SetLeaf(ctx, c.ID, u.ID))
			mustAppend(t, s, c.ID, chat.RoleAssistant, fmt.Sprintf("a%d again", i))
			require.NoError(t, s.SelectBranch(ctx, c.ID, a.ID))
		}
	}
	return c.ID
}

func window(t *testing.T, s *Store, convID string, w Window) ([]chat.Message, int) {
	t.Helper()
	msgs, earlier, err := s.MessagesWindow(ctx, convID, w)
	require.NoError(t, err)
	return msgs, earlier
}

func TestWindowsOfThePathAddUpToThePath(t *testing.T) {
	for _, branched := range []bool{true, false} {
		t.Run(map[bool]string{true: "branched", false: "linear"}[branched], func(t *testing.T) {
			windowsAddUp(t, branched)
		})
	}
}

func windowsAddUp(t *testing.T, branched bool) {
	s := newStore(t)
	id := pagedConversation(t, s, 40, branched)
	whole := visible(t, s, id)
	require.Len(t, whole, 80)

	got, earlier := window(t, s, id, Window{})
	assert.Equal(t, whole, got, "no window: the whole path")
	assert.Zero(t, earlier)

	for _, size := range []int{1, 7, 30, 80, 200} {
		// Page back from the end, as the UI does with "Show earlier".
		msgs, earlier := window(t, s, id, Window{Last: size})
		assert.Equal(t, max(0, len(whole)-size), earlier, "size %d", size)
		for earlier > 0 {
			var page []chat.Message
			page, earlier = window(t, s, id, Window{Before: msgs[0].ID, Last: size})
			require.NotEmpty(t, page)
			assert.Equal(t, len(whole)-len(msgs)-len(page), earlier, "size %d", size)
			msgs = append(page, msgs...)
		}
		// The same messages, each with its siblings, attachments, tool calls and stats.
		assert.Equal(t, whole, msgs, "size %d", size)
	}

	// Before alone: everything before that message.
	msgs, earlier := window(t, s, id, Window{Before: whole[10].ID})
	assert.Equal(t, whole[:10], msgs)
	assert.Zero(t, earlier)
	msgs, earlier = window(t, s, id, Window{Before: whole[0].ID, Last: 5})
	assert.Empty(t, msgs, "nothing before the first message")
	assert.Zero(t, earlier)
}

func TestAWindowOfAnEmptyConversation(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "empty")
	msgs, earlier := window(t, s, c.ID, Window{Last: 50})
	assert.Empty(t, msgs)
	assert.Zero(t, earlier)
}

func TestAWindowNamesWhatItCannotFind(t *testing.T) {
	s := newStore(t)
	id := pagedConversation(t, s, 12, true)
	_, _, err := s.MessagesWindow(ctx, "no-such-conversation", Window{Last: 5})
	wantNotFound(t, err)
	_, _, err = s.MessagesWindow(ctx, id, Window{Before: "no-such-message", Last: 5})
	wantNotFound(t, err)

	// A message of another branch: there, but not on the visible path.
	all, err := s.AllMessages(ctx, id)
	require.NoError(t, err)
	onPath := map[string]bool{}
	for _, m := range visible(t, s, id) {
		onPath[m.ID] = true
	}
	var off string
	for _, m := range all {
		if !onPath[m.ID] {
			off = m.ID
			break
		}
	}
	require.NotEmpty(t, off)
	_, _, err = s.MessagesWindow(ctx, id, Window{Before: off, Last: 5})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotOnPath), "%v", err)
	assert.Equal(t, fault.Conflict, fault.KindOf(err))

	// A message of another conversation is not this one's.
	other := mustConversation(t, s, "other")
	m := mustAppend(t, s, other.ID, chat.RoleUser, "elsewhere")
	_, _, err = s.MessagesWindow(ctx, id, Window{Before: m.ID, Last: 5})
	wantNotFound(t, err)
}

func TestAWindowAfterAParentLoopEndsAsThePathDoes(t *testing.T) {
	s := newStore(t)
	id, _, second := loopedConversation(t, s)
	msgs, earlier := window(t, s, id, Window{Last: 10})
	assert.Equal(t, visible(t, s, id), msgs)
	assert.Zero(t, earlier)
	msgs, earlier = window(t, s, id, Window{Last: 1})
	assert.Equal(t, []string{"second"}, contents(msgs))
	assert.Equal(t, 1, earlier)
	msgs, earlier = window(t, s, id, Window{Last: 1, Before: second.ID})
	assert.Equal(t, []string{"first"}, contents(msgs))
	assert.Zero(t, earlier)
	_, _, err := s.MessagesWindow(ctx, id, Window{Last: 1, Before: "no-such-message"})
	wantNotFound(t, err)
}

func TestAWindowStartsWhereARunDoes(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "runs")
	add := func(run, role, content string) {
		require.NoError(t, s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, RunID: run, Role: role, Content: content}))
	}
	// Run r1: a question, a call, its result and the answer; then r2 the same.
	for _, run := range []string{"r1", "r2"} {
		add(run, chat.RoleUser, run+" question")
		add(run, chat.RoleAssistant, run+" calls")
		add(run, chat.RoleTool, run+" result")
		add(run, chat.RoleAssistant, run+" answer")
	}
	add("", chat.RoleUser, "no run")
	whole := visible(t, s, c.ID)

	msgs, earlier := window(t, s, c.ID, Window{Last: 3})
	assert.Equal(t, []string{"r2 question", "r2 calls", "r2 result", "r2 answer", "no run"}, contents(msgs), "from the first of r2")
	assert.Equal(t, 4, earlier)
	msgs, earlier = window(t, s, c.ID, Window{Last: 1})
	assert.Equal(t, []string{"no run"}, contents(msgs), "a message of no run starts a window where it is")
	assert.Equal(t, 8, earlier)
	msgs, earlier = window(t, s, c.ID, Window{Last: 1, Before: whole[4].ID})
	assert.Equal(t, []string{"r1 question", "r1 calls", "r1 result", "r1 answer"}, contents(msgs))
	assert.Zero(t, earlier)
}

func TestAWindowOfAConversationNeverBranched(t *testing.T) {
	s := newStore(t)
	id := pagedConversation(t, s, 10, false)
	whole := visible(t, s, id)
	require.Len(t, whole, 20)
	_, _, err := s.MessagesWindow(ctx, id, Window{Before: "no-such-message", Last: 5})
	wantNotFound(t, err)
	other := mustConversation(t, s, "other")
	m := mustAppend(t, s, other.ID, chat.RoleUser, "elsewhere")
	_, _, err = s.MessagesWindow(ctx, id, Window{Before: m.ID, Last: 5})
	wantNotFound(t, err)

	// While an edit of message 12 is sent, the path ends at its parent: the
	// messages after it are not on the path.
	require.NoError(t, s.SetLeaf(ctx, id, whole[11].ID))
	msgs, earlier := window(t, s, id, Window{Last: 5})
	assert.Equal(t, whole[7:12], msgs)
	assert.Equal(t, 7, earlier)
	_, _, err = s.MessagesWindow(ctx, id, Window{Before: whole[15].ID, Last: 5})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotOnPath), "%v", err)
}
