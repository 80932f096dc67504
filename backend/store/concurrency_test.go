package store

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// appendConcurrently runs writers goroutines, each appending perWriter
// messages round-robin over convs through the given stores, while readers
// list and load. It returns every error seen.
func appendConcurrently(t *testing.T, stores []*Store, convs []*chat.Conversation, writers, perWriter int) []error {
	t.Helper()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			s := stores[r%len(stores)]
			for {
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond): // readers alongside, not instead of, writers
				}
				if _, _, err := s.ListConversations(ctx, ListOptions{Limit: 10}); err != nil {
					fail(err)
				}
				if _, err := s.Messages(ctx, convs[r%len(convs)].ID); err != nil {
					fail(err)
				}
			}
		}()
	}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%len(stores)]
			for i := range perWriter {
				c := convs[(w+i)%len(convs)]
				m := &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: fmt.Sprintf("w%d-%d", w, i)}
				if err := s.AppendMessage(ctx, m); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	return errs
}

// checkAllAppended verifies every message is there once, and each writer's
// messages to a conversation are in the order it appended them.
func checkAllAppended(t *testing.T, s *Store, convs []*chat.Conversation, writers, perWriter int) {
	t.Helper()
	total := 0
	for _, c := range convs {
		msgs, err := s.Messages(ctx, c.ID)
		require.NoError(t, err)
		total += len(msgs)
		last := map[string]int{}
		for _, m := range msgs {
			var w, i int
			_, err := fmt.Sscanf(m.Content, "w%d-%d", &w, &i)
			require.NoError(t, err, "content %q", m.Content)
			key := fmt.Sprint(w)
			if prev, ok := last[key]; ok {
				assert.Greater(t, i, prev, "writer %d: message %d after %d", w, i, prev)
			}
			last[key] = i
		}
	}
	assert.Equal(t, writers*perWriter, total, "messages stored")
	assert.Equal(t, writers*perWriter, count(t, s, "SELECT count(DISTINCT content) FROM messages"), "distinct messages")
}

func TestParallelWriters(t *testing.T) {
	s := newStore(t)
	var convs []*chat.Conversation
	for i := range 4 {
		convs = append(convs, mustConversation(t, s, fmt.Sprintf("c%d", i)))
	}
	const writers, perWriter = 8, 100
	errs := appendConcurrently(t, []*Store{s}, convs, writers, perWriter)
	require.Empty(t, errs, "%d errors", len(errs))
	checkAllAppended(t, s, convs, writers, perWriter)
}

// Two handles on one file behave like two processes: they share it through
// SQLite's locks, which wait (busy_timeout) instead of failing.
func TestParallelWritersFromTwoHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	a := openAt(t, path, 0)
	b := openAt(t, path, 0)
	var convs []*chat.Conversation
	for i := range 3 {
		convs = append(convs, mustConversation(t, a, fmt.Sprintf("c%d", i)))
	}
	const writers, perWriter = 6, 100
	errs := appendConcurrently(t, []*Store{a, b}, convs, writers, perWriter)
	for _, err := range errs {
		require.NotContains(t, err.Error(), "SQLITE_BUSY", "busy error between handles")
		require.NotContains(t, err.Error(), "locked", "busy error between handles")
	}
	require.Empty(t, errs, "%d errors", len(errs))
	checkAllAppended(t, b, convs, writers, perWriter)
}
