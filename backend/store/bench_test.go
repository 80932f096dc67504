package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

var benchWords = []string{"plan", "trip", "golang", "sqlite", "recipe", "budget", "invoice", "garden", "python",
	"music", "review", "draft", "email", "report", "travel", "schedule", "bug", "deploy", "design", "notes"}

// bulkConversations inserts n conversations with msgsEach messages each in
// one transaction (fixtures only: far faster than n*msgsEach commits).
// One conversation in 100 mentions "kubernetes".
func bulkConversations(b *testing.B, s *Store, n, msgsEach int) {
	b.Helper()
	base := at("2025-01-01T00:00:00Z")
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		convStmt, err := tx.Prepare(`INSERT INTO conversations (id, title, assistant, pinned, created_at, updated_at) VALUES (?, ?, 'default', ?, ?, ?)`)
		if err != nil {
			return err
		}
		msgStmt, err := tx.Prepare(`INSERT INTO messages (id, conversation_id, role, content, created_at, parent_id) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		for i := range n {
			id := uuid.NewString()
			ts := formatTime(base.Add(time.Duration(i) * time.Minute))
			title := fmt.Sprintf("%s %s %d", benchWords[i%len(benchWords)], benchWords[(i/7)%len(benchWords)], i)
			if _, err := convStmt.Exec(id, title, i%97 == 0, ts, ts); err != nil {
				return err
			}
			parent := ""
			for j := range msgsEach {
				role, text := chat.RoleUser, fmt.Sprintf("Could you help with my %s and %s? Message %d.",
					benchWords[(i+j)%len(benchWords)], benchWords[(i*3+j)%len(benchWords)], j)
				if j%2 == 1 {
					role = chat.RoleAssistant
					text = "Sure. Here is a detailed answer with several sentences about " + benchWords[(i+2*j)%len(benchWords)] +
						" that takes some room, as assistant replies do, with a list and a few more words to index."
				}
				if i%100 == 0 && j == 0 {
					text += " Also, how do I run this on kubernetes?"
				}
				msgID := uuid.NewString()
				res, err := msgStmt.Exec(msgID, id, role, text, ts, nullString(parent))
				if err != nil {
					return err
				}
				seq, err := res.LastInsertId()
				if err != nil {
					return err
				}
				if err := indexMessage(ctx, tx, seq, role, text); err != nil {
					return err
				}
				parent = msgID
			}
			if _, err := tx.Exec(`UPDATE conversations SET leaf_id = ? WHERE id = ?`, nullString(parent), id); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(b, err)
}

func benchStore(b *testing.B) *Store {
	b.Helper()
	return openAt(b, filepath.Join(b.TempDir(), "parley.db"), 0)
}

// BenchmarkListFirstPage: the first page of 50 out of 10,000
// conversations (30,000 messages), plain and searched.
func BenchmarkListFirstPage(b *testing.B) {
	s := benchStore(b)
	start := time.Now()
	bulkConversations(b, s, 10_000, 3)
	b.Logf("fixture: 10,000 conversations, 30,000 messages in %v", time.Since(start).Round(time.Millisecond))

	for _, bm := range []struct {
		name  string
		query string
		want  int
	}{
		{"first_page", "", 50},
		{"second_page", "", 50},
		{"search_title", "garden", 50},
		{"search_message_rare", "kubernetes", 50},
		{"search_two_words", "help golang", 50},
	} {
		b.Run(bm.name, func(b *testing.B) {
			opt := ListOptions{Limit: 50, Query: bm.query}
			if bm.name == "second_page" {
				_, next, err := s.ListConversations(ctx, opt)
				require.NoError(b, err)
				opt.Cursor = next
			}
			rows := 0
			for b.Loop() {
				page, _, err := s.ListConversations(ctx, opt)
				require.NoError(b, err)
				rows = len(page)
			}
			require.GreaterOrEqual(b, rows, bm.want, "rows on the page")
			b.ReportMetric(float64(rows), "rows/page")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
		})
	}
}

// BenchmarkOpenConversation5000Messages: opening a conversation of 5,000 messages.
func BenchmarkOpenConversation5000Messages(b *testing.B) {
	s := benchStore(b)
	bulkConversations(b, s, 1, 5_000)
	page, _, err := s.ListConversations(ctx, ListOptions{Limit: 1})
	require.NoError(b, err)
	require.Len(b, page, 1)
	id := page[0].ID
	n := 0
	for b.Loop() {
		msgs, err := s.Messages(ctx, id)
		require.NoError(b, err)
		n = len(msgs)
	}
	require.Equal(b, 5_000, n, "messages")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkAppendMessage: message insert throughput, one commit each, as
// the assistant loop writes them (sequential, then from GOMAXPROCS goroutines).
func BenchmarkAppendMessage(b *testing.B) {
	b.Run("sequential", func(b *testing.B) {
		s := benchStore(b)
		c, err := s.CreateConversation(ctx, "bench", "default")
		require.NoError(b, err)
		for b.Loop() {
			m := &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "A reply of moderate length, indexed for search."}
			require.NoError(b, s.AppendMessage(ctx, m))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	// Batches of messages in one transaction (AppendMessages), as an
	// import or results written together do.
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("batch-%d", size), func(b *testing.B) {
			s := benchStore(b)
			c, err := s.CreateConversation(ctx, "bench", "default")
			require.NoError(b, err)
			batch := make([]*chat.Message, size)
			for b.Loop() {
				for i := range batch {
					batch[i] = &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "A reply of moderate length, indexed for search."}
				}
				require.NoError(b, s.AppendMessages(ctx, batch))
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/msg")
		})
	}
	b.Run("parallel", func(b *testing.B) {
		s := benchStore(b)
		var convs []string
		for i := range 4 {
			c, err := s.CreateConversation(ctx, fmt.Sprint("bench ", i), "default")
			require.NoError(b, err)
			convs = append(convs, c.ID)
		}
		b.SetParallelism(1) // GOMAXPROCS goroutines
		b.ResetTimer()
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			id := convs[int(next.Add(1))%len(convs)]
			for pb.Next() {
				m := &chat.Message{ConversationID: id, Role: chat.RoleUser, Content: "parallel message"}
				// assert, not require: this is not the benchmark's goroutine.
				if !assert.NoError(b, s.AppendMessage(ctx, m)) {
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}
