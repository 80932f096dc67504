package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
)

func mustProject(t testing.TB, s *Store, name string) *chat.Project {
	t.Helper()
	p, err := s.CreateProject(ctx, chat.Project{Name: name, Instructions: "Answer in French.", Knowledge: []string{"k1"}, Profile: "coder", Model: "m1"})
	require.NoError(t, err)
	return p
}

func TestProjectCRUD(t *testing.T) {
	s := newStore(t)
	p := mustProject(t, s, "Zeppelins")
	require.NotEmpty(t, p.ID)
	got, err := s.Project(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, p, got, "read back")

	empty, err := s.CreateProject(ctx, chat.Project{Name: "airships"})
	require.NoError(t, err)
	assert.Equal(t, []string{}, empty.Knowledge, "no collections is an empty list")
	list, err := s.Projects(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, []string{"airships", "Zeppelins"}, []string{list[0].Name, list[1].Name}, "by name, case ignored")

	p.Name, p.Instructions, p.Knowledge, p.Profile, p.Model = "Blimps", "", nil, "", ""
	require.NoError(t, s.UpdateProject(ctx, p))
	got, err = s.Project(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, "Blimps", got.Name)
	assert.Equal(t, []string{}, got.Knowledge)
	assert.Empty(t, got.Profile+got.Model+got.Instructions)
	assert.False(t, got.UpdatedAt.Before(got.CreatedAt))

	assert.ErrorIs(t, s.UpdateProject(ctx, &chat.Project{ID: "nope"}), chat.ErrNotFound)
	_, err = s.Project(ctx, "nope")
	assert.ErrorIs(t, err, chat.ErrNotFound)
	_, err = s.DeleteProject(ctx, "nope", false)
	assert.ErrorIs(t, err, chat.ErrNotFound)
}

func TestConversationsInProjects(t *testing.T) {
	s := newStore(t)
	p := mustProject(t, s, "P")
	in, err := s.CreateConversationWith(ctx, chat.Conversation{Title: "in", Assistant: "default", Model: "m2", ProjectID: &p.ID})
	require.NoError(t, err)
	got, err := s.GetConversation(ctx, in.ID)
	require.NoError(t, err)
	require.NotNil(t, got.ProjectID)
	assert.Equal(t, p.ID, *got.ProjectID)
	assert.Equal(t, "m2", got.Model)

	_, err = s.CreateConversationWith(ctx, chat.Conversation{Title: "lost", ProjectID: ptr("nope")})
	assert.ErrorIs(t, err, ErrNoProject)
	out := mustConversation(t, s, "out")
	assert.Nil(t, out.ProjectID)
	assert.Equal(t, 2, count(t, s, "SELECT count(*) FROM conversations"), "the refused conversation was stored")

	assert.ErrorIs(t, s.SetConversationProject(ctx, out.ID, "nope"), ErrNoProject)
	assert.ErrorIs(t, s.SetConversationProject(ctx, "nope", p.ID), chat.ErrNotFound)
	require.NoError(t, s.SetConversationProject(ctx, out.ID, p.ID))
	ids, err := s.ProjectConversationIDs(ctx, p.ID)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{in.ID, out.ID}, ids)
	require.NoError(t, s.SetConversationProject(ctx, out.ID, ""))
	got, err = s.GetConversation(ctx, out.ID)
	require.NoError(t, err)
	assert.Nil(t, got.ProjectID, "left the project")

	left, err := s.DeleteProject(ctx, p.ID, false)
	require.NoError(t, err)
	assert.Equal(t, []string{in.ID}, left)
	got, err = s.GetConversation(ctx, in.ID)
	require.NoError(t, err, "a deleted project's conversation stays")
	assert.Nil(t, got.ProjectID, "and leaves the project")
}

func TestListFiltersByProject(t *testing.T) {
	s := newStore(t)
	p := mustProject(t, s, "P")
	var want []string
	for i := range 7 {
		c := mustConversation(t, s, fmt.Sprintf("zeppelin %d", i))
		if i%2 == 0 {
			require.NoError(t, s.SetConversationProject(ctx, c.ID, p.ID))
			want = append([]string{c.ID}, want...) // newest first
		}
	}
	all, pages := pageThrough(t, s, ListOptions{Limit: 2, Project: p.ID}, 20)
	assert.Equal(t, 2, pages, "4 conversations in pages of 2")
	var got []string
	for _, c := range all {
		got = append(got, c.ID)
		require.NotNil(t, c.ProjectID)
		assert.Equal(t, p.ID, *c.ProjectID)
	}
	assert.Equal(t, want, got)
	page, _, err := s.ListConversations(ctx, ListOptions{Project: p.ID, Query: "zeppelin 3"})
	require.NoError(t, err)
	assert.Empty(t, page, "the match outside the project is left out")
	page, _, err = s.ListConversations(ctx, ListOptions{Project: p.ID, Query: "zeppelin 4"})
	require.NoError(t, err)
	assert.Len(t, page, 1, "search within a project")
	page, _, err = s.ListConversations(ctx, ListOptions{Project: "nope"})
	require.NoError(t, err)
	assert.Empty(t, page)
}

func TestImportProjectKeepsItsIDOnce(t *testing.T) {
	s := newStore(t)
	at := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	p := chat.Project{ID: "p-1", Name: "Moved", Instructions: "Be brief.", Knowledge: []string{"k"}, CreatedAt: at, UpdatedAt: at}
	added, err := s.ImportProject(ctx, p)
	require.NoError(t, err)
	assert.True(t, added)
	p.Name = "Changed in the file"
	added, err = s.ImportProject(ctx, p)
	require.NoError(t, err)
	assert.False(t, added, "a second import adds nothing")
	got, err := s.Project(ctx, "p-1")
	require.NoError(t, err)
	assert.Equal(t, "Moved", got.Name, "the project here is left as it is")
	assert.Equal(t, at, got.CreatedAt)
}

func TestRestoreTranscriptKeepsIDsAndAddsNothingTwice(t *testing.T) {
	s := newStore(t)
	p := mustProject(t, s, "P")
	c, err := s.CreateConversationWith(ctx, chat.Conversation{Title: "Original", Assistant: "default", ProjectID: &p.ID})
	require.NoError(t, err)
	u := mustAppend(t, s, c.ID, chat.RoleUser, "hello")
	require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: "run-1", ConversationID: c.ID, Status: chat.RunCompleted}))
	require.NoError(t, s.SaveCard(ctx, &questions.Card{ID: "card-1", ConversationID: c.ID, RunID: "run-1", Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "Which?"}}}))
	tr, err := s.Transcript(ctx, c.ID)
	require.NoError(t, err)

	// Into the same database: it is there already.
	got, added, err := s.RestoreTranscript(ctx, tr)
	require.NoError(t, err)
	assert.False(t, added)
	assert.Nil(t, got)
	assert.Equal(t, 1, count(t, s, "SELECT count(*) FROM conversations"))

	// Into another database: everything under its own ids and title; the
	// project is kept when it exists there.
	other := openAt(t, filepath.Join(t.TempDir(), "other.db"), 0)
	got, added, err = other.RestoreTranscript(ctx, tr)
	require.NoError(t, err)
	require.True(t, added)
	assert.Equal(t, c.ID, got.ID)
	assert.Equal(t, "Original", got.Title, "a restored title is not marked as a copy")
	assert.Nil(t, got.ProjectID, "no such project there")
	msgs, err := other.Messages(ctx, c.ID)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, u.ID, msgs[0].ID)
	card, err := other.Card(ctx, "card-1")
	require.NoError(t, err)
	assert.Equal(t, questions.StatusCancelled, card.Status, "live work ended")
	_, added, err = other.RestoreTranscript(ctx, tr)
	require.NoError(t, err)
	assert.False(t, added, "twice adds nothing")
	assert.Equal(t, 1, count(t, other, "SELECT count(*) FROM conversations"))
	assert.Equal(t, 1, count(t, other, "SELECT count(*) FROM messages"))

	// A message id taken by another conversation gets a new one.
	tr2 := *tr
	tr2.Conversation.ID = "another"
	got, added, err = other.RestoreTranscript(ctx, &tr2)
	require.NoError(t, err)
	require.True(t, added)
	msgs, err = other.Messages(ctx, got.ID)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.NotEqual(t, u.ID, msgs[0].ID)
	assert.Equal(t, "hello", msgs[0].Content)
}

// A database from before projects (version 10) keeps its conversations,
// outside any project, and takes projects afterwards.
func TestMigrationToProjectsKeepsConversations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 10)
	convID := fillVersion(t, old, 10)
	require.NoError(t, old.Close())

	s := openAt(t, path, 0)
	c, err := s.GetConversation(ctx, convID)
	require.NoError(t, err)
	assert.Nil(t, c.ProjectID)
	assert.Equal(t, "Zeppelin restoration notes", c.Title)
	p := mustProject(t, s, "P")
	require.NoError(t, s.SetConversationProject(ctx, convID, p.ID))
	page, _, err := s.ListConversations(ctx, ListOptions{Project: p.ID, Query: "hydrogen"})
	require.NoError(t, err)
	require.Len(t, page, 1, "an old conversation moved into a project is found by search")
	assert.Equal(t, convID, page[0].ID)
}

// Deleting a project keeps its memories, now of no project, unless its
// conversations go with it: then its memories go too.
func TestDeletingAProjectKeepsOrDeletesItsMemories(t *testing.T) {
	s := newStore(t)
	for _, withMemories := range []bool{false, true} {
		p := mustProject(t, s, "P")
		m := &memory.Memory{Text: "Deploys on Fridays.", Source: memory.Source{Type: memory.SourceUser}, ProjectID: &p.ID}
		require.NoError(t, s.AddMemory(ctx, m))
		_, err := s.DeleteProject(ctx, p.ID, withMemories)
		require.NoError(t, err)
		got, err := s.Memory(ctx, m.ID)
		if withMemories {
			assert.ErrorIs(t, err, chat.ErrNotFound, "deleted with the project's conversations")
			continue
		}
		require.NoError(t, err, "kept")
		assert.Nil(t, got.ProjectID, "and of no project now")
	}
}
