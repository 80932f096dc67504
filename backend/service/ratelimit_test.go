package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// SPEC §1: a card asked after a late answer is never refused by the rate
// limit. With one card per hour, a card times out, the user answers it late,
// and the run that the late answer starts asks a new card: it is shown.
func TestCardAfterALateAnswerIsNotRateLimited(t *testing.T) {
	script := func(req modelserver.ChatRequest) modelserver.Turn {
		last := req.LastMessage()
		switch {
		case last.Role == "tool":
			return modelserver.Turn{Text: "Noted."}
		case strings.Contains(last.Content, "Here are my answers"):
			return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_2", Name: "ask_user_question", Arguments: colourCard}}}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: colourCard}}}
	}
	e := newEnv(t, script, 30*time.Millisecond)
	ctx := context.Background()
	st := e.svc.GetSettings()
	st.RateLimitSeconds = 3600
	_, err := e.svc.SaveSettings(ctx, st)
	require.NoError(t, err)

	c, err := e.svc.CreateConversation(ctx, "Late and limited", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle) // the card timed out and the run went on
	late, err := e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: "latest", Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Red"}}}})
	require.NoError(t, err)
	require.Equal(t, questions.StatusAnsweredLate, late.Status)

	// The late answer's run asks call_2; it ends once that card is resolved
	// (here: it times out too) or refused.
	var second *questions.Card
	deadline := time.Now().Add(15 * time.Second)
	for second == nil && time.Now().Before(deadline) {
		d := e.waitState(c.ID, chat.StateIdle)
		for _, m := range d.Messages {
			if m.Role == chat.RoleTool && m.ToolCallID == "call_2" {
				cards, err := e.svc.ConversationQuestions(ctx, c.ID)
				require.NoError(t, err)
				for _, card := range cards {
					if card.ToolCallID == "call_2" {
						second = card
					}
				}
				require.NotNil(t, second, "the card after the late answer was refused: the model got %q", m.Content)
			}
		}
		if second == nil {
			select {
			case <-e.rec.Changed():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	require.NotNil(t, second, "the late answer's run never got to its card")
	assert.NotEqual(t, questions.StatusPending, second.Status)
	assert.Equal(t, late.RunID, mustRun(t, e, second.RunID).ResumedFrom, "the card belongs to the late answer's run")
}

func mustRun(t *testing.T, e *env, id string) *chat.Run {
	t.Helper()
	r, err := e.db.Run(context.Background(), id)
	require.NoError(t, err)
	return r
}
