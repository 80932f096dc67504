package store

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

func TestMatchExpression(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres", `"postgres"*`},
		{"  Hello,   world! ", `"Hello"* "world"*`},
		{`"foo" OR bar* NEAR(x)`, `"foo"* "OR"* "bar"* "NEAR"* "x"*`},
		{"don't", `"don"* "t"*`},
		{"café crème", `"café"* "crème"*`},
		{"!!! ???", ""},
		{"", ""},
	} {
		assert.Equal(t, tt.want, matchExpression(tt.in), "matchExpression(%q)", tt.in)
	}
}

func TestSearchTitlesAndMessages(t *testing.T) {
	s := newStore(t)
	pg := mustConversation(t, s, "Postgres migration plan")
	trip := mustConversation(t, s, "Weekend trip")
	mustAppend(t, s, trip.ID, chat.RoleUser, "Find a café near the Kubernetes conference")
	mustAppend(t, s, trip.ID, chat.RoleAssistant, "Try the one on Rue Saint-Denis.")
	mustAppend(t, s, trip.ID, chat.RoleTool, "secretToolPayload")
	other := mustConversation(t, s, "Unrelated")
	mustAppend(t, s, other.ID, chat.RoleUser, "nothing to see")

	search := func(q string) []string {
		t.Helper()
		page, _, err := s.ListConversations(ctx, ListOptions{Query: q})
		require.NoError(t, err, "search %q", q)
		var titles []string
		for _, c := range page {
			titles = append(titles, c.Title)
		}
		return titles
	}
	for q, want := range map[string][]string{
		"postgres":           {pg.Title},
		"POSTG":              {pg.Title},   // prefix, any case
		"migration postgres": {pg.Title},   // every word, any order
		"postgres weekend":   nil,          // words from different conversations
		"kubernetes":         {trip.Title}, // user message
		"saint denis":        {trip.Title}, // assistant message
		"cafe":               {trip.Title}, // accents ignored
		"CAFÉ":               {trip.Title},
		"secretToolPayload":  nil,          // tool output is not indexed
		"trip":               {trip.Title}, // title
		`"weekend" OR plan*`: nil,          // operators are plain words
		"?!":                 nil,          // no words
		"zzzz":               nil,
	} {
		assert.Equal(t, want, search(q), "search %q", q)
	}

	require.NoError(t, s.RenameConversation(ctx, pg.ID, "Database upgrade"))
	assert.Nil(t, search("postgres"), "old title still found")
	assert.Equal(t, []string{"Database upgrade"}, search("upgrade"), "new title not found")
}

func TestSearchPagesAndKeepsListOrder(t *testing.T) {
	s := newStore(t)
	var want []string
	for i := range 25 {
		c := mustConversation(t, s, fmt.Sprintf("chat %02d", i))
		if i%2 == 0 {
			mustAppend(t, s, c.ID, chat.RoleUser, fmt.Sprintf("needle %d", i))
			want = append([]string{c.ID}, want...) // appended later = newer = first
		} else {
			mustAppend(t, s, c.ID, chat.RoleUser, "haystack")
		}
	}
	var got []string
	pages, _ := pageThrough(t, s, ListOptions{Query: "needle", Limit: 4}, len(want))
	for _, c := range pages {
		got = append(got, c.ID)
	}
	assert.Equal(t, want, got, "search pages")
}
