//go:build cgo && sqlite_fts5 && libsqlite3 && !windows

package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// The cgo driver keeps prepared statements on its connections: appending a
// message does not compile the INSERT (and its search triggers) again.
// (The sqlite_stmt table it is seen in exists in the system SQLite, not in
// the one compiled in without libsqlite3.)
func TestWriterKeepsPreparedStatements(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "cache")
	kept := func() int {
		var n int
		// The writer has one connection: this query runs where the appends ran.
		require.NoError(t, s.writer.QueryRowContext(ctx,
			`SELECT count(*) FROM sqlite_stmt WHERE sql LIKE 'INSERT INTO messages %'`).Scan(&n))
		return n
	}
	mustAppend(t, s, c.ID, chat.RoleUser, "one")
	assert.Equal(t, 1, kept(), "INSERT INTO messages kept after the first append")
	mustAppend(t, s, c.ID, chat.RoleAssistant, "two")
	assert.Equal(t, 1, kept(), "the second append reused it")
	msgs, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"one", "two"}, contents(msgs))
}
