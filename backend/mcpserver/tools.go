// Package mcpserver is Parley's MCP server for the agents on the machine
// (SPEC §10): the tools ask_user_question, get_answer, request_permission
// and notify_user over the agent inbox, served as streamable HTTP at /mcp
// and, for `parley mcp`, over stdio forwarding to the running Parley. The
// tools declare no output schema: their results are text content (the
// TypeScript SDK rejects a result without structured content when a schema
// is declared).
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/questions"
)

// Tool names.
const (
	ToolAsk        = "ask_user_question"
	ToolGetAnswer  = "get_answer"
	ToolPermission = "request_permission"
	ToolNotify     = "notify_user"
)

// DefaultProgressEvery is how often a waiting call sends a progress
// notification when the request carries a progress token.
const DefaultProgressEvery = 10 * time.Second

// Agents is the inbox the tools file into (agentinbox.Inbox).
type Agents interface {
	Ask(ctx context.Context, req agentinbox.AskRequest) (*questions.Card, error)
	RequestPermission(ctx context.Context, req agentinbox.PermissionRequest) (*questions.Card, error)
	Answer(ctx context.Context, agent, id string, wait time.Duration) (agentinbox.Answer, error)
	Notify(ctx context.Context, agent, message, level string) error
}

// Options tune the server.
type Options struct {
	Version string
	Logger  *slog.Logger
	// ProgressEvery: 0 = DefaultProgressEvery.
	ProgressEvery time.Duration
}

// NewServer returns the MCP server with Parley's four tools over agents.
func NewServer(agents Agents, opt Options) *sdk.Server {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = DefaultProgressEvery
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "parley", Title: "Parley", Version: opt.Version}, &sdk.ServerOptions{
		Logger:       opt.Logger,
		Instructions: Instructions,
	})
	h := &handlers{agents: agents, opt: opt}
	for _, t := range Tools() {
		switch t.Name {
		case ToolAsk:
			srv.AddTool(t, h.ask)
		case ToolGetAnswer:
			srv.AddTool(t, h.getAnswer)
		case ToolPermission:
			srv.AddTool(t, h.permission)
		case ToolNotify:
			srv.AddTool(t, h.notify)
		}
	}
	return srv
}

// Instructions tell an agent what the server is for.
const Instructions = "Parley is the user's inbox for questions from agents. Use ask_user_question when you need a decision " +
	"or information only the user has, request_permission before risky actions, and notify_user to report progress or " +
	"that you are done. A question may stay unanswered for a while: when a call returns a pending object, call " +
	"get_answer with its question_id to keep waiting."

// Tools are the four tools with their input schemas (and no output schema).
func Tools() []*sdk.Tool {
	askSchema := questions.ToolSchema()
	props := askSchema["properties"].(map[string]any)
	props["context"] = map[string]any{"type": "string", "maxLength": api.MaxAgentContextChars,
		"description": "Markdown shown above the card: what you are doing and why you ask."}
	props["wait_seconds"] = waitSchema()
	props["timeout_seconds"] = map[string]any{"type": "integer", "minimum": 0,
		"description": "How long the card stays open before it times out (0 = never); default: the user's question timeout."}
	return []*sdk.Tool{
		{
			Name:        ToolAsk,
			Title:       "Ask the user",
			Description: questions.ToolDescription() + "\n\nThe card appears in the user's Parley inbox. If the user has not answered within wait_seconds, the result is a pending object with the question_id: call get_answer with it to keep waiting.",
			InputSchema: askSchema,
		},
		{
			Name:        ToolGetAnswer,
			Title:       "Get an answer",
			Description: "Wait for the answer to a card you filed with ask_user_question or request_permission. Returns the result once the user answered, or the same pending object while they have not.",
			InputSchema: map[string]any{
				"type":     "object",
				"required": []string{"question_id"},
				"properties": map[string]any{
					"question_id":  map[string]any{"type": "string", "description": "The question_id of the pending object."},
					"wait_seconds": waitSchema(),
				},
			},
		},
		{
			Name:  ToolPermission,
			Title: "Ask the user for permission",
			Description: "Ask the user to allow or deny one of your tool calls (Claude Code's --permission-prompt-tool shape). " +
				`The result is JSON {"behavior":"allow","updatedInput":{...}} (the user may have edited the input) or {"behavior":"deny","message":"..."}.`,
			InputSchema: map[string]any{
				"type":     "object",
				"required": []string{"tool_name", "input"},
				"properties": map[string]any{
					"tool_name":    map[string]any{"type": "string", "description": "The tool you want to call."},
					"input":        map[string]any{"type": "object", "description": "Its input."},
					"tool_use_id":  map[string]any{"type": "string"},
					"context":      map[string]any{"type": "string", "maxLength": api.MaxAgentContextChars, "description": "Markdown: why you want to run it."},
					"wait_seconds": waitSchema(),
				},
			},
		},
		{
			Name:        ToolNotify,
			Title:       "Notify the user",
			Description: "Tell the user something (progress, done, a warning) without waiting for an answer: a notification and a line in your conversation in Parley. Returns at once.",
			InputSchema: map[string]any{
				"type":     "object",
				"required": []string{"message"},
				"properties": map[string]any{
					"message": map[string]any{"type": "string", "maxLength": api.MaxNoticeChars},
					"level":   map[string]any{"type": "string", "enum": []string{agentinbox.LevelInfo, agentinbox.LevelSuccess, agentinbox.LevelWarning}},
				},
			},
		},
	}
}

func waitSchema() map[string]any {
	return map[string]any{"type": "integer", "minimum": 1, "maximum": api.MaxAgentWaitSeconds, "default": api.DefaultAgentWaitSeconds,
		"description": fmt.Sprintf("How long this call waits for the answer (1-%d s, default %d: MCP clients give up on a call after 60 s).", api.MaxAgentWaitSeconds, api.DefaultAgentWaitSeconds)}
}

type handlers struct {
	agents Agents
	opt    Options
}

// common fields of the tools' input.
type waitInput struct {
	WaitSeconds    *int   `json:"wait_seconds"`
	TimeoutSeconds *int   `json:"timeout_seconds"`
	Context        string `json:"context"`
}

func (w waitInput) wait() (time.Duration, error) {
	if w.WaitSeconds == nil {
		return api.DefaultAgentWaitSeconds * time.Second, nil
	}
	if s := *w.WaitSeconds; s < 1 || s > api.MaxAgentWaitSeconds {
		return 0, agentinbox.Invalid("agents.badWaitSeconds", api.MaxAgentWaitSeconds, s)
	}
	return time.Duration(*w.WaitSeconds) * time.Second, nil
}

func (w waitInput) timeout() (*time.Duration, error) {
	if w.TimeoutSeconds == nil {
		return nil, nil
	}
	if *w.TimeoutSeconds < 0 {
		return nil, agentinbox.Invalid("agents.badTimeout")
	}
	d := time.Duration(*w.TimeoutSeconds) * time.Second
	return &d, nil
}

// limits are how long the call waits and how long the card stays open.
func (w waitInput) limits() (wait time.Duration, timeout *time.Duration, err error) {
	if wait, err = w.wait(); err != nil {
		return 0, nil, err
	}
	timeout, err = w.timeout()
	return wait, timeout, err
}

// decodeArgs reads a call's arguments into v; a result (a tool error) when
// they are not a JSON object of the right shape.
func decodeArgs(raw json.RawMessage, v any) *sdk.CallToolResult {
	if err := json.Unmarshal(raw, v); err != nil {
		return toolError(i18n.T("agents.argumentsNotObject", err.Error()))
	}
	return nil
}

func (h *handlers) ask(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	args := req.Params.Arguments
	var in waitInput
	if bad := decodeArgs(args, &in); bad != nil {
		return bad, nil
	}
	wait, timeout, err := in.limits()
	if err != nil {
		return toolError(said(err)), nil
	}
	agent := AgentName(req)
	card, err := h.agents.Ask(ctx, agentinbox.AskRequest{Agent: agent, Input: args, Context: in.Context, Timeout: timeout})
	if err != nil {
		return toolError(said(err)), nil
	}
	return h.await(ctx, req, agent, card.ID, wait)
}

func (h *handlers) getAnswer(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		waitInput
		QuestionID string `json:"question_id"`
	}
	if bad := decodeArgs(req.Params.Arguments, &in); bad != nil {
		return bad, nil
	}
	if in.QuestionID == "" {
		return toolError(i18n.T("agents.questionIDRequired")), nil
	}
	wait, err := in.wait()
	if err != nil {
		return toolError(said(err)), nil
	}
	return h.await(ctx, req, AgentName(req), in.QuestionID, wait)
}

func (h *handlers) permission(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		waitInput
		ToolName  string          `json:"tool_name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
	}
	if bad := decodeArgs(req.Params.Arguments, &in); bad != nil {
		return bad, nil
	}
	wait, timeout, err := in.limits()
	if err != nil {
		return toolError(said(err)), nil
	}
	agent := AgentName(req)
	card, err := h.agents.RequestPermission(ctx, agentinbox.PermissionRequest{Agent: agent, ToolName: in.ToolName,
		Input: in.Input, ToolUseID: in.ToolUseID, Context: in.Context, Timeout: timeout})
	if err != nil {
		return toolError(said(err)), nil
	}
	return h.await(ctx, req, agent, card.ID, wait)
}

func (h *handlers) notify(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
		Level   string `json:"level"`
	}
	if bad := decodeArgs(req.Params.Arguments, &in); bad != nil {
		return bad, nil
	}
	if err := h.agents.Notify(ctx, AgentName(req), in.Message, in.Level); err != nil {
		return toolError(said(err)), nil
	}
	return textResult("The user was notified."), nil
}

// await waits up to wait for the card, sending a progress notification
// every ProgressEvery when the request carries a progress token, and
// returns the result or the pending object.
func (h *handlers) await(ctx context.Context, req *sdk.CallToolRequest, agent, id string, wait time.Duration) (*sdk.CallToolResult, error) {
	token := req.Params.GetProgressToken()
	start := time.Now()
	deadline := start.Add(wait)
	for {
		chunk := time.Until(deadline)
		if token != nil {
			chunk = min(chunk, h.opt.ProgressEvery)
		}
		ans, err := h.agents.Answer(ctx, agent, id, max(chunk, 0))
		if err != nil {
			return toolError(said(err)), nil
		}
		if !ans.Pending || !time.Now().Before(deadline) || ctx.Err() != nil {
			return textResult(ans.Result), nil
		}
		if token != nil && req.Session != nil {
			elapsed := time.Since(start).Seconds()
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
				Progress: elapsed, Total: wait.Seconds(), Message: "Waiting for the user to answer in Parley"})
			if err != nil {
				h.opt.Logger.Debug("progress notification not sent", "err", err)
			}
		}
	}
}

// AgentName is the calling agent: its MCP clientInfo.name, else its
// token's name.
func AgentName(req *sdk.CallToolRequest) string {
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		if name, ok := req.Extra.TokenInfo.Extra[TokenNameKey].(string); ok && name != "" {
			return name
		}
	}
	return "agent"
}

// TokenNameKey holds the token's name in auth.TokenInfo.Extra.
const TokenNameKey = "name"

func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

func toolError(text string) *sdk.CallToolResult {
	r := textResult(text)
	r.IsError = true
	return r
}

// said is an error as the agent's person reads it: in the language of
// Parley's interface (a tool call carries no language of its own), the
// catalogue's words where the error has them.
func said(err error) string { return i18n.Localize(err, i18n.Current()) }
