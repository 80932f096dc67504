package store

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

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
		if _, err := s.writer.Exec(`UPDATE conversations SET updated_at = ?, pinned = ? WHERE id = ?`,
			formatTime(updated), i%7 == 0, c.ID); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := pageThrough(t, s, ListOptions{Limit: MaxListLimit}, n)
	if len(all) != n {
		t.Fatalf("listed %d of %d", len(all), n)
	}
	return all
}

// pageThrough follows next cursors from opt to the last page, failing
// rather than looping when the pages do not end (a cursor that repeats).
func pageThrough(t *testing.T, s *Store, opt ListOptions, maxRows int) (all []chat.Conversation, pages int) {
	t.Helper()
	for {
		page, next, err := s.ListConversations(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > opt.Limit || (next != "" && len(page) != opt.Limit) {
			t.Fatalf("page %d: %d rows for limit %d, next %q", pages, len(page), opt.Limit, next)
		}
		all = append(all, page...)
		pages++
		if next == "" {
			return all, pages
		}
		if len(all) > maxRows {
			t.Fatalf("paging does not end: %d rows over %d pages, at most %d exist", len(all), pages, maxRows)
		}
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
	if !slices.IsSortedFunc(all, listOrder) {
		t.Error("list is not pinned-first, newest-first, id-descending")
	}
	if !all[0].Pinned || all[len(all)-1].Pinned {
		t.Error("pinned conversations are not first")
	}
	// Activity moves a conversation to the top of the unpinned ones.
	oldest := all[len(all)-1]
	mustAppend(t, s, oldest.ID, chat.RoleUser, "bump")
	all, _, _ = s.ListConversations(ctx, ListOptions{Limit: MaxListLimit})
	firstUnpinned := slices.IndexFunc(all, func(c chat.Conversation) bool { return !c.Pinned })
	if all[firstUnpinned].ID != oldest.ID {
		t.Errorf("after a new message the conversation is at %d, want %d", slices.IndexFunc(all, func(c chat.Conversation) bool { return c.ID == oldest.ID }), firstUnpinned)
	}
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
		if !slices.Equal(ids(got), ids(all)) {
			t.Errorf("limit %d: pages do not add up to the list (got %d rows over %d pages, want %d)", limit, len(got), pages, len(all))
		}
		if want := (len(all) + limit - 1) / limit; pages != want {
			t.Errorf("limit %d: %d pages, want %d", limit, pages, want)
		}
	}
}

func TestListPagingIsStableUnderInserts(t *testing.T) {
	s := newStore(t)
	all := seedConversations(t, s, 30)
	first, next, err := s.ListConversations(ctx, ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	mustConversation(t, s, "newcomer") // lands at the top of the unpinned rows
	rest, _ := pageThrough(t, s, ListOptions{Limit: 10, Cursor: next}, len(all)+1)
	seen := map[string]bool{}
	for _, c := range append(first, rest...) {
		if seen[c.ID] {
			t.Errorf("%s listed twice", c.Title)
		}
		seen[c.ID] = true
	}
	for _, c := range all {
		if !seen[c.ID] {
			t.Errorf("%s skipped", c.Title)
		}
	}
}

func TestListLimitsAndBadCursor(t *testing.T) {
	s := newStore(t)
	seedConversations(t, s, MaxListLimit+5)
	page, next, err := s.ListConversations(ctx, ListOptions{})
	if err != nil || len(page) != DefaultListLimit || next == "" {
		t.Errorf("default limit: %v %d %q", err, len(page), next)
	}
	page, _, _ = s.ListConversations(ctx, ListOptions{Limit: 10_000})
	if len(page) != MaxListLimit {
		t.Errorf("limit not capped: %d", len(page))
	}
	for _, bad := range []string{"garbage!", "e30", "eyJpIjoieCIsInUiOiJ5In0"} { // "{}", {"i":"x","u":"y"}
		if _, _, err := s.ListConversations(ctx, ListOptions{Cursor: bad}); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("cursor %q: err = %v", bad, err)
		}
	}
}
