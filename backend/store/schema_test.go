package store

import (
	"database/sql"
	_ "embed"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	_, err := db.Exec(schemaFile)
	require.NoError(t, err, "apply schema.sql")
	fromFile := dumpSchema(t, db)

	assert.Equal(t, strings.Join(migrated, "\n"), strings.Join(fromFile, "\n"),
		"schema.sql (actual) differs from what the migrations produce (expected)")
	want := fmt.Sprintf("user_version = %d", latestVersion())
	assert.Contains(t, schemaFile, want, "schema.sql should state %q (the latest migration)", want)
	require.GreaterOrEqual(t, len(migrated), 10, "suspiciously small schema: %v", migrated)
}

func TestNormalizeSQL(t *testing.T) {
	a := "CREATE TABLE x (\n  a INTEGER, -- note\n  b TEXT\n)"
	b := "CREATE TABLE x(a INTEGER,b TEXT)"
	assert.Equal(t, normalizeSQL(a), normalizeSQL(b))
	assert.NotEqual(t, normalizeSQL("CREATE TABLE x(a INT)"), normalizeSQL("CREATE TABLE x(a TEXT)"), "different columns normalized equal")
}

// dumpSchema lists every schema object as "type name: normalized sql".
func dumpSchema(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, text string
		require.NoError(t, rows.Scan(&typ, &name, &text))
		out = append(out, typ+" "+name+": "+normalizeSQL(text))
	}
	require.NoError(t, rows.Err())
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
