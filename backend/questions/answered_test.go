package questions

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
)

func TestCreateAnsweredStoresAnAnsweredCardWithoutAsking(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxPending = 1 })
	ctx := context.Background()
	h.create(t, "busy") // the pending cap is reached: nobody else may be asked

	req := AskRequest{ConversationID: "conv", RunID: "run-1", ToolCallID: "call-1", Questions: sampleQuestions()}
	card, err := h.m.CreateAnswered(ctx, req, Answered{By: "memory", IDs: []string{"mem-1"},
		Answers: map[string]AnswerInput{"Which database?": {Selected: []string{"SQLite"}}}})
	require.NoError(t, err, "an answered card asks nobody, so the pending cap does not apply")
	assert.Equal(t, StatusAnswered, card.Status)
	assert.Equal(t, "memory", card.AnsweredBy)
	assert.Equal(t, "mem-1", card.MemoryID)
	assert.Equal(t, map[string]string{"Which database?": "mem-1"}, card.MemoryIDs)
	assert.Equal(t, map[string]string{"Which database?": "SQLite"}, card.Answers)
	require.NotNil(t, card.AnsweredAt)
	assert.Equal(t, KindQuestion, card.Kind)

	stored := h.store.get(card.ID)
	require.NotNil(t, stored, "saved")
	assert.Equal(t, StatusAnswered, stored.Status, "saved as answered at once")
	assert.Equal(t, "mem-1", stored.MemoryID)

	var names []string
	for _, e := range h.rec.Events() {
		if p, ok := e.Payload.(*Card); ok && p.ID == card.ID {
			names = append(names, e.Name)
		}
	}
	assert.Equal(t, []string{events.QuestionResolved}, names, "announced as resolved, never asked")

	out := OutcomeFor(card)
	assert.Equal(t, Outcome{Status: StatusAnswered, Result: `{"answers":{"Which database?":"SQLite"}}`}, out, "the model gets the submit result")
	assert.Empty(t, h.m.Pending("conv"), "nothing pending in the conversation")

	_, err = h.m.Respond(ctx, "conv", submit(card.ID, "Postgres"))
	assert.ErrorIs(t, err, ErrConflict, "an answered card takes no other answer")
}

func TestCreateAnsweredRefusesAnswersThatDoNotFit(t *testing.T) {
	h := newHarness(t, nil)
	req := AskRequest{ConversationID: "conv", Questions: sampleQuestions()}
	_, err := h.m.CreateAnswered(context.Background(), req, Answered{By: "memory",
		Answers: map[string]AnswerInput{"Which database?": {Selected: []string{"Oracle"}}}})
	assert.Equal(t, fault.Validation, fault.KindOf(err), "not an option: %v", err)
	assert.Zero(t, h.store.count(), "nothing stored")
}

func TestApprovalSourceCanBeTheModel(t *testing.T) {
	h := newHarness(t, nil)
	card, err := h.m.CreateApproval(context.Background(), ApprovalRequest{ConversationID: "conv",
		Tool: ApprovalTool{Name: "remember", Arguments: []byte(`{"text":"x"}`)}, Source: &Source{Type: SourceModel, Tool: "remember"}})
	require.NoError(t, err)
	assert.Equal(t, &Source{Type: SourceModel, Tool: "remember"}, card.Source)
}

func TestResolveFindsTheCardARespondNames(t *testing.T) {
	h := newHarness(t, nil)
	c := h.create(t, "conv")
	got, err := h.m.Resolve("conv", LatestID)
	require.NoError(t, err)
	assert.Equal(t, c.ID, got.ID)
	got, err = h.m.Resolve("conv", c.ID)
	require.NoError(t, err)
	assert.Equal(t, c.Questions, got.Questions)
	_, err = h.m.Resolve("other", c.ID)
	assert.ErrorIs(t, err, ErrNotFound, "a card of another conversation")
}

func TestCreateAnsweredForAgentIsTheAgentsCard(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxPending = 1 })
	ctx := context.Background()
	req := AgentAsk{ConversationID: "conv-agent", Agent: "claude-code", ToolCallID: "agent_1", Context: "Deploying",
		Questions: sampleQuestions()}
	card, err := h.m.CreateAnsweredForAgent(ctx, req, Answered{By: "memory", IDs: []string{"mem-1"},
		Answers: map[string]AnswerInput{"Which database?": {Selected: []string{"SQLite"}}}})
	require.NoError(t, err)
	assert.Equal(t, StatusAnswered, card.Status)
	require.NotNil(t, card.Source)
	assert.Equal(t, SourceAgent, card.Source.Type)
	assert.Equal(t, "claude-code", card.Source.Agent)
	assert.Equal(t, "Deploying", card.Context)
	assert.Equal(t, "agent_1", card.ToolCallID)
	assert.Equal(t, "mem-1", card.MemoryID)
	stored := h.store.get(card.ID)
	require.NotNil(t, stored)
	assert.Equal(t, StatusAnswered, stored.Status)

	_, err = h.m.CreateAnsweredForAgent(ctx, AgentAsk{ConversationID: "conv-agent", Agent: "claude-code",
		Tool: &ApprovalTool{Name: "Bash"}}, Answered{By: "memory"})
	assert.Error(t, err, "an approval card is never answered from memory")
}
