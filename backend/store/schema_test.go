package store

import (
	"database/sql"
	_ "embed"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// schemaFile is the full schema as the latest migration leaves it, kept in
// the repository for readers. The test holds it to the migrations.
//
//go:embed schema.sql
var schemaFile string

func TestSchemaFileMatchesMigrations(t *testing.T) {
	s := newStore(t)
	migrated := dumpSchema(t, s.readers)

	db := rawDB(t, filepath.Join(t.TempDir(), "from-schema-file.db"))
	if _, err := db.Exec(schemaFile); err != nil {
		t.Fatalf("apply schema.sql: %v", err)
	}
	fromFile := dumpSchema(t, db)

	if strings.Join(migrated, "\n") != strings.Join(fromFile, "\n") {
		t.Errorf("schema.sql differs from what the migrations produce.\n--- migrations:\n%s\n--- schema.sql:\n%s",
			strings.Join(migrated, "\n"), strings.Join(fromFile, "\n"))
	}
	if want := fmt.Sprintf("user_version = %d", latestVersion()); !strings.Contains(schemaFile, want) {
		t.Errorf("schema.sql should state %q (the latest migration)", want)
	}
	if len(migrated) < 10 {
		t.Fatalf("suspiciously small schema: %v", migrated)
	}
}

func TestNormalizeSQL(t *testing.T) {
	a := "CREATE TABLE x (\n  a INTEGER, -- note\n  b TEXT\n)"
	b := "CREATE TABLE x(a INTEGER,b TEXT)"
	if normalizeSQL(a) != normalizeSQL(b) {
		t.Errorf("%q != %q", normalizeSQL(a), normalizeSQL(b))
	}
	if normalizeSQL("CREATE TABLE x(a INT)") == normalizeSQL("CREATE TABLE x(a TEXT)") {
		t.Error("different columns normalized equal")
	}
}

// dumpSchema lists every schema object as "type name: normalized sql".
func dumpSchema(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, text string
		if err := rows.Scan(&typ, &name, &text); err != nil {
			t.Fatal(err)
		}
		out = append(out, typ+" "+name+": "+normalizeSQL(text))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	sqlComment     = regexp.MustCompile(`--[^\n]*`)
	sqlSpace       = regexp.MustCompile(`\s+`)
	sqlPunctSpaces = regexp.MustCompile(`\s*([(),;=])\s*`)
)

// normalizeSQL drops comments and layout, so only the statement compares.
func normalizeSQL(s string) string {
	s = sqlComment.ReplaceAllString(s, "")
	s = sqlSpace.ReplaceAllString(s, " ")
	s = sqlPunctSpaces.ReplaceAllString(s, "$1")
	return strings.TrimSpace(s)
}
