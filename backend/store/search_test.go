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

// A batch of messages, or a file's passages, goes into the search index as
// one segment per transaction (migrations/0014): written by a trigger,
// every row became a segment of its own (FTS5 flushes its pending terms at
// each statement's savepoint, which a trigger opens), several times the
// cost of the insert itself.
func TestABatchIsIndexedAsOneSegmentNotOnePerRow(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "batch")
	// The FTS5 index's records (%_data): its segments' pages and structure.
	segments := func(table string) int { return count(t, s, "SELECT count(*) FROM "+table+"_data") }

	before := segments("message_search")
	batch := make([]*chat.Message, 50)
	for i := range batch {
		batch[i] = &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: fmt.Sprintf("reply number %d about walruses", i)}
	}
	var changesBefore, changesAfter int
	require.NoError(t, s.writer.QueryRow(`SELECT total_changes()`).Scan(&changesBefore))
	require.NoError(t, s.AppendMessages(ctx, batch))
	require.NoError(t, s.writer.QueryRow(`SELECT total_changes()`).Scan(&changesAfter))
	// Per message: its row, its index entry and its length (docsize),
	// and a few records at the commit; a flush per row wrote 9 rows each.
	assert.Less(t, changesAfter-changesBefore, 4*len(batch), "rows written (total_changes) for 50 messages in one transaction")
	assert.LessOrEqual(t, segments("message_search")-before, 2, "index records written for 50 messages in one transaction")

	page, _, err := s.ListConversations(ctx, ListOptions{Query: "walruses"})
	require.NoError(t, err)
	require.Len(t, page, 1, "the batch is searchable")
	assert.Equal(t, 50, count(t, s, `SELECT count(*) FROM message_search WHERE message_search MATCH 'walruses'`),
		"every message of the batch is found")
	_, err = s.writer.Exec(`INSERT INTO message_search (message_search) VALUES ('integrity-check')`)
	assert.NoError(t, err, "index integrity")

	// A file's passages, likewise.
	coll, err := s.CreateCollection(ctx, "Docs", []string{"/docs"})
	require.NoError(t, err)
	passages := make([]Passage, 50)
	for i := range passages {
		passages[i] = Passage{Locator: fmt.Sprintf("lines %d", i), Text: fmt.Sprintf("Passage %d about narwhals.", i)}
	}
	before = segments("knowledge_search")
	require.NoError(t, s.writer.QueryRow(`SELECT total_changes()`).Scan(&changesBefore))
	require.NoError(t, s.SaveIndexedFiles(ctx, coll.ID, []IndexedFile{{Path: "/docs/a.md", Size: 1, MtimeNs: 1, Hash: "h", Passages: passages}}))
	require.NoError(t, s.writer.QueryRow(`SELECT total_changes()`).Scan(&changesAfter))
	assert.Less(t, changesAfter-changesBefore, 4*len(passages), "rows written (total_changes) for a file of 50 passages")
	assert.LessOrEqual(t, segments("knowledge_search")-before, 2, "index records written for a file of 50 passages")
	seqs, err := s.KeywordSearch(ctx, []string{coll.ID}, `"narwhal"`, 100)
	require.NoError(t, err)
	assert.Len(t, seqs, 50, "every passage is found")
	_, err = s.writer.Exec(`INSERT INTO knowledge_search (knowledge_search) VALUES ('integrity-check')`)
	assert.NoError(t, err, "passage index integrity")
}
