package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// waitEarlyCard waits for a pending card to be shown (question:ask) and
// returns it.
func (h *harness) waitEarlyCard() *questions.Card {
	var card *questions.Card
	h.waitFor("a card shown", func() bool {
		c, ok := h.qm.LatestPending(conv)
		if ok && c.Status == questions.StatusPending && contains(h.rec.Names(), events.QuestionAsk) {
			card = c
			return true
		}
		return false
	})
	return card
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// A call the server has finished (finish_reason came) is shown as a card
// while the stream still goes on (usage, [DONE] held back here), and the
// run then waits on that same card: one card, its answer reaches the model.
func TestCardShownWhenTheCallIsCompleteBeforeTheStreamEnds(t *testing.T) {
	hold := make(chan struct{})
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Let me check.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}},
			HoldBeforeUsage: hold},
		modelserver.Turn{Text: "Red it is."},
	))
	h.start("paint my room")
	card := h.waitEarlyCard()
	assert.Equal(t, "call_1", card.ToolCallID)
	assert.NotEqual(t, chat.StateAwaitingUserResponse, h.rt.State(conv).State, "the stream has not ended yet")
	close(hold)
	awaiting := h.waitCard()
	require.Equal(t, card.ID, awaiting.ID, "the run waits on the card already shown")
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err)
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	reqs := h.server.Requests()
	require.Len(t, reqs, 2, "model requests")
	assert.Equal(t, `{"answers":{"Which colour?":"Red"}}`, lastToolMessage(t, reqs[1]).Content)
	assert.Len(t, h.qm.Cards(conv), 1, "asked once")
	assertConsistent(t, h.messages())
}

// When the model call fails after the card was shown early (here the user
// stops the reply before the stream ends), the card is cancelled: nothing
// waits for it and the history has no call without a result.
func TestEarlyCardIsCancelledWhenTheModelCallFails(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{Text: "Let me check.", ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}},
			HoldBeforeUsage: hold},
	))
	h.start("paint my room")
	card := h.waitEarlyCard()
	require.True(t, h.rt.Cancel(conv))
	h.waitDone()
	cards := h.qm.Cards(conv)
	require.Len(t, cards, 1)
	assert.Equal(t, card.ID, cards[0].ID)
	assert.Equal(t, questions.StatusCancelled, cards[0].Status)
	msgs := h.messages()
	for _, m := range msgs {
		assert.Empty(t, m.ToolCalls, "no call was stored: %+v", msgs)
	}
	assertConsistent(t, msgs)
}
