//go:build !(cgo && sqlite_fts5) || windows

package store

import (
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

// errorCode is the SQLite extended result code carried by err, if any.
func errorCode(err error) (int, bool) {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code(), true
	}
	return 0, false
}
