package knowledge

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// DOCX is a zip of XML parts (ECMA-376, WordprocessingML); the text is in
// word/document.xml: paragraphs <w:p> of runs <w:r> holding <w:t> text,
// <w:tab/> and <w:br/>. A paragraph is a heading when its style
// (<w:pStyle w:val>) is "Title" or "Heading<N>" (also "heading <N>") or it
// has an outline level (<w:outlineLvl w:val="N-1">). No maintained pure-Go
// library reads DOCX for free (unioffice is paid), and reading the text
// needs only these few elements of the standard library's zip and XML
// readers.

// wordML is the WordprocessingML main namespace.
const wordML = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

var docxHeadingStyle = regexp.MustCompile(`(?i)^heading\s?([1-9])$`)

// maxDocxXML bounds the document part read (a zip bomb stays a zip bomb).
const maxDocxXML = 200 << 20

func docxBlocks(data []byte) ([]block, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fileErr("knowledge.docxNotZip", err)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
			break
		}
	}
	if doc == nil {
		return nil, fileErr("knowledge.docxNoDocument", nil)
	}
	rc, err := doc.Open()
	if err != nil {
		return nil, fileErr("knowledge.docxUnreadable", err)
	}
	defer rc.Close()
	blocks, err := readWordML(io.LimitReader(rc, maxDocxXML))
	if err != nil {
		return nil, fileErr("knowledge.docxUnreadable", err)
	}
	return blocks, nil
}

func readWordML(r io.Reader) ([]block, error) {
	dec := xml.NewDecoder(r)
	var out []block
	var headings headingPath
	var text strings.Builder
	inPara, inText := false, false
	level, para := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != wordML {
				continue
			}
			switch t.Name.Local {
			case "p":
				inPara, level = true, 0
				text.Reset()
			case "pStyle":
				v := attr(t, "val")
				// The title is above the headings: Heading1 is its level 2.
				if strings.EqualFold(v, "Title") {
					level = 1
				} else if m := docxHeadingStyle.FindStringSubmatch(v); m != nil {
					level, _ = strconv.Atoi(m[1])
					level++
				}
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 9 && level == 0 {
					level = n + 2
				}
			case "t":
				inText = true
			case "tab":
				if inPara {
					text.WriteByte('\t')
				}
			case "br", "cr":
				if inPara {
					text.WriteByte('\n')
				}
			}
		case xml.EndElement:
			if t.Name.Space != wordML {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				inPara = false
				s := strings.TrimSpace(text.String())
				if s == "" {
					continue
				}
				if level > 0 {
					headings.set(level, s)
					continue
				}
				para++
				out = append(out, block{headings: headings.path(), para: para, text: s})
			}
		case xml.CharData:
			if inText && inPara {
				text.Write(t)
			}
		}
	}
	return out, nil
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
