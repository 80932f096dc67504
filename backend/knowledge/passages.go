package knowledge

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/store"
)

// Passage sizes, in characters: a passage holds whole paragraphs of one
// section (or page) up to maxPassageChars; a longer paragraph is cut at
// line or sentence ends. About 200-300 tokens: enough context to answer
// from, small enough that several fit in a prompt.
const (
	maxPassageChars = 1200
	minPassageChars = 200 // a shorter passage takes the next paragraph of its section too
)

// HeadingSeparator joins a heading path: "Setup › Linux".
const HeadingSeparator = " › "

// block is a piece of a document as its reader found it: a paragraph, a list
// item, a table row, a page's text...
type block struct {
	headings []string // the heading path it is under (nil when none)
	page     int      // PDF page, from 1 (0 when not paged)
	line     int      // first source line, from 1 (0 when unknown)
	endLine  int      // last source line
	para     int      // paragraph number, from 1, where lines mean nothing (DOCX)
	text     string
	// prefix is repeated at the start of every passage cut from this
	// file's blocks (a CSV file's header row).
	prefix string
}

// section names where a block is, for grouping: blocks of one section (and
// page) share passages; another section starts a new one.
func (b block) section() string {
	return fmt.Sprintf("%d\x00%s", b.page, strings.Join(b.headings, "\x00"))
}

// passagesOf groups blocks into passages with locators a person can follow:
// "p. 3" for PDF pages, the heading path ("Setup › Linux") under headings,
// else "lines 10–42" (or "paragraphs 3–5" where lines mean nothing).
func passagesOf(blocks []block) []store.Passage {
	var out []store.Passage
	var cur []block
	size := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		parts := make([]string, 0, len(cur)+1)
		if cur[0].prefix != "" {
			parts = append(parts, cur[0].prefix)
		}
		for _, b := range cur {
			parts = append(parts, b.text)
		}
		sep := "\n\n"
		if cur[0].prefix != "" {
			sep = "\n" // table rows
		}
		out = append(out, store.Passage{Locator: locatorOf(cur), Text: strings.Join(parts, sep)})
		cur, size = nil, 0
	}
	for _, b := range blocks {
		b.text = strings.TrimSpace(b.text)
		if b.text == "" {
			continue
		}
		for _, piece := range cutLong(b) {
			n := utf8.RuneCountInString(piece.text)
			if len(cur) > 0 && (cur[0].section() != piece.section() || size >= minPassageChars && size+n > maxPassageChars) {
				flush()
			}
			cur = append(cur, piece)
			size += n + 2
		}
	}
	flush()
	return out
}

func locatorOf(bs []block) string {
	first, last := bs[0], bs[len(bs)-1]
	switch {
	case first.page > 0:
		return fmt.Sprintf("p. %d", first.page)
	case len(first.headings) > 0:
		return strings.Join(first.headings, HeadingSeparator)
	case first.line > 0:
		end := max(last.endLine, last.line)
		if end == first.line {
			return fmt.Sprintf("line %d", first.line)
		}
		return fmt.Sprintf("lines %d–%d", first.line, end)
	case first.para > 0:
		if last.para == first.para {
			return fmt.Sprintf("paragraph %d", first.para)
		}
		return fmt.Sprintf("paragraphs %d–%d", first.para, last.para)
	}
	return "start"
}

// cutLong splits a block longer than a passage: at line ends where it has
// lines (keeping their numbers), else at sentence ends, else at spaces.
func cutLong(b block) []block {
	if utf8.RuneCountInString(b.text) <= maxPassageChars {
		return []block{b}
	}
	var out []block
	lines := strings.Split(b.text, "\n")
	if len(lines) > 1 {
		var cur []string
		size, start := 0, b.line
		for i, ln := range lines {
			n := utf8.RuneCountInString(ln) + 1
			if len(cur) > 0 && size+n > maxPassageChars {
				out = append(out, lineBlock(b, strings.Join(cur, "\n"), start, i))
				cur, size, start = nil, 0, lineAt(b, i)
			}
			cur = append(cur, ln)
			size += n
		}
		out = append(out, lineBlock(b, strings.Join(cur, "\n"), start, len(lines)))
		// A single line may still be too long.
		var fine []block
		for _, o := range out {
			if utf8.RuneCountInString(o.text) > maxPassageChars {
				fine = append(fine, cutWords(o)...)
			} else {
				fine = append(fine, o)
			}
		}
		return fine
	}
	return cutWords(b)
}

func lineAt(b block, i int) int {
	if b.line == 0 {
		return 0
	}
	return b.line + i
}

// lineBlock is the part of b holding its lines from index start (0-based,
// given as a line number) up to index end (exclusive).
func lineBlock(b block, text string, startLine, endIdx int) block {
	o := b
	o.text = text
	o.line = startLine
	if b.line > 0 {
		o.endLine = b.line + endIdx - 1
	}
	return o
}

// cutWords cuts a one-line block at sentence ends (else spaces, else anywhere).
func cutWords(b block) []block {
	var out []block
	rest := []rune(b.text)
	for len(rest) > maxPassageChars {
		cut := maxPassageChars
		found := false
		for i := maxPassageChars - 1; i > maxPassageChars/2; i-- {
			if (rest[i] == '.' || rest[i] == '!' || rest[i] == '?') && i+1 < len(rest) && unicode.IsSpace(rest[i+1]) {
				cut, found = i+1, true
				break
			}
		}
		if !found {
			for i := maxPassageChars - 1; i > maxPassageChars/2; i-- {
				if unicode.IsSpace(rest[i]) {
					cut = i
					break
				}
			}
		}
		o := b
		o.text = strings.TrimSpace(string(rest[:cut]))
		out = append(out, o)
		rest = rest[cut:]
	}
	o := b
	o.text = strings.TrimSpace(string(rest))
	return append(out, o)
}

// textBlocks splits plain text into paragraphs (runs of lines between blank
// lines) with their line numbers.
func textBlocks(text string) []block {
	var out []block
	var cur []string
	start, end := 0, 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, block{line: start, endLine: end, text: strings.Join(cur, "\n")})
			cur = nil
		}
	}
	for i, ln := range splitLines(text) {
		if strings.TrimSpace(ln) == "" {
			flush()
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, ln)
		end = i + 1
	}
	flush()
	return out
}

// splitLines splits text at \n, \r\n and \r.
func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(text, "\n")
}
