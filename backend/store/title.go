package store

import (
	"strings"
	"unicode"
)

// AutoTitleMaxRunes bounds AutoTitle's result, ellipsis included.
const AutoTitleMaxRunes = 60

// DefaultTitle is AutoTitle's answer for text without words.
const DefaultTitle = "New chat"

// AutoTitle makes a conversation title from the first user message: its
// first non-blank line, trimmed, whitespace collapsed, and when longer than
// AutoTitleMaxRunes cut at a word boundary with an ellipsis.
func AutoTitle(firstUserText string) string {
	var line string
	for l := range strings.Lines(firstUserText) {
		if line = strings.Join(strings.Fields(l), " "); line != "" {
			break
		}
	}
	if line == "" {
		return DefaultTitle
	}
	runes := []rune(line)
	if len(runes) <= AutoTitleMaxRunes {
		return line
	}
	keep := AutoTitleMaxRunes - 1 // room for "…"
	head := runes[:keep]
	if runes[keep] != ' ' { // the cut falls inside a word: back up to its start
		if i := lastIndexRune(head, ' '); i > 0 {
			head = head[:i]
		}
	}
	// "word, …" or "word …" reads worse than "word…".
	trimmed := strings.TrimRightFunc(string(head), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:.-–—", r)
	})
	if trimmed == "" {
		trimmed = string(runes[:keep])
	}
	return trimmed + "…"
}

func lastIndexRune(rs []rune, r rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == r {
			return i
		}
	}
	return -1
}
