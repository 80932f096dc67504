package exchange

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

func add(t *testing.T, s *store.Store, m *chat.Message) *chat.Message {
	t.Helper()
	require.NoError(t, s.AppendMessage(ctx, m))
	return m
}

// branchedConversation: u1 -> a1 (shown) | a1b; u2 under a1 carries a text
// file and an image; a card answered "Red" whose answer was changed to
// "Blue" on a second branch (hidden).
func branchedConversation(t *testing.T, s *store.Store) (*chat.Conversation, []byte) {
	t.Helper()
	c := mustConversation(t, s, "Branches")
	u1 := add(t, s, &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: "first question"})
	a1 := add(t, s, &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "first answer",
		Stats: &chat.MessageStats{Model: "m1", PromptTokens: 10, CompletionTokens: 3}})
	require.NoError(t, s.SetLeaf(ctx, c.ID, u1.ID))
	add(t, s, &chat.Message{ConversationID: c.ID, Role: chat.RoleAssistant, Content: "regenerated answer"})
	require.NoError(t, s.SelectBranch(ctx, c.ID, a1.ID))
	image := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0, 1, 2, 255}, 64)...)
	add(t, s, &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: "look at these", Attachments: []chat.Attachment{
		{Name: "data.csv", MIMEType: "text/csv", Data: []byte("a,b\n1,2\n")},
		{Name: "chart.png", MIMEType: "image/png", Data: image},
	}})
	ask := add(t, s, &chat.Message{ConversationID: c.ID, RunID: "run-1", Role: chat.RoleAssistant, Content: "Which colour?",
		ToolCalls: []chat.ToolCall{{ID: "call_1", Name: questions.ToolName, Arguments: `{"questions":[{"question":"Colour?","options":["Red","Blue"]}]}`}}})
	require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: "run-1", ConversationID: c.ID, Status: chat.RunCompleted}))
	require.NoError(t, s.SaveCard(ctx, &questions.Card{ID: "card-1", ConversationID: c.ID, RunID: "run-1", ToolCallID: "call_1",
		Status: questions.StatusAnswered, Questions: []questions.Question{{Question: "Colour?", Options: []questions.Option{{Label: "Red"}, {Label: "Blue"}}}},
		Answers: map[string]string{"Colour?": "Red"}}))
	red := add(t, s, &chat.Message{ConversationID: c.ID, RunID: "run-1", Role: chat.RoleTool, ToolCallID: "call_1", ToolName: questions.ToolName,
		Content: `{"answers":{"Colour?":"Red"}}`})
	add(t, s, &chat.Message{ConversationID: c.ID, RunID: "run-1", Role: chat.RoleAssistant, Content: "Red it is"})
	require.NoError(t, s.SetLeaf(ctx, c.ID, ask.ID))
	add(t, s, &chat.Message{ConversationID: c.ID, RunID: "run-1", Role: chat.RoleTool, ToolCallID: "call_1", ToolName: questions.ToolName,
		Content: `{"answers":{"Colour?":"Blue"}}`})
	add(t, s, &chat.Message{ConversationID: c.ID, RunID: "run-1", Role: chat.RoleAssistant, Content: "Blue it is"})
	require.NoError(t, s.SelectBranch(ctx, c.ID, red.ID))
	return c, image
}

func TestJSONRoundTripKeepsTreeAttachmentsAndStats(t *testing.T) {
	s := newStore(t)
	c, image := branchedConversation(t, s)
	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	var head struct {
		Version  int            `json:"version"`
		LeafID   string         `json:"leaf_id"`
		Branches []exportBranch `json:"branches"`
	}
	require.NoError(t, json.Unmarshal(data, &head))
	assert.Equal(t, 2, head.Version)
	assert.NotEmpty(t, head.LeafID)
	assert.Len(t, head.Branches, 2, "u1's and the card's branch points")

	imported, err := ImportJSON(ctx, s, data)
	require.NoError(t, err)
	orig, err := s.AllMessages(ctx, c.ID)
	require.NoError(t, err)
	got, err := s.AllMessages(ctx, imported.ID)
	require.NoError(t, err)
	require.Len(t, got, len(orig))
	origIndex := map[string]int{"": -1}
	gotIndex := map[string]int{"": -1}
	for i := range orig {
		origIndex[orig[i].ID], gotIndex[got[i].ID] = i, i
	}
	for i := range orig {
		assert.Equal(t, orig[i].Content, got[i].Content)
		assert.Equal(t, origIndex[orig[i].ParentID], gotIndex[got[i].ParentID], "parent of message %d", i)
		assert.Equal(t, orig[i].Siblings, got[i].Siblings)
		assert.Equal(t, orig[i].SiblingIndex, got[i].SiblingIndex)
		assert.Equal(t, orig[i].Stats, got[i].Stats)
		assert.Equal(t, orig[i].Attachments, got[i].Attachments)
	}
	// The visible path is the same.
	wantPath, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	gotPath, err := s.Messages(ctx, imported.ID)
	require.NoError(t, err)
	require.Equal(t, len(wantPath), len(gotPath))
	for i := range wantPath {
		assert.Equal(t, wantPath[i].Content, gotPath[i].Content)
	}
	require.Len(t, gotPath[2].Attachments, 2)
	assert.Equal(t, image, gotPath[2].Attachments[1].Data)
}

func TestMarkdownExportsTheVisiblePath(t *testing.T) {
	s := newStore(t)
	c, _ := branchedConversation(t, s)
	md, err := ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	assert.Contains(t, md, "first answer")
	assert.NotContains(t, md, "regenerated answer", "a hidden branch")
	assert.Contains(t, md, "Red it is")
	assert.NotContains(t, md, "Blue it is", "a hidden branch")
	assert.Contains(t, md, "> Attached `data.csv` (text/csv, 8 bytes)")
	assert.Contains(t, md, "> Attached `chart.png` (image/png, 264 bytes)")
	assert.NotContains(t, md, "Changed answer")

	// On the changed answer's branch the result given there is shown.
	all, err := s.AllMessages(ctx, c.ID)
	require.NoError(t, err)
	require.NoError(t, s.SelectBranch(ctx, c.ID, all[len(all)-1].ID))
	md, err = ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	assert.Contains(t, md, "Blue it is")
	assert.NotContains(t, md, "Red it is")
	assert.Contains(t, md, "**Changed answer**")
	assert.Contains(t, md, `{"answers":{"Colour?":"Blue"}}`)
}

func TestImportVersion1IsAList(t *testing.T) {
	s := newStore(t)
	v1 := `{"format":"parley.conversation","version":1,"conversation":{"title":"Old","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"},
	"messages":[{"id":"a","role":"user","content":"one","created_at":"2025-01-01T00:00:00Z"},
	            {"id":"b","role":"assistant","content":"two","created_at":"2025-01-01T00:00:01Z"},
	            {"role":"tool","content":"three","tool_call_id":"x","created_at":"2025-01-01T00:00:02Z"},
	            {"id":"d","role":"assistant","content":"four","created_at":"2025-01-01T00:00:03Z"}],"runs":[],"cards":[]}`
	c, err := ImportJSON(ctx, s, []byte(v1))
	require.NoError(t, err)
	path, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	require.Len(t, path, 4)
	for i, m := range path {
		assert.Equal(t, []string{"one", "two", "three", "four"}[i], m.Content)
		if i > 0 {
			assert.Equal(t, path[i-1].ID, m.ParentID)
		}
	}
}

func TestImportRefusesABrokenTree(t *testing.T) {
	s := newStore(t)
	before := countRows(t, s)
	for name, doc := range map[string]string{
		"parent later": `[{"id":"a","role":"user","content":"x","parent_id":"b","created_at":"2025-01-01T00:00:00Z"},{"id":"b","role":"user","content":"y","created_at":"2025-01-01T00:00:00Z"}]`,
		"repeated id":  `[{"id":"a","role":"user","content":"x","created_at":"2025-01-01T00:00:00Z"},{"id":"a","role":"user","content":"y","created_at":"2025-01-01T00:00:00Z"}]`,
	} {
		data := `{"format":"parley.conversation","version":2,"conversation":{"title":"Bad","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"},"messages":` + doc + `}`
		_, err := ImportJSON(ctx, s, []byte(data))
		assert.ErrorIs(t, err, ErrInvalidImport, name)
	}
	_, err := ImportJSON(ctx, s, []byte(`{"format":"parley.conversation","version":2,"conversation":{"title":"Bad","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"},"messages":[],"leaf_id":"nope"}`))
	assert.ErrorIs(t, err, ErrInvalidImport, "unknown leaf")
	assert.Equal(t, before, countRows(t, s), "a refused import wrote something")
}
