package assistant

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

func TestSpawnAgentsResultsInOrderWithErrors(t *testing.T) {
	h := newHarness(t, func(req modelserver.ChatRequest) modelserver.Turn {
		if isSubAgentRequest(req) {
			switch task := req.Messages[1].Content; task {
			case "fails":
				return modelserver.Turn{Fault: modelserver.HTTPError, Status: 500, Body: `{"error":{"message":"out of memory"}}`}
			default:
				return modelserver.Turn{Text: "did " + task}
			}
		}
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "All reported."}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_s", Name: ToolSpawnAgents,
			Arguments: `{"agents":[{"task":"one"},{"name":"broken","task":"fails"},{"task":"three"}]}`}}}
	})
	h.start("go")
	st := h.waitDone()
	require.Equal(t, chat.StateIdle, st.State, "state %+v", st)
	got := lastToolMessage(t, h.server.Requests()[4]).Content
	want := `{"results":[{"name":"agent-1","result":"did one"},` +
		`{"name":"broken","error":"The model server answered with an error (HTTP 500): out of memory"},` +
		`{"name":"agent-3","result":"did three"}]}`
	require.Equal(t, want, got, "spawn result")
	// Sub-agents do not stream into the conversation: only the parent's answer does.
	var streamed strings.Builder
	for _, e := range h.rec.Events() {
		if e.Name == events.MessageDelta {
			streamed.WriteString(e.Payload.(events.MessageDeltaPayload).Delta)
		}
	}
	require.Equal(t, "All reported.", streamed.String(), "streamed")
}

func TestSpawnAgentsInvalidInput(t *testing.T) {
	long := strings.Repeat("x", MaxSubAgentTask+1)
	cases := map[string]string{
		`{"agents":[]}`: "invalid input: agents must have 1-4 items (got 0)",
		`{"agents":[{"task":"a"},{"task":"b"},{"task":"c"},{"task":"d"},{"task":"e"}]}`: "invalid input: agents must have 1-4 items (got 5)",
		`{"agents":[{"task":"a"},{"name":"n","task":"  "}]}`:                            "invalid input: agents[1].task must be 1-4000 characters",
		`{"agents":[{"task":"` + long + `"}]}`:                                          "invalid input: agents[0].task must be 1-4000 characters",
		`not json`:                                                                      "invalid input:",
	}
	for args, want := range cases {
		_, err := parseSpawnInput(args)
		if assert.Error(t, err, "parseSpawnInput(%.40q) succeeded, want %q", args, want) {
			assert.True(t, strings.HasPrefix(err.Error(), want), "parseSpawnInput(%.40q) = %v, want %q", args, err, want)
		}
	}
	specs, err := parseSpawnInput(`{"agents":[{"task":" a "},{"name":"named","task":"b"},{"task":"` + strings.Repeat("é", MaxSubAgentTask) + `"}]}`)
	require.NoError(t, err)
	require.Equal(t, "agent-1", specs[0].Name, "%+v", specs)
	require.Equal(t, "a", specs[0].Task, "%+v", specs)
	require.Equal(t, "named", specs[1].Name, "%+v", specs)
	require.Equal(t, "agent-3", specs[2].Name, "%+v", specs)

	// Through the loop the model gets the error text and may retry.
	h := newHarness(t, modelserver.Turns(
		modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "call_1", Name: ToolSpawnAgents, Arguments: `{"agents":[]}`}}},
		modelserver.Turn{Text: "ok"},
	))
	h.start("x")
	h.waitDone()
	require.Equal(t, "invalid input: agents must have 1-4 items (got 0)", lastToolMessage(t, h.server.Requests()[1]).Content, "tool result")
}

func TestSubAgentToolsFollowTheParentProfile(t *testing.T) {
	// A parent without the calculator gives its sub-agents none either.
	h := newHarness(t, func(req modelserver.ChatRequest) modelserver.Turn {
		if isSubAgentRequest(req) {
			return modelserver.Turn{Text: "sub done"}
		}
		if req.LastMessage().Role == "tool" {
			return modelserver.Turn{Text: "done"}
		}
		return modelserver.Turn{ToolCalls: []modelserver.ToolCall{{ID: "c", Name: ToolSpawnAgents, Arguments: `{"agents":[{"task":"t"}]}`}}}
	}, func(o *Options, _ *questions.Config) {
		o.Profile = func(string) Profile {
			return Profile{Name: "p", Tools: []string{ToolSpawnAgents, ToolAskUser, ToolCurrentTime}}
		}
	})
	h.start("x")
	h.waitDone()
	for _, r := range h.server.Requests() {
		names := toolNames(r)
		if isSubAgentRequest(r) {
			require.Equal(t, ToolCurrentTime, strings.Join(names, ","), "sub-agent tools")
		} else {
			require.Equal(t, ToolSpawnAgents+","+ToolAskUser+","+ToolCurrentTime, strings.Join(names, ","), "parent tools")
		}
	}
}
