package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// parleyApplicationID is 'PRLY', set by migration 0001 (PRAGMA application_id).
const parleyApplicationID = 0x50524C59

// sqliteHeader opens every SQLite 3 database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// SQLite primary result codes the open path tells apart.
const (
	sqliteBusy    = 5
	sqliteLocked  = 6
	sqliteCorrupt = 11
	sqliteNotADB  = 26
	// extended
	sqliteConstraintForeignKey = 787
)

// inspection is what a read-only look at an existing file found.
type inspection struct {
	version int // PRAGMA user_version; 0 = new or empty database
}

// inspect checks, without writing anything, that path is missing, empty, or
// a Parley database this build can open.
func inspect(path string, busyTimeout time.Duration) (inspection, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return inspection{}, nil
	case err != nil:
		return inspection{}, err
	case st.IsDir():
		return inspection{}, fmt.Errorf("%w: it is a folder", ErrNotParleyDatabase)
	case st.Size() == 0:
		return inspection{}, nil
	}
	if err := checkHeader(path); err != nil {
		return inspection{}, err
	}

	db, err := sql.Open(driverName, readOnlyDSN(path, busyTimeout))
	if err != nil {
		return inspection{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()

	var appID, version, objects int
	err = db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID)
	if err == nil {
		err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	}
	if err == nil {
		// Reading the schema catches a damaged first page.
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&objects)
	}
	if err != nil {
		return inspection{}, classifyOpenError(err)
	}

	switch {
	case appID == 0 && version == 0 && objects == 0:
		return inspection{}, nil // an empty SQLite file: ours to initialise
	case appID != parleyApplicationID || version == 0:
		return inspection{}, fmt.Errorf("%w: a SQLite database of another application (application_id %d, user_version %d)",
			ErrNotParleyDatabase, appID, version)
	case version > latestVersion():
		return inspection{}, fmt.Errorf("%w: schema version %d, this build knows up to %d; update Parley or choose another data folder",
			ErrNewerSchema, version, latestVersion())
	}
	if version < latestVersion() {
		// About to back up and rewrite it: make sure it is sound first.
		if err := quickCheck(ctx, db); err != nil {
			return inspection{}, err
		}
	}
	return inspection{version: version}, nil
}

func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 100) // the SQLite file header
	n, err := io.ReadFull(f, head)
	switch {
	case n >= len(sqliteHeader) && !bytes.Equal(head[:len(sqliteHeader)], sqliteHeader):
		return fmt.Errorf("%w: no SQLite header", ErrNotParleyDatabase)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%w: truncated SQLite header (%d bytes)", ErrNotParleyDatabase, n)
	case err != nil:
		return err
	}
	return nil
}

func quickCheck(ctx context.Context, db *sql.DB) error {
	var result string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&result); err != nil {
		return classifyOpenError(err)
	}
	if result != "ok" {
		return fmt.Errorf("%w: corrupt (%s)", ErrNotParleyDatabase, strings.Join(strings.Fields(result), " "))
	}
	return nil
}

// classifyOpenError turns SQLite's codes into the errors Open promises.
func classifyOpenError(err error) error {
	code, ok := errorCode(err)
	if !ok {
		return err
	}
	switch code & 0xff {
	case sqliteNotADB, sqliteCorrupt:
		return fmt.Errorf("%w: %v", ErrNotParleyDatabase, err)
	case sqliteBusy, sqliteLocked:
		return fmt.Errorf("%w: %v", ErrLocked, err)
	}
	return err
}

func isForeignKeyError(err error) bool {
	code, ok := errorCode(err)
	return ok && code == sqliteConstraintForeignKey
}
