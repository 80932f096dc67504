package store

import (
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		text := fmt.Sprintf("message %d %s", i, strings.Repeat("x", 200))
		if version > 0 && version < latestVersion() {
			insertOldMessage(t, s, c.ID, oldMessage{Role: chat.RoleUser, Content: text})
		} else {
			mustAppend(t, s, c.ID, chat.RoleUser, text)
		}
	}
	require.NoError(t, s.Close())
	return path
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "parley.db")
	require.NoError(t, os.WriteFile(path, data, 0o600))
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
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt(randomBytes(n), off)
	require.NoError(t, err)
}

// wantRefused opens path, expecting err to wrap want with a message that
// names the file, and the file byte-for-byte as it was.
func wantRefused(t *testing.T, path string, opt Options, want error, wantText string) {
	t.Helper()
	before := fileHash(t, path)
	s, err := OpenWith(path, opt)
	if err == nil {
		s.Close()
	}
	require.Error(t, err, "opened")
	assert.ErrorIs(t, err, want)
	prefix := "open database " + path + ": " + wantText
	assert.True(t, strings.HasPrefix(err.Error(), prefix), "err = %q, want prefix %q", err, prefix)
	assert.Equal(t, before, fileHash(t, path), "the file was modified")
	backups, _ := filepath.Glob(path + ".bak*")
	assert.Empty(t, backups, "backups written")
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
		require.NoError(t, err)
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
		require.NoError(t, err)
		_, err = db.Exec("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup')")
		require.NoError(t, err)
		db.Close()
		wantRefused(t, path, quietOptions(), ErrNotParleyDatabase, notParley)
	})
	t.Run("a folder", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "parley.db")
		require.NoError(t, os.Mkdir(path, 0o700))
		_, err := OpenWith(path, quietOptions())
		assert.ErrorIs(t, err, ErrNotParleyDatabase)
	})
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := parleyFile(t, 0, 3)
	db := rawDB(t, path)
	_, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", latestVersion()+1))
	require.NoError(t, err)
	db.Close() // checkpoints: the file holds the new version
	wantRefused(t, path, quietOptions(), ErrNewerSchema, "database was written by a newer version of Parley: schema version")
}

func TestOpenReportsALockedDatabase(t *testing.T) {
	path := parleyFile(t, 0, 3)
	before := fileHash(t, path)

	// Another process: exclusive locking mode keeps the lock after BEGIN EXCLUSIVE.
	db := rawDB(t, path)
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	for _, q := range []string{"PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE", "UPDATE conversations SET title = 'held'"} {
		_, err := conn.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}

	opt := quietOptions()
	opt.BusyTimeout = 200 * time.Millisecond
	start := time.Now()
	s, err := OpenWith(path, opt)
	if err == nil {
		s.Close()
	}
	require.Error(t, err, "opened a database another process holds locked")
	assert.ErrorIs(t, err, ErrLocked)
	assert.True(t, strings.HasPrefix(err.Error(), "open database "+path+": database is locked by another process"), "err = %v", err)
	waited := time.Since(start)
	assert.GreaterOrEqual(t, waited, opt.BusyTimeout, "gave up before the busy timeout")
	assert.Equal(t, before, fileHash(t, path), "the file was modified")

	// Once the other process lets go, Open works.
	_, err = conn.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
	conn.Close()
	db.Close()
	openAt(t, path, 0)
}
