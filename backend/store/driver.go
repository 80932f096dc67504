package store

import (
	"context"
	"database/sql/driver"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Parley reaches SQLite through one of two database/sql drivers, chosen at
// build time (driver_cgo.go, driver_purego.go):
//
//   - github.com/mattn/go-sqlite3 through cgo, when building with cgo and the
//     sqlite_fts5 tag on Linux or macOS. The desktop app is built that way
//     (Wails needs cgo there anyway; scripts/lib.sh sets the tags): on Linux
//     with the libsqlite3 tag too, linking the system SQLite that WebKitGTK
//     already loads; on macOS with SQLite compiled in. The same tag switches
//     on FTS5 in that driver, so it cannot be selected without the full-text
//     search the schema needs.
//   - modernc.org/sqlite, SQLite translated to Go (~4 MB more binary),
//     everywhere else: without the tag (plain `go test ./...`), without cgo
//     (CGO_ENABLED=0) and on Windows.
//
// Both get the same per-connection settings through their DSN parameters:
// busy_timeout, foreign_keys=ON, and on the writer journal_mode=WAL,
// synchronous=NORMAL and BEGIN IMMEDIATE transactions; readers are
// query_only; inspections open the file read-only (mode=ro). The writer's
// connections also switch SQLite's automatic checkpoint off and report each
// commit (openWriter: a hook on each driver's connections), for the
// checkpoints that run beside them (checkpoint.go). driver_test.go checks
// them, and that both report errors with SQLite's result codes.

// connKind says what a connection pool is for.
type connKind int

const (
	connWriter     connKind = iota // the single read-write connection
	connReader                     // the query-only read pool
	connInspect                    // read-only look at an existing file (mode=ro)
	connCheckpoint                 // the connection that checkpoints the WAL (checkpoint.go)
)

// dsn is the connection string of the read-write pools. The writer also
// switches on WAL (readers beside one writer) with synchronous=NORMAL:
// commits survive an app crash; only a power cut may lose the last ones.
// Its transactions take the write lock at BEGIN, so one that read first
// cannot fail to upgrade when another process wrote meanwhile.
func dsn(path string, busyTimeout time.Duration, writer bool) string {
	kind := connReader
	if writer {
		kind = connWriter
	}
	return fileURI(path) + "?" + driverParams(kind, busyTimeout).Encode()
}

// checkpointDSN is the connection string of the checkpointer's connection:
// it writes (into the database file), but runs no transactions of its own.
func checkpointDSN(path string, busyTimeout time.Duration) string {
	return fileURI(path) + "?" + driverParams(connCheckpoint, busyTimeout).Encode()
}

// dsnConnector opens connections to dsn with a driver of the store's own
// (one with connection hooks), for sql.OpenDB.
type dsnConnector struct {
	dsn string
	drv driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// readOnlyDSN opens for inspection: mode=ro writes nothing, not even a
// checkpoint on close.
func readOnlyDSN(path string, busyTimeout time.Duration) string {
	q := driverParams(connInspect, busyTimeout)
	q.Set("mode", "ro")
	return fileURI(path) + "?" + q.Encode()
}

// fileURI makes an SQLite URI for path, escaping what URIs need escaped.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p // file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
