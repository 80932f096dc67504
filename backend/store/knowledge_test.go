package store

import (
	"testing"

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
