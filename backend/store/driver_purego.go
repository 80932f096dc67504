//go:build !(cgo && sqlite_fts5) || windows

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
)

// driverName is the database/sql driver that sql.Open is given.
const driverName = "sqlite"

// driverParams are modernc.org/sqlite's DSN parameters: it runs each
// _pragma on every new connection.
func driverParams(kind connKind, busyTimeout time.Duration) url.Values {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	switch kind {
	case connWriter:
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
	case connReader:
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "query_only(1)")
	}
	return q
}

// openWriter opens the writer's pool on dsn: each of its connections
// switches SQLite's automatic checkpoint off and calls committed after each
// commit (checkpoint.go). The driver is the store's own, so the hook stays
// off every other connection in the process.
func openWriter(dsn string, committed func()) *sql.DB {
	drv := &sqlite.Driver{}
	drv.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		if _, err := c.ExecContext(context.Background(), "PRAGMA wal_autocheckpoint = 0", nil); err != nil {
			return fmt.Errorf("switch off automatic checkpoints: %w", err)
		}
		hooks, ok := c.(sqlite.HookRegisterer)
		if !ok {
			return errors.New("the SQLite driver's connection takes no commit hook")
		}
		hooks.RegisterCommitHook(func() int32 {
			committed()
			return 0 // 0: the commit goes ahead
		})
		return nil
	})
	return sql.OpenDB(dsnConnector{dsn: dsn, drv: drv})
}

// errorCode is the SQLite extended result code carried by err, if any.
func errorCode(err error) (int, bool) {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code(), true
	}
	return 0, false
}
