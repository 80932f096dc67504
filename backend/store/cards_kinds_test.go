package store

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/questions"
)

func TestApprovalAndElicitationCardsRoundTrip(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	approval := &questions.Card{
		ID: "22222222-2222-4222-8222-222222222222", ConversationID: c.ID, RunID: "run-1", ToolCallID: "call-1",
		Status: questions.StatusApproved, Questions: []questions.Question{}, CreatedAt: at("2026-02-03T04:05:06Z"),
		AnsweredAt: ptr(at("2026-02-03T04:06:00Z")),
		Kind:       questions.KindApproval,
		Source:     &questions.Source{Type: questions.SourceMCP, Server: "fs", Tool: "write_file"},
		Tool: &questions.ApprovalTool{Server: "fs", Name: "write_file", Description: "Write a file",
			Arguments:   json.RawMessage(`{"path":"/tmp/a","content":"x"}`),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)},
		ApprovedArguments: json.RawMessage(`{"path":"/tmp/b","content":"x"}`),
		Always:            true,
	}
	elicitation := &questions.Card{
		ID: "33333333-3333-4333-8333-333333333333", ConversationID: c.ID, RunID: "run-1", ToolCallID: "call-2",
		Status: questions.StatusCancelled, Questions: []questions.Question{}, CreatedAt: at("2026-02-03T04:07:00Z"),
		Kind:    questions.KindElicitation,
		Source:  &questions.Source{Type: questions.SourceMCP, Server: "everything", Tool: "trigger-elicitation-request"},
		Server:  "everything",
		Message: "Please provide inputs",
		Mode:    questions.ElicitForm,
		Schema:  json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["zeta"]}`),
		Content: json.RawMessage(`{"zeta":"z","alpha":1}`),
		Reason:  questions.ElicitationEndedAtCloseReason,
	}
	for _, in := range []*questions.Card{approval, elicitation} {
		require.NoError(t, s.SaveCard(ctx, in))
		got, err := s.Card(ctx, in.ID)
		require.NoError(t, err)
		assert.Equal(t, in, got)
	}
	// The schema keeps the order of its properties as the server sent it.
	got, err := s.Card(ctx, elicitation.ID)
	require.NoError(t, err)
	assert.Equal(t, string(elicitation.Schema), string(got.Schema))
	cards, err := s.CardsByStatus(ctx, questions.StatusApproved)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	assert.Equal(t, questions.KindApproval, cards[0].Kind)
}
