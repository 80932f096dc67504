package store

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
)

func TestKnowledgeFilesPassagesAndKeywordSearch(t *testing.T) {
	s := newStore(t)
	c, err := s.CreateCollection(ctx, "Docs", []string{"/docs"})
	require.NoError(t, err)
	other, err := s.CreateCollection(ctx, "Other", []string{"/other"})
	require.NoError(t, err)

	require.NoError(t, s.AddPendingFiles(ctx, c.ID, []KnowledgeFile{{Path: "/docs/a.md", Size: 10, MtimeNs: 1}, {Path: "/docs/b.md", Size: 5, MtimeNs: 2}}))
	k, err := s.KnowledgeCounts(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, k.Files, "pending files count")
	assert.Equal(t, 0, k.IndexedFiles)

	require.NoError(t, s.SaveIndexedFiles(ctx, c.ID, []IndexedFile{
		{Path: "/docs/a.md", Size: 10, MtimeNs: 1, Hash: "h1", Passages: []Passage{
			{Locator: "Setup › Linux", Text: "Installing packages with apt on Debian."},
			{Locator: "Setup › macOS", Text: "Drag the application into the folder."},
		}},
		{Path: "/docs/b.md", Size: 5, MtimeNs: 2, Err: "unreadable PDF: broken"},
	}))
	require.NoError(t, s.SaveIndexedFiles(ctx, other.ID, []IndexedFile{
		{Path: "/other/c.md", Size: 1, MtimeNs: 1, Hash: "h3", Passages: []Passage{{Locator: "lines 1–2", Text: "Installing the other thing."}}},
	}))
	k, err = s.KnowledgeCounts(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, KnowledgeCounts{Files: 2, IndexedFiles: 1, Chunks: 2, Errors: []FileProblem{{Path: "/docs/b.md", Error: "unreadable PDF: broken"}}}, k)

	// Stemming (porter): "installed" finds "Installing"; heading words count.
	seqs, err := s.KeywordSearch(ctx, []string{c.ID}, `"installed"`, 10)
	require.NoError(t, err)
	require.Len(t, seqs, 1, "only this collection's passages")
	hits, err := s.Chunks(ctx, seqs)
	require.NoError(t, err)
	assert.Equal(t, "Setup › Linux", hits[seqs[0]].Locator)
	assert.Equal(t, "/docs/a.md", hits[seqs[0]].Path)
	seqs, err = s.KeywordSearch(ctx, []string{c.ID}, `"macos"`, 10)
	require.NoError(t, err)
	require.Len(t, seqs, 1, "the locator is searched")
	seqs, err = s.KeywordSearch(ctx, []string{c.ID, other.ID}, `"installing"`, 10)
	require.NoError(t, err)
	assert.Len(t, seqs, 2, "both collections")
	counts, err := s.KeywordMatches(ctx, []string{`"installing"`, `"folder"`, `"zypper"`, `"installing" AND "debian"`})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 1, 0, 1}, counts, "matches of each expression, every collection")
	_, err = s.KeywordMatches(ctx, []string{`"unclosed`})
	assert.Error(t, err, "a malformed expression")

	// Re-indexing a file replaces its passages (the old ones leave the index).
	require.NoError(t, s.SaveIndexedFiles(ctx, c.ID, []IndexedFile{
		{Path: "/docs/a.md", Size: 11, MtimeNs: 3, Hash: "h2", Passages: []Passage{{Locator: "Setup", Text: "Only zypper now."}}},
	}))
	seqs, err = s.KeywordSearch(ctx, []string{c.ID}, `"apt"`, 10)
	require.NoError(t, err)
	assert.Empty(t, seqs, "old passage still found")
	files, err := s.KnowledgeFiles(ctx, c.ID)
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.Equal(t, KnowledgeFile{Path: "/docs/a.md", Size: 11, MtimeNs: 3, Hash: "h2", Status: FileIndexed}, files[0])

	// Deleted files and deleted collections leave no passage behind.
	require.NoError(t, s.DeleteKnowledgeFiles(ctx, c.ID, []string{"/docs/a.md"}))
	seqs, err = s.KeywordSearch(ctx, []string{c.ID}, `"zypper"`, 10)
	require.NoError(t, err)
	assert.Empty(t, seqs)
	require.NoError(t, s.DeleteCollection(ctx, other.ID))
	purgeAll(t, s)
	var left int
	require.NoError(t, s.readers.QueryRow(`SELECT count(*) FROM knowledge_chunks`).Scan(&left))
	assert.Equal(t, 0, left)
	require.NoError(t, s.readers.QueryRow(`SELECT count(*) FROM knowledge_search WHERE knowledge_search MATCH '"other"'`).Scan(&left))
	assert.Equal(t, 0, left, "the search index still holds a deleted collection's passage")
	_, err = s.Collection(ctx, other.ID)
	assert.ErrorIs(t, err, chat.ErrNotFound)
}

func TestKnowledgeEmbeddings(t *testing.T) {
	s := newStore(t)
	c, err := s.CreateCollection(ctx, "Docs", []string{"/docs"})
	require.NoError(t, err)
	require.NoError(t, s.SaveIndexedFiles(ctx, c.ID, []IndexedFile{{Path: "/docs/a.md", Hash: "h", Passages: []Passage{
		{Locator: "A", Text: "one"}, {Locator: "B", Text: "two"}, {Locator: "C", Text: "three"}}}}))
	todo, err := s.ChunksToEmbed(ctx, "m1", 0, 2)
	require.NoError(t, err)
	require.Len(t, todo, 2)
	assert.Equal(t, "one", todo[0].Text)
	require.NoError(t, s.SaveEmbeddings(ctx, "m1", []Embedding{{Seq: todo[0].Seq, Vector: []byte{1, 2}, Bits: []byte{3}}, {Seq: todo[1].Seq, Vector: []byte{4, 5}, Bits: []byte{6}}}))
	rest, err := s.ChunksToEmbed(ctx, "m1", todo[1].Seq, 10)
	require.NoError(t, err)
	require.Len(t, rest, 1)
	assert.Equal(t, "three", rest[0].Text)
	n, err := s.CountWithVector(ctx, c.ID, "m1")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	n, err = s.CountWithoutVector(ctx, c.ID, "m1")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	// Another model: everything needs a vector again.
	again, err := s.ChunksToEmbed(ctx, "m2", 0, 10)
	require.NoError(t, err)
	assert.Len(t, again, 3)
	var seqs []int64
	var vectors, codes [][]byte
	require.NoError(t, s.CollectionVectors(ctx, c.ID, "m1", func(seq int64, v, b []byte) {
		seqs = append(seqs, seq)
		vectors = append(vectors, append([]byte(nil), v...))
		codes = append(codes, append([]byte(nil), b...))
	}))
	assert.Equal(t, []int64{todo[0].Seq, todo[1].Seq}, seqs)
	assert.Equal(t, [][]byte{{1, 2}, {4, 5}}, vectors)
	assert.Equal(t, [][]byte{{3}, {6}}, codes)
	require.NoError(t, s.CollectionVectors(ctx, c.ID, "m2", func(int64, []byte, []byte) { t.Error("no vector of m2") }))
}

func TestConversationProfileKnowledgeAndMessageSources(t *testing.T) {
	s := newStore(t)
	conv := mustConversation(t, s, "k")
	require.NoError(t, s.SetConversationKnowledge(ctx, conv.ID, []string{"c1", "c2"}))
	got, err := s.GetConversation(ctx, conv.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{"c1", "c2"}, got.Knowledge)
	require.NoError(t, s.SetConversationKnowledge(ctx, conv.ID, nil))
	got, err = s.GetConversation(ctx, conv.ID)
	require.NoError(t, err)
	assert.Nil(t, got.Knowledge)
	assert.ErrorIs(t, s.SetConversationKnowledge(ctx, "missing", []string{"c1"}), chat.ErrNotFound)

	require.NoError(t, s.SaveProfile(ctx, Profile{Name: "researcher", Knowledge: []string{"c9"}}))
	p, err := s.Profile(ctx, "researcher")
	require.NoError(t, err)
	assert.Equal(t, []string{"c9"}, p.Knowledge)

	m := &chat.Message{ConversationID: conv.ID, Role: chat.RoleAssistant, Content: "See [1].",
		Sources: []chat.Source{{N: 1, Path: "/docs/a.md", Locator: "Setup", Text: "passage"}}}
	require.NoError(t, s.AppendMessage(ctx, m))
	msgs, err := s.Messages(ctx, conv.ID)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, m.Sources, msgs[0].Sources)
}

// purgeAll purges what deleted collections left, one short transaction a
// call, and returns how many calls it took.
func purgeAll(t *testing.T, s *Store) int {
	t.Helper()
	calls := 0
	for more := true; more; calls++ {
		var err error
		more, err = s.PurgeDeletedKnowledge(ctx)
		require.NoError(t, err)
	}
	files, passages, err := s.DeletedKnowledgeLeft(ctx)
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 0}, [2]int{files, passages}, "left after the purge")
	return calls
}

// bigCollection stores a collection of files × perFile passages.
func bigCollection(t *testing.T, s *Store, files, perFile int) *Collection {
	t.Helper()
	c, err := s.CreateCollection(ctx, "Big", []string{"/big"})
	require.NoError(t, err)
	var batch []IndexedFile
	for f := range files {
		ps := make([]Passage, perFile)
		for i := range ps {
			ps[i] = Passage{Locator: fmt.Sprintf("lines %d–%d", i*10+1, i*10+10), Text: fmt.Sprintf("passage %d of file %d about lighthouses", i, f)}
		}
		batch = append(batch, IndexedFile{Path: fmt.Sprintf("/big/f%04d.md", f), Hash: "h", Passages: ps})
	}
	require.NoError(t, s.SaveIndexedFiles(ctx, c.ID, batch))
	return c
}

func TestDeleteCollectionIsOneShortWriteAndThePurgeLetsOtherWritesIn(t *testing.T) {
	s := newStore(t)
	conv := mustConversation(t, s, "chat")
	keep := bigCollection(t, s, 3, 4)
	c := bigCollection(t, s, 60, 20)
	require.NoError(t, s.DeleteCollection(ctx, c.ID))
	_, err := s.Collection(ctx, c.ID)
	assert.ErrorIs(t, err, chat.ErrNotFound, "gone at once")
	assert.ErrorIs(t, s.DeleteCollection(ctx, c.ID), chat.ErrNotFound, "deleted twice")
	files, passages, err := s.DeletedKnowledgeLeft(ctx)
	require.NoError(t, err)
	assert.Equal(t, [2]int{60, 1200}, [2]int{files, passages}, "left to purge, not removed by a cascade")
	// The writer connection has its foreign keys back.
	var fk int
	require.NoError(t, s.writer.QueryRow(`PRAGMA foreign_keys`).Scan(&fk))
	assert.Equal(t, 1, fk)

	// While the purge's first transaction holds the writer, the chat
	// stores a message: it queues for the connection, gets it when that
	// transaction commits, and is stored before the next one begins, while
	// most of the collection is still there.
	var begun atomic.Int32
	wrote := make(chan error, 1)
	var storedAt2nd, leftAt2nd int
	s.txBegun = func() {
		switch begun.Add(1) {
		case 1:
			waits := s.writer.Stats().WaitCount
			go func() {
				wrote <- s.AppendMessage(ctx, &chat.Message{ConversationID: conv.ID, Role: chat.RoleUser, Content: "still there?"})
			}()
			require.Eventually(t, func() bool { return s.writer.Stats().WaitCount > waits }, 30*time.Second, time.Millisecond,
				"the message write waits for the writer")
		case 2:
			msgs, err := s.Messages(ctx, conv.ID)
			assert.NoError(t, err)
			storedAt2nd = len(msgs)
			_, leftAt2nd, err = s.DeletedKnowledgeLeft(ctx)
			assert.NoError(t, err)
		}
	}
	calls := purgeAll(t, s)
	s.txBegun = nil
	require.NoError(t, <-wrote)
	assert.Equal(t, 1, storedAt2nd, "the message was stored between the purge's first and second transactions")
	assert.Greater(t, leftAt2nd, 600, "passages of the deleted collection left when the message was stored")
	assert.GreaterOrEqual(t, calls, 1200/maxTxRows, "short transactions")
	assert.EqualValues(t, calls, begun.Load(), "one transaction a call")

	// Nothing of it is left in the search index; the other collection is whole.
	var left int
	require.NoError(t, s.readers.QueryRow(`SELECT count(*) FROM knowledge_search WHERE knowledge_search MATCH 'lighthouses'`).Scan(&left))
	assert.Equal(t, 12, left, "only the kept collection's passages are found")
	k, err := s.KnowledgeCounts(ctx, keep.ID)
	require.NoError(t, err)
	assert.Equal(t, 3, k.Files)
	assert.Equal(t, 12, k.Chunks)
}

func TestLongIndexWritesAreShortTransactions(t *testing.T) {
	s := newStore(t)
	c, err := s.CreateCollection(ctx, "Docs", []string{"/docs"})
	require.NoError(t, err)
	ps := make([]Passage, 600)
	for i := range ps {
		ps[i] = Passage{Locator: fmt.Sprintf("p. %d", i+1), Text: "a long manual " + strings.Repeat("word ", 20)}
	}
	// A file of 600 passages spans several transactions and stays
	// pending (not indexed, its hash unknown) until its last one.
	var begun atomic.Int32
	var statusSeen []string
	s.txBegun = func() {
		if begun.Add(1) > 1 {
			files, err := s.KnowledgeFiles(ctx, c.ID)
			assert.NoError(t, err)
			for _, f := range files {
				statusSeen = append(statusSeen, f.Status+":"+f.Hash)
			}
		}
	}
	require.NoError(t, s.SaveIndexedFiles(ctx, c.ID, []IndexedFile{{Path: "/docs/manual.pdf", Size: 9, MtimeNs: 9, Hash: "h1", Passages: ps}}))
	assert.GreaterOrEqual(t, int(begun.Load()), 600/maxTxRows, "transactions")
	require.NotEmpty(t, statusSeen)
	for _, st := range statusSeen {
		assert.Equal(t, "pending:", st, "a file half stored is pending")
	}
	k, err := s.KnowledgeCounts(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, KnowledgeCounts{Files: 1, IndexedFiles: 1, Chunks: 600}, k)

	// Replacing it by a short version removes the old passages in steps too.
	begun.Store(0)
	statusSeen = nil
	require.NoError(t, s.SaveIndexedFiles(ctx, c.ID, []IndexedFile{{Path: "/docs/manual.pdf", Size: 10, MtimeNs: 10, Hash: "h2", Passages: ps[:2]}}))
	assert.GreaterOrEqual(t, int(begun.Load()), 600/maxTxRows)
	files, err := s.KnowledgeFiles(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, []KnowledgeFile{{Path: "/docs/manual.pdf", Size: 10, MtimeNs: 10, Hash: "h2", Status: FileIndexed}}, files)

	// Many new files and a folder gone: short transactions as well.
	many := make([]KnowledgeFile, 2*maxTxRows+1)
	paths := make([]string, len(many))
	for i := range many {
		many[i] = KnowledgeFile{Path: fmt.Sprintf("/docs/n%04d.md", i), Size: 1, MtimeNs: 1}
		paths[i] = many[i].Path
	}
	s.txBegun = nil
	begun.Store(0)
	s.txBegun = func() { begun.Add(1) }
	require.NoError(t, s.AddPendingFiles(ctx, c.ID, many))
	assert.GreaterOrEqual(t, int(begun.Load()), 3)
	begun.Store(0)
	require.NoError(t, s.DeleteKnowledgeFiles(ctx, c.ID, append(paths, "/docs/manual.pdf")))
	assert.GreaterOrEqual(t, int(begun.Load()), 3)
	k, err = s.KnowledgeCounts(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, KnowledgeCounts{}, k)
}

// On a machine so busy that every short transaction finds its time spent
// before its first write (txTime 0 plays it), each one still makes
// progress: the purge, a batch of files, a deletion all finish, each
// transaction having changed something.
func TestShortTransactionsProgressWhateverTheClock(t *testing.T) {
	s := newStore(t)
	s.txTime = 0
	c := bigCollection(t, s, 6, 20)
	require.NoError(t, s.DeleteCollection(ctx, c.ID))
	for calls := 1; ; calls++ {
		_, before, err := s.DeletedKnowledgeLeft(ctx)
		require.NoError(t, err)
		more, err := s.PurgeDeletedKnowledge(ctx)
		require.NoError(t, err)
		files, after, err := s.DeletedKnowledgeLeft(ctx)
		require.NoError(t, err)
		if !more {
			require.Equal(t, [2]int{0, 0}, [2]int{files, after}, "the purge said it was done")
			break
		}
		require.Less(t, after+files, before+6, "call %d removed nothing", calls)
		require.Less(t, calls, 1000, "the purge never ends")
	}

	d, err := s.CreateCollection(ctx, "Docs", []string{"/docs"})
	require.NoError(t, err)
	var begun atomic.Int32
	s.txBegun = func() { begun.Add(1) }
	ps := make([]Passage, 40)
	for i := range ps {
		ps[i] = Passage{Locator: fmt.Sprintf("p. %d", i+1), Text: "slow machine"}
	}
	require.NoError(t, s.SaveIndexedFiles(ctx, d.ID, []IndexedFile{{Path: "/docs/a.md", Size: 1, MtimeNs: 1, Hash: "h", Passages: ps}}))
	k, err := s.KnowledgeCounts(ctx, d.ID)
	require.NoError(t, err)
	assert.Equal(t, KnowledgeCounts{Files: 1, IndexedFiles: 1, Chunks: 40}, k)
	assert.LessOrEqual(t, int(begun.Load()), 41, "at least one row a transaction")
	require.NoError(t, s.DeleteKnowledgeFiles(ctx, d.ID, []string{"/docs/a.md"}))
	k, err = s.KnowledgeCounts(ctx, d.ID)
	require.NoError(t, err)
	assert.Equal(t, KnowledgeCounts{}, k)
}
