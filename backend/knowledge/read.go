// Package knowledge indexes the user's documents for the assistant (SPEC
// §11): collections of files and folders, read into passages with
// locators, indexed for keyword search (SQLite FTS5) and, with an embedding
// model, for vector search, searched by both and fused by reciprocal rank,
// kept current by a file watcher and a scan at start.
package knowledge

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
)

// MaxFileBytes: larger files are skipped (SPEC §11).
const MaxFileBytes = 50 << 20

// kind is how a file is read.
type kind int

const (
	kindNone kind = iota // not a document Parley reads
	kindText             // plain text, logs, source code, JSON: paragraphs with line numbers
	kindMarkdown
	kindRST
	kindHTML
	kindCSV
	kindPDF
	kindDOCX
)

// kindsByExtension: the formats read by extension; anything else is read as
// text when its content is text.
var kindsByExtension = map[string]kind{
	".md": kindMarkdown, ".markdown": kindMarkdown, ".mdx": kindMarkdown, ".mdown": kindMarkdown,
	".rst": kindRST, ".rest": kindRST,
	".html": kindHTML, ".htm": kindHTML, ".xhtml": kindHTML,
	".csv": kindCSV, ".tsv": kindCSV,
	".pdf":  kindPDF,
	".docx": kindDOCX,
}

// binaryExtensions are files that are never documents (checked before the
// content is read, so a folder of photos costs no reads).
var binaryExtensions = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true, ".ico": true, ".tiff": true,
	".mp3": true, ".wav": true, ".flac": true, ".ogg": true, ".mp4": true, ".mkv": true, ".mov": true, ".avi": true,
	".zip": true, ".gz": true, ".tgz": true, ".bz2": true, ".xz": true, ".7z": true, ".rar": true, ".tar": true,
	".exe": true, ".dll": true, ".so": true, ".dylib": true, ".o": true, ".a": true, ".class": true, ".jar": true,
	".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".db": true, ".sqlite": true, ".wasm": true,
	".doc": true, ".xls": true, ".xlsx": true, ".ppt": true, ".pptx": true, ".odt": true, ".psd": true,
}

// kindOf tells how to read a file from its name, and for unknown names
// from its first bytes (text that is valid UTF-8 without NUL bytes).
func kindOf(path string, head []byte) kind {
	ext := strings.ToLower(filepath.Ext(path))
	if k, ok := kindsByExtension[ext]; ok {
		return k
	}
	if binaryExtensions[ext] {
		return kindNone
	}
	if head == nil {
		return kindText // decided on the content when read
	}
	if looksLikeText(head) {
		return kindText
	}
	return kindNone
}

// maybeDocument tells from the name alone whether a file may be read (its
// content decides the rest).
func maybeDocument(path string) bool {
	return kindOf(path, nil) != kindNone
}

func looksLikeText(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	// A multi-byte character may be cut at the end of the sample.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return utf8.Valid(head)
}

// errNotDocument: a file given by name that Parley cannot read.
var errNotDocument error = fault.New(fault.Internal, i18n.M("knowledge.notDocument"))

// errNotText: a file read as text (by its name) holds binary data. Found
// in a folder, such a file is skipped; named itself, it is an error.
var errNotText error = fault.New(fault.Internal, i18n.M("knowledge.notText"))

// readPassages turns a file's content into passages.
func readPassages(path string, data []byte) ([]store.Passage, error) {
	head := data[:min(len(data), 8192)]
	k := kindOf(path, head)
	var blocks []block
	var err error
	switch k {
	case kindNone:
		return nil, errNotDocument
	case kindPDF:
		blocks, err = pdfBlocks(data)
	case kindDOCX:
		blocks, err = docxBlocks(data)
	default:
		if !looksLikeText(head) {
			return nil, errNotText
		}
		text := strings.TrimPrefix(string(data), "\ufeff")
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\ufffd")
		}
		switch k {
		case kindMarkdown:
			blocks = markdownBlocks(text)
		case kindRST:
			blocks = rstBlocks(text)
		case kindHTML:
			blocks, err = htmlBlocks([]byte(text))
		case kindCSV:
			blocks = csvBlocks(text)
		default:
			blocks = textBlocks(text)
		}
	}
	if err != nil {
		return nil, err
	}
	return passagesOf(blocks), nil
}

// csvBlocks reads a table row by row; every passage starts with the
// header row, so each can be understood alone.
func csvBlocks(text string) []block {
	lines := splitLines(text)
	header := ""
	var out []block
	for i, ln := range lines {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		if header == "" {
			header = ln
			continue
		}
		out = append(out, block{line: i + 1, endLine: i + 1, text: ln, prefix: header})
	}
	if len(out) == 0 && header != "" {
		out = append(out, block{line: 1, endLine: 1, text: header})
	}
	return out
}

// fileErr is why a file or a collection's path could not be read (Settings
// → Knowledge lists it, in the language chosen when it is shown: it is
// stored with i18n.Store): the catalogue message key, with the collection's
// path the sentence names, when given, before the technical detail, if
// any, which stays as the library said it.
func fileErr(key string, detail error, path ...string) error {
	var args []any
	if len(path) > 0 && path[0] != "" {
		args = append(args, path[0])
	}
	if detail != nil {
		args = append(args, errDetail(detail))
	}
	return fault.Wrap(fault.Internal, i18n.M(key, args...), detail)
}

// errDetail is what went wrong, without the path an os error repeats (the
// sentence it goes into names the file).
func errDetail(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
