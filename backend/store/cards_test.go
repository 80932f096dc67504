package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

func fullCard(id, convID string) *questions.Card {
	return &questions.Card{
		ID: id, ConversationID: convID, RunID: "run-1", ToolCallID: "call-7",
		Status: questions.StatusAnsweredLate,
		Questions: []questions.Question{
			{Question: "Which database?", Header: "DB", MultiSelect: false, AllowCustom: true, Placeholder: "Other…",
				Options: []questions.Option{{Label: "Postgres", Description: "server"}, {Label: "SQLite"}}},
			{Question: "Which features?", MultiSelect: true,
				Options: []questions.Option{{Label: "Auth"}, {Label: "Search"}, {Label: "Export"}}},
			{Question: "Anything else?", AllowCustom: true, Options: []questions.Option{}},
		},
		Answers:    map[string]string{"Which database?": "SQLite", "Which features?": "Auth, Search", "Anything else?": "no"},
		Comments:   "thanks <b>",
		CreatedAt:  at("2026-02-03T04:05:06.123456789Z"),
		ExpiresAt:  ptr(at("2026-02-03T04:10:06.123456789Z")),
		AnsweredAt: ptr(at("2026-02-03T04:12:00Z")),
		Kind:       questions.KindQuestion,
		Source:     &questions.Source{Type: questions.SourceModel},
	}
}

func TestCardRoundTripAllFields(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	in := fullCard("11111111-1111-4111-8111-111111111111", c.ID)
	require.NoError(t, s.SaveCard(ctx, in))
	got, err := s.Card(ctx, in.ID)
	require.NoError(t, err)
	assert.Equal(t, in, got, "card round trip")

	// A pending card without a timeout: nil expiry, no answers.
	pending := &questions.Card{ID: "p", ConversationID: c.ID, Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "Open-ended?", AllowCustom: true}}, CreatedAt: at("2026-02-03T05:00:00Z")}
	require.NoError(t, s.SaveCard(ctx, pending))
	got, err = s.Card(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.ExpiresAt, "empty fields did not stay empty: %+v", got)
	assert.Nil(t, got.AnsweredAt, "empty fields did not stay empty: %+v", got)
	assert.Nil(t, got.Answers, "empty fields did not stay empty: %+v", got)
	assert.Empty(t, got.RunID, "empty fields did not stay empty: %+v", got)
	assert.Empty(t, got.Comments, "empty fields did not stay empty: %+v", got)
	assert.Equal(t, pending, got, "pending round trip")
}

func TestSaveCardUpserts(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	card := &questions.Card{ID: "q", ConversationID: c.ID, Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "Which?"}}}
	require.NoError(t, s.SaveCard(ctx, card))
	assert.False(t, card.CreatedAt.IsZero(), "CreatedAt not filled")
	card.Status, card.Answers, card.AnsweredAt = questions.StatusAnswered, map[string]string{"Which?": "that"}, ptr(now())
	require.NoError(t, s.SaveCard(ctx, card))
	got, _ := s.Card(ctx, "q")
	assert.Equal(t, card, got, "after update")
	assert.Equal(t, 1, count(t, s, "SELECT count(*) FROM cards"), "rows after an update")

	other := mustConversation(t, s, "other")
	moved := *card
	moved.ConversationID = other.ID
	assert.Error(t, s.SaveCard(ctx, &moved), "card moved to another conversation")
	wantNotFound(t, s.SaveCard(ctx, &questions.Card{ID: "x", ConversationID: "missing", Status: questions.StatusPending}))
	_, err := s.Card(ctx, "missing")
	wantNotFound(t, err)
	assert.Error(t, s.SaveCard(ctx, &questions.Card{ConversationID: c.ID, Status: questions.StatusPending}), "card without id accepted")
}

func TestCardsByConversationAndStatus(t *testing.T) {
	s := newStore(t)
	a := mustConversation(t, s, "a")
	b := mustConversation(t, s, "b")
	save := func(id, conv string, st questions.Status, created string) {
		t.Helper()
		require.NoError(t, s.SaveCard(ctx, &questions.Card{ID: id, ConversationID: conv, Status: st,
			Questions: []questions.Question{{Question: id}}, CreatedAt: at(created)}))
	}
	// Saved out of order: lists go by created_at.
	save("a3", a.ID, questions.StatusPending, "2026-01-01T03:00:00Z")
	save("a1", a.ID, questions.StatusAnswered, "2026-01-01T01:00:00Z")
	save("b2", b.ID, questions.StatusTimedOut, "2026-01-01T02:00:00Z")
	save("a2", a.ID, questions.StatusTimedOut, "2026-01-01T02:30:00Z")
	save("b1", b.ID, questions.StatusDeclined, "2026-01-01T00:30:00Z")

	ids := func(cards []*questions.Card, err error) []string {
		t.Helper()
		require.NoError(t, err)
		out := []string{}
		for _, c := range cards {
			out = append(out, c.ID)
		}
		return out
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		assert.Equal(t, append([]string{}, want...), got, name)
	}
	check("by conversation a", ids(s.CardsByConversation(ctx, a.ID)), "a1", "a2", "a3")
	check("by conversation b", ids(s.CardsByConversation(ctx, b.ID)), "b1", "b2")
	check("none", ids(s.CardsByConversation(ctx, "missing")))
	check("pending+timed_out", ids(s.CardsByStatus(ctx, questions.StatusPending, questions.StatusTimedOut)), "b2", "a2", "a3")
	check("declined", ids(s.CardsByStatus(ctx, questions.StatusDeclined)), "b1")
	check("all", ids(s.CardsByStatus(ctx)), "b1", "a1", "b2", "a2", "a3")
	check("superseded", ids(s.CardsByStatus(ctx, questions.StatusSuperseded)))
}

// The store satisfies what the QuestionManager and assistant loop expect.
func TestStoreImplementsInterfaces(t *testing.T) {
	var s any = newStore(t)
	assert.Implements(t, (*chat.History)(nil), s, "not a chat.History")
	assert.Implements(t, (*questions.Store)(nil), s, "not a questions.Store")
}
