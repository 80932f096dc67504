package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migrations are numbered files NNNN_what.sql, applied in order, each in its
// own transaction together with PRAGMA user_version = NNNN. Never edit a
// released migration: add the next number (and update schema.sql). Numbers
// only grow; one may be missing while the branch it was given to has not
// landed yet (numbers are handed out ahead to work going on in parallel).
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations is the parsed, checked list; a broken list is a build mistake.
var migrations = mustLoadMigrations(migrationFiles)

func latestVersion() int { return migrations[len(migrations)-1].version }

// previousVersion is the version a database has before m is applied.
func previousVersion(m migration) int {
	prev := 0
	for _, o := range migrations {
		if o.version >= m.version {
			break
		}
		prev = o.version
	}
	return prev
}

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err)
	}
	return ms
}

func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var ms []migration
	last := 0
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 4 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", base)
		}
		if v <= last || (last == 0 && v != 1) {
			return nil, fmt.Errorf("migration %s: numbers must start at 0001 and grow (no duplicates)", base)
		}
		last = v
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(body)})
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	return ms, nil
}

// migrate applies the migrations after the database's version up to target.
func migrate(ctx context.Context, db *sql.DB, target int, log *slog.Logger) error {
	for _, m := range migrations {
		if m.version > target {
			break
		}
		applied, err := applyMigration(ctx, db, m)
		if err != nil {
			return fmt.Errorf("migrate to version %d (%s): %w", m.version, m.name, err)
		}
		if applied {
			log.Info("database migrated", "version", m.version, "migration", m.name)
		}
	}
	return nil
}

// applyMigration runs m unless the database already has it. The version is
// read inside the write transaction, so two processes opening the same file
// at once cannot both apply a step.
func applyMigration(ctx context.Context, db *sql.DB, m migration) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var current int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return false, err
	}
	if current > latestVersion() {
		return false, fmt.Errorf("%w: schema version %d, this build knows up to %d", ErrNewerSchema, current, latestVersion())
	}
	if current >= m.version {
		return false, nil
	}
	if current != previousVersion(m) {
		return false, fmt.Errorf("database is at version %d, cannot apply %d", current, m.version)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, err
	}
	// PRAGMA takes no parameters; the version is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// backupDatabase writes a consistent copy of the database at version
// (including anything still in its WAL) next to it, as <file>.bak-v<N>, or
// <file>.bak-v<N>-2, ... when an older backup of that version exists.
func backupDatabase(dbPath string, version int, busyTimeout time.Duration) (string, error) {
	backup := ""
	for i := 1; ; i++ {
		backup = fmt.Sprintf("%s.bak-v%d", dbPath, version)
		if i > 1 {
			backup += "-" + strconv.Itoa(i)
		}
		if _, err := os.Lstat(backup); errors.Is(err, os.ErrNotExist) {
			break
		} else if err != nil {
			return "", err
		}
	}
	db, err := sql.Open(driverName, readOnlyDSN(dbPath, busyTimeout))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec("VACUUM INTO ?", backup); err != nil {
		return "", classifyOpenError(err)
	}
	return backup, nil
}
