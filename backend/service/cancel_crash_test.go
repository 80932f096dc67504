package service

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// askAndCompute asks a card and uses the calculator in one assistant message;
// after any tool result it replies with text.
func askAndCompute() modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "Carrying on."}
		}
		return modelserver.Turn{Text: "One question and a sum.", ToolCalls: []modelserver.ToolCall{
			{ID: "call_ask", Name: "ask_user_question", Arguments: colourCard},
			{ID: "call_calc", Name: "calculator", Arguments: `{"expression":"6*7"}`},
		}}
	}
}

// cancelInStore plays a process that stored the user's cancel of a card and
// died before its run ended: the card is cancelled in the database, the run's
// status is left as runStatus and, with resultStored, the cancel's tool result
// was stored too (the process died before the run's end was).
func cancelInStore(t *testing.T, e *env, cardID, runStatus string, resultStored bool) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(e.dbPath)
	require.NoError(t, err)
	defer db.Close()
	c, err := db.Card(ctx, cardID)
	require.NoError(t, err)
	now := time.Now().UTC()
	c.Status, c.AnsweredAt = questions.StatusCancelled, &now
	require.NoError(t, db.SaveCard(ctx, c))
	if resultStored {
		require.NoError(t, db.AppendMessage(ctx, &chat.Message{ConversationID: c.ConversationID, RunID: c.RunID,
			Role: chat.RoleTool, Content: questions.CancelledResult, ToolCallID: c.ToolCallID, ToolName: "ask_user_question"}))
	}
	run, err := db.Run(ctx, c.RunID)
	require.NoError(t, err)
	run.Status = runStatus
	require.NoError(t, db.SaveRun(ctx, run))
}

// A cancel the user gave is honoured after a crash, wherever between the
// stored cancel and the run's end the process died: the conversation is idle
// without an error (no Retry offered), the run is stored cancelled, every tool
// call of the message has one result, the calculator never ran and the model
// is not called again (SPEC §1: cancel stops the run).
func TestCancelGivenBeforeCrashIsHonoured(t *testing.T) {
	for _, tc := range []struct {
		runStatus    string
		resultStored bool
	}{
		{chat.RunAwaiting, false},
		{chat.RunAwaiting, true},
		{chat.RunRunning, false},
		{chat.RunRunning, true},
	} {
		t.Run(fmt.Sprintf("run %s, result stored %v", tc.runStatus, tc.resultStored), func(t *testing.T) {
			e := newEnv(t, askAndCompute(), time.Minute)
			ctx := context.Background()
			c, err := e.svc.CreateConversation(ctx, "Cancel crash", "")
			require.NoError(t, err)
			_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
			require.NoError(t, err)
			card := e.waitState(c.ID, chat.StateAwaitingUserResponse).PendingQuestion
			require.NotNil(t, card)
			e.close()
			cancelInStore(t, e, card.ID, tc.runStatus, tc.resultStored)

			for restart := 1; restart <= 2; restart++ {
				e.open()
				d := e.waitState(c.ID, chat.StateIdle, chat.StateError)
				assert.Equal(t, chat.StateIdle, d.State, "restart %d: state (error %q)", restart, d.Error)
				assert.Empty(t, d.Error, "restart %d", restart)
				assert.Nil(t, d.PendingQuestion, "restart %d", restart)

				results := map[string][]string{}
				for _, m := range d.Messages {
					if m.Role == chat.RoleTool {
						results[m.ToolCallID] = append(results[m.ToolCallID], m.Content)
					}
				}
				assert.Equal(t, []string{questions.CancelledResult}, results["call_ask"], "restart %d: results of the cancelled card's call", restart)
				assert.Equal(t, []string{"Cancelled by the user before this tool ran."}, results["call_calc"], "restart %d: the calculator must not run", restart)
				last := d.Messages[len(d.Messages)-1]
				assert.Equal(t, chat.RoleTool, last.Role, "restart %d: no reply after a cancel: %+v", restart, last)
				assert.Equal(t, 1, len(e.model.Requests()), "restart %d: model requests (the model must not be called again)", restart)

				run, err := e.db.Run(ctx, card.RunID)
				require.NoError(t, err)
				assert.Equal(t, chat.RunCancelled, run.Status, "restart %d: stored run status", restart)
				assert.NotNil(t, run.EndedAt, "restart %d", restart)
				stored, err := e.db.Card(ctx, card.ID)
				require.NoError(t, err)
				assert.Equal(t, questions.StatusCancelled, stored.Status, "restart %d", restart)
				e.close()
			}
		})
	}
}
