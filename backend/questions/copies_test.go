package questions

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
)

// scribble changes everything a holder of a card could change in place.
func scribble(c *Card) {
	c.Status = StatusCancelled
	c.Questions[0].Question = "scribbled"
	c.Questions[0].Options[0].Label = "scribbled"
	for k := range c.Answers {
		c.Answers[k] = "scribbled"
	}
	if c.AnsweredAt != nil {
		*c.AnsweredAt = c.AnsweredAt.AddDate(-1, 0, 0)
	}
}

// The cards Create and Respond return, the ones events carry and the ones
// the store gets are each their own: changing one in place changes
// neither the manager's state nor the others (the manager shares data
// only between its own old and new state of a card).
func TestCardsHandedOutAreCopies(t *testing.T) {
	h := newHarness(t, nil)
	created := h.create(t, "conv")
	scribble(created)
	got, ok := h.m.Get(created.ID)
	require.True(t, ok, "card %s", created.ID)
	assert.Equal(t, StatusPending, got.Status, "after changing the created card")
	assert.Equal(t, sampleQuestions(), got.Questions, "after changing the created card")

	answered, err := h.m.Respond(context.Background(), "conv", submit(created.ID, "Postgres"))
	require.NoError(t, err)
	want := cloneCard(answered)
	var resolved *Card
	for _, e := range h.rec.Events() {
		if e.Name == events.QuestionResolved {
			resolved = e.Payload.(*Card)
		}
	}
	require.NotNil(t, resolved, "no %s event", events.QuestionResolved)
	stored := h.store.get(created.ID)
	scribble(answered)
	assert.Equal(t, want, resolved, "the event's card after changing the returned one")
	scribble(resolved)
	got, ok = h.m.Get(created.ID)
	require.True(t, ok, "card %s", created.ID)
	assert.Equal(t, want, got, "the manager's card after changing the returned and the event's")
	assert.Equal(t, stored, h.store.get(created.ID), "the stored card")
	assert.Equal(t, map[string]string{"Which database?": "Postgres"}, got.Answers)
}
