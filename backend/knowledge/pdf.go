package knowledge

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// errNoText: a PDF without a text layer (a scan) has nothing to index.
var errNoText error = fault.New(fault.Internal, i18n.M("knowledge.pdfNoText"))

// pdfBlocks reads the text layer of each page (github.com/ledongthuc/pdf,
// pure Go): the glyphs placed on the page are put back into lines, top to
// bottom, with a space where the gap between two glyphs says so.
func pdfBlocks(data []byte) (blocks []block, err error) {
	defer func() {
		// The reader panics on some malformed files.
		if r := recover(); r != nil {
			blocks, err = nil, fileErr("knowledge.pdfUnreadable", fmt.Errorf("%v", r))
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fileErr("knowledge.pdfUnreadable", err)
	}
	pages := r.NumPage()
	if pages == 0 {
		return nil, fileErr("knowledge.pdfUnreadable", errors.New("no pages"))
	}
	for i := 1; i <= pages; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		text := pageText(p.Content().Text)
		if strings.TrimSpace(text) != "" {
			blocks = append(blocks, block{page: i, text: text})
		}
	}
	if len(blocks) == 0 {
		return nil, errNoText
	}
	return blocks, nil
}

// pageText puts a page's glyphs back into lines of text.
func pageText(glyphs []pdf.Text) string {
	type line struct {
		y      float64
		size   float64
		glyphs []pdf.Text
	}
	var lines []*line
	for _, g := range glyphs {
		if g.S == "" {
			continue
		}
		tol := math.Max(g.FontSize*0.5, 1)
		var at *line
		for _, l := range lines {
			if math.Abs(l.y-g.Y) <= tol {
				at = l
				break
			}
		}
		if at == nil {
			at = &line{y: g.Y, size: g.FontSize}
			lines = append(lines, at)
		}
		at.glyphs = append(at.glyphs, g)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].y > lines[j].y })
	var b strings.Builder
	for _, l := range lines {
		sort.SliceStable(l.glyphs, func(i, j int) bool { return l.glyphs[i].X < l.glyphs[j].X })
		end := math.Inf(-1)
		for _, g := range l.glyphs {
			if !math.IsInf(end, -1) && g.X-end > math.Max(g.FontSize, 1)*0.15 && !strings.HasPrefix(g.S, " ") {
				b.WriteByte(' ')
			}
			b.WriteString(g.S)
			end = g.X + g.W
		}
		b.WriteByte('\n')
	}
	return b.String()
}
