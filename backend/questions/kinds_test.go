package questions

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
)

var ctx = context.Background()

const writeFileSchema = `{"type":"object","properties":{"path":{"type":"string","minLength":1},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`

func (h *harness) approval(t testing.TB, conv string) *Card {
	t.Helper()
	c, err := h.m.CreateApproval(ctx, ApprovalRequest{ConversationID: conv, RunID: "run-1", ToolCallID: "call-1",
		Tool: ApprovalTool{Server: "fs", Name: "write_file", Description: "Write a file",
			Arguments: json.RawMessage(`{"path":"/tmp/a.txt","content":"hi"}`), InputSchema: json.RawMessage(writeFileSchema)}})
	require.NoError(t, err)
	return c
}

func TestApprovalCardLifecycle(t *testing.T) {
	h := newHarness(t, nil)
	c := h.approval(t, "conv")
	assert.Equal(t, KindApproval, c.Kind)
	assert.Equal(t, &Source{Type: SourceMCP, Server: "fs", Tool: "write_file"}, c.Source)
	assert.Equal(t, StatusPending, c.Status)
	assert.Empty(t, c.Questions)
	require.NotNil(t, c.ExpiresAt, "the question timeout applies")
	// Written before shown, and the event carries the whole card.
	assert.Equal(t, []string{"save pending", "emit question:ask pending"}, h.events.list())
	ask := h.rec.Events()[0].Payload.(*Card)
	assert.Equal(t, c.Tool, ask.Tool)

	// Edited arguments that break the input schema: 422, nothing changes.
	for _, bad := range []string{`{"path":""}`, `{"path":"/x","content":"y","extra":1}`, `{"path":3,"content":"y"}`, `[1]`, `"s"`} {
		_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionApprove, Arguments: json.RawMessage(bad)})
		require.Equal(t, fault.Validation, fault.KindOf(err), bad)
		assert.Equal(t, StatusPending, statusOf(t, h.m, c.ID))
	}
	_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionApprove, Arguments: json.RawMessage(`{"path":""}`)})
	assert.ErrorContains(t, err, "/path: minLength")
	assert.ErrorContains(t, err, "missing property 'content'")
	assert.Equal(t, 1, h.store.count(), "a refused answer was saved")
	// Actions of other kinds are refused.
	_, err = h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionSubmit})
	assert.ErrorContains(t, err, `action "submit" does not apply to an approval card (use approve, reject or cancel)`)

	waiting := waitAsync(ctx, h.m, c.ID)
	got, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionApprove,
		Arguments: json.RawMessage(`{"path":"/tmp/b.txt","content":"hi"}`), Always: true})
	require.NoError(t, err)
	assert.Equal(t, StatusApproved, got.Status)
	assert.JSONEq(t, `{"path":"/tmp/b.txt","content":"hi"}`, string(got.ApprovedArguments))
	assert.True(t, got.Always)
	out := receive(t, waiting).out
	assert.Equal(t, Outcome{Status: StatusApproved, Arguments: `{"path":"/tmp/b.txt","content":"hi"}`, Always: true}, out)
	_, err = h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionReject})
	assert.ErrorIs(t, err, ErrConflict, "exactly once")
}

func TestApprovalOutcomes(t *testing.T) {
	cases := []struct {
		name string
		resp Response
		want Outcome
	}{
		{"approve as asked", Response{Action: ActionApprove}, Outcome{Status: StatusApproved, Arguments: `{"path":"/tmp/a.txt","content":"hi"}`}},
		{"reject with a reason", Response{Action: ActionReject, Reason: "  wrong folder "}, Outcome{Status: StatusRejected, Result: "The user rejected this tool call; it did not run. Reason: wrong folder"}},
		{"reject", Response{Action: ActionReject}, Outcome{Status: StatusRejected, Result: RejectedResult("")}},
		{"cancel", Response{Action: ActionCancel}, Outcome{Status: StatusCancelled, Result: ApprovalCancelledResult, StopRun: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			c := h.approval(t, "conv")
			waiting := waitAsync(ctx, h.m, c.ID)
			tc.resp.QuestionID = c.ID
			_, err := h.m.Respond(ctx, "conv", tc.resp)
			require.NoError(t, err)
			assert.Equal(t, tc.want, receive(t, waiting).out)
			assert.Contains(t, RejectedResult("x"), "rejected")
		})
	}
	t.Run("timeout: never approved", func(t *testing.T) {
		h := newHarness(t, nil)
		c := h.approval(t, "conv")
		waiting := waitAsync(ctx, h.m, c.ID)
		h.clock.Advance(DefaultTimeout)
		out := receive(t, waiting).out
		assert.Equal(t, Outcome{Status: StatusTimedOut, Result: ApprovalTimedOutResult}, out)
		assert.Contains(t, out.Result, "timed out")
		// Not answerable late, and not "latest" any more.
		_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionApprove})
		assert.ErrorIs(t, err, ErrConflict)
		_, err = h.m.Respond(ctx, "conv", Response{QuestionID: LatestID, Action: ActionApprove})
		assert.ErrorIs(t, err, ErrNotFound)
	})
	t.Run("a too long reason is refused", func(t *testing.T) {
		h := newHarness(t, nil)
		c := h.approval(t, "conv")
		long := make([]byte, MaxCommentsLen+1)
		for i := range long {
			long[i] = 'x'
		}
		_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionReject, Reason: string(long)})
		assert.Equal(t, fault.Validation, fault.KindOf(err))
		assert.Equal(t, StatusPending, statusOf(t, h.m, c.ID))
	})
}

// everythingSchema is the form server-everything's elicitation tool sends.
const everythingSchema = `{"type":"object","properties":{
 "name":{"title":"String","type":"string","description":"Your full, legal name"},
 "check":{"title":"Boolean","type":"boolean"},
 "firstLine":{"type":"string","default":"It was a dark and stormy night."},
 "email":{"type":"string","format":"email"},
 "homepage":{"type":"string","format":"uri"},
 "birthdate":{"type":"string","format":"date"},
 "meeting":{"type":"string","format":"date-time"},
 "nick":{"type":"string","minLength":2,"maxLength":5},
 "integer":{"type":"integer","minimum":1,"maximum":100,"default":42},
 "number":{"type":"number","minimum":0,"maximum":1000,"default":3.14},
 "untitledSingleSelectEnum":{"type":"string","enum":["Monica","Rachel","Joey"],"default":"Monica"},
 "untitledMultipleSelectEnum":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["Guitar","Piano","Violin","Drums"]},"default":["Guitar"]},
 "titledSingleSelectEnum":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Green Lantern"}],"default":"hero-1"},
 "titledMultipleSelectEnum":{"type":"array","items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"}]}},
 "legacyTitledEnum":{"type":"string","enum":["pet-1","pet-2"],"enumNames":["Cats","Dogs"],"default":"pet-1"}
},"required":["name"]}`

func (h *harness) elicitation(t testing.TB, conv string) *Card {
	t.Helper()
	c, err := h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: conv, RunID: "run-1", ToolCallID: "call-1",
		Server: "everything", Tool: "trigger-elicitation-request", Message: "Please provide inputs", Mode: ElicitForm,
		Schema: json.RawMessage(everythingSchema)})
	require.NoError(t, err)
	return c
}

func TestElicitationFormValidation(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RateInterval = 0 })
	c := h.elicitation(t, "conv")
	assert.Equal(t, KindElicitation, c.Kind)
	assert.Equal(t, "everything", c.Server)
	assert.Equal(t, ElicitForm, c.Mode)
	assert.Equal(t, everythingSchema, string(c.Schema), "the schema as sent")
	assert.Equal(t, &Source{Type: SourceMCP, Server: "everything", Tool: "trigger-elicitation-request"}, c.Source)

	bad := map[string]string{
		"required missing":     `{}`,
		"email format":         `{"name":"Ann","email":"not-an-email"}`,
		"uri format":           `{"name":"Ann","homepage":"not a uri"}`,
		"date format":          `{"name":"Ann","birthdate":"2024-13-45"}`,
		"date-time format":     `{"name":"Ann","meeting":"tomorrow at noon"}`,
		"min length":           `{"name":"Ann","nick":"a"}`,
		"max length":           `{"name":"Ann","nick":"abcdef"}`,
		"maximum":              `{"name":"Ann","integer":101}`,
		"minimum":              `{"name":"Ann","number":-1}`,
		"integer type":         `{"name":"Ann","integer":1.5}`,
		"enum":                 `{"name":"Ann","untitledSingleSelectEnum":"Ross"}`,
		"titled enum":          `{"name":"Ann","titledSingleSelectEnum":"hero-9"}`,
		"multi enum":           `{"name":"Ann","untitledMultipleSelectEnum":["Tuba"]}`,
		"too many picks":       `{"name":"Ann","untitledMultipleSelectEnum":["Guitar","Piano","Violin","Drums"]}`,
		"boolean type":         `{"name":"Ann","check":"yes"}`,
		"not an object":        `["Ann"]`,
		"legacy enum":          `{"name":"Ann","legacyTitledEnum":"pet-7"}`,
		"titled multi enum":    `{"name":"Ann","titledMultipleSelectEnum":["fish-9"]}`,
		"string for a number":  `{"name":"Ann","number":"12"}`,
		"empty required field": `{"name":""}`,
	}
	for name, content := range bad {
		_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionAccept, Content: json.RawMessage(content)})
		assert.Equal(t, fault.Validation, fault.KindOf(err), name)
		assert.Equal(t, StatusPending, statusOf(t, h.m, c.ID), name)
	}
	assert.Equal(t, 1, h.store.count(), "a refused answer was saved")

	waiting := waitAsync(ctx, h.m, c.ID)
	got, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionAccept, Content: json.RawMessage(
		`{"name":"Ann Lee","email":"ann@example.com","homepage":"https://ann.example","birthdate":"1990-04-01","meeting":"2026-05-01T10:00:00Z","integer":"","untitledMultipleSelectEnum":[],"nick":null}`)})
	require.NoError(t, err)
	assert.Equal(t, StatusAccepted, got.Status)
	// Defaults filled in for the fields left empty; empty ones without a default left out.
	want := `{"name":"Ann Lee","email":"ann@example.com","homepage":"https://ann.example","birthdate":"1990-04-01","meeting":"2026-05-01T10:00:00Z",
		"firstLine":"It was a dark and stormy night.","integer":42,"number":3.14,"untitledSingleSelectEnum":"Monica",
		"untitledMultipleSelectEnum":["Guitar"],"titledSingleSelectEnum":"hero-1","legacyTitledEnum":"pet-1"}`
	assert.JSONEq(t, want, string(got.Content))
	out := receive(t, waiting).out
	assert.Equal(t, StatusAccepted, out.Status)
	assert.JSONEq(t, want, out.Content)
	stored := h.store.get(c.ID)
	assert.JSONEq(t, want, string(stored.Content))
}

func TestElicitationActionsAndTimeout(t *testing.T) {
	for _, a := range []Action{ActionDecline, ActionCancel} {
		h := newHarness(t, nil)
		c := h.elicitation(t, "conv")
		waiting := waitAsync(ctx, h.m, c.ID)
		_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: a})
		require.NoError(t, err)
		out := receive(t, waiting).out
		assert.False(t, out.StopRun, "an elicitation's cancel goes to the server, the run goes on")
		assert.Equal(t, map[Action]Status{ActionDecline: StatusDeclined, ActionCancel: StatusCancelled}[a], out.Status)
	}
	h := newHarness(t, nil)
	c := h.elicitation(t, "conv")
	_, err := h.m.Respond(ctx, "conv", Response{QuestionID: c.ID, Action: ActionApprove})
	assert.ErrorContains(t, err, "use accept, decline or cancel")
	waiting := waitAsync(ctx, h.m, c.ID)
	h.clock.Advance(DefaultTimeout)
	assert.Equal(t, StatusTimedOut, receive(t, waiting).out.Status)

	// URL mode: accept needs no content.
	u, err := h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: "other", Server: "everything", Mode: ElicitURL,
		URL: "https://example.com/auth", Message: "Open it"})
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/auth", u.URL)
	got, err := h.m.Respond(ctx, "other", Response{QuestionID: u.ID, Action: ActionAccept})
	require.NoError(t, err)
	assert.Equal(t, StatusAccepted, got.Status)

	_, err = h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: "x", Mode: ElicitURL})
	assert.Error(t, err)
	_, err = h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: "x", Mode: "telepathy"})
	assert.Error(t, err)
	_, err = h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: "x", Mode: ElicitForm, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"strnig"}}}`)})
	assert.Error(t, err, "a schema that does not compile")
}

func TestRateLimitAppliesToElicitationsNotApprovalsAndTheCapCountsEveryKind(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxPending = 3 })
	h.create(t, "conv") // a model question
	_, err := h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: "conv", Server: "s", Mode: ElicitURL, URL: "https://x"})
	var rl *RateLimitError
	assert.ErrorAs(t, err, &rl, "an elicitation right after a question")
	h.approval(t, "conv") // approvals are not rate limited
	h.approval(t, "conv2")
	_, err = h.m.CreateApproval(ctx, ApprovalRequest{ConversationID: "conv3", Tool: ApprovalTool{Arguments: json.RawMessage(`{}`)}})
	assert.ErrorIs(t, err, ErrTooManyPending)
	_, err = h.m.CreateElicitation(ctx, ElicitationRequest{ConversationID: "conv4", Server: "s", Mode: ElicitURL, URL: "https://x"})
	assert.ErrorIs(t, err, ErrTooManyPending)
	assert.Len(t, h.m.Pending(""), 3)
}

func TestRestoreApprovalCards(t *testing.T) {
	h := newHarness(t, nil)
	c := h.approval(t, "conv")
	stored := h.store.get(c.ID)
	h.m.Close()

	h2 := newHarness(t, nil)
	require.NoError(t, h2.m.Restore([]*Card{stored}))
	got, ok := h2.m.Get(c.ID)
	require.True(t, ok)
	assert.Equal(t, StatusPending, got.Status)
	assert.Equal(t, c.Tool, got.Tool)
	waiting := waitAsync(ctx, h2.m, c.ID)
	_, err := h2.m.Respond(ctx, "conv", Response{QuestionID: LatestID, Action: ActionApprove})
	require.NoError(t, err)
	assert.Equal(t, StatusApproved, receive(t, waiting).out.Status)

	bad := cloneCard(stored)
	bad.ID, bad.Tool = "no-tool", nil
	assert.Error(t, h2.m.Restore([]*Card{bad}))
}
