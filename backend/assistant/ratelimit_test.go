package assistant

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// hourlyCards limits cards to one per hour per conversation, so every card
// after the first would be refused unless the limit spares it.
func hourlyCards(_ *Options, q *questions.Config) { q.RateInterval = time.Hour }

func (h *harness) answer(card *questions.Card) {
	h.t.Helper()
	_, err := h.qm.Respond(context.Background(), conv, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(h.t, err)
}

// toolResult returns the content of the tool result for a call ("" if none).
func toolResult(msgs []chat.Message, callID string) string {
	for _, m := range msgs {
		if m.Role == chat.RoleTool && m.ToolCallID == callID {
			return m.Content
		}
	}
	return ""
}

// SPEC §1: a card asked after a new user message is never refused by the
// rate limit. The user answers a card and sends a follow-up at once; the
// model asks again in the new run and the card appears.
func TestCardAfterANewUserMessageIsNotRateLimited(t *testing.T) {
	var calls atomic.Int64
	script := func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "Noted: " + last.Content}
		}
		id := fmt.Sprintf("call_%d", calls.Add(1))
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: id, Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}
	}
	h := newHarness(t, script, hourlyCards)
	h.start("paint the hall")
	h.answer(h.waitCard())
	require.Equal(t, chat.StateIdle, h.waitDone().State)

	h.start("and the kitchen?")
	var second *questions.Card
	h.waitFor("the follow-up's card or the end of its run", func() bool {
		if c, ok := h.qm.LatestPending(conv); ok && c.Status == questions.StatusPending && c.ToolCallID == "call_2" {
			second = c
			return true
		}
		return !h.rt.Active(conv)
	})
	require.NotNil(t, second, "no card after the new user message; the model got %q", toolResult(h.messages(), "call_2"))
	h.answer(second)
	require.Equal(t, chat.StateIdle, h.waitDone().State)
	msgs := h.messages()
	assert.Equal(t, `{"answers":{"Which colour?":"Red"}}`, toolResult(msgs, "call_2"), "the follow-up's card was refused")
	assert.Len(t, h.qm.Cards(conv), 2)
}

// The limit still refuses a model that asks again on its own within one run:
// after the user answered the run's first card, the model's next card (a
// later model call of the same run) gets the rate-limit text.
func TestModelAskingAgainInOneRunIsRateLimited(t *testing.T) {
	var calls atomic.Int64
	script := func(req modelserver.ChatRequest) modelserver.Turn {
		last := req.LastMessage()
		if last.Role == "tool" && strings.HasPrefix(last.Content, "rate limited") {
			return modelserver.Turn{Text: "Done."}
		}
		id := fmt.Sprintf("call_%d", calls.Add(1))
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: id, Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}}
	}
	h := newHarness(t, script, hourlyCards)
	h.start("paint the hall")
	h.answer(h.waitCard())
	require.Equal(t, chat.StateIdle, h.waitDone().State)

	msgs := h.messages()
	assert.True(t, strings.HasPrefix(toolResult(msgs, "call_2"), "rate limited: wait "), "second card of the run: %q", toolResult(msgs, "call_2"))
	assert.Equal(t, "Done.", msgs[len(msgs)-1].Content)
	assert.Len(t, h.qm.Cards(conv), 1, "only the run's first card was shown")
}
