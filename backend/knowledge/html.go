package knowledge

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlBlocks reads an HTML page's text (golang.org/x/net/html, the
// HTML5 parsing algorithm) as paragraphs under the heading path of its
// h1–h6; scripts, styles and other non-content elements are left out.
func htmlBlocks(data []byte) ([]block, error) {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	w := htmlWalker{}
	w.walk(doc)
	w.flush()
	return w.out, nil
}

type htmlWalker struct {
	out      []block
	text     strings.Builder
	headings headingPath
	para     int
}

// htmlSkipped elements hold no readable text.
var htmlSkipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Head: true,
}

// htmlBreaks end a paragraph before and after them.
var htmlBreaks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Li: true, atom.Tr: true, atom.Pre: true, atom.Blockquote: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Table: true,
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Figure: true,
	atom.Figcaption: true, atom.Main: true, atom.Aside: true, atom.Nav: true, atom.Form: true, atom.Hr: true,
}

var htmlHeadingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

func (w *htmlWalker) flush() {
	t := strings.TrimSpace(w.text.String())
	w.text.Reset()
	if t == "" {
		return
	}
	w.para++
	w.out = append(w.out, block{headings: w.headings.path(), para: w.para, text: t})
}

func (w *htmlWalker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text.WriteString(collapseSpace(n.Data))
		return
	case html.ElementNode:
		if htmlSkipped[n.DataAtom] {
			return
		}
		if level, ok := htmlHeadingLevel[n.DataAtom]; ok {
			w.flush()
			var t strings.Builder
			collectText(n, &t)
			w.headings.set(level, strings.TrimSpace(collapseSpace(t.String())))
			return
		}
		switch {
		case n.DataAtom == atom.Br:
			w.text.WriteString("\n")
			return
		case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
			w.text.WriteString(" ")
		case n.DataAtom == atom.Pre:
			w.flush()
			var t strings.Builder
			collectText(n, &t)
			w.text.WriteString(t.String())
			w.flush()
			return
		case htmlBreaks[n.DataAtom]:
			w.flush()
			defer w.flush()
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// collectText appends the raw text under n (for headings and <pre>).
func collectText(n *html.Node, b *strings.Builder) {
	if n.Type == html.TextNode {
		b.WriteString(n.Data)
		return
	}
	if n.Type == html.ElementNode && htmlSkipped[n.DataAtom] {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		collectText(c, b)
	}
}

// collapseSpace turns runs of white space into one space, as a browser
// shows them.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
