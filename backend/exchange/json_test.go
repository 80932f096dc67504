package exchange

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// richConversation stores a conversation with tool calls, a question card
// asked through a tool call, a loose card, and two runs.
func richConversation(t *testing.T, s *store.Store) *chat.Conversation {
	t.Helper()
	c := mustConversation(t, s, "Pick a *database*")
	require.NoError(t, s.SetPinned(ctx, c.ID, true))
	runs := []*chat.Run{
		{ID: "run-a", ConversationID: c.ID, Status: chat.RunCompleted, StartedAt: at("2026-04-01T10:00:00Z"), EndedAt: ptr(at("2026-04-01T10:05:00Z"))},
		{ID: "run-b", ConversationID: c.ID, Status: chat.RunFailed, ResumedFrom: "run-a", Error: "model went away",
			StartedAt: at("2026-04-01T10:06:00Z"), EndedAt: ptr(at("2026-04-01T10:07:00Z"))},
	}
	for _, r := range runs {
		require.NoError(t, s.SaveRun(ctx, r))
	}
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "Help me choose a database for my app.", CreatedAt: at("2026-04-01T10:00:00Z")},
		{Role: chat.RoleAssistant, RunID: "run-a", Content: "Let me ask first.", CreatedAt: at("2026-04-01T10:00:01Z"),
			ToolCalls: []chat.ToolCall{{ID: "call-q", Name: questions.ToolName, Arguments: `{"questions":[]}`}}},
		{Role: chat.RoleTool, RunID: "run-a", ToolCallID: "call-q", ToolName: questions.ToolName,
			Content: `{"answers":{"Which scale?":"Small"}}`, CreatedAt: at("2026-04-01T10:01:00Z")},
		{Role: chat.RoleAssistant, RunID: "run-a", CreatedAt: at("2026-04-01T10:01:01Z"),
			ToolCalls: []chat.ToolCall{{ID: "call-c", Name: "calculator", Arguments: `{"expression":"2*3"}`}}},
		{Role: chat.RoleTool, RunID: "run-a", ToolCallID: "call-c", ToolName: "calculator", Content: "6 ```", CreatedAt: at("2026-04-01T10:01:02Z")},
		{Role: chat.RoleAssistant, RunID: "run-a", Content: "Use **SQLite**.", CreatedAt: at("2026-04-01T10:02:00Z")},
		{Role: chat.RoleUser, Content: "Thanks!", CreatedAt: at("2026-04-01T10:06:00Z")},
	}
	for i := range msgs {
		msgs[i].ConversationID = c.ID
		require.NoError(t, s.AppendMessage(ctx, &msgs[i]))
	}
	cards := []*questions.Card{
		{ID: "card-1", ConversationID: c.ID, RunID: "run-a", ToolCallID: "call-q", Status: questions.StatusAnswered,
			Questions: []questions.Question{
				{Question: "Which scale?", Header: "Scale", Options: []questions.Option{{Label: "Small"}, {Label: "Huge", Description: "millions"}}},
				{Question: "Which features?", MultiSelect: true, Options: []questions.Option{{Label: "Auth"}, {Label: "Search"}}},
			},
			Answers:  map[string]string{"Which scale?": "Small", "Which features?": "Auth, Search"},
			Comments: "keep it simple", CreatedAt: at("2026-04-01T10:00:02Z"),
			ExpiresAt: ptr(at("2026-04-01T10:05:02Z")), AnsweredAt: ptr(at("2026-04-01T10:00:59Z"))},
		{ID: "card-2", ConversationID: c.ID, RunID: "run-b", Status: questions.StatusTimedOut,
			Questions: []questions.Question{{Question: "Deploy where?", AllowCustom: true}},
			CreatedAt: at("2026-04-01T10:03:00Z")},
	}
	for _, card := range cards {
		require.NoError(t, s.SaveCard(ctx, card))
	}
	return c
}

func TestExportMarkdown(t *testing.T) {
	s := newStore(t)
	c := richConversation(t, s)
	md, err := ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	inOrder := []string{
		`# Pick a \*database\*`,
		"**You** · 2026-04-01 10:00 UTC",
		"Help me choose a database for my app.",
		"**Assistant** · 2026-04-01 10:00 UTC",
		"Let me ask first.",
		"**Questions from the assistant** (answered)",
		"1. **Which scale?**",
		"   - Options: Small, Huge",
		"   - Answer: Small",
		"2. **Which features?**",
		"   - Options (several allowed): Auth, Search",
		"   - Answer: Auth, Search",
		"Comments: keep it simple",
		"> Called `calculator` with `{\"expression\":\"2*3\"}`",
		"**Tool result** (`calculator`)",
		"````\n6 ```\n````", // a fence the content cannot close
		"Use **SQLite**.",
		"**Questions from the assistant** (timed out without an answer)",
		"1. **Deploy where?**",
		"**You** · 2026-04-01 10:06 UTC",
		"Thanks!",
	}
	rest := md
	for _, want := range inOrder {
		i := strings.Index(rest, want)
		require.GreaterOrEqual(t, i, 0, "missing or out of order: %q\n--- markdown:\n%s", want, md)
		rest = rest[i+len(want):]
	}
	// The ask_user_question tool result is shown as the card, not as raw JSON.
	assert.NotContains(t, md, `{"answers"`, "raw answer JSON in the transcript:\n%s", md)
	_, err = ExportMarkdown(ctx, s, "missing")
	wantNotFound(t, err)
}

// stripIDs blanks what an import renews, mapping run ids by position so
// links (message.run_id, run.resumed_from, card.run_id) still compare.
func stripIDs(t *testing.T, data []byte) exportDoc {
	t.Helper()
	var doc exportDoc
	require.NoError(t, json.Unmarshal(data, &doc))
	runName := map[string]string{"": ""}
	for i, r := range doc.Runs {
		runName[r.ID] = string(rune('A' + i))
	}
	doc.ExportedAt = time.Time{}
	doc.Conversation.ID = ""
	msgName := map[string]string{"": ""} // message id -> its place in the file
	for i, m := range doc.Messages {
		msgName[m.ID] = fmt.Sprint(i)
	}
	doc.LeafID = msgName[doc.LeafID]
	for i := range doc.Branches {
		doc.Branches[i] = exportBranch{ParentID: msgName[doc.Branches[i].ParentID], ChildID: msgName[doc.Branches[i].ChildID]}
	}
	for i := range doc.Messages {
		doc.Messages[i].ParentID = msgName[doc.Messages[i].ParentID]
		doc.Messages[i].ID = ""
		doc.Messages[i].RunID = runName[doc.Messages[i].RunID]
	}
	for i := range doc.Runs {
		doc.Runs[i].ID = runName[doc.Runs[i].ID]
		doc.Runs[i].ResumedFrom = runName[doc.Runs[i].ResumedFrom]
	}
	for i := range doc.Cards {
		doc.Cards[i].ID = ""
		doc.Cards[i].RunID = runName[doc.Cards[i].RunID]
	}
	return doc
}

func TestExportImportJSONRoundTrip(t *testing.T) {
	s := newStore(t)
	c := richConversation(t, s)
	exported, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	err = json.Unmarshal(exported, &head)
	require.NoError(t, err, "export header: %+v %v", head, err)
	require.Equal(t, ExportFormat, head.Format, "export header: %+v %v", head, err)
	require.Equal(t, ExportVersion, head.Version, "export header: %+v %v", head, err)

	imported, err := ImportJSON(ctx, s, exported)
	require.NoError(t, err)
	again, err := ImportJSON(ctx, s, exported)
	require.NoError(t, err)
	require.NotEqual(t, c.ID, imported.ID, "import reused an id")
	require.NotEqual(t, imported.ID, again.ID, "import reused an id")
	reexported, err := ExportJSON(ctx, s, imported.ID)
	require.NoError(t, err)
	want, got := stripIDs(t, exported), stripIDs(t, reexported)
	assert.Equal(t, want.Conversation.Title+" (imported)", got.Conversation.Title, "imported title %q, want the original's marked as imported", got.Conversation.Title)
	got.Conversation.Title = want.Conversation.Title
	assert.True(t, reflect.DeepEqual(got, want), "round trip differs beyond ids:\n got %+v\nwant %+v", got, want)

	// Every id is new, and nothing of the original changed.
	total := countRows(t, s)
	n := total.messages
	assert.Equal(t, 3*7, n, "%d messages after two imports, want 21", n)
	n = total.cards
	assert.Equal(t, 3*2, n, "%d distinct cards, want 6", n)
	n = total.runs
	assert.Equal(t, 3*2, n, "%d distinct runs, want 6", n)
	orig, _ := s.Messages(ctx, c.ID)
	assert.Len(t, orig, 7, "original has %d messages", len(orig))
	b, err := s.LatestRun(ctx, imported.ID)
	if assert.NoError(t, err, "imported run link not remapped: %+v %v", b, err) {
		assert.NotEqual(t, "run-a", b.ResumedFrom, "imported run link not remapped: %+v %v", b, err)
		assert.NotEqual(t, "", b.ResumedFrom, "imported run link not remapped: %+v %v", b, err)
		_, err = s.Run(ctx, b.ResumedFrom)
		assert.NoError(t, err, "resumed_from points nowhere")
	}
	// Imported text is searchable.
	page, _, _ := s.ListConversations(ctx, store.ListOptions{Query: "choose database"})
	assert.Len(t, page, 3, "search finds %d conversations, want 3", len(page))
}

func TestImportEndsLiveWork(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "live")
	require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: "r", ConversationID: c.ID, Status: chat.RunAwaiting}))
	require.NoError(t, s.SaveCard(ctx, &questions.Card{ID: "q", ConversationID: c.ID, RunID: "r", Status: questions.StatusPending,
		Questions: []questions.Question{{Question: "Now?"}}}))
	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	imported, err := ImportJSON(ctx, s, data)
	require.NoError(t, err)
	cards, _ := s.CardsByConversation(ctx, imported.ID)
	run, _ := s.LatestRun(ctx, imported.ID)
	if assert.Len(t, cards, 1, "imported live work: card %+v run %+v", cards, run) {
		assert.Equal(t, questions.StatusCancelled, cards[0].Status, "imported live work: card %+v run %+v", cards, run)
	}
	assert.Equal(t, chat.RunInterrupted, run.Status, "imported live work: card %+v run %+v", cards, run)
	pending, _ := s.CardsByStatus(ctx, questions.StatusPending)
	assert.Len(t, pending, 1, "pending cards after import: %d, want only the original", len(pending))
}

func TestImportRefusesBadDataAndWritesNothing(t *testing.T) {
	s := newStore(t)
	c := richConversation(t, s)
	good, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	edit := func(f func(doc map[string]any)) []byte {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(good, &doc))
		f(doc)
		b, _ := json.Marshal(doc)
		return b
	}
	item := func(doc map[string]any, list string, i int) map[string]any {
		return doc[list].([]any)[i].(map[string]any)
	}
	cases := map[string][]byte{
		"not json":           []byte("{not json"),
		"truncated":          good[:len(good)/2],
		"trailing data":      append(append([]byte{}, good...), []byte(` {"x":1}`)...),
		"array":              []byte(`[1,2,3]`),
		"empty object":       []byte(`{}`),
		"wrong format":       edit(func(d map[string]any) { d["format"] = "slack.export" }),
		"newer version":      edit(func(d map[string]any) { d["version"] = ExportVersion + 1 }),
		"no conversation":    edit(func(d map[string]any) { delete(d, "conversation") }),
		"bad role":           edit(func(d map[string]any) { item(d, "messages", 5)["role"] = "wizard" }),
		"bad time":           edit(func(d map[string]any) { item(d, "messages", 6)["created_at"] = "yesterday" }),
		"no message time":    edit(func(d map[string]any) { delete(item(d, "messages", 6), "created_at") }),
		"duplicate run":      edit(func(d map[string]any) { item(d, "runs", 1)["id"] = item(d, "runs", 0)["id"] }),
		"bad card status":    edit(func(d map[string]any) { item(d, "cards", 1)["status"] = "maybe" }),
		"card w/o questions": edit(func(d map[string]any) { item(d, "cards", 1)["questions"] = []any{} }),
		"tool_calls type":    edit(func(d map[string]any) { item(d, "messages", 1)["tool_calls"] = "nope" }),
	}
	before := countRows(t, s)
	for name, data := range cases {
		conv, err := ImportJSON(ctx, s, data)
		if err == nil { // conv is nil when the import fails, so it is named only here
			assert.Failf(t, "bad data imported", "%s: imported as %s", name, conv.ID)
			continue
		}
		assert.ErrorIs(t, err, ErrInvalidImport, "%s: err = %v, want ErrInvalidImport", name, err)
	}
	after := countRows(t, s)
	assert.Equal(t, before, after, "rows after refused imports %+v, had %+v", after, before)
}
