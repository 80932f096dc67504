package service

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExportFileName(t *testing.T) {
	long := ""
	for range 120 {
		long += "é"
	}
	cases := []struct{ title, format, want string }{
		{"Paint my bedroom", "markdown", "Paint my bedroom.md"},
		{"Paint my bedroom", "json", "Paint my bedroom.json"},
		{`a/b\c:d*e?f"g<h>i|j`, "markdown", "a b c d e f g h i j.md"},
		{"  ..hidden..  ", "json", "hidden.json"},
		{"tab\there\nnewline", "markdown", "tab here newline.md"},
		{"", "markdown", "conversation.md"},
		{"///", "json", "conversation.json"},
		{long, "markdown", long[:200] + ".md"}, // 100 runes of 2 bytes
	}
	for _, c := range cases {
		got := exportFileName(c.title, c.format)
		assert.Equal(t, c.want, got, "exportFileName(%q, %q) = %q, want %q", c.title, c.format, got, c.want)
	}
}
