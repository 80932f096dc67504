package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkpointWait bounds a wait for the checkpointer; it only ends a broken run.
const checkpointWait = time.Minute

// openWatched opens a fresh store whose WAL checkpoints are sent to the
// returned channel (buffered: the checkpointer never waits for the test).
func openWatched(t *testing.T) (*Store, string, <-chan checkpointResult) {
	t.Helper()
	results := make(chan checkpointResult, 4096)
	path := filepath.Join(t.TempDir(), "parley.db")
	opt := quietOptions()
	opt.checkpointed = func(r checkpointResult) {
		select {
		case results <- r:
		default:
		}
	}
	s, err := OpenWith(path, opt)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, path, results
}

// waitCheckpoint waits for a checkpoint that ok accepts.
func waitCheckpoint(t *testing.T, results <-chan checkpointResult, what string, ok func(checkpointResult) bool) checkpointResult {
	t.Helper()
	deadline := time.After(checkpointWait)
	for {
		select {
		case r := <-results:
			require.NoError(t, r.Err, "a checkpoint failed")
			if ok(r) {
				return r
			}
		case <-deadline:
			require.FailNow(t, "no checkpoint came", what)
		}
	}
}

func appendBatch(t *testing.T, s *Store, conv string, size int) {
	t.Helper()
	batch := make([]*chat.Message, size)
	for i := range batch {
		batch[i] = &chat.Message{ConversationID: conv, Role: chat.RoleAssistant, Content: "A reply of moderate length, indexed for search."}
	}
	require.NoError(t, s.AppendMessages(ctx, batch))
}

func TestCheckpointsCopyCommitsIntoTheFile(t *testing.T) {
	s, path, results := openWatched(t)
	c, err := s.CreateConversation(ctx, "checkpoints", "default")
	require.NoError(t, err)
	// Far fewer pages than SQLite's automatic checkpoint waits for: without
	// the checkpointer the database file would still be empty (everything,
	// the schema too, in the WAL).
	for range 2 * checkpointEvery {
		require.NoError(t, s.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: "hello"}))
	}
	r := waitCheckpoint(t, results, "after 64 commits", func(r checkpointResult) bool { return !r.OnWriter && r.Checkpointed > 0 })
	assert.Zero(t, r.Busy)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(16*4096), "the checkpoints copied next to nothing into the database file")
	var check string
	require.NoError(t, s.readers.QueryRow(`PRAGMA integrity_check`).Scan(&check))
	assert.Equal(t, "ok", check)
}

func TestSteadyWritingKeepsTheWALShort(t *testing.T) {
	s, path, results := openWatched(t)
	c, err := s.CreateConversation(ctx, "steady", "default")
	require.NoError(t, err)
	// 600 commits of ten messages write some 24,000 WAL pages (~100 MB):
	// commits land during every checkpoint beside the writer, so only the
	// checkpoints finished on the writer let the WAL start over.
	const batches = 600
	var largest int64
	for range batches {
		appendBatch(t, s, c.ID, 10)
		if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > largest {
			largest = st.Size()
		}
	}
	r := waitCheckpoint(t, results, "a checkpoint on the writer's connection", func(r checkpointResult) bool { return r.OnWriter })
	assert.Equal(t, r.Frames, r.Checkpointed, "the checkpoint on the writer's connection left pages behind: %+v", r)
	assert.Less(t, largest, int64(48<<20), "the WAL grew to %d MB", largest>>20)

	require.NoError(t, s.Close())
	_, err = os.Stat(path + "-wal")
	assert.ErrorIs(t, err, os.ErrNotExist, "closing left the WAL behind")
	again := openAt(t, path, 0)
	msgs, err := again.Messages(ctx, c.ID)
	require.NoError(t, err)
	assert.Len(t, msgs, batches*10)
}
