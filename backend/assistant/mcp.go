package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/questions"
)

// Profile entries for MCP tools (SPEC §6): a tool's model name
// (<server>__<tool>), every tool of a server (mcp:<server>) or of every
// enabled server (mcp:*, what the default profile holds).
const (
	MCPPrefix   = "mcp:"
	MCPAllTools = MCPPrefix + "*"
)

// MCPHost is the MCP host as the loop uses it (backend/mcp.Host).
type MCPHost interface {
	ModelTools() []mcp.ModelTool
	Tool(server, tool string) (mcp.ModelTool, bool)
	Call(ctx context.Context, c mcp.Call) mcp.Result
	SetToolPolicy(server, tool, policy string) (api.MCPTool, error)
}

// Approver makes the cards of MCP calls (the QuestionManager).
type Approver interface {
	CreateApproval(ctx context.Context, req questions.ApprovalRequest) (*questions.Card, error)
	CreateElicitation(ctx context.Context, req questions.ElicitationRequest) (*questions.Card, error)
	Wait(ctx context.Context, cardID string) (questions.Outcome, error)
}

// interruptedMCPResult is what a call to an MCP tool gets when Parley closed
// while it ran: it is not run again on its own, since it may have done its
// work already.
const interruptedMCPResult = "No result: Parley closed while this tool was running; it may or may not have finished."

// offersMCP reports whether the profile offers the MCP tool.
func (p Profile) offersMCP(t mcp.ModelTool) bool {
	return slices.ContainsFunc(p.Tools, func(e string) bool {
		return e == MCPAllTools || e == MCPPrefix+t.Server || e == t.ModelName
	})
}

// mcpTools lists the MCP tools the profile offers; sub-agents get only the
// ones that run without a card (policy allow).
func (l *runLoop) mcpTools(sub bool) []mcp.ModelTool {
	if l.rt.opt.MCP == nil {
		return nil
	}
	var out []mcp.ModelTool
	for _, t := range l.rt.opt.MCP.ModelTools() {
		if l.profile.offersMCP(t) && (!sub || t.Policy == api.PolicyAllow) {
			out = append(out, t)
		}
	}
	return out
}

func (l *runLoop) mcpTool(name string, sub bool) (mcp.ModelTool, bool) {
	for _, t := range l.mcpTools(sub) {
		if t.ModelName == name {
			return t, true
		}
	}
	return mcp.ModelTool{}, false
}

// mcpDefinition is the tool as the model sees it.
func mcpDefinition(t mcp.ModelTool) llm.Tool {
	params := map[string]any{}
	if err := json.Unmarshal(t.InputSchema, &params); err != nil || len(params) == 0 {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	desc := t.Description
	if desc == "" {
		desc = fmt.Sprintf("The %q tool of the MCP server %q.", t.Name, t.Server)
	}
	return llm.Tool{Name: t.ModelName, Description: desc, Parameters: params}
}

// looksLikeMCP tells whether a tool name is an MCP model name.
func looksLikeMCP(name string) bool { return strings.Contains(name, "__") }

// isMCP tells whether a call is for an MCP tool rather than a built-in one.
func (l *runLoop) isMCP(name string) bool {
	if l.rt.opt.MCP == nil || !looksLikeMCP(name) || name == ToolAskUser || name == ToolSpawnAgents {
		return false
	}
	_, builtin := l.rt.tools[name]
	return !builtin
}

// runMCP runs a call of an MCP tool: an approval card first when its policy
// is ask (or the card asked before a restart), then the call. halt is true
// when the user cancelled the approval (the run stops).
func (l *runLoop) runMCP(tc chat.ToolCall, asked *questions.Card) (result string, atts []chat.Attachment, halt bool) {
	host := l.rt.opt.MCP
	var tool mcp.ModelTool
	if asked != nil && asked.Kind == questions.KindApproval && asked.Tool != nil {
		// Asked before a restart: the card says which tool (its server may
		// still be connecting).
		tool = mcp.ModelTool{ModelName: tc.Name, Server: asked.Tool.Server, Name: asked.Tool.Name,
			Description: asked.Tool.Description, InputSchema: asked.Tool.InputSchema, Policy: api.PolicyAsk}
	} else if l.resuming {
		return interruptedMCPResult, nil, false
	} else {
		t, ok := l.mcpTool(tc.Name, false)
		if !ok {
			return fmt.Sprintf("unknown tool %q", tc.Name), nil, false
		}
		tool = t
	}

	args := json.RawMessage(strings.TrimSpace(tc.Arguments))
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if asked == nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			return fmt.Sprintf("invalid input: the arguments of %s must be a JSON object", tc.Name), nil, false
		}
		if err := questions.ValidateJSON(tool.InputSchema, args); err != nil {
			return fmt.Sprintf("invalid input for %s: %v", tc.Name, err), nil, false
		}
	}

	if asked != nil || tool.Policy == api.PolicyAsk {
		out, stop := l.approve(tc, questions.ApprovalTool{Server: tool.Server, Name: tool.Name, Description: tool.Description,
			Arguments: args, InputSchema: tool.InputSchema}, nil, asked)
		if stop || out.Status != questions.StatusApproved {
			return out.Result, nil, stop
		}
		args = json.RawMessage(out.Arguments)
		if out.Always {
			if _, err := host.SetToolPolicy(tool.Server, tool.Name, api.PolicyAllow); err != nil {
				l.rt.log.Warn("approve always: policy not saved", "server", tool.Server, "tool", tool.Name, "err", err)
			}
		}
	}

	l.state(chat.StateToolExecuting)
	var closed, asking atomic.Bool
	run := *l.run // the elicitation cards' goroutine gets its own copy
	res := host.Call(l.ctx, mcp.Call{Server: tool.Server, Tool: tool.Name, Arguments: args,
		Elicit: l.elicitor(tc, run, &closed, &asking)})
	// The app closing while a card of the call waits: the card stays
	// pending in storage (and is ended after the restart); nothing more is
	// written. The call may return before the card's goroutine saw the close.
	if closed.Load() || asking.Load() && l.rt.closing() {
		l.shutdown = true
		return "", nil, true
	}
	return res.Text, res.Attachments, false
}

// approve shows the approval card of the tool call (or waits for the one
// asked before a restart) and returns its outcome; stop is true when the
// run must stop. src, when set, is the card's source (else the MCP tool's).
func (l *runLoop) approve(tc chat.ToolCall, tool questions.ApprovalTool, src *questions.Source, asked *questions.Card) (questions.Outcome, bool) {
	cards := l.rt.opt.Approver
	card := asked
	if card != nil && card.Status != questions.StatusPending {
		out := questions.OutcomeFor(card)
		return out, out.StopRun
	}
	if card == nil {
		var err error
		card, err = cards.CreateApproval(l.ctx, questions.ApprovalRequest{ConversationID: l.run.ConversationID, RunID: l.run.ID,
			ToolCallID: tc.ID, Tool: tool, Source: src})
		if errors.Is(err, questions.ErrClosed) {
			l.shutdown = true
			return questions.Outcome{}, true
		}
		if err != nil {
			return questions.Outcome{Result: "error: the tool did not run: " + err.Error()}, false
		}
	}
	l.run.Status = chat.RunAwaiting
	_ = l.rt.opt.History.SaveRun(context.WithoutCancel(l.ctx), l.run)
	l.rt.setState(StateInfo{ConversationID: l.run.ConversationID, RunID: l.run.ID, State: chat.StateAwaitingUserResponse, PendingQuestion: card})
	out, err := cards.Wait(l.ctx, card.ID)
	if errors.Is(err, questions.ErrClosed) {
		l.shutdown = true
		return questions.Outcome{}, true
	}
	l.run.Status = chat.RunRunning
	_ = l.rt.opt.History.SaveRun(context.WithoutCancel(l.ctx), l.run)
	if err != nil {
		return questions.Outcome{Result: "error: " + err.Error()}, false
	}
	return out, out.StopRun
}

// elicitor shows the elicitation requests of an MCP server during the call
// as cards of the conversation, with the run awaiting the user meanwhile.
// It runs on the SDK's goroutine, so it works on its own copy of the run
// and reports a shutdown through closed; asking is set while a card waits.
func (l *runLoop) elicitor(tc chat.ToolCall, run chat.Run, closed, asking *atomic.Bool) func(context.Context, mcp.Elicitation) (mcp.ElicitAnswer, error) {
	cancel := mcp.ElicitAnswer{Action: "cancel"}
	return func(ctx context.Context, e mcp.Elicitation) (mcp.ElicitAnswer, error) {
		cards := l.rt.opt.Approver
		// Set from before the card exists until it is answered: a card
		// saved just as the app closes stays pending for the restart.
		asking.Store(true)
		card, err := cards.CreateElicitation(ctx, questions.ElicitationRequest{ConversationID: run.ConversationID, RunID: run.ID,
			ToolCallID: tc.ID, Server: e.Server, Tool: e.Tool, Message: e.Message, Mode: e.Mode, Schema: e.Schema, URL: e.URL})
		if errors.Is(err, questions.ErrClosed) {
			closed.Store(true)
			return cancel, nil
		}
		if err != nil {
			asking.Store(false)
			return mcp.ElicitAnswer{}, err // rate limit, pending cap, bad schema: the server gets an error
		}
		run.Status = chat.RunAwaiting
		_ = l.rt.opt.History.SaveRun(context.WithoutCancel(ctx), &run)
		l.rt.setState(StateInfo{ConversationID: run.ConversationID, RunID: run.ID, State: chat.StateAwaitingUserResponse, PendingQuestion: card})
		out, err := cards.Wait(ctx, card.ID)
		if errors.Is(err, questions.ErrClosed) {
			closed.Store(true)
			return cancel, nil
		}
		asking.Store(false)
		if l.ctx.Err() != nil {
			return cancel, nil // the run was stopped: it ends itself
		}
		run.Status = chat.RunRunning
		_ = l.rt.opt.History.SaveRun(context.WithoutCancel(ctx), &run)
		l.rt.setState(StateInfo{ConversationID: run.ConversationID, RunID: run.ID, State: chat.StateToolExecuting})
		switch {
		case err != nil:
			return cancel, nil
		case out.Status == questions.StatusAccepted:
			return mcp.ElicitAnswer{Action: "accept", Content: json.RawMessage(out.Content)}, nil
		case out.Status == questions.StatusDeclined:
			return mcp.ElicitAnswer{Action: "decline"}, nil
		default: // cancelled, timed out
			return cancel, nil
		}
	}
}

// runMCPForSubAgent runs an allowed MCP tool for a sub-agent: no cards, so
// elicitations are declined.
func (l *runLoop) runMCPForSubAgent(tc llm.ToolCall) (string, bool) {
	t, ok := l.mcpTool(tc.Name, true)
	if !ok {
		return "", false
	}
	args := json.RawMessage(strings.TrimSpace(tc.Arguments))
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := questions.ValidateJSON(t.InputSchema, args); err != nil {
		return fmt.Sprintf("invalid input for %s: %v", tc.Name, err), true
	}
	return l.rt.opt.MCP.Call(l.ctx, mcp.Call{Server: t.Server, Tool: t.Name, Arguments: args}).Text, true
}
