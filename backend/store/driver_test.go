package store

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The connection settings hold for whichever driver this build uses
// (go test -tags sqlite_fts5 for the cgo one, CGO_ENABLED=0 for the pure-Go one).
func TestDriverConnectionSettings(t *testing.T) {
	opt := quietOptions()
	opt.BusyTimeout = 1234 * time.Millisecond
	s, err := OpenWith(filepath.Join(t.TempDir(), "parley.db"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	t.Logf("driver %q", driverName)

	want := map[string]map[string]string{
		"writer":  {"busy_timeout": "1234", "foreign_keys": "1", "journal_mode": "wal", "synchronous": "1", "query_only": "0"},
		"readers": {"busy_timeout": "1234", "foreign_keys": "1", "journal_mode": "wal", "query_only": "1"},
	}
	for pool, checks := range want {
		db := s.writer
		if pool == "readers" {
			db = s.readers
		}
		for name, value := range checks {
			var got string
			if err := db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
				t.Fatalf("%s: PRAGMA %s: %v", pool, name, err)
			}
			if !strings.EqualFold(got, value) {
				t.Errorf("%s: PRAGMA %s = %s, want %s", pool, name, got, value)
			}
		}
	}

	// The readers cannot write (the FTS5 tables exist: the migrations made them).
	if _, err := s.readers.ExecContext(ctx, "CREATE TABLE x (a)"); err == nil {
		t.Error("a reader wrote")
	}

	// Errors carry SQLite's result codes: a foreign key violation is 787.
	_, err = s.writer.ExecContext(ctx, "INSERT INTO messages (id, conversation_id, role, created_at) VALUES ('m', 'missing', 'user', 'now')")
	if code, ok := errorCode(err); !ok || code != sqliteConstraintForeignKey || !isForeignKeyError(err) {
		t.Errorf("foreign key violation: err %v, code %d, %v", err, code, ok)
	}
}
