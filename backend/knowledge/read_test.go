package knowledge

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/store"
)

// passageWith returns the passage whose text contains s.
func passageWith(t *testing.T, ps []store.Passage, s string) store.Passage {
	t.Helper()
	for _, p := range ps {
		if strings.Contains(p.Text, s) {
			return p
		}
	}
	require.Failf(t, "no passage contains the text", "%q in %+v", s, ps)
	return store.Passage{}
}

const setupMarkdown = `Intro paragraph before any heading.

# Setup

General setup words.

## Linux

Install the package with apt.
Then run parley.

` + "```sh" + `
# not a heading: a shell comment
apt install parley
` + "```" + `

## macOS

Drag the app to Applications.

Usage
-----

Setext heading section text.
`

func TestMarkdownPassagesFollowHeadings(t *testing.T) {
	ps, err := readPassages("/docs/setup.md", []byte(setupMarkdown))
	require.NoError(t, err)
	assert.Equal(t, "line 1", passageWith(t, ps, "Intro paragraph").Locator)
	assert.Equal(t, "Setup", passageWith(t, ps, "General setup").Locator)
	linux := passageWith(t, ps, "Install the package")
	assert.Equal(t, "Setup › Linux", linux.Locator)
	assert.Contains(t, linux.Text, "# not a heading", "a code block stays with its section")
	assert.Equal(t, "Setup › macOS", passageWith(t, ps, "Drag the app").Locator)
	assert.Equal(t, "Setup › Usage", passageWith(t, ps, "Setext heading").Locator, "setext level 2 under the level-1 heading")
	for _, p := range ps {
		assert.NotContains(t, p.Text, "Drag the app to Applications.\n\nSetext", "sections were merged")
	}
}

func TestRSTPassagesFollowTitles(t *testing.T) {
	rst := "=======\nManual\n=======\n\nOverview text.\n\nInstalling\n----------\n\nRun the installer.\n\nOn Windows\n~~~~~~~~~~\n\nDouble-click it.\n\nUpgrading\n---------\n\nRun it again.\n"
	ps, err := readPassages("/docs/manual.rst", []byte(rst))
	require.NoError(t, err)
	assert.Equal(t, "Manual", passageWith(t, ps, "Overview").Locator)
	assert.Equal(t, "Manual › Installing", passageWith(t, ps, "Run the installer").Locator)
	assert.Equal(t, "Manual › Installing › On Windows", passageWith(t, ps, "Double-click").Locator)
	assert.Equal(t, "Manual › Upgrading", passageWith(t, ps, "Run it again").Locator)
}

func TestHTMLPassagesFollowHeadingsAndDropScripts(t *testing.T) {
	page := `<!doctype html><html><head><title>T</title><style>p{color:red}</style></head><body>
<script>var secret = "script text";</script>
<h1>Guide</h1><p>First   paragraph
spread over lines.</p>
<h2>Billing</h2><p>Invoices are sent monthly.</p><ul><li>Card</li><li>Transfer</li></ul>
<h2>Support</h2><pre>code
  block</pre></body></html>`
	ps, err := readPassages("/site/guide.html", []byte(page))
	require.NoError(t, err)
	first := passageWith(t, ps, "First paragraph spread over lines.")
	assert.Equal(t, "Guide", first.Locator)
	assert.Equal(t, "Guide › Billing", passageWith(t, ps, "Invoices are sent monthly").Locator)
	assert.Equal(t, "Guide › Billing", passageWith(t, ps, "Transfer").Locator)
	assert.Equal(t, "Guide › Support", passageWith(t, ps, "code\n  block").Locator, "pre keeps its layout")
	for _, p := range ps {
		assert.NotContains(t, p.Text, "script text")
		assert.NotContains(t, p.Text, "color:red")
	}
}

func TestSourceAndLogPassagesHaveLineRanges(t *testing.T) {
	var src strings.Builder
	src.WriteString("package main\n\n")
	for i := range 80 {
		src.WriteString("// helper number " + strings.Repeat("x", 10) + "\n")
		src.WriteString("func helper" + string(rune('A'+i%26)) + "() int { return 1 }\n\n")
	}
	ps, err := readPassages("/src/main.go", []byte(src.String()))
	require.NoError(t, err)
	require.Greater(t, len(ps), 2, "a long file is cut into passages")
	assert.Regexp(t, `^lines 1–\d+$`, ps[0].Locator, "small paragraphs share a passage")
	assert.Regexp(t, `^lines \d+–\d+$`, ps[1].Locator)
	for _, p := range ps {
		assert.LessOrEqual(t, len([]rune(p.Text)), maxPassageChars+2)
	}
	// A long paragraph without blank lines is cut at line ends, each piece
	// with its own exact line numbers.
	var log strings.Builder
	for i := 1; i <= 200; i++ {
		log.WriteString("2026-01-01 12:00:00 INFO request served path=/item/" + strings.Repeat("z", 20) + "\n")
	}
	ps, err = readPassages("/var/app.log", []byte(log.String()))
	require.NoError(t, err)
	require.Greater(t, len(ps), 3)
	assert.Regexp(t, `^lines 1–\d+$`, ps[0].Locator)
	last := ps[len(ps)-1].Locator
	assert.True(t, strings.HasSuffix(last, "–200"), "last passage ends at line 200: %s", last)
}

func TestCSVPassagesRepeatTheHeader(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("city,country,population\n")
	for i := range 100 {
		csv.WriteString("Town" + strings.Repeat("n", i%7) + ",Land,12345\n")
	}
	ps, err := readPassages("/data/cities.csv", []byte(csv.String()))
	require.NoError(t, err)
	require.Greater(t, len(ps), 1)
	for _, p := range ps {
		assert.True(t, strings.HasPrefix(p.Text, "city,country,population\n"), "every passage starts with the header: %q", p.Text[:40])
	}
	assert.Regexp(t, `^lines 2–\d+$`, ps[0].Locator)
}

func TestPDFPassagesByPage(t *testing.T) {
	pdf := makePDF([][]string{
		{"Cover page of the handbook."},
		{"Refund policy: customers get their money back", "within 30 days of purchase."},
		{"Contact us by mail."},
	})
	path := writeFile(t, t.TempDir(), "handbook.pdf", pdf)
	// The file is a real PDF: poppler reads the same text on page 2.
	out, err := exec.Command("pdftotext", "-f", "2", "-l", "2", path, "-").Output()
	require.NoError(t, err, "pdftotext (poppler-utils, installed by scripts/setup.sh)")
	require.Contains(t, string(out), "Refund policy")

	ps, err := readPassages(path, pdf)
	require.NoError(t, err)
	require.Len(t, ps, 3)
	p2 := passageWith(t, ps, "Refund policy")
	assert.Equal(t, "p. 2", p2.Locator)
	assert.Contains(t, p2.Text, "customers get their money back\nwithin 30 days", "lines kept in order, words spaced")
	assert.Equal(t, "p. 3", passageWith(t, ps, "Contact us").Locator)
}

func TestPDFWithoutTextAndBrokenPDFAreErrors(t *testing.T) {
	_, err := readPassages("/scan.pdf", makePDF([][]string{{}, {}}))
	require.ErrorIs(t, err, errNoText)
	assert.Contains(t, err.Error(), "no text layer")

	broken := makePDF([][]string{{"Some text here."}})
	broken = broken[:len(broken)/2] // cut off: no cross-reference table
	_, err = readPassages("/broken.pdf", broken)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreadable PDF")

	_, err = readPassages("/not.pdf", []byte("just text pretending"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreadable PDF")
}

func TestDOCXPassagesFollowHeadingStyles(t *testing.T) {
	doc := makeDOCX(t, []docxParagraph{
		{"Title", "Employee Handbook"},
		{"", "Welcome to the company."},
		{"Heading1", "Leave"},
		{"", "Employees get 25 days of paid leave a year."},
		{"Heading2", "Sick leave"},
		{"", "Tell your manager on the first day & rest."},
	})
	ps, err := readPassages("/hr/handbook.docx", doc)
	require.NoError(t, err)
	assert.Equal(t, "Employee Handbook", passageWith(t, ps, "Welcome").Locator)
	assert.Equal(t, "Employee Handbook › Leave", passageWith(t, ps, "25 days").Locator)
	sick := passageWith(t, ps, "first day & rest")
	assert.Equal(t, "Employee Handbook › Leave › Sick leave", sick.Locator)

	_, err = readPassages("/hr/broken.docx", []byte("PK\x03\x04 not really a zip"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a DOCX file")
}

func TestKindsByExtensionAndContent(t *testing.T) {
	assert.True(t, maybeDocument("/a/notes.txt"))
	assert.True(t, maybeDocument("/a/Makefile"), "unknown names are decided by their content")
	assert.False(t, maybeDocument("/a/photo.JPG"))
	_, err := readPassages(filepath.Join("/a", "blob.bin"), []byte{0, 1, 2, 3})
	assert.ErrorIs(t, err, errNotDocument)
	ps, err := readPassages("/a/Makefile", []byte("all:\n\tgo build\n"))
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, "lines 1–2", ps[0].Locator)
}
