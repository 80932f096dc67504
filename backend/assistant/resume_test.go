package assistant

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
)

func (h *harness) seed(msgs ...chat.Message) {
	h.t.Helper()
	for i := range msgs {
		msgs[i].ConversationID = conv
		require.NoError(h.t, h.history.AppendMessage(context.Background(), &msgs[i]))
	}
}

func TestResumeContinuesAfterToolResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Red walls it is."}))
	// What a previous process saved before it stopped: the card's answer is
	// in, the model was not called again.
	h.seed(
		chat.Message{RunID: "run-7", Role: chat.RoleUser, Content: "paint"},
		chat.Message{RunID: "run-7", Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		chat.Message{RunID: "run-7", Role: chat.RoleTool, ToolCallID: "call_1", ToolName: ToolAskUser, Content: `{"answers":{"Which colour?":"Red"}}`},
	)
	require.NoError(t, h.rt.Resume(context.Background(), conv, "run-7", ""))
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	require.Equal(t, "run-7", st.RunID, "state %+v", st)
	reqs := h.server.Requests()
	require.Len(t, reqs, 1, "requests %+v", reqs)
	require.Equal(t, "call_1", lastToolMessage(t, reqs[0]).ToolCallID, "requests %+v", reqs)
	msgs := h.messages()
	require.Len(t, msgs, 4, "history %+v", msgs)
	require.Equal(t, "Red walls it is.", msgs[3].Content, "history %+v", msgs)
	require.Equal(t, "run-7", msgs[3].RunID, "history %+v", msgs)
	r, _ := h.history.Run("run-7")
	require.Equal(t, chat.RunCompleted, r.Status, "run %+v", r)
	// Finished now: nothing left to resume.
	err := h.rt.Resume(context.Background(), conv, "run-7", "")
	require.Error(t, err, "second resume")
	require.Contains(t, err.Error(), "nothing to continue", "second resume")
}

func TestResumeRunsToolCallsLeftWithoutResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "It is 42."}))
	h.seed(
		chat.Message{Role: chat.RoleUser, Content: "six times seven?"},
		chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_c", Name: ToolCalculator, Arguments: `{"expression":"6*7"}`}}},
	)
	require.NoError(t, h.rt.Resume(context.Background(), conv, "run-8", ""))
	h.waitDone()
	tm := lastToolMessage(t, h.server.Requests()[0])
	require.Equal(t, "call_c", tm.ToolCallID, "tool message %+v", tm)
	require.Equal(t, "42", tm.Content, "tool message %+v", tm)
	assertConsistent(t, h.messages())
}

func TestResumeRefusesEmptyOrActive(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "slow", Fault: modelserver.StallMidStream}))
	require.Error(t, h.rt.Resume(context.Background(), conv, "run-x", ""), "resumed an empty conversation")
	h.start("hi")
	err := h.rt.Resume(context.Background(), conv, "run-x", "")
	require.Same(t, ErrRunActive, err, "resume while a run is active: %v", err)
	h.rt.Cancel(conv)
}

func TestLateAnswerStartsLinkedRun(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Thanks, adjusting to blue."}))
	h.seed(chat.Message{RunID: "run-old", Role: chat.RoleUser, Content: "paint"},
		chat.Message{RunID: "run-old", Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: ToolAskUser, Arguments: askArgs(colourQuestion)}}},
		chat.Message{RunID: "run-old", Role: chat.RoleTool, ToolCallID: "call_1", ToolName: ToolAskUser, Content: "The user did not answer in time (timed out)."},
		chat.Message{RunID: "run-old", Role: chat.RoleAssistant, Content: "I went with red."})
	const late = "Answering your earlier questions:\nWhich colour? Blue"
	runID, err := h.rt.Start(StartRequest{ConversationID: conv, UserText: late, ResumedFrom: "run-old"})
	require.NoError(t, err)
	h.waitDone()
	r, _ := h.history.Run(runID)
	require.NotEqual(t, "run-old", runID, "the late answer reused the old run id")
	require.Equal(t, "run-old", r.ResumedFrom, "run %s saved as %+v", runID, r)
	require.Equal(t, chat.RunCompleted, r.Status, "run %s saved as %+v", runID, r)
	last := h.server.Requests()[0].LastMessage()
	require.Equal(t, "user", last.Role, "model got %+v", last)
	require.Equal(t, late, last.Content, "model got %+v", last)
}

func TestToolCallsLeftWithoutResultAreClosedWhenSent(t *testing.T) {
	// An older process died mid-tool and the user wrote again: the model
	// must still get a result for every call, or servers refuse the request.
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "Sorry about that."}))
	h.seed(
		chat.Message{Role: chat.RoleUser, Content: "a"},
		chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{ID: "call_1", Name: ToolCalculator, Arguments: `{"expression":"1+1"}`},
			{ID: "call_2", Name: ToolCurrentTime, Arguments: `{}`},
		}},
		chat.Message{Role: chat.RoleTool, ToolCallID: "call_1", ToolName: ToolCalculator, Content: "2"},
	)
	h.start("hello again")
	h.waitDone()
	var roles, ids []string
	for _, m := range h.server.Requests()[0].Messages {
		roles = append(roles, m.Role)
		if m.Role == "tool" {
			ids = append(ids, m.ToolCallID+"="+m.Content)
		}
	}
	require.Equal(t, "system,user,assistant,tool,tool,user", strings.Join(roles, ","), "roles")
	require.Equal(t, "call_1=2|call_2="+missingToolResult, strings.Join(ids, "|"), "tool results")
}
