package store

import (
	"strings"
	"unicode"
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
