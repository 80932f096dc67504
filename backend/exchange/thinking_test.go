package exchange

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/store"
)

// thinkingConversation stores a conversation whose replies thought: one
// that asked a tool, one that answered, one that only thought.
func thinkingConversation(t *testing.T, s *store.Store) *chat.Conversation {
	t.Helper()
	c := mustConversation(t, s, "Thinking aloud")
	require.NoError(t, s.SetThinking(ctx, c.ID, "high"))
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "What is 6×7?", CreatedAt: at("2026-04-02T09:00:00Z")},
		{Role: chat.RoleAssistant, RunID: "run-1", CreatedAt: at("2026-04-02T09:00:05Z"),
			Reasoning: "Use the calculator.", ReasoningMs: 1800, ReasoningSource: "reasoning",
			ToolCalls: []chat.ToolCall{{ID: "call-1", Name: "calculator", Arguments: `{"expression":"6*7"}`}}},
		{Role: chat.RoleTool, RunID: "run-1", ToolCallID: "call-1", ToolName: "calculator", Content: "42", CreatedAt: at("2026-04-02T09:00:06Z")},
		{Role: chat.RoleAssistant, RunID: "run-1", Content: "It is **42**.", CreatedAt: at("2026-04-02T09:00:09Z"),
			Reasoning: "The tool said 42.\n```\n</details> <script>alert(1)</script>\n```", ReasoningMs: 12400, ReasoningSource: "think_tags"},
		{Role: chat.RoleUser, Content: "And 7×8?", CreatedAt: at("2026-04-02T09:01:00Z")},
		{Role: chat.RoleAssistant, RunID: "run-2", CreatedAt: at("2026-04-02T09:03:00Z"),
			Reasoning: "Fifty-six, but I ran out of words.", ReasoningMs: 125000, ReasoningSource: "reasoning_content"},
	}
	for i := range msgs {
		msgs[i].ConversationID = c.ID
		require.NoError(t, s.AppendMessage(ctx, &msgs[i]))
	}
	return c
}

// The JSON export keeps each reply's thinking, its time and its source,
// and the conversation's setting; importing it gives them back.
func TestJSONRoundTripKeepsThinking(t *testing.T) {
	s := newStore(t)
	c := thinkingConversation(t, s)
	exported, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	assert.Contains(t, string(exported), `"reasoning": "Use the calculator."`)
	assert.Contains(t, string(exported), `"reasoning_ms": 12400`)
	assert.Contains(t, string(exported), `"thinking": "high"`)
	imported, err := ImportJSON(ctx, s, exported)
	require.NoError(t, err)
	assert.Equal(t, "high", imported.Thinking)
	orig, err := s.Messages(ctx, c.ID)
	require.NoError(t, err)
	copied, err := s.Messages(ctx, imported.ID)
	require.NoError(t, err)
	require.Len(t, copied, len(orig))
	for i := range orig {
		assert.Equal(t, orig[i].Reasoning, copied[i].Reasoning, "message %d", i)
		assert.Equal(t, orig[i].ReasoningMs, copied[i].ReasoningMs, "message %d", i)
		assert.Equal(t, orig[i].ReasoningSource, copied[i].ReasoningSource, "message %d", i)
	}
	reexported, err := ExportJSON(ctx, s, imported.ID)
	require.NoError(t, err)
	want, got := stripIDs(t, exported), stripIDs(t, reexported)
	got.Conversation.Title = want.Conversation.Title
	assert.Equal(t, want.Messages, got.Messages)

	// A setting no Parley knows, or a negative time, is refused.
	for _, bad := range []string{
		strings.Replace(string(exported), `"thinking": "high"`, `"thinking": "extreme"`, 1),
		strings.Replace(string(exported), `"reasoning_ms": 12400`, `"reasoning_ms": -1`, 1),
	} {
		before := countRows(t, s)
		_, err := ImportJSON(ctx, s, []byte(bad))
		assert.ErrorIs(t, err, ErrInvalidImport)
		assert.Equal(t, before, countRows(t, s), "a refused import wrote something")
	}
}

// The Markdown transcript folds each reply's thinking in a <details>
// block, as code (nothing in it becomes HTML or closes the block), and
// says when a reply only thought.
func TestMarkdownFoldsThinkingAway(t *testing.T) {
	s := newStore(t)
	c := thinkingConversation(t, s)
	md, err := ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	inOrder := []string{
		"What is 6×7?",
		"<details>\n<summary>Thought for 2 s</summary>\n\n```\nUse the calculator.\n```\n\n</details>",
		"> Called `calculator`",
		"<details>\n<summary>Thought for 12 s</summary>\n\n````\nThe tool said 42.\n```\n</details> <script>alert(1)</script>\n```\n````\n\n</details>",
		"It is **42**.",
		"And 7×8?",
		"<summary>Thought for 2 min 5 s</summary>",
		"Fifty-six, but I ran out of words.",
		"*(No answer: the model only thought.)*",
	}
	rest := md
	for _, want := range inOrder {
		i := strings.Index(rest, want)
		require.GreaterOrEqual(t, i, 0, "missing or out of order: %q\n--- markdown:\n%s", want, md)
		rest = rest[i+len(want):]
	}
	assert.Equal(t, 1, strings.Count(md, "only thought"), "only the reply without an answer says so:\n%s", md)
}
