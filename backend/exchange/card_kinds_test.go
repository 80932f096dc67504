package exchange

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/questions"
)

// Approval and elicitation cards (SPEC §6) survive a JSON export and import
// with their kind, source and kind-specific fields; an export holding them
// was refused before ("questions is empty").
func TestApprovalAndElicitationCardsRoundTrip(t *testing.T) {
	s := newStore(t)
	c := mustConversation(t, s, "tools")
	approval := &questions.Card{ID: "a", ConversationID: c.ID, Status: questions.StatusRejected, CreatedAt: at("2026-03-01T10:00:00Z"),
		Kind: questions.KindApproval, Source: &questions.Source{Type: questions.SourceMCP, Server: "files", Tool: "write_file"},
		Tool: &questions.ApprovalTool{Server: "files", Name: "write_file", Description: "Write a file",
			Arguments: json.RawMessage(`{"path":"/tmp/x","content":"hi"}`), InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		Reason: "not there", AnsweredAt: ptr(at("2026-03-01T10:01:00Z"))}
	elicitation := &questions.Card{ID: "e", ConversationID: c.ID, Status: questions.StatusAccepted, CreatedAt: at("2026-03-01T10:02:00Z"),
		Kind: questions.KindElicitation, Source: &questions.Source{Type: questions.SourceMCP, Server: "everything", Tool: "trigger-elicitation-request"},
		Server: "everything", Message: "Your details", Mode: questions.ElicitForm,
		Schema:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Content: json.RawMessage(`{"name":"Ada"}`), AnsweredAt: ptr(at("2026-03-01T10:03:00Z"))}
	for _, card := range []*questions.Card{approval, elicitation} {
		require.NoError(t, s.SaveCard(ctx, card))
	}

	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	imported, err := ImportJSON(ctx, s, data)
	require.NoError(t, err, "an export with approval and elicitation cards must import")
	cards, err := s.CardsByConversation(ctx, imported.ID)
	require.NoError(t, err)
	require.Len(t, cards, 2)
	for i, want := range []*questions.Card{approval, elicitation} {
		got := cards[i]
		assert.NotEqual(t, want.ID, got.ID, "import keeps card ids")
		assert.Equal(t, want.Kind, got.Kind)
		assert.Equal(t, want.Status, got.Status)
		assert.Equal(t, want.Source, got.Source)
		assert.Equal(t, want.Reason, got.Reason)
		assert.Equal(t, want.Server, got.Server)
		assert.Equal(t, want.Message, got.Message)
		assert.Equal(t, want.Mode, got.Mode)
		if want.Tool != nil {
			require.NotNil(t, got.Tool)
			assert.Equal(t, want.Tool.Name, got.Tool.Name)
			assert.JSONEq(t, string(want.Tool.Arguments), string(got.Tool.Arguments))
			assert.JSONEq(t, string(want.Tool.InputSchema), string(got.Tool.InputSchema))
		}
		if want.Schema != nil {
			assert.JSONEq(t, string(want.Schema), string(got.Schema))
			assert.JSONEq(t, string(want.Content), string(got.Content))
		}
	}

	// Markdown tells what was approved or asked, not an empty question list.
	md, err := ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	for _, want := range []string{"**Tool approval**: `write_file` of files (rejected)", `"path": "/tmp/x"`, "Reason: not there",
		"**Request from everything** (accepted)", "Your details", `"name": "Ada"`} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "Questions from the assistant")

	// A card of an unknown kind, or an approval without its tool, is refused.
	for name, edit := range map[string]func(doc map[string]any){
		"unknown kind":      func(doc map[string]any) { card(doc, 0)["kind"] = "vote" },
		"approval no tool":  func(doc map[string]any) { delete(card(doc, 0), "tool") },
		"elicitation mode?": func(doc map[string]any) { card(doc, 1)["mode"] = "telepathy" },
	} {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		edit(doc)
		bad, err := json.Marshal(doc)
		require.NoError(t, err)
		before := countRows(t, s)
		_, err = ImportJSON(ctx, s, bad)
		assert.Error(t, err, name)
		assert.Equal(t, before, countRows(t, s), "%s: a refused import wrote something", name)
	}
}

func card(doc map[string]any, i int) map[string]any {
	return doc["cards"].([]any)[i].(map[string]any)
}
