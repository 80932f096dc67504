//go:build cgo && sqlite_fts5 && !windows

package store

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/mattn/go-sqlite3" // registers the "sqlite3" driver; sqlite_fts5 enables FTS5 in it
)

// driverName is the database/sql driver that sql.Open is given.
const driverName = "sqlite3"

// driverParams are mattn/go-sqlite3's DSN parameters: it runs the matching
// PRAGMAs on each new connection.
func driverParams(kind connKind, busyTimeout time.Duration) url.Values {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busyTimeout.Milliseconds(), 10))
	// Keep prepared statements per connection: preparing an INSERT into
	// messages compiles its search triggers, a quarter of an append's time.
	q.Set("_stmt_cache_size", "64")
	switch kind {
	case connWriter:
		q.Set("_foreign_keys", "1")
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "NORMAL")
		q.Set("_txlock", "immediate")
	case connReader:
		q.Set("_foreign_keys", "1")
		q.Set("_query_only", "1")
	}
	return q
}

// openWriter opens the writer's pool on dsn: each of its connections
// switches SQLite's automatic checkpoint off and calls committed after each
// commit (checkpoint.go).
func openWriter(dsn string, committed func()) *sql.DB {
	drv := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec("PRAGMA wal_autocheckpoint = 0", nil); err != nil {
			return fmt.Errorf("switch off automatic checkpoints: %w", err)
		}
		c.RegisterCommitHook(func() int {
			committed()
			return 0 // 0: the commit goes ahead
		})
		return nil
	}}
	return sql.OpenDB(dsnConnector{dsn: dsn, drv: drv})
}

// errorCode is the SQLite extended result code carried by err, if any.
func errorCode(err error) (int, bool) {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return int(se.ExtendedCode), true
	}
	var pse *sqlite3.Error
	if errors.As(err, &pse) && pse != nil {
		return int(pse.ExtendedCode), true
	}
	return 0, false
}
