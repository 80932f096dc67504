package exchange

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// reusedCallIDs stores what the demo model produces: two runs asking with
// the same tool call id (one card skipped, one cancelled), plus a card from
// before run ids were stored and a card whose asking message is missing.
func reusedCallIDs(t *testing.T, s *store.Store) *chat.Conversation {
	t.Helper()
	c := mustConversation(t, s, "Cover letter")
	for _, r := range []*chat.Run{
		{ID: "run-1", ConversationID: c.ID, Status: chat.RunCompleted, StartedAt: at("2026-04-01T10:00:00Z")},
		{ID: "run-2", ConversationID: c.ID, Status: chat.RunCancelled, StartedAt: at("2026-04-01T10:05:00Z")},
		{ID: "run-4", ConversationID: c.ID, Status: chat.RunCompleted, StartedAt: at("2026-04-01T10:20:00Z")},
	} {
		require.NoError(t, s.SaveRun(ctx, r))
	}
	ask := func(run, call, when string) chat.Message {
		return chat.Message{Role: chat.RoleAssistant, RunID: run, Content: "Two quick questions (" + call + ", " + run + ").", CreatedAt: at(when),
			ToolCalls: []chat.ToolCall{{ID: call, Name: questions.ToolName, Arguments: `{"questions":[]}`}}}
	}
	result := func(run, call, content, when string) chat.Message {
		return chat.Message{Role: chat.RoleTool, RunID: run, ToolCallID: call, ToolName: questions.ToolName, Content: content, CreatedAt: at(when)}
	}
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "Write a cover letter", CreatedAt: at("2026-04-01T10:00:00Z")},
		ask("run-1", "call_demo_1", "2026-04-01T10:00:01Z"),
		result("run-1", "call_demo_1", questions.DeclinedResult, "2026-04-01T10:01:00Z"),
		{Role: chat.RoleAssistant, RunID: "run-1", Content: "No problem, defaults it is.", CreatedAt: at("2026-04-01T10:01:01Z")},
		{Role: chat.RoleUser, Content: "Now make it shorter", CreatedAt: at("2026-04-01T10:05:00Z")},
		ask("run-2", "call_demo_1", "2026-04-01T10:05:01Z"),
		result("run-2", "call_demo_1", questions.CancelledResult, "2026-04-01T10:06:00Z"),
		{Role: chat.RoleUser, Content: "An old question", CreatedAt: at("2026-04-01T10:10:00Z")},
		ask("", "call_old", "2026-04-01T10:10:01Z"),
		result("", "call_old", `{"answers":{"Old?":"Yes"}}`, "2026-04-01T10:11:00Z"),
		{Role: chat.RoleUser, Content: "A lost call", CreatedAt: at("2026-04-01T10:20:00Z")},
		result("run-4", "call_lost", questions.TimedOutResult, "2026-04-01T10:26:00Z"),
		{Role: chat.RoleAssistant, RunID: "run-4", Content: "Went ahead without it.", CreatedAt: at("2026-04-01T10:26:01Z")},
	}
	for i := range msgs {
		msgs[i].ConversationID = c.ID
		require.NoError(t, s.AppendMessage(ctx, &msgs[i]))
	}
	card := func(id, run, call string, st questions.Status, q, when string) *questions.Card {
		return &questions.Card{ID: id, ConversationID: c.ID, RunID: run, ToolCallID: call, Status: st,
			Questions: []questions.Question{{Question: q, Options: []questions.Option{{Label: "Yes"}, {Label: "No"}}}}, CreatedAt: at(when)}
	}
	old := card("card-old", "", "call_old", questions.StatusAnswered, "Old?", "2026-04-01T10:10:02Z")
	old.Answers = map[string]string{"Old?": "Yes"}
	for _, cd := range []*questions.Card{
		card("card-skipped", "run-1", "call_demo_1", questions.StatusDeclined, "First?", "2026-04-01T10:00:02Z"),
		card("card-cancelled", "run-2", "call_demo_1", questions.StatusCancelled, "Second?", "2026-04-01T10:05:02Z"),
		old,
		card("card-lost", "run-4", "call_lost", questions.StatusTimedOut, "Lost?", "2026-04-01T10:21:00Z"),
	} {
		require.NoError(t, s.SaveCard(ctx, cd))
	}
	return c
}

func checkReusedCallIDs(t *testing.T, md string) {
	t.Helper()
	inOrder := []string{
		"Write a cover letter",
		"Two quick questions (call_demo_1, run-1).",
		"**Questions from the assistant** (skipped by the user)", "**First?**",
		"No problem, defaults it is.",
		"Now make it shorter",
		"Two quick questions (call_demo_1, run-2).",
		"**Questions from the assistant** (cancelled)", "**Second?**",
		"An old question",
		"Two quick questions (call_old, ).",
		"**Questions from the assistant** (answered)", "**Old?**", "Answer: Yes",
		"A lost call",
		"**Questions from the assistant** (timed out without an answer)", "**Lost?**",
		"Went ahead without it.",
	}
	rest := md
	for _, want := range inOrder {
		i := strings.Index(rest, want)
		require.GreaterOrEqual(t, i, 0, "missing or out of order: %q\n--- markdown:\n%s", want, md)
		rest = rest[i+len(want):]
	}
	assert.Equal(t, 4, strings.Count(md, "**Questions from the assistant**"), "each card once:\n%s", md)
	assert.NotContains(t, md, "**Tool result**", "ask_user_question results are shown as their cards:\n%s", md)
	assert.NotContains(t, md, "> Called", "every call has its card:\n%s", md)
}

// Cards are matched to the call that asked them by run id and call id, not
// by call id alone.
func TestExportMarkdownMatchesCardsByRunAndCall(t *testing.T) {
	s := newStore(t)
	c := reusedCallIDs(t, s)
	md, err := ExportMarkdown(ctx, s, c.ID)
	require.NoError(t, err)
	checkReusedCallIDs(t, md)

	// A JSON round trip keeps each card with its run.
	data, err := ExportJSON(ctx, s, c.ID)
	require.NoError(t, err)
	imported, err := ImportJSON(ctx, s, data)
	require.NoError(t, err)
	importedMD, err := ExportMarkdown(ctx, s, imported.ID)
	require.NoError(t, err)
	checkReusedCallIDs(t, importedMD)
	body := func(s string) string { return s[strings.Index(s, "\n"):] } // without the title line
	assert.Equal(t, body(md), body(importedMD))

	cards, err := s.CardsByConversation(ctx, imported.ID)
	require.NoError(t, err)
	msgs, err := s.Messages(ctx, imported.ID)
	require.NoError(t, err)
	runOfAsk := map[string]string{} // question -> run of the message that asked it
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			for _, cd := range cards {
				if cd.ToolCallID == tc.ID && cd.RunID == m.RunID {
					runOfAsk[cd.Questions[0].Question] = m.RunID
				}
			}
		}
	}
	assert.Len(t, runOfAsk, 3, "the three asked cards keep their run: %v", runOfAsk)
	assert.NotEqual(t, runOfAsk["First?"], runOfAsk["Second?"])
	assert.NotEmpty(t, runOfAsk["First?"])
}
