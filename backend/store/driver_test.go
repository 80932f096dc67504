package store

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The connection settings hold for whichever driver this build uses
// (go test -tags sqlite_fts5 for the cgo one, CGO_ENABLED=0 for the pure-Go one).
func TestDriverConnectionSettings(t *testing.T) {
	opt := quietOptions()
	opt.BusyTimeout = 1234 * time.Millisecond
	s, err := OpenWith(filepath.Join(t.TempDir(), "parley.db"), opt)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	t.Logf("driver %q", driverName)

	want := map[string]map[string]string{
		// The writer leaves checkpoints to the checkpointer (checkpoint.go).
		"writer":  {"busy_timeout": "1234", "foreign_keys": "1", "journal_mode": "wal", "synchronous": "1", "query_only": "0", "wal_autocheckpoint": "0"},
		"readers": {"busy_timeout": "1234", "foreign_keys": "1", "journal_mode": "wal", "query_only": "1"},
	}
	for pool, checks := range want {
		db := s.writer
		if pool == "readers" {
			db = s.readers
		}
		for name, value := range checks {
			var got string
			require.NoError(t, db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got), "%s: PRAGMA %s", pool, name)
			assert.True(t, strings.EqualFold(got, value), "%s: PRAGMA %s = %s, want %s", pool, name, got, value)
		}
	}

	// The readers cannot write (the FTS5 tables exist: the migrations made them).
	_, err = s.readers.ExecContext(ctx, "CREATE TABLE x (a)")
	assert.Error(t, err, "a reader wrote")

	// Errors carry SQLite's result codes: a foreign key violation is 787.
	_, err = s.writer.ExecContext(ctx, "INSERT INTO messages (id, conversation_id, role, created_at) VALUES ('m', 'missing', 'user', 'now')")
	code, ok := errorCode(err)
	assert.True(t, ok, "foreign key violation without a result code: err %v", err)
	assert.Equal(t, sqliteConstraintForeignKey, code, "foreign key violation: err %v", err)
	assert.True(t, isForeignKeyError(err), "foreign key violation not recognised: err %v", err)
}
