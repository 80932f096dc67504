package store

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// seedConversations makes n conversations with updated_at spread over time
// (ties included) and every 7th pinned, returning them in list order.
func seedConversations(t *testing.T, s *Store, n int) []chat.Conversation {
	t.Helper()
	base := at("2026-01-01T00:00:00Z")
	for i := range n {
		c := mustConversation(t, s, fmt.Sprintf("conversation %03d", i))
		updated := base.Add(time.Duration(i/3) * time.Minute) // groups of 3 share a timestamp
		_, err := s.writer.Exec(`UPDATE conversations SET updated_at = ?, pinned = ? WHERE id = ?`,
			formatTime(updated), i%7 == 0, c.ID)
		require.NoError(t, err)
	}
	all, _ := pageThrough(t, s, ListOptions{Limit: MaxListLimit}, n)
	require.Len(t, all, n, "listed")
	return all
}

// pageThrough follows next cursors from opt to the last page, failing
// rather than looping when the pages do not end (a cursor that repeats).
func pageThrough(t *testing.T, s *Store, opt ListOptions, maxRows int) (all []chat.Conversation, pages int) {
	t.Helper()
	for {
		page, next, err := s.ListConversations(ctx, opt)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page), opt.Limit, "page %d: rows for limit %d, next %q", pages, opt.Limit, next)
		if next != "" {
			require.Len(t, page, opt.Limit, "page %d: a page before the last is not full (next %q)", pages, next)
		}
		all = append(all, page...)
		pages++
		if next == "" {
			return all, pages
		}
		require.LessOrEqual(t, len(all), maxRows, "paging does not end: rows over %d pages", pages)
		opt.Cursor = next
	}
}

func listOrder(a, b chat.Conversation) int {
	if a.Pinned != b.Pinned {
		if a.Pinned {
			return -1
		}
		return 1
	}
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	if a.ID > b.ID {
		return -1
	}
	return 1
}

func TestListOrderPinnedFirstThenNewest(t *testing.T) {
	s := newStore(t)
	all := seedConversations(t, s, 60)
	assert.True(t, slices.IsSortedFunc(all, listOrder), "list is not pinned-first, newest-first, id-descending")
	assert.True(t, all[0].Pinned, "pinned conversations are not first")
	assert.False(t, all[len(all)-1].Pinned, "pinned conversations are not first")
	// Activity moves a conversation to the top of the unpinned ones.
	oldest := all[len(all)-1]
	mustAppend(t, s, oldest.ID, chat.RoleUser, "bump")
	all, _, _ = s.ListConversations(ctx, ListOptions{Limit: MaxListLimit})
	firstUnpinned := slices.IndexFunc(all, func(c chat.Conversation) bool { return !c.Pinned })
	assert.Equal(t, firstUnpinned, slices.IndexFunc(all, func(c chat.Conversation) bool { return c.ID == oldest.ID }), "position after a new message")
}

func TestListKeysetPaging(t *testing.T) {
	s := newStore(t)
	all := seedConversations(t, s, 137)
	for _, limit := range []int{1, 7, 20, 50, 136, 137} {
		got, pages := pageThrough(t, s, ListOptions{Limit: limit}, len(all))
		ids := func(cs []chat.Conversation) []string {
			out := make([]string, len(cs))
			for i, c := range cs {
				out[i] = c.ID
			}
			return out
		}
		assert.Equal(t, ids(all), ids(got), "limit %d: pages do not add up to the list (got %d rows over %d pages, want %d)", limit, len(got), pages, len(all))
		assert.Equal(t, (len(all)+limit-1)/limit, pages, "limit %d: pages", limit)
	}
}

func TestListPagingIsStableUnderInserts(t *testing.T) {
	s := newStore(t)
	all := seedConversations(t, s, 30)
	first, next, err := s.ListConversations(ctx, ListOptions{Limit: 10})
	require.NoError(t, err)
	mustConversation(t, s, "newcomer") // lands at the top of the unpinned rows
	rest, _ := pageThrough(t, s, ListOptions{Limit: 10, Cursor: next}, len(all)+1)
	seen := map[string]bool{}
	for _, c := range append(first, rest...) {
		assert.False(t, seen[c.ID], "%s listed twice", c.Title)
		seen[c.ID] = true
	}
	for _, c := range all {
		assert.True(t, seen[c.ID], "%s skipped", c.Title)
	}
}

func TestListLimitsAndBadCursor(t *testing.T) {
	s := newStore(t)
	seedConversations(t, s, MaxListLimit+5)
	page, next, err := s.ListConversations(ctx, ListOptions{})
	assert.NoError(t, err, "default limit")
	assert.Len(t, page, DefaultListLimit, "default limit")
	assert.NotEmpty(t, next, "default limit: no next cursor")
	page, _, _ = s.ListConversations(ctx, ListOptions{Limit: 10_000})
	assert.Len(t, page, MaxListLimit, "limit not capped")
	for _, bad := range []string{"garbage!", "e30", "eyJpIjoieCIsInUiOiJ5In0"} { // "{}", {"i":"x","u":"y"}
		_, _, err := s.ListConversations(ctx, ListOptions{Cursor: bad})
		assert.ErrorIs(t, err, ErrInvalidCursor, "cursor %q", bad)
	}
}
