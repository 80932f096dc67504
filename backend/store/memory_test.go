package store

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
)

func langAnswer(selected string, labels ...string) *memory.Answer {
	return &memory.Answer{Question: "Which language?", Labels: labels, Input: questions.AnswerInput{Selected: []string{selected}}}
}

func memoryIDs(ms []memory.Memory) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestMemoryRoundTripAndScope(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "source")
	proj := "proj-1"
	global := &memory.Memory{Text: "Prefers metric units.", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now().Add(-time.Hour)}
	inProject := &memory.Memory{Text: "This project targets Go 1.26.", Source: memory.Source{Type: memory.SourceModel, ConversationID: c.ID}, ProjectID: &proj}
	require.NoError(t, s.AddMemory(ctx, global))
	require.NoError(t, s.AddMemory(ctx, inProject))
	require.NotEmpty(t, global.ID, "the id is filled")

	got, err := s.Memory(ctx, inProject.ID)
	require.NoError(t, err)
	assert.Equal(t, "This project targets Go 1.26.", got.Text)
	assert.Equal(t, memory.Source{Type: memory.SourceModel, ConversationID: c.ID}, got.Source)
	require.NotNil(t, got.ProjectID)
	assert.Equal(t, proj, *got.ProjectID)
	assert.Nil(t, got.UsedAt, "never used")
	assert.Nil(t, got.Answer, "not an answer memory")

	all, err := s.Memories(ctx, MemoryFilter{All: true})
	require.NoError(t, err)
	assert.Equal(t, []string{inProject.ID, global.ID}, memoryIDs(all), "all, newest first")
	noProject, err := s.Memories(ctx, MemoryFilter{})
	require.NoError(t, err)
	assert.Equal(t, []string{global.ID}, memoryIDs(noProject), "the memories of no project")
	ofProject, err := s.Memories(ctx, MemoryFilter{Project: proj})
	require.NoError(t, err)
	assert.Equal(t, []string{inProject.ID}, memoryIDs(ofProject), "the project's own")

	scoped, err := s.MemoriesInScope(ctx, memory.Scope{Conversation: "x"})
	require.NoError(t, err)
	assert.Equal(t, []string{global.ID}, memoryIDs(scoped), "a conversation of no project")
	scoped, err = s.MemoriesInScope(ctx, memory.Scope{Project: proj})
	require.NoError(t, err)
	assert.Equal(t, []string{inProject.ID, global.ID}, memoryIDs(scoped), "a conversation of the project")
	scoped, err = s.MemoriesInScope(ctx, memory.Scope{Project: "other"})
	require.NoError(t, err)
	assert.Equal(t, []string{global.ID}, memoryIDs(scoped), "another project's")

	// A memory of one (an agent's) conversation applies there only, and
	// goes with it.
	agentConv := mustConversation(t, s, "agent")
	ofAgent := &memory.Memory{Text: "Deploy to staging.", Source: memory.Source{Type: memory.SourceUser}, ScopeConversationID: &agentConv.ID}
	require.NoError(t, s.AddMemory(ctx, ofAgent))
	got, err = s.Memory(ctx, ofAgent.ID)
	require.NoError(t, err)
	require.NotNil(t, got.ScopeConversationID)
	assert.Equal(t, agentConv.ID, *got.ScopeConversationID)
	scoped, err = s.MemoriesInScope(ctx, memory.Scope{Conversation: agentConv.ID})
	require.NoError(t, err)
	assert.Equal(t, []string{ofAgent.ID, global.ID}, memoryIDs(scoped), "the agent's conversation: its own and the global")
	assert.Equal(t, memoryIDs(memory.Scoped(all, memory.Scope{Conversation: agentConv.ID})), []string{global.ID},
		"memory.Scoped agrees (all was read before the agent's memory)")
	scoped, err = s.MemoriesInScope(ctx, memory.Scope{Conversation: "x", Project: proj})
	require.NoError(t, err)
	assert.Equal(t, []string{inProject.ID, global.ID}, memoryIDs(scoped), "another conversation never sees it")
	require.NoError(t, s.DeleteConversation(ctx, agentConv.ID))
	_, err = s.Memory(ctx, ofAgent.ID)
	assert.ErrorIs(t, err, chat.ErrNotFound, "a conversation's memory goes with it")

	// The memory outlives its conversation.
	require.NoError(t, s.DeleteConversation(ctx, c.ID))
	got, err = s.Memory(ctx, inProject.ID)
	require.NoError(t, err, "kept after its conversation was deleted")
	assert.Empty(t, got.Source.ConversationID)

	err = s.AddMemory(ctx, &memory.Memory{Text: "x", Source: memory.Source{Type: memory.SourceModel, ConversationID: "nope"}})
	assert.ErrorIs(t, err, chat.ErrNotFound, "an unknown source conversation")
	err = s.AddMemory(ctx, &memory.Memory{Text: strings.Repeat("x", 501), Source: memory.Source{Type: memory.SourceUser}})
	assert.Error(t, err, "the database refuses a text over 500 characters")
}

func TestMemoryUpdateTouchDelete(t *testing.T) {
	s := newStore(t)
	typed := &memory.Memory{Text: "Likes tea.", Source: memory.Source{Type: memory.SourceUser}}
	answered := &memory.Memory{Text: "Which language? — Go", Source: memory.Source{Type: memory.SourceAnswer}, Answer: langAnswer("Go", "Go", "Rust")}
	require.NoError(t, s.AddMemory(ctx, typed))
	require.NoError(t, s.AddMemory(ctx, answered))

	text := "Likes green tea."
	m, err := s.UpdateMemory(ctx, typed.ID, MemoryUpdate{Text: &text})
	require.NoError(t, err)
	assert.Equal(t, text, m.Text)
	on := true
	_, err = s.UpdateMemory(ctx, typed.ID, MemoryUpdate{AutoAnswer: &on})
	assert.Error(t, err, "the database keeps auto_answer to answer memories")
	m, err = s.UpdateMemory(ctx, answered.ID, MemoryUpdate{AutoAnswer: &on})
	require.NoError(t, err)
	assert.True(t, m.AutoAnswer)
	assert.Equal(t, langAnswer("Go", "Go", "Rust"), m.Answer, "the answer comes back")
	_, err = s.UpdateMemory(ctx, "nope", MemoryUpdate{Text: &text})
	assert.ErrorIs(t, err, chat.ErrNotFound)

	at := now()
	require.NoError(t, s.TouchMemories(ctx, []string{typed.ID}, at))
	m, err = s.Memory(ctx, typed.ID)
	require.NoError(t, err)
	require.NotNil(t, m.UsedAt)
	assert.True(t, at.Equal(*m.UsedAt))

	auto, err := s.AutoAnswerMemories(ctx, memory.Scope{}, false, []string{"Which language?", "Other?"})
	require.NoError(t, err)
	assert.Equal(t, []string{answered.ID}, memoryIDs(auto))
	auto, err = s.AutoAnswerMemories(ctx, memory.Scope{}, false, []string{"Other?"})
	require.NoError(t, err)
	assert.Empty(t, auto)

	// An agent's card: only a memory scoped to its conversation answers it.
	agentConv := mustConversation(t, s, "agent")
	auto, err = s.AutoAnswerMemories(ctx, memory.Scope{Conversation: agentConv.ID}, true, []string{"Which language?"})
	require.NoError(t, err)
	assert.Empty(t, auto, "a global memory never answers an agent")
	ofAgent := &memory.Memory{Text: "Which language? — Rust", Source: memory.Source{Type: memory.SourceAnswer}, AutoAnswer: true,
		Answer: langAnswer("Rust", "Go", "Rust"), ScopeConversationID: &agentConv.ID}
	require.NoError(t, s.AddMemory(ctx, ofAgent))
	auto, err = s.AutoAnswerMemories(ctx, memory.Scope{Conversation: agentConv.ID}, true, []string{"Which language?"})
	require.NoError(t, err)
	assert.Equal(t, []string{ofAgent.ID}, memoryIDs(auto))
	auto, err = s.AutoAnswerMemories(ctx, memory.Scope{Conversation: "other"}, false, []string{"Which language?"})
	require.NoError(t, err)
	assert.Equal(t, []string{answered.ID}, memoryIDs(auto), "another conversation's card: not the agent's memory")
	require.NoError(t, s.DeleteMemory(ctx, ofAgent.ID))

	// Vectors: kept per model, gone when the text changes.
	require.NoError(t, s.SetMemoryVector(ctx, answered.ID, "embed", []float32{0.6, 0.8}))
	require.NoError(t, s.SetMemoryVector(ctx, "deleted-meanwhile", "embed", []float32{1}), "a memory deleted meanwhile is no error")
	vs, err := s.MemoryVectors(ctx, "embed", []string{answered.ID, typed.ID})
	require.NoError(t, err)
	assert.Equal(t, map[string][]float32{answered.ID: {0.6, 0.8}}, vs)
	without, err := s.MemoriesWithoutVector(ctx, "embed", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{typed.ID}, memoryIDs(without))
	without, err = s.MemoriesWithoutVector(ctx, "other-model", 10)
	require.NoError(t, err)
	assert.Len(t, without, 2, "another model's vectors do not count")
	renamed := "Which language? — Go, surely"
	_, err = s.UpdateMemory(ctx, answered.ID, MemoryUpdate{Text: &renamed})
	require.NoError(t, err)
	vs, err = s.MemoryVectors(ctx, "embed", []string{answered.ID})
	require.NoError(t, err)
	assert.Empty(t, vs, "the old text's vector is gone")

	require.NoError(t, s.DeleteMemory(ctx, typed.ID))
	assert.ErrorIs(t, s.DeleteMemory(ctx, typed.ID), chat.ErrNotFound, "deleted twice")
	n, err := s.DeleteAllMemories(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	all, err := s.Memories(ctx, MemoryFilter{All: true})
	require.NoError(t, err)
	assert.Empty(t, all)
}

func TestAnswerMemoryReplacesTheSameQuestionsEarlierAnswer(t *testing.T) {
	s := newStore(t)
	proj := "p"
	first := &memory.Memory{Text: "Which language? — Go", Source: memory.Source{Type: memory.SourceAnswer}, AutoAnswer: true, Answer: langAnswer("Go", "Go", "Rust")}
	otherOptions := &memory.Memory{Text: "Which language? — Zig", Source: memory.Source{Type: memory.SourceAnswer}, Answer: langAnswer("Zig", "Zig", "Odin")}
	otherScope := &memory.Memory{Text: "Which language? — Rust", Source: memory.Source{Type: memory.SourceAnswer}, ProjectID: &proj, Answer: langAnswer("Rust", "Go", "Rust")}
	_, err := s.AddAnswerMemories(ctx, []*memory.Memory{first, otherOptions, otherScope})
	require.NoError(t, err)

	again := &memory.Memory{Text: "Which language? — Rust", Source: memory.Source{Type: memory.SourceAnswer}, Answer: langAnswer("Rust", "Rust", "Go")}
	replaced, err := s.AddAnswerMemories(ctx, []*memory.Memory{again})
	require.NoError(t, err)
	assert.Equal(t, []string{first.ID}, replaced, "the same question and options in the same scope only")
	got, err := s.Memory(ctx, again.ID)
	require.NoError(t, err)
	assert.True(t, got.AutoAnswer, "auto_answer carries over to the newer answer")
	all, err := s.Memories(ctx, MemoryFilter{All: true})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{again.ID, otherOptions.ID, otherScope.ID}, memoryIDs(all))
}

func TestCardAnsweredFromMemoryRoundTrip(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "auto")
	at := now()
	card := &questions.Card{ID: "card-m", ConversationID: c.ID, Status: questions.StatusAnswered,
		Questions: []questions.Question{{Question: "Which language?"}}, Answers: map[string]string{"Which language?": "Go"},
		AnsweredAt: &at, AnsweredBy: memory.AnsweredBy, MemoryID: "mem-1", MemoryIDs: map[string]string{"Which language?": "mem-1"}}
	require.NoError(t, s.SaveCard(ctx, card))
	got, err := s.Card(ctx, "card-m")
	require.NoError(t, err)
	assert.Equal(t, "memory", got.AnsweredBy)
	assert.Equal(t, "mem-1", got.MemoryID)
	assert.Equal(t, map[string]string{"Which language?": "mem-1"}, got.MemoryIDs)

	plain := &questions.Card{ID: "card-p", ConversationID: c.ID, Status: questions.StatusPending, Questions: []questions.Question{{Question: "Q?"}}}
	require.NoError(t, s.SaveCard(ctx, plain))
	got, err = s.Card(ctx, "card-p")
	require.NoError(t, err)
	assert.Empty(t, got.AnsweredBy, "a card the user answers")
	assert.Empty(t, got.MemoryID)
}

// A database of version 10 (before memory), with a conversation and an
// answered card, migrates to memory: the card reads back as answered by
// the user, memories can be kept, and cards can be answered from them.
func TestMigrationToMemoryKeepsCardsAndAddsMemories(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 10)
	convID := fillVersion(t, old, 10)
	require.NoError(t, old.Close())

	s := openAt(t, path, 0)
	require.GreaterOrEqual(t, latestVersion(), 11)
	card, err := s.Card(ctx, "card-1")
	require.NoError(t, err)
	assert.Equal(t, questions.StatusAnswered, card.Status)
	assert.Equal(t, "3", card.Answers["Which cell?"])
	assert.Empty(t, card.AnsweredBy, "old cards were answered by the user")
	assert.Empty(t, card.MemoryID)

	all, err := s.Memories(ctx, MemoryFilter{All: true})
	require.NoError(t, err)
	assert.Empty(t, all, "no memories yet")
	m := &memory.Memory{Text: "Which cell? — 3", Source: memory.Source{Type: memory.SourceAnswer, ConversationID: convID, QuestionID: "card-1"},
		Answer: &memory.Answer{Question: "Which cell?", Labels: []string{}, Input: questions.AnswerInput{Custom: "3"}}}
	_, err = s.AddAnswerMemories(ctx, []*memory.Memory{m})
	require.NoError(t, err)
	card.AnsweredBy, card.MemoryID = memory.AnsweredBy, m.ID
	require.NoError(t, s.SaveCard(ctx, card))
	got, err := s.Card(ctx, "card-1")
	require.NoError(t, err)
	assert.Equal(t, m.ID, got.MemoryID)
	backup, err := filepath.Glob(path + ".bak-v10")
	require.NoError(t, err)
	assert.Len(t, backup, 1, "the version 10 database was kept")
}

// A database of version 12 (memory and projects, before a conversation's
// memories and vectors) migrates keeping its memories: they read back
// with no conversation scope, and vectors can then be kept.
func TestMigrationToMemoryScopeKeepsMemories(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 12)
	convID := fillVersion(t, old, 12)
	_, err := old.writer.ExecContext(ctx, `INSERT INTO memories (id, text, source, conversation_id, question_id, project_id, auto_answer,
		question, options, answer, created_at) VALUES ('mem-1', 'Which cell? — 3', 'answer', ?, 'card-1', NULL, 1,
		'Which cell?', '[]', '{"selected":[],"custom":"3"}', '2026-01-02T03:04:05.000000000Z')`, convID)
	require.NoError(t, err)
	require.NoError(t, old.Close())

	s := openAt(t, path, 0)
	require.GreaterOrEqual(t, latestVersion(), 13)
	m, err := s.Memory(ctx, "mem-1")
	require.NoError(t, err)
	assert.Equal(t, "Which cell? — 3", m.Text)
	assert.True(t, m.AutoAnswer)
	assert.Nil(t, m.ScopeConversationID, "old memories apply where they did")
	scoped, err := s.MemoriesInScope(ctx, memory.Scope{Conversation: "any"})
	require.NoError(t, err)
	assert.Equal(t, []string{"mem-1"}, memoryIDs(scoped))
	require.NoError(t, s.SetMemoryVector(ctx, "mem-1", "embed", []float32{1, 0}))
	vs, err := s.MemoryVectors(ctx, "embed", []string{"mem-1"})
	require.NoError(t, err)
	assert.Len(t, vs, 1)
	backup, err := filepath.Glob(path + ".bak-v12")
	require.NoError(t, err)
	assert.Len(t, backup, 1, "the version 12 database was kept")
}

// MemoriesInScope reads a cache (memory_cache.go): every write that
// changes memories — directly, or by deleting a conversation or a project
// — shows in the next read, and marking memories used too.
func TestMemoriesInScopeSeesEveryWrite(t *testing.T) {
	s := newStore(t)
	inScope := func(sc memory.Scope) []string {
		t.Helper()
		ms, err := s.MemoriesInScope(ctx, sc)
		require.NoError(t, err)
		return memoryIDs(ms)
	}
	assert.Empty(t, inScope(memory.Scope{}))
	a := &memory.Memory{Text: "A", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now().Add(-time.Hour)}
	require.NoError(t, s.AddMemory(ctx, a))
	assert.Equal(t, []string{a.ID}, inScope(memory.Scope{}), "added")

	text := "A, changed"
	_, err := s.UpdateMemory(ctx, a.ID, MemoryUpdate{Text: &text})
	require.NoError(t, err)
	ms, err := s.MemoriesInScope(ctx, memory.Scope{})
	require.NoError(t, err)
	assert.Equal(t, text, ms[0].Text, "updated")

	at := now()
	require.NoError(t, s.TouchMemories(ctx, []string{a.ID}, at))
	ms, err = s.MemoriesInScope(ctx, memory.Scope{})
	require.NoError(t, err)
	require.NotNil(t, ms[0].UsedAt, "marked used")
	assert.True(t, at.Equal(*ms[0].UsedAt))

	p := mustProject(t, s, "P")
	b := &memory.Memory{Text: "B", Source: memory.Source{Type: memory.SourceUser}, ProjectID: &p.ID}
	require.NoError(t, s.AddMemory(ctx, b))
	assert.Equal(t, []string{b.ID, a.ID}, inScope(memory.Scope{Project: p.ID}))
	_, err = s.DeleteProject(ctx, p.ID, true)
	require.NoError(t, err)
	assert.Equal(t, []string{a.ID}, inScope(memory.Scope{Project: p.ID}), "the project's memory went with it")

	c := mustConversation(t, s, "agent")
	own := &memory.Memory{Text: "Own", Source: memory.Source{Type: memory.SourceUser}, ScopeConversationID: &c.ID}
	require.NoError(t, s.AddMemory(ctx, own))
	assert.Equal(t, []string{own.ID, a.ID}, inScope(memory.Scope{Conversation: c.ID}))
	require.NoError(t, s.DeleteConversation(ctx, c.ID))
	assert.Equal(t, []string{a.ID}, inScope(memory.Scope{Conversation: c.ID}), "gone with its conversation")

	added, err := s.RestoreMemory(ctx, memory.Memory{ID: "restored", Text: "R", Source: memory.Source{Type: memory.SourceUser}, CreatedAt: now()})
	require.NoError(t, err)
	require.True(t, added)
	assert.Equal(t, []string{"restored", a.ID}, inScope(memory.Scope{}), "restored")

	require.NoError(t, s.DeleteMemory(ctx, "restored"))
	assert.Equal(t, []string{a.ID}, inScope(memory.Scope{}), "deleted")
	_, err = s.DeleteAllMemories(ctx)
	require.NoError(t, err)
	assert.Empty(t, inScope(memory.Scope{}), "all deleted")
}
