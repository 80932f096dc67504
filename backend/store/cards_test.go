package store

import (
	"reflect"
	"testing"

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
	}
}

func TestCardRoundTripAllFields(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	in := fullCard("11111111-1111-4111-8111-111111111111", c.ID)
	if err := s.SaveCard(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Card(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("card round trip:\n got %+v\nwant %+v", got, in)
	}

	// A pending card without a timeout: nil expiry, no answers.
	pending := &questions.Card{ID: "p", ConversationID: c.ID, Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "Open-ended?", AllowCustom: true}}, CreatedAt: at("2026-02-03T05:00:00Z")}
	if err := s.SaveCard(ctx, pending); err != nil {
		t.Fatal(err)
	}
	got, err = s.Card(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got.ExpiresAt != nil || got.AnsweredAt != nil || got.Answers != nil || got.RunID != "" || got.Comments != "" {
		t.Errorf("empty fields did not stay empty: %+v", got)
	}
	if !reflect.DeepEqual(got, pending) {
		t.Errorf("pending round trip:\n got %+v\nwant %+v", got, pending)
	}
}

func TestSaveCardUpserts(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "t")
	card := &questions.Card{ID: "q", ConversationID: c.ID, Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "Which?"}}}
	if err := s.SaveCard(ctx, card); err != nil {
		t.Fatal(err)
	}
	if card.CreatedAt.IsZero() {
		t.Error("CreatedAt not filled")
	}
	card.Status, card.Answers, card.AnsweredAt = questions.StatusAnswered, map[string]string{"Which?": "that"}, ptr(now())
	if err := s.SaveCard(ctx, card); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Card(ctx, "q")
	if !reflect.DeepEqual(got, card) {
		t.Errorf("after update:\n got %+v\nwant %+v", got, card)
	}
	if n := count(t, s, "SELECT count(*) FROM cards"); n != 1 {
		t.Errorf("%d rows after an update", n)
	}

	other := mustConversation(t, s, "other")
	moved := *card
	moved.ConversationID = other.ID
	if err := s.SaveCard(ctx, &moved); err == nil {
		t.Error("card moved to another conversation")
	}
	wantNotFound(t, s.SaveCard(ctx, &questions.Card{ID: "x", ConversationID: "missing", Status: questions.StatusPending}))
	_, err := s.Card(ctx, "missing")
	wantNotFound(t, err)
	if err := s.SaveCard(ctx, &questions.Card{ConversationID: c.ID, Status: questions.StatusPending}); err == nil {
		t.Error("card without id accepted")
	}
}

func TestCardsByConversationAndStatus(t *testing.T) {
	s := newStore(t)
	a := mustConversation(t, s, "a")
	b := mustConversation(t, s, "b")
	save := func(id, conv string, st questions.Status, created string) {
		t.Helper()
		if err := s.SaveCard(ctx, &questions.Card{ID: id, ConversationID: conv, Status: st,
			Questions: []questions.Question{{Question: id}}, CreatedAt: at(created)}); err != nil {
			t.Fatal(err)
		}
	}
	// Saved out of order: lists go by created_at.
	save("a3", a.ID, questions.StatusPending, "2026-01-01T03:00:00Z")
	save("a1", a.ID, questions.StatusAnswered, "2026-01-01T01:00:00Z")
	save("b2", b.ID, questions.StatusTimedOut, "2026-01-01T02:00:00Z")
	save("a2", a.ID, questions.StatusTimedOut, "2026-01-01T02:30:00Z")
	save("b1", b.ID, questions.StatusDeclined, "2026-01-01T00:30:00Z")

	ids := func(cards []*questions.Card, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, c := range cards {
			out = append(out, c.ID)
		}
		return out
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if !reflect.DeepEqual(got, append([]string{}, want...)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("by conversation a", ids(s.CardsByConversation(ctx, a.ID)), "a1", "a2", "a3")
	check("by conversation b", ids(s.CardsByConversation(ctx, b.ID)), "b1", "b2")
	check("none", ids(s.CardsByConversation(ctx, "missing")))
	check("pending+timed_out", ids(s.CardsByStatus(ctx, questions.StatusPending, questions.StatusTimedOut)), "b2", "a2", "a3")
	check("declined", ids(s.CardsByStatus(ctx, questions.StatusDeclined)), "b1")
	check("all", ids(s.CardsByStatus(ctx)), "b1", "a1", "b2", "a2", "a3")
	check("superseded", ids(s.CardsByStatus(ctx, questions.StatusSuperseded)))
}

// The store satisfies what the QuestionManager and agent loop expect.
func TestStoreImplementsInterfaces(t *testing.T) {
	var s any = newStore(t)
	if _, ok := s.(chat.History); !ok {
		t.Error("not a chat.History")
	}
	if _, ok := s.(questions.Store); !ok {
		t.Error("not a questions.Store")
	}
}
