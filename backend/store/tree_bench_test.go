package store

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

// branchedConversation stores a conversation of total messages whose
// visible path has points branch points: at each, an edited user message
// with its reply beside the original (the edit hidden, the original shown).
// It returns the conversation and, per branch point, the two siblings.
func branchedConversation(b *testing.B, s *Store, total, points int) (string, [][2]string) {
	b.Helper()
	c, err := s.CreateConversation(ctx, "branched", "default")
	require.NoError(b, err)
	chain := total - 2*points
	every := chain / (points + 1)
	var pairs [][2]string
	var leafBefore string
	text := func(i int) string {
		return fmt.Sprintf("Message %d about %s and %s, long enough to be a real line of chat.", i, benchWords[i%len(benchWords)], benchWords[(i*7)%len(benchWords)])
	}
	for i := 0; i < chain; i++ {
		role := chat.RoleUser
		if i%2 == 1 {
			role = chat.RoleAssistant
		}
		m := mustAppend(b, s, c.ID, role, text(i))
		if role == chat.RoleUser && i > 0 && len(pairs) < points && i/every > len(pairs) {
			// Edit this user message: a sibling with a reply, then back.
			require.NoError(b, s.SetLeaf(ctx, c.ID, m.ParentID))
			edit := mustAppend(b, s, c.ID, chat.RoleUser, text(i)+" (edited)")
			mustAppend(b, s, c.ID, chat.RoleAssistant, "reply to the edit")
			require.NoError(b, s.SelectBranch(ctx, c.ID, m.ID))
			pairs = append(pairs, [2]string{m.ID, edit.ID})
		}
		leafBefore = m.ID
	}
	require.Len(b, pairs, points)
	require.NoError(b, s.SelectBranch(ctx, c.ID, leafBefore))
	return c.ID, pairs
}

func linearConversation(b *testing.B, s *Store, total int) string {
	b.Helper()
	bulkConversations(b, s, 1, total)
	page, _, err := s.ListConversations(ctx, ListOptions{Limit: 1})
	require.NoError(b, err)
	return page[0].ID
}

// BenchmarkOpenTree: opening a 5,000-message conversation with 50 branch
// points next to a linear one of 5,000: "first" opens the database file and
// reads it once (the first open after a start), "again" reads it again.
func BenchmarkOpenTree(b *testing.B) {
	for _, kind := range []string{"linear", "branched"} {
		path := filepath.Join(b.TempDir(), "parley.db")
		s := openAt(b, path, 0)
		var id string
		want := 5_000
		if kind == "linear" {
			id = linearConversation(b, s, 5_000)
		} else {
			id, _ = branchedConversation(b, s, 5_000, 50)
			want = 5_000 - 2*50
		}
		require.NoError(b, s.Close())
		b.Run(kind+"/first", func(b *testing.B) {
			n := 0
			for b.Loop() {
				s, err := OpenWith(path, quietOptions())
				require.NoError(b, err)
				msgs, err := s.Messages(ctx, id)
				require.NoError(b, err)
				n = len(msgs)
				require.NoError(b, s.Close())
			}
			require.Equal(b, want, n)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
		})
		b.Run(kind+"/again", func(b *testing.B) {
			s := openAt(b, path, 0)
			n := 0
			for b.Loop() {
				msgs, err := s.Messages(ctx, id)
				require.NoError(b, err)
				n = len(msgs)
			}
			require.Equal(b, want, n)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/open")
		})
	}
}

// BenchmarkSwitchBranch: the < 2/2 > switch at one of 50 branch points of a
// 5,000-message conversation, alone and with the path read back (what PUT
// /branch answers).
func BenchmarkSwitchBranch(b *testing.B) {
	s := benchStore(b)
	id, pairs := branchedConversation(b, s, 5_000, 50)
	b.Run("switch", func(b *testing.B) {
		i := 0
		for b.Loop() {
			p := pairs[i%len(pairs)]
			require.NoError(b, s.SelectBranch(ctx, id, p[(i/len(pairs))%2]))
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/switch")
	})
	b.Run("switch+open", func(b *testing.B) {
		i := 0
		for b.Loop() {
			p := pairs[i%len(pairs)]
			require.NoError(b, s.SelectBranch(ctx, id, p[(i/len(pairs))%2]))
			_, err := s.Messages(ctx, id)
			require.NoError(b, err)
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/switch")
	})
}

// BenchmarkAppendWith1MBTextFile: storing a user message with a 1 MB text
// file, next to the same message without it.
func BenchmarkAppendWith1MBTextFile(b *testing.B) {
	file := bytes.Repeat([]byte("log line with some words in it\n"), (1<<20)/31)
	for _, withFile := range []bool{false, true} {
		name := "plain"
		if withFile {
			name = "1MB-file"
		}
		b.Run(name, func(b *testing.B) {
			s := benchStore(b)
			c, err := s.CreateConversation(ctx, "files", "default")
			require.NoError(b, err)
			for b.Loop() {
				m := &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: "What is wrong here?"}
				if withFile {
					m.Attachments = []chat.Attachment{{Name: "app.log", MIMEType: "text/plain", Data: file}}
				}
				require.NoError(b, s.AppendMessage(ctx, m))
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/msg")
		})
	}
}
