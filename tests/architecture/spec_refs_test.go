package architecture

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Code comments cite the product contract as "SPEC §N" (docs/spec.md,
// section N). These tests hold every such reference, and every other "§N"
// in the sources, to a section docs/spec.md has as a "## N." heading, so a
// reader can always follow one.

// specFile is the contract, relative to the repository root.
const specFile = "docs/spec.md"

// specSourceExts are the files whose references are checked.
var specSourceExts = map[string]bool{".go": true, ".ts": true, ".vue": true, ".mjs": true, ".sh": true}

// specSkipDirs are not sources (relative to the root, with "/"); any folder
// named node_modules or .git is skipped too.
var specSkipDirs = map[string]bool{"frontend/dist": true, "test-artifacts": true, "dist": true}

var (
	// specHeading is a section of docs/spec.md: "## 10. Every agent ...".
	specHeading = regexp.MustCompile(`(?m)^## (\d+)\. `)
	// specCitation is "SPEC" and the sections it names: "SPEC §10",
	// "SPEC §1, §3", "SPEC §8 and §9", "SPEC §1–§4", also with the
	// comment wrapped between "SPEC" and "§" ("(SPEC\n// §10)").
	specCitation = regexp.MustCompile(`\bSPEC(?:[\s/*#]|<!--)*§\s?\d+(?:\s*(?:,|and|or|/|–|—|-|to)\s*§\s?\d+)*`)
	// sectionSign is any "§N".
	sectionSign = regexp.MustCompile(`§\s?(\d+)`)
)

// specRef is one "§N" in a source file.
type specRef struct {
	File    string
	Line    int
	Section int
	// Cited: the reference follows "SPEC" (the form code comments use).
	Cited bool
}

func (r specRef) String() string { return fmt.Sprintf("%s:%d: §%d", r.File, r.Line, r.Section) }

// specSections are the section numbers of the contract's "## N." headings.
func specSections(markdown string) map[int]bool {
	out := map[int]bool{}
	for _, m := range specHeading.FindAllStringSubmatch(markdown, -1) {
		n, err := strconv.Atoi(m[1])
		if err == nil {
			out[n] = true
		}
	}
	return out
}

// specRefsIn finds every "§N" of one file's text.
func specRefsIn(file, text string) []specRef {
	cited := map[int]bool{} // offsets of the "§" that follow "SPEC"
	for _, span := range specCitation.FindAllStringIndex(text, -1) {
		for _, m := range sectionSign.FindAllStringIndex(text[span[0]:span[1]], -1) {
			cited[span[0]+m[0]] = true
		}
	}
	var refs []specRef
	for _, m := range sectionSign.FindAllStringSubmatchIndex(text, -1) {
		n, err := strconv.Atoi(text[m[2]:m[3]])
		if err != nil {
			continue
		}
		refs = append(refs, specRef{File: file, Line: 1 + strings.Count(text[:m[0]], "\n"), Section: n, Cited: cited[m[0]]})
	}
	return refs
}

// unresolved are the references to sections the contract does not have.
func unresolved(refs []specRef, sections map[int]bool) []string {
	var bad []string
	for _, r := range refs {
		if !sections[r.Section] {
			bad = append(bad, r.String())
		}
	}
	sort.Strings(bad)
	return bad
}

// scanSpecRefs reads every source file under root.
func scanSpecRefs(t *testing.T, root string) []specRef {
	t.Helper()
	var refs []specRef
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "node_modules" || d.Name() == ".git" || specSkipDirs[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		if !specSourceExts[filepath.Ext(path)] || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		refs = append(refs, specRefsIn(rel, string(b))...)
		return nil
	})
	require.NoError(t, err)
	return refs
}

func TestEverySpecReferenceNamesASectionOfDocsSpec(t *testing.T) {
	root := repoRoot(t)
	md, err := os.ReadFile(filepath.Join(root, specFile))
	require.NoError(t, err, "the contract the code's \"SPEC §N\" comments cite")
	sections := specSections(string(md))
	for n := 1; n <= 11; n++ {
		require.True(t, sections[n], "%s has no \"## %d.\" heading", specFile, n)
	}

	refs := scanSpecRefs(t, root)
	cited := 0
	for _, r := range refs {
		if r.Cited {
			cited++
		}
	}
	// An empty or broken scan must not pass: the code cites the contract
	// some 300 times.
	t.Logf("%d \"SPEC §N\" references, %d \"§N\" in all", cited, len(refs))
	require.Greater(t, cited, 100, "\"SPEC §N\" references found: the scan missed the sources")
	assert.Empty(t, unresolved(refs, sections), "references to sections %s does not have (add the section, or fix the reference)", specFile)
}

// The scanner and the check can fail: wrapped, listed and ranged citations
// are read, and a section the contract lacks is reported.
func TestSpecReferenceScannerFindsEveryForm(t *testing.T) {
	sections := specSections("# Contract\n\n## 1. One\ntext\n## 3. Three\n### 3.1 not a section\n## 10. Ten\n")
	assert.Equal(t, map[int]bool{1: true, 3: true, 10: true}, sections)

	fake := func(n int) string { return "§" + strconv.Itoa(n) } // never a reference in this file's text
	cases := []struct {
		name    string
		text    string
		want    []int // the sections, in order
		cited   []bool
		missing int // how many the contract above lacks
	}{
		{"one", "// see SPEC " + fake(10) + ".", []int{10}, []bool{true}, 0},
		{"wrapped comment", "// agents (SPEC\n// " + fake(1) + "): the inbox", []int{1}, []bool{true}, 0},
		{"list", "// (SPEC " + fake(1) + ", " + fake(3) + ")", []int{1, 3}, []bool{true, true}, 0},
		{"and", "// SPEC " + fake(3) + " and " + fake(10), []int{3, 10}, []bool{true, true}, 0},
		{"range", "// SPEC " + fake(1) + "–" + fake(3), []int{1, 3}, []bool{true, true}, 0},
		{"bare", "// the " + fake(1) + " result", []int{1}, []bool{false}, 0},
		{"unknown section", "// SPEC " + fake(99), []int{99}, []bool{true}, 1},
		{"unknown bare section", "# see " + fake(2), []int{2}, []bool{false}, 1},
		{"none", "// SPEC says nothing here; SPECIAL " + "case", nil, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			refs := specRefsIn("f.go", tc.text)
			var got []int
			var cited []bool
			for _, r := range refs {
				got = append(got, r.Section)
				cited = append(cited, r.Cited)
			}
			assert.Equal(t, tc.want, got, "sections")
			assert.Equal(t, tc.cited, cited, "cited")
			assert.Len(t, unresolved(refs, sections), tc.missing, "unresolved")
		})
	}
	assert.Equal(t, []string{"f.go:2: " + fake(99)}, unresolved(specRefsIn("f.go", "x\n// SPEC "+fake(99)), sections), "where")
}
