package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

func TestConversationModelIsStoredListedAndExported(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "Gearbox")
	got, err := s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Empty(t, got.Model, "a new conversation uses its profile's model")

	require.NoError(t, s.SetModel(ctx, c.ID, "llava:7b"))
	got, err = s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "llava:7b", got.Model)

	items, _, err := s.ListConversations(ctx, ListOptions{Limit: 10})
	require.NoError(t, err)
	require.Len(t, items, 1)
	assert.Equal(t, "llava:7b", items[0].Model, "the list carries the model")

	tr, err := s.Transcript(ctx, c.ID)
	require.NoError(t, err)
	imported, err := s.ImportTranscript(ctx, tr)
	require.NoError(t, err)
	assert.Equal(t, "llava:7b", imported.Model, "an imported copy keeps the model")

	require.NoError(t, s.SetModel(ctx, c.ID, ""))
	got, err = s.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Empty(t, got.Model, "cleared: back to the profile's model")

	assert.ErrorIs(t, s.SetModel(ctx, "missing", "x"), chat.ErrNotFound)
}
