// Package questions implements the ask_user_question contract (SPEC §1):
// parsing and validating the model's input, the QuestionManager that holds
// pending cards until the user answers, answer validation and the exact
// tool-result texts the model receives.
package questions

import (
	"context"
	"encoding/json"
	"time"
)

// ToolName is the name the model calls.
const ToolName = "ask_user_question"

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question of a card. Zero options means open-ended.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
	AllowCustom bool     `json:"allowCustom"`
	Placeholder string   `json:"placeholder,omitempty"`
}

// Status is a card's lifecycle state (SPEC §1 "Lifecycle and limits").
type Status string

const (
	StatusPending      Status = "pending"
	StatusAnswered     Status = "answered"
	StatusDeclined     Status = "declined"
	StatusCancelled    Status = "cancelled"
	StatusTimedOut     Status = "timed_out"
	StatusAnsweredLate Status = "answered_late"
	StatusSuperseded   Status = "superseded"
	// Approval cards (SPEC §6).
	StatusApproved Status = "approved"
	StatusRejected Status = "rejected"
	// Elicitation cards (SPEC §6); declined, cancelled and timed_out are shared.
	StatusAccepted Status = "accepted"
)

// Kind says which human decision a card asks for (SPEC §6).
type Kind string

const (
	KindQuestion    Kind = "question"
	KindApproval    Kind = "approval"
	KindElicitation Kind = "elicitation"
)

// Source types of a card (SPEC §6).
const (
	SourceModel = "model"
	SourceMCP   = "mcp"
	// SourceAgent: an agent on the machine asked through Parley's MCP
	// server, REST or `parley ask` (SPEC §10).
	SourceAgent = "agent"
)

// Source says who asks: the model itself, or an MCP server's tool.
type Source struct {
	Type   string `json:"type"`
	Server string `json:"server,omitempty"`
	// Tool is the MCP tool's own name (e.g. "echo"), not the name the model sees.
	Tool string `json:"tool,omitempty"`
	// Agent names the agent that asked (SPEC §10): its MCP clientInfo.name,
	// the agent field of /asks, or its token's name.
	Agent string `json:"agent,omitempty"`
}

// ApprovalTool is the tool call an approval card asks about (SPEC §6).
// Arguments and InputSchema are kept as sent, so their key order survives.
type ApprovalTool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Arguments   json.RawMessage `json:"arguments"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Elicitation modes (SPEC §6).
const (
	ElicitForm = "form"
	ElicitURL  = "url"
)

// Card is one ask_user_question call: 1..4 questions shown together.
// Its JSON form is the card object of SPEC §3.
type Card struct {
	ID             string            `json:"question_id"`
	ConversationID string            `json:"conversationId"`
	RunID          string            `json:"run_id,omitempty"`
	ToolCallID     string            `json:"tool_call_id,omitempty"`
	Status         Status            `json:"status"`
	Questions      []Question        `json:"questions"`
	CreatedAt      time.Time         `json:"created_at"`
	ExpiresAt      *time.Time        `json:"expires_at"`
	Answers        map[string]string `json:"answers,omitempty"`
	Comments       string            `json:"comments,omitempty"`
	AnsweredAt     *time.Time        `json:"answered_at,omitempty"`

	// Kind is "question" unless said otherwise; Source is {"type":"model"}
	// for the model's own questions.
	Kind   Kind    `json:"kind"`
	Source *Source `json:"source"`

	// Approval cards: the tool call to approve, and once resolved the
	// arguments it ran with (when edited), the reject reason, and whether
	// "Approve always" was chosen.
	Tool              *ApprovalTool   `json:"tool,omitempty"`
	ApprovedArguments json.RawMessage `json:"approved_arguments,omitempty"`
	Reason            string          `json:"reason,omitempty"`
	Always            bool            `json:"always,omitempty"`

	// Elicitation cards: the server asking, its message, the mode, the
	// requested schema as sent (form) or the URL (url); once accepted, the
	// content sent to the server (schema defaults filled in).
	Server  string          `json:"server,omitempty"`
	Message string          `json:"message,omitempty"`
	Mode    string          `json:"mode,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	URL     string          `json:"url,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`

	// Context is an agent's Markdown about what it is doing and why it
	// asks (SPEC §10), shown above the card; empty for other sources.
	Context string `json:"context,omitempty"`

	// AnsweredBy is "memory" for a card answered at once from the user's
	// memories (SPEC §14), without being shown to the user; MemoryID is the
	// memory that answered (the first question's), MemoryIDs the one that
	// answered each question, by question text.
	AnsweredBy string            `json:"answered_by,omitempty"`
	MemoryID   string            `json:"memory_id,omitempty"`
	MemoryIDs  map[string]string `json:"memory_ids,omitempty"`
}

// Action is what the user did with a card.
type Action string

const (
	ActionSubmit  Action = "submit"
	ActionDecline Action = "decline"
	ActionCancel  Action = "cancel"
	// ActionSkip is another name for ActionDecline: "Skip" is what the card's
	// button and the README call it.
	ActionSkip Action = "skip"
	// Approval cards (SPEC §6).
	ActionApprove Action = "approve"
	ActionReject  Action = "reject"
	// Elicitation cards (SPEC §6); decline and cancel are shared.
	ActionAccept Action = "accept"
)

// Canonical returns the action with aliases resolved (skip is decline).
func (a Action) Canonical() Action {
	if a == ActionSkip {
		return ActionDecline
	}
	return a
}

// AnswerInput is the user's answer to one question: selected option labels
// and/or one free-text answer.
type AnswerInput struct {
	Selected []string `json:"selected"`
	Custom   string   `json:"custom,omitempty"`
}

// Response is the user's reply to a card. QuestionID may be "latest".
type Response struct {
	QuestionID string                 `json:"question_id"`
	Action     Action                 `json:"action"`
	Answers    map[string]AnswerInput `json:"answers,omitempty"`
	Comments   string                 `json:"comments,omitempty"`

	// Approval: edited arguments (validated against the tool's input
	// schema), "approve always", or the reject reason.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Always    bool            `json:"always,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	// Elicitation: the accepted content (validated against the schema).
	Content json.RawMessage `json:"content,omitempty"`

	// Remember names questions of a submitted card whose answers become
	// memories (SPEC §14), by question text; the service keeps them.
	Remember []string `json:"remember,omitempty"`
}

// Outcome is how a card ended for the run that asked it.
type Outcome struct {
	Status Status
	// Result is the exact tool-result content the model receives.
	Result string
	// StopRun is true when the user cancelled: the run stops and the
	// conversation goes idle.
	StopRun bool
	// Approval cards: the arguments to run the tool with (JSON, edited or
	// the model's) and whether "Approve always" was chosen. (Strings keep
	// Outcome comparable.)
	Arguments string
	Always    bool
	// Elicitation cards: the accepted content (JSON, defaults filled in).
	Content string
}

// Store persists cards; the storage package implements it. Every card is
// saved before its event goes out ("write before show").
type Store interface {
	SaveCard(ctx context.Context, c *Card) error
}

// Clock is injectable so timeouts are tested without sleeping.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; Stop cancels it.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle returned by Clock.AfterFunc.
type Timer interface {
	Stop() bool
}

// TraceKey is the card's key in the card trace (backend/trace).
func (c *Card) TraceKey() string { return c.ID }

// FillKind sets a card's kind and source to the model's own question when
// they are unset (cards stored before SPEC §6, and cards made by ask_user_question).
func (c *Card) FillKind() {
	if c.Kind == "" {
		c.Kind = KindQuestion
	}
	if c.Source == nil {
		c.Source = &Source{Type: SourceModel}
	}
}

// FromAgent reports whether an agent on the machine asked (SPEC §10).
func (c *Card) FromAgent() bool { return c.Source != nil && c.Source.Type == SourceAgent }

// countsGlobally reports whether the card counts against the pending cap
// across conversations: an agent's cards count against its own cap instead
// (SPEC §10), so a busy agent never stops the assistant from asking.
func (c *Card) countsGlobally() bool { return !c.FromAgent() }
