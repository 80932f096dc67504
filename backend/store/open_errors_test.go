package store

import (
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/chat"
)

// parleyFile makes a closed Parley database at version (0 = latest) with a
// little data, and returns its path.
func parleyFile(t *testing.T, version, messages int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "parley.db")
	s := openAt(t, path, version)
	c := mustConversation(t, s, "a conversation")
	for i := range messages {
		mustAppend(t, s, c.ID, chat.RoleUser, fmt.Sprintf("message %d %s", i, strings.Repeat("x", 200)))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "parley.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// corruptAt overwrites n bytes at off with random bytes.
func corruptAt(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(randomBytes(n), off); err != nil {
		t.Fatal(err)
	}
}

// wantRefused opens path, expecting err to wrap want with a message that
// names the file, and the file byte-for-byte as it was.
func wantRefused(t *testing.T, path string, opt Options, want error, wantText string) {
	t.Helper()
	before := fileHash(t, path)
	s, err := OpenWith(path, opt)
	if err == nil {
		s.Close()
		t.Fatal("opened")
	}
	if !errors.Is(err, want) {
		t.Errorf("err = %v, want %v", err, want)
	}
	prefix := "open database " + path + ": " + wantText
	if !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("err = %q, want prefix %q", err, prefix)
	}
	if after := fileHash(t, path); after != before {
		t.Error("the file was modified")
	}
	if backups, _ := filepath.Glob(path + ".bak*"); len(backups) != 0 {
		t.Errorf("backups written: %v", backups)
	}
}

func TestOpenRefusesFilesThatAreNotParleyDatabases(t *testing.T) {
	notParley := "not a Parley database: "
	t.Run("random bytes", func(t *testing.T) {
		wantRefused(t, writeFile(t, randomBytes(8192)), quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("text file", func(t *testing.T) {
		wantRefused(t, writeFile(t, []byte("hello, this is a note\n")), quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("truncated header", func(t *testing.T) {
		real, err := os.ReadFile(parleyFile(t, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, writeFile(t, real[:50]), quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("header then garbage", func(t *testing.T) {
		data := append([]byte("SQLite format 3\x00"), randomBytes(8192)...)
		wantRefused(t, writeFile(t, data), quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("corrupt schema page", func(t *testing.T) {
		path := parleyFile(t, 0, 0)
		corruptAt(t, path, 100, 3000) // page 1 after the file header: sqlite_master
		wantRefused(t, path, quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("corrupt data page before a migration", func(t *testing.T) {
		path := parleyFile(t, 1, 200)
		st, _ := os.Stat(path)
		corruptAt(t, path, st.Size()-3*4096, 4096) // a page of the messages table
		wantRefused(t, path, quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("another application's database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "other.db")
		db, err := sql.Open(driverName, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup')"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		wantRefused(t, path, quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("a folder", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "parley.db")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenWith(path, quietOptions()); !errors.Is(err, ErrNotParleyDatabase) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := parleyFile(t, 0, 3)
	db := rawDB(t, path)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", latestVersion()+1)); err != nil {
		t.Fatal(err)
	}
	db.Close() // checkpoints: the file holds the new version
	wantRefused(t, path, quietOptions(), ErrNewerSchema, "database was written by a newer version of Parley: schema version")
}

func TestOpenReportsALockedDatabase(t *testing.T) {
	path := parleyFile(t, 0, 3)
	before := fileHash(t, path)

	// Another process: exclusive locking mode keeps the lock after BEGIN EXCLUSIVE.
	db := rawDB(t, path)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE", "UPDATE conversations SET title = 'held'"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	opt := quietOptions()
	opt.BusyTimeout = 200 * time.Millisecond
	start := time.Now()
	s, err := OpenWith(path, opt)
	if err == nil {
		s.Close()
		t.Fatal("opened a database another process holds locked")
	}
	if !errors.Is(err, ErrLocked) || !strings.HasPrefix(err.Error(), "open database "+path+": database is locked by another process") {
		t.Errorf("err = %v", err)
	}
	if waited := time.Since(start); waited < opt.BusyTimeout {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	if fileHash(t, path) != before {
		t.Error("the file was modified")
	}

	// Once the other process lets go, Open works.
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	db.Close()
	openAt(t, path, 0)
}
