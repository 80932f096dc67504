package assistant

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// EndCancelledRun ends a saved run that the user had stopped by cancelling
// one of its cards, when the process died before the run ended (SPEC §1: a
// cancel stops the run, so it is neither continued nor offered for retry).
// The tool calls of the conversation's last assistant message still without
// a result get one, the cancelled card's call its outcome and the others
// cancelledToolResult (they never run), and the run is saved cancelled; the
// model is not called. It reports false, changing nothing, when no card of
// the run was cancelled. Call it before the conversation has an active run.
func (r *Runtime) EndCancelledRun(ctx context.Context, run chat.Run) (bool, error) {
	conv := run.ConversationID
	if r.opt.Cards == nil {
		return false, nil
	}
	if r.Active(conv) {
		return false, fmt.Errorf("end cancelled run %s: %w", run.ID, ErrRunActive)
	}
	cards, err := r.opt.Cards(ctx, conv)
	if err != nil {
		return false, fmt.Errorf("load question cards of %s: %w", conv, err)
	}
	var cancelled *questions.Card
	for _, c := range cards {
		if c.RunID == run.ID && c.Status == questions.StatusCancelled && stopsRun(c) {
			cancelled = c
		}
	}
	if cancelled == nil {
		return false, nil
	}
	history, err := r.opt.History.Messages(ctx, conv)
	if err != nil {
		return false, fmt.Errorf("load conversation %s: %w", conv, err)
	}
	// Only the message that made the cancelled call is completed: a history
	// that went on past it is left as it is.
	am, open := unansweredToolCalls(history)
	if am == nil || !slices.ContainsFunc(am.ToolCalls, func(tc chat.ToolCall) bool { return tc.ID == cancelled.ToolCallID }) {
		open = nil
	}
	results := make([]*chat.Message, 0, len(open))
	for _, tc := range open {
		result := cancelledToolResult
		if tc.ID == cancelled.ToolCallID {
			result = questions.OutcomeFor(cancelled).Result
		}
		results = append(results, &chat.Message{ConversationID: conv, RunID: run.ID, Role: chat.RoleTool, Content: result, ToolCallID: tc.ID, ToolName: tc.Name})
	}
	// All results or none: a crash here leaves the run to be ended again.
	if err := appendMessages(ctx, r.opt.History, results); err != nil {
		return false, fmt.Errorf("save tool results in conversation %s: %w", conv, err)
	}
	run.Status, run.Error = chat.RunCancelled, ""
	if run.EndedAt == nil {
		now := time.Now().UTC()
		run.EndedAt = &now
	}
	if err := r.opt.History.SaveRun(ctx, &run); err != nil {
		return false, fmt.Errorf("end cancelled run %s: %w", run.ID, err)
	}
	return true, nil
}

// unansweredToolCalls returns the history's last assistant message (after
// the last user turn; nil when there is none) and its tool calls that have no
// result yet, in order.
func unansweredToolCalls(history []chat.Message) (*chat.Message, []chat.ToolCall) {
	last := -1
	for i := len(history) - 1; i >= 0 && history[i].Role != chat.RoleUser; i-- {
		if history[i].Role == chat.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, nil
	}
	answered := map[string]bool{}
	for _, m := range history[last+1:] {
		if m.Role == chat.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var open []chat.ToolCall
	for _, tc := range history[last].ToolCalls {
		if !answered[tc.ID] {
			open = append(open, tc)
		}
	}
	return &history[last], open
}

// stopsRun tells whether a cancelled card stopped its run: a question's or
// an approval's cancel does; an elicitation's goes to its server and the
// run goes on, unless the elicitation ended because Parley closed.
func stopsRun(c *questions.Card) bool {
	return c.Kind != questions.KindElicitation || c.Reason == questions.ElicitationEndedAtCloseReason
}
