package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/yield"
)

// waitMode waits until the background gate is in mode m (each change of
// the gate, its linger's end too, is announced on Changed).
func waitMode(t *testing.T, g *yield.Gate, m yield.Mode, what string) {
	t.Helper()
	deadline := time.After(time.Minute) // bounds a broken wiring only
	for {
		changed := g.Changed()
		if g.Mode() == m {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			require.FailNow(t, "the background gate never became "+m.String(), "%s; it is %s", what, g.Mode())
		}
	}
}

// Issue #42: the indexer's gate follows the runs — closed while the model
// streams, paced while the card waits for the user, closed again once the
// answer sends the run on, open when the run has ended.
func TestBackgroundGateFollowsTheRun(t *testing.T) {
	first, second := make(chan struct{}), make(chan struct{})
	script := func(req modelserver.ChatRequest) modelserver.Turn {
		if last := req.LastMessage(); last.Role == "tool" {
			return modelserver.Turn{Text: "You said: " + last.Content, Hold: second}
		}
		return modelserver.Turn{Text: "One question first.", Hold: first,
			ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: "ask_user_question", Arguments: colourCard}}}
	}
	e := newEnv(t, script, time.Minute)
	g := e.svc.Background()
	ctx := context.Background()
	require.Equal(t, yield.Open, g.Mode(), "nothing runs")
	c, err := e.svc.CreateConversation(ctx, "", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "Paint my bedroom please"})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = e.model.WaitRequests(wctx, 1)
	require.NoError(t, err)
	require.Equal(t, yield.Closed, g.Mode(), "the model is asked")
	close(first)
	d := e.waitState(c.ID, chat.StateAwaitingUserResponse)
	waitMode(t, g, yield.Paced, "a card waits for the user")

	_, err = e.svc.Respond(ctx, c.ID, questions.Response{QuestionID: d.PendingQuestion.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which colour?": {Selected: []string{"Blue"}}}})
	require.NoError(t, err)
	_, err = e.model.WaitRequests(wctx, 2)
	require.NoError(t, err)
	require.Equal(t, yield.Closed, g.Mode(), "the answer sent the run on")
	close(second)
	e.waitState(c.ID, chat.StateIdle)
	waitMode(t, g, yield.Open, "the run ended")
}

// Issue #42: an agent's card waiting for the user paces background work as
// an in-app run's card does (an agent's card has no run to tell the gate),
// also after a restart brought it back; the answer opens the gate again.
func TestBackgroundGatePacedWhileAnAgentsCardWaits(t *testing.T) {
	e := newEnv(t, func(modelserver.ChatRequest) modelserver.Turn { return modelserver.Turn{Text: "Hi."} }, time.Hour)
	ctx := context.Background()
	require.Equal(t, yield.Open, e.svc.Background().Mode(), "nothing waits")
	card, err := e.svc.Agents().Ask(ctx, agentinbox.AskRequest{Agent: "claude-code", Input: json.RawMessage(languageCard)})
	require.NoError(t, err)
	require.Equal(t, questions.StatusPending, card.Status)
	waitMode(t, e.svc.Background(), yield.Paced, "an agent's card waits")

	e.close()
	e.open()
	waitMode(t, e.svc.Background(), yield.Paced, "the restart brought the agent's card back")

	_, err = e.svc.Respond(ctx, card.ConversationID, questions.Response{QuestionID: card.ID, Action: questions.ActionSubmit,
		Answers: map[string]questions.AnswerInput{"Which language should I use?": {Selected: []string{"Zig"}}}})
	require.NoError(t, err)
	waitMode(t, e.svc.Background(), yield.Open, "the agent's card was answered")
}
