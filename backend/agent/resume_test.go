package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/modelserver"
)

func (h *harness) seed(msgs ...chat.Message) {
	h.t.Helper()
	for i := range msgs {
		msgs[i].ConversationID = conv
		if err := h.history.AppendMessage(context.Background(), &msgs[i]); err != nil {
			h.t.Fatal(err)
		}
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
	if err := h.rt.Resume(context.Background(), conv, "run-7", ""); err != nil {
		t.Fatal(err)
	}
	if st := h.waitDone(); st.State != chat.StateIdle || st.RunID != "run-7" {
		t.Fatalf("state %+v", st)
	}
	reqs := h.server.Requests()
	if len(reqs) != 1 || lastToolMessage(t, reqs[0]).ToolCallID != "call_1" {
		t.Fatalf("requests %+v", reqs)
	}
	msgs := h.messages()
	if len(msgs) != 4 || msgs[3].Content != "Red walls it is." || msgs[3].RunID != "run-7" {
		t.Fatalf("history %+v", msgs)
	}
	if r, _ := h.history.Run("run-7"); r.Status != chat.RunCompleted {
		t.Fatalf("run %+v", r)
	}
	// Finished now: nothing left to resume.
	if err := h.rt.Resume(context.Background(), conv, "run-7", ""); err == nil || !strings.Contains(err.Error(), "nothing to continue") {
		t.Fatalf("second resume: %v", err)
	}
}

func TestResumeRunsToolCallsLeftWithoutResult(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "It is 42."}))
	h.seed(
		chat.Message{Role: chat.RoleUser, Content: "six times seven?"},
		chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_c", Name: ToolCalculator, Arguments: `{"expression":"6*7"}`}}},
	)
	if err := h.rt.Resume(context.Background(), conv, "run-8", ""); err != nil {
		t.Fatal(err)
	}
	h.waitDone()
	if tm := lastToolMessage(t, h.server.Requests()[0]); tm.ToolCallID != "call_c" || tm.Content != "42" {
		t.Fatalf("tool message %+v", tm)
	}
	assertConsistent(t, h.messages())
}

func TestResumeRefusesEmptyOrActive(t *testing.T) {
	h := newHarness(t, modelserver.Turns(modelserver.Turn{Text: "slow", Fault: modelserver.StallMidStream}))
	if err := h.rt.Resume(context.Background(), conv, "run-x", ""); err == nil {
		t.Fatal("resumed an empty conversation")
	}
	h.start("hi")
	if err := h.rt.Resume(context.Background(), conv, "run-x", ""); err != ErrRunActive {
		t.Fatalf("resume while a run is active: %v", err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	h.waitDone()
	r, _ := h.history.Run(runID)
	if runID == "run-old" || r.ResumedFrom != "run-old" || r.Status != chat.RunCompleted {
		t.Fatalf("run %s saved as %+v", runID, r)
	}
	if last := h.server.Requests()[0].LastMessage(); last.Role != "user" || last.Content != late {
		t.Fatalf("model got %+v", last)
	}
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
	if strings.Join(roles, ",") != "system,user,assistant,tool,tool,user" ||
		strings.Join(ids, "|") != "call_1=2|call_2="+missingToolResult {
		t.Fatalf("roles %v, tool results %v", roles, ids)
	}
}
