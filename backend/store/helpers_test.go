package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

var ctx = context.Background()

func quietOptions() Options {
	return Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// openAt opens path migrated up to version (0 = latest) and closes it when
// the test ends.
func openAt(t testing.TB, path string, version int) *Store {
	t.Helper()
	opt := quietOptions()
	opt.migrateTo = version
	s, err := OpenWith(path, opt)
	require.NoError(t, err, "open %s", path)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newStore opens a fresh database in the test's temp dir.
func newStore(t testing.TB) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "parley.db"), 0)
}

func mustConversation(t testing.TB, s *Store, title string) *chat.Conversation {
	t.Helper()
	c, err := s.CreateConversation(ctx, title, "default")
	require.NoError(t, err)
	return c
}

func mustAppend(t testing.TB, s *Store, convID, role, content string) *chat.Message {
	t.Helper()
	m := &chat.Message{ConversationID: convID, Role: role, Content: content}
	require.NoError(t, s.AppendMessage(ctx, m))
	return m
}

func fileHash(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// count runs a count(*) query on the store's readers.
func count(t testing.TB, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, s.readers.QueryRowContext(ctx, query, args...).Scan(&n), query)
	return n
}

// rawDB opens a plain connection pool to a database file (no Parley setup).
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driverName, path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func wantNotFound(t testing.TB, err error) {
	t.Helper()
	require.ErrorIs(t, err, chat.ErrNotFound)
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func ptr[T any](v T) *T { return &v }

// oldMessage is a message row as schema versions 1 to 3 stored it (before
// conversations were trees): what an older Parley wrote.
type oldMessage struct {
	ID, RunID, Role, Content, ToolCalls, ToolCallID, ToolName string
}

// insertOldMessage writes m into a database still at version 1 to 3, as
// that version's AppendMessage did, and bumps the conversation.
func insertOldMessage(t testing.TB, s *Store, convID string, m oldMessage) {
	t.Helper()
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	null := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	ts := formatTime(now())
	_, err := s.writer.ExecContext(ctx,
		`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, tool_call_id, tool_name, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, convID, null(m.RunID), m.Role, m.Content, null(m.ToolCalls), null(m.ToolCallID), null(m.ToolName), ts)
	require.NoError(t, err)
	_, err = s.writer.ExecContext(ctx, `UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?`, ts, convID)
	require.NoError(t, err)
}

// insertTreeMessage appends m as schema versions 6 and 7 stored it (a
// tree, before the thinking columns of 0008): the child of the leaf, which
// it becomes.
func insertTreeMessage(t testing.TB, s *Store, convID string, m chat.Message) {
	t.Helper()
	if m.ID == "" {
		m.ID = uuid.NewString()
	}
	var leaf sql.NullString
	require.NoError(t, s.writer.QueryRowContext(ctx, `SELECT leaf_id FROM conversations WHERE id = ?`, convID).Scan(&leaf))
	var stats any
	if m.Stats != nil {
		b, err := json.Marshal(m.Stats)
		require.NoError(t, err)
		stats = string(b)
	}
	ts := formatTime(now())
	_, err := s.writer.ExecContext(ctx,
		`INSERT INTO messages (id, conversation_id, run_id, role, content, created_at, parent_id, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, convID, nullString(m.RunID), m.Role, m.Content, ts, leaf, stats)
	require.NoError(t, err)
	_, err = s.writer.ExecContext(ctx, `UPDATE conversations SET leaf_id = ?, updated_at = max(updated_at, ?) WHERE id = ?`, m.ID, ts, convID)
	require.NoError(t, err)
}
