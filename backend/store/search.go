package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/parley-app/parley/backend/chat"
)

// maxSearchWords bounds the FTS5 expression a query becomes.
const maxSearchWords = 16

// matchExpression turns what the user typed into an FTS5 MATCH expression:
// every word must appear, as a word prefix ("pars" finds "parsing"). Words
// are quoted, so FTS5 operators and punctuation in the query are inert.
// It returns "" when the query has no words.
func matchExpression(query string) string {
	words := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	if len(words) > maxSearchWords {
		words = words[:maxSearchWords]
	}
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = `"` + w + `"*` // words hold no quotes: they split on them
	}
	return strings.Join(terms, " ")
}

// snippetTokens is about how many words a search snippet shows.
const snippetTokens = 12

// fillMatches says for each conversation of a search result where the words
// were found: the newest matching user or assistant message on any branch,
// else the title, each with a snippet marking the match.
func (s *Store) fillMatches(ctx context.Context, page []chat.Conversation, match string) error {
	if len(page) == 0 {
		return nil
	}
	ids := make([]any, 0, len(page)+1)
	ids = append(ids, match)
	at := map[string]int{}
	for i, c := range page {
		ids = append(ids, c.ID)
		at[c.ID] = i
	}
	in := "(?" + strings.Repeat(", ?", len(page)-1) + ")"
	rows, err := s.readers.QueryContext(ctx,
		`SELECT m.conversation_id, m.id, snippet(message_search, 0, ?, ?, '…', ?)
		 FROM message_search JOIN messages m ON m.seq = message_search.rowid
		 WHERE message_search MATCH ? AND m.conversation_id IN `+in+`
		 ORDER BY m.seq DESC`,
		append([]any{chat.SnippetOpen, chat.SnippetClose, snippetTokens}, ids...)...)
	if err != nil {
		return fmt.Errorf("find matching messages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var convID, msgID, snip string
		if err := rows.Scan(&convID, &msgID, &snip); err != nil {
			return fmt.Errorf("find matching messages: %w", err)
		}
		if c := &page[at[convID]]; c.Match == nil {
			c.Match = &chat.SearchMatch{MessageID: msgID, Snippet: snip}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find matching messages: %w", err)
	}
	rows.Close()
	for i := range page {
		if page[i].Match != nil {
			continue
		}
		var snip string
		err := s.readers.QueryRowContext(ctx,
			`SELECT snippet(conversation_search, 0, ?, ?, '…', ?) FROM conversation_search
			 WHERE conversation_search MATCH ? AND rowid = (SELECT seq FROM conversations WHERE id = ?)`,
			chat.SnippetOpen, chat.SnippetClose, snippetTokens, match, page[i].ID).Scan(&snip)
		if err != nil {
			return fmt.Errorf("find matching title of %s: %w", page[i].ID, err)
		}
		page[i].Match = &chat.SearchMatch{Snippet: snip}
	}
	return nil
}
