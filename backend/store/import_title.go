package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxTitleRunes is the longest title Parley lets a user set.
const MaxTitleRunes = 200

// importedMark matches the mark importTitle adds, so importing an export of
// an imported conversation gives "Title (imported 2)", not "Title (imported) (imported)".
var importedMark = regexp.MustCompile(`\s*\(imported(?: \d+)?\)$`)

// importTitle names an imported conversation so it is not mistaken for its
// original in the list: "Title (imported)", or "Title (imported N)" with the
// first N not taken yet. It runs in the import's transaction, so two imports
// at once cannot pick the same name.
func importTitle(ctx context.Context, tx *sql.Tx, title string) (string, error) {
	base := strings.TrimSpace(title)
	for importedMark.MatchString(base) {
		base = strings.TrimSpace(importedMark.ReplaceAllString(base, ""))
	}
	if base == "" {
		base = DefaultTitle
	}
	for n := 1; ; n++ {
		mark := " (imported)"
		if n > 1 {
			mark = fmt.Sprintf(" (imported %d)", n)
		}
		candidate := cutRunes(base, MaxTitleRunes-utf8.RuneCountInString(mark)) + mark
		var taken bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM conversations WHERE title = ?)`, candidate).Scan(&taken); err != nil {
			return "", fmt.Errorf("check title %q: %w", candidate, err)
		}
		if !taken {
			return candidate, nil
		}
	}
}

// cutRunes shortens s to at most n runes, without trailing spaces.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}
