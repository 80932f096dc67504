package exchange

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/store"
)

var ctx = context.Background()

// newStore opens a fresh database in the test's temp dir.
func newStore(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.OpenWith(filepath.Join(t.TempDir(), "parley.db"),
		store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mustConversation(t testing.TB, s *store.Store, title string) *chat.Conversation {
	t.Helper()
	c, err := s.CreateConversation(ctx, title, "default")
	require.NoError(t, err)
	return c
}

// rowCounts are the stored rows of every conversation (distinct ids for
// runs and cards).
type rowCounts struct{ conversations, messages, runs, cards int }

func countRows(t testing.TB, s *store.Store) rowCounts {
	t.Helper()
	convs, _, err := s.ListConversations(ctx, store.ListOptions{Limit: 200})
	require.NoError(t, err)
	var n rowCounts
	runs, cards := map[string]bool{}, map[string]bool{}
	for _, c := range convs {
		tr, err := s.Transcript(ctx, c.ID)
		require.NoError(t, err)
		n.conversations++
		n.messages += len(tr.Messages)
		for _, r := range tr.Runs {
			runs[r.ID] = true
		}
		for _, cd := range tr.Cards {
			cards[cd.ID] = true
		}
	}
	n.runs, n.cards = len(runs), len(cards)
	return n
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
