package store

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestAutoTitle(t *testing.T) {
	long := "Please help me plan a three week trip through Japan with kids in the spring"
	for _, tt := range []struct{ name, in, want string }{
		{"short", "Plan a trip", "Plan a trip"},
		{"trimmed", "   Plan a trip  \n", "Plan a trip"},
		{"first line", "Plan a trip\nwith details\nand more", "Plan a trip"},
		{"first non-blank line", "\n\n  \nPlan a trip\nsecond", "Plan a trip"},
		{"whitespace collapsed", "Plan \t a   trip", "Plan a trip"},
		{"exactly 60", strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{"word boundary", long, "Please help me plan a three week trip through Japan with…"},
		{"boundary right at the cut", strings.Repeat("abcd ", 11) + "tail words", "abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd abcd tail…"},
		{"punctuation before cut", "Compare these options, carefully: postgres, mysql, sqlite, duckdb, and more", "Compare these options, carefully: postgres, mysql, sqlite…"},
		{"one long word", strings.Repeat("x", 100), strings.Repeat("x", 59) + "…"},
		{"multibyte", strings.Repeat("日本語 ", 30), strings.TrimSpace(strings.Repeat("日本語 ", 14)) + " 日本語…"},
		{"empty", "", DefaultTitle},
		{"blank", " \n\t\n ", DefaultTitle},
	} {
		got := AutoTitle(tt.in)
		assert.Equal(t, tt.want, got, "%s: AutoTitle(%q)", tt.name, tt.in)
		assert.LessOrEqual(t, utf8.RuneCountInString(got), AutoTitleMaxRunes, "%s: rune count", tt.name)
	}
}
