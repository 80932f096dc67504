package exchange

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/store"
)

// importTitled exports a conversation titled title and imports it back.
func importTitled(t *testing.T, s *store.Store, title string) string {
	t.Helper()
	c := mustConversation(t, s, title)
	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	imported, err := ImportJSON(ctx, s, data)
	require.NoError(t, err)
	stored, err := s.GetConversation(ctx, imported.ID)
	require.NoError(t, err)
	require.Equal(t, imported.Title, stored.Title, "the returned title is the stored one")
	return imported.Title
}

func TestImportMarksTheCopyInItsTitle(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "Trip to Lisbon")
	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	var titles []string
	for range 3 {
		imported, err := ImportJSON(ctx, s, data)
		require.NoError(t, err)
		titles = append(titles, imported.Title)
	}
	assert.Equal(t, []string{"Trip to Lisbon (imported)", "Trip to Lisbon (imported 2)", "Trip to Lisbon (imported 3)"}, titles)

	// An export of an imported copy gets the next number, not a second mark.
	again, err := ExportJSON(ctx, s, mustConversationNamed(t, s, "Trip to Lisbon (imported 2)"))
	require.NoError(t, err)
	imported, err := ImportJSON(ctx, s, again)
	require.NoError(t, err)
	assert.Equal(t, "Trip to Lisbon (imported 4)", imported.Title)

	orig, err := s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "Trip to Lisbon", orig.Title, "the original keeps its title")

	assert.Equal(t, store.DefaultTitle+" (imported)", importTitled(t, s, ""), "an untitled conversation")
	long := importTitled(t, s, strings.Repeat("é", store.MaxTitleRunes))
	assert.Equal(t, store.MaxTitleRunes, utf8.RuneCountInString(long), "a long title is cut to make room for the mark")
	assert.True(t, strings.HasSuffix(long, "é (imported)"), long)
}

// mustConversationNamed returns the id of the conversation titled title.
func mustConversationNamed(t *testing.T, s *store.Store, title string) string {
	t.Helper()
	page, _, err := s.ListConversations(ctx, store.ListOptions{Limit: 100})
	require.NoError(t, err)
	for _, c := range page {
		if c.Title == title {
			return c.ID
		}
	}
	require.Failf(t, "conversation not found", "no conversation titled %q", title)
	return ""
}
