// Package store is Parley's SQLite storage: conversations, messages, runs,
// question cards, settings and assistant profiles, with full-text search,
// numbered migrations and JSON/Markdown export. It implements chat.History
// and questions.Store.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

var (
	_ chat.History    = (*Store)(nil)
	_ questions.Store = (*Store)(nil)
)

// Errors Open returns (wrapped, with the path and the cause).
var (
	// ErrNotParleyDatabase: the file is not SQLite, is corrupt, or belongs to
	// another application.
	ErrNotParleyDatabase = errors.New("not a Parley database")
	// ErrNewerSchema: the database was written by a newer Parley.
	ErrNewerSchema = errors.New("database was written by a newer version of Parley")
	// ErrLocked: another process holds the database locked past the timeout.
	ErrLocked = errors.New("database is locked by another process")
)

// DefaultBusyTimeout is how long a statement waits for another process's lock.
const DefaultBusyTimeout = 5 * time.Second

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// BusyTimeout is how long to wait for a lock held by another process;
	// 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Logger receives migration and backup notes; nil means slog.Default().
	Logger *slog.Logger

	// migrateTo stops migrations at this version (tests build old databases);
	// 0 means the latest.
	migrateTo int
	// checkpointed, in tests, receives the result of each WAL checkpoint.
	checkpointed func(checkpointResult)
}

// Store is an open Parley database. It is safe for concurrent use.
type Store struct {
	path string
	log  *slog.Logger
	// writer has a single connection: writes queue in Go instead of
	// contending for SQLite's write lock, so they never see SQLITE_BUSY
	// from each other. Everything that writes goes through it.
	writer *sql.DB
	// readers serve queries concurrently (WAL lets them run beside the writer).
	readers *sql.DB
	// ckpt checkpoints the WAL beside the writer (checkpoint.go).
	ckpt *checkpointer

	// txBegun, in tests, is called as each short transaction of the
	// knowledge index begins (the writer connection held).
	txBegun func()
	// txTime bounds a short transaction's time (maxTxTime; tests shorten
	// it to play a machine too busy to do anything within it).
	txTime time.Duration
	// mems keeps every memory between writes (memory_cache.go).
	mems memoryCache
	// touches writes MarkMemoriesUsed's marks in the background.
	touches touchQueue
}

// Open opens (creating when missing) the Parley database at path and
// migrates it to the latest schema, backing the file up first when an
// existing database needs migrating. A file that is not a Parley database,
// is from a newer Parley, or stays locked is reported and left untouched.
func Open(path string) (*Store, error) {
	return OpenWith(path, Options{})
}

// OpenWith is Open with options.
func OpenWith(path string, opt Options) (*Store, error) {
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = DefaultBusyTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s, err := open(abs, opt)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	return s, nil
}

func open(path string, opt Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create folder: %w", err)
	}
	// Inspect read-only first: nothing is written to a file we may not own.
	found, err := inspect(path, opt.BusyTimeout)
	if err != nil {
		return nil, err
	}
	target := opt.migrateTo
	if target <= 0 || target > latestVersion() {
		target = latestVersion()
	}
	if found.version > 0 && found.version < target {
		backup, err := backupDatabase(path, found.version, opt.BusyTimeout)
		if err != nil {
			return nil, fmt.Errorf("back up before migrating: %w", err)
		}
		opt.Logger.Info("database backed up before migration", "backup", backup, "from_version", found.version, "to_version", target)
	}

	ckpt := newCheckpointer(opt.Logger, opt.checkpointed)
	writer := oneConnection(openWriter(dsn(path, opt.BusyTimeout, true), ckpt.committed))
	if err := migrate(context.Background(), writer, target, opt.Logger); err != nil {
		writer.Close()
		return nil, classifyOpenError(err)
	}

	readers, err := sql.Open(driverName, dsn(path, opt.BusyTimeout, false))
	if err != nil {
		writer.Close()
		return nil, err
	}
	readers.SetMaxOpenConns(4)
	readers.SetMaxIdleConns(4)
	checkpoints, err := sql.Open(driverName, checkpointDSN(path, opt.BusyTimeout))
	if err != nil {
		readers.Close()
		writer.Close()
		return nil, err
	}
	ckpt.start(oneConnection(checkpoints), writer)
	return &Store{path: path, log: opt.Logger, writer: writer, readers: readers, ckpt: ckpt, txTime: maxTxTime}, nil
}

// oneConnection makes db a pool of one connection kept open for good.
func oneConnection(db *sql.DB) *sql.DB {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the database. The writer's connection closes last: SQLite's
// last close checkpoints the WAL into the file and removes it.
func (s *Store) Close() error {
	s.flushTouches()
	// Let SQLite refresh its query-planner statistics where they are stale.
	if _, err := s.writer.Exec("PRAGMA optimize"); err != nil {
		s.log.Warn("optimize database before close", "err", err)
	}
	return errors.Join(s.readers.Close(), s.ckpt.close(), s.writer.Close())
}

// withTx runs fn in one write transaction (BEGIN IMMEDIATE on the writer).
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
