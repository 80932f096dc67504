package questions

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SPEC §1: the rate limit guards against a model that asks again and again on
// its own; a card asked after a new user message (or a late answer) is never
// refused by it. Such a card still counts: the model asking again right
// after it is limited as usual.
func TestRateLimitSparesTheFirstCardAfterAUserTurn(t *testing.T) {
	h := newHarness(t, nil) // one card per 5 s
	ctx := context.Background()
	h.create(t, "conv-1")

	// The user answered quickly and sent a new message: the next run's
	// first card comes 1 s after the last one.
	h.clock.Advance(time.Second)
	first, err := h.m.Create(ctx, AskRequest{ConversationID: "conv-1", RunID: "run-2", ToolCallID: "call-2",
		Questions: sampleQuestions(), AfterUserTurn: true})
	require.NoError(t, err, "the first card after a new user message was refused")
	assert.Equal(t, StatusPending, first.Status)
	assert.Equal(t, StatusPending, h.store.get(first.ID).Status, "the card is saved")

	// The same run asking again on its own is limited, counting from the
	// card it was spared for.
	h.clock.Advance(time.Second)
	_, err = h.m.Create(ctx, AskRequest{ConversationID: "conv-1", RunID: "run-2", ToolCallID: "call-3", Questions: sampleQuestions()})
	var rl *RateLimitError
	require.True(t, errors.As(err, &rl), "a model asking again within the run: %v", err)
	assert.Equal(t, "rate limited: wait 4.0s before asking again", err.Error())

	h.clock.Advance(4 * time.Second)
	_, err = h.m.Create(ctx, AskRequest{ConversationID: "conv-1", RunID: "run-2", ToolCallID: "call-4", Questions: sampleQuestions()})
	assert.NoError(t, err, "5 s after the spared card")
}

// A spared card that could not be saved leaves the limit as it was: the
// conversation's earlier card still limits the model's own asking.
func TestRateLimitUnchangedWhenASparedCardIsNotSaved(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	h.create(t, "conv-1")
	h.clock.Advance(time.Second)
	h.store.setFail(func(*Card) error { return errors.New("disk full") })
	_, err := h.m.Create(ctx, AskRequest{ConversationID: "conv-1", RunID: "run-2", ToolCallID: "call-2",
		Questions: sampleQuestions(), AfterUserTurn: true})
	require.ErrorContains(t, err, "disk full")
	h.store.setFail(nil)

	_, err = h.m.Create(ctx, AskRequest{ConversationID: "conv-1", RunID: "run-2", ToolCallID: "call-3", Questions: sampleQuestions()})
	assert.EqualError(t, err, "rate limited: wait 4.0s before asking again")
}
