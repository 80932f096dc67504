package knowledge

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Markdown and reStructuredText are read line by line: only their structure
// matters here (headings, paragraphs, code blocks), not how they render.

var (
	atxHeading     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxClosing     = regexp.MustCompile(`[ \t]+#+$`)
	setextUnder    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	markdownFence  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	markdownInline = strings.NewReplacer("**", "", "__", "", "`", "")
)

// rstAdornment is a line of one punctuation character repeated (3 or more).
type rstAdornmentLine struct{}

var rstAdornment rstAdornmentLine

func (rstAdornmentLine) MatchString(line string) bool {
	line = strings.TrimRight(line, " \t")
	if len(line) < 3 {
		return false
	}
	c := line[0]
	if !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(c)) {
		return false
	}
	return strings.Count(line, string(c)) == len(line)
}

// headingPath keeps the headings above the current line, by level.
type headingPath []string

func (h *headingPath) set(level int, title string) {
	if level < 1 {
		level = 1
	}
	for len(*h) < level-1 {
		*h = append(*h, "")
	}
	*h = append((*h)[:level-1], title)
}

// path is the non-empty headings, outermost first.
func (h headingPath) path() []string {
	var out []string
	for _, t := range h {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// paragraphs collects a document's paragraphs under their headings.
type paragraphs struct {
	out      []block
	cur      []string
	start    int
	end      int
	headings headingPath
}

func (p *paragraphs) add(lineNo int, line string) {
	if len(p.cur) == 0 {
		p.start = lineNo
	}
	p.cur = append(p.cur, line)
	p.end = lineNo
}

func (p *paragraphs) flush() {
	if len(p.cur) > 0 {
		p.out = append(p.out, block{headings: p.headings.path(), line: p.start, endLine: p.end, text: strings.Join(p.cur, "\n")})
		p.cur = nil
	}
}

// heading closes the paragraph before it and starts a section.
func (p *paragraphs) heading(level int, title string) {
	p.flush()
	p.headings.set(level, strings.TrimSpace(markdownInline.Replace(title)))
}

// markdownBlocks splits Markdown into paragraphs and code blocks under
// their heading path (ATX "## Title" and setext headings; nothing inside
// fenced code counts as a heading).
func markdownBlocks(text string) []block {
	var p paragraphs
	fence := ""
	for i, ln := range splitLines(text) {
		n := i + 1
		if fence != "" {
			p.add(n, ln)
			if strings.HasPrefix(strings.TrimLeft(ln, " "), fence) {
				fence = ""
			}
			continue
		}
		if m := markdownFence.FindStringSubmatch(ln); m != nil {
			fence = m[1][:3]
			p.add(n, ln)
			continue
		}
		if m := atxHeading.FindStringSubmatch(ln); m != nil {
			p.heading(len(m[1]), atxClosing.ReplaceAllString(m[2], ""))
			continue
		}
		if m := setextUnder.FindStringSubmatch(ln); m != nil && len(p.cur) == 1 {
			title := p.cur[0]
			p.cur = nil
			level := 1
			if m[1][0] == '-' {
				level = 2
			}
			p.heading(level, title)
			continue
		}
		if strings.TrimSpace(ln) == "" {
			p.flush()
			continue
		}
		p.add(n, ln)
	}
	p.flush()
	return p.out
}

// rstBlocks splits reStructuredText into paragraphs under their heading
// path. A title is a line underlined (and maybe overlined) with one
// punctuation character at least as long as it; levels follow the order in
// which the adornment styles first appear, as docutils decides them.
func rstBlocks(text string) []block {
	var p paragraphs
	lines := splitLines(text)
	styles := []string{}
	levelOf := func(style string) int {
		for i, s := range styles {
			if s == style {
				return i + 1
			}
		}
		styles = append(styles, style)
		return len(styles)
	}
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		n := i + 1
		// Overline + title + underline.
		if rstAdornment.MatchString(ln) && i+2 < len(lines) && strings.TrimSpace(lines[i+1]) != "" &&
			strings.TrimRight(lines[i+2], " \t") == strings.TrimRight(ln, " \t") && len(p.cur) == 0 {
			p.heading(levelOf("over"+ln[:1]), strings.TrimSpace(lines[i+1]))
			i += 2
			continue
		}
		// Title + underline.
		if strings.TrimSpace(ln) != "" && len(p.cur) == 0 && i+1 < len(lines) && rstAdornment.MatchString(lines[i+1]) &&
			utf8.RuneCountInString(strings.TrimRight(lines[i+1], " \t")) >= utf8.RuneCountInString(strings.TrimSpace(ln)) &&
			!rstAdornment.MatchString(ln) {
			p.heading(levelOf(lines[i+1][:1]), strings.TrimSpace(ln))
			i++
			continue
		}
		if strings.TrimSpace(ln) == "" {
			p.flush()
			continue
		}
		p.add(n, ln)
	}
	p.flush()
	return p.out
}
