package service

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/fault"
)

// PATCH /conversations/{id} and the window's UpdateConversation: nothing
// given is refused, and a refused setting changes nothing else given with it.
func TestUpdateConversationChangesAllOrNothingItChecks(t *testing.T) {
	e := newEnv(t, nil, time.Minute)
	ctx := context.Background()
	conv, err := e.svc.CreateConversation(ctx, "Before", "")
	require.NoError(t, err)

	_, err = e.svc.UpdateConversation(ctx, conv.ID, api.ConversationUpdate{})
	assert.Equal(t, fault.Input, fault.KindOf(err), "an update that gives nothing")

	title, pinned, thinking := "After", true, "maximum"
	_, err = e.svc.UpdateConversation(ctx, conv.ID, api.ConversationUpdate{Title: &title, Pinned: &pinned, Thinking: &thinking})
	require.Error(t, err)
	d, err := e.svc.GetConversation(ctx, conv.ID)
	require.NoError(t, err)
	assert.Equal(t, "Before", d.Title, "a refused thinking setting renamed the conversation")
	assert.False(t, d.Pinned)

	thinking = "high"
	d, err = e.svc.UpdateConversation(ctx, conv.ID, api.ConversationUpdate{Title: &title, Pinned: &pinned, Thinking: &thinking})
	require.NoError(t, err)
	assert.Equal(t, "After", d.Title)
	assert.True(t, d.Pinned)
	assert.Equal(t, "high", d.Thinking)

	_, err = e.svc.UpdateConversation(ctx, "missing", api.ConversationUpdate{Title: &title})
	assert.Equal(t, fault.NotFound, fault.KindOf(err))
}
