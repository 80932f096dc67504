// Package agentinbox is Parley as the inbox of every agent on the machine
// (SPEC §10): an agent's questions and permission requests become cards of
// its own conversation through the QuestionManager (ids, timeouts,
// exactly-once, validation, rate limit, pending cap, restart survival), its
// notices become lines of that conversation, and agent tokens are made,
// checked and revoked here. The MCP server, the REST endpoints and
// `parley ask` are adapters on top of it.
package agentinbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/questions"
)

// Tool names an agent's card is filed under in its conversation (the
// message that carries its context makes the call).
const (
	AskTool        = questions.ToolName
	PermissionTool = "request_permission"
)

// Notice levels of notify_user.
const (
	LevelInfo    = "info"
	LevelSuccess = "success"
	LevelWarning = "warning"
)

// Errors of the inbox (*fault.Error). A refusal (rate limit, pending cap)
// is of kind fault.TooMany (HTTP 429); bad input is fault.Validation (HTTP
// 422; Invalid).
//
// Their texts are what an agent relays to its person, so they come from the
// catalogue (backend/i18n): said in the language of Parley's interface (an
// MCP call carries no language of its own), and again in an HTTP client's
// Accept-Language when Settings choose none (i18n.Localize).
var (
	// ErrUnknownCard: no such card, or a card of another agent.
	ErrUnknownCard error = fault.New(fault.NotFound, i18n.M("agents.unknownCard"))
)

// Invalid is input to fix; its text says which field and why (the
// adapters' own checks of an agent's input use it too).
func Invalid(key string, args ...any) error {
	return fault.New(fault.Validation, i18n.M(key, args...))
}

func inputErr(key string, args ...any) error { return Invalid(key, args...) }

// refused says why the questions' manager refused an agent's card: the
// text says why and what to do (a tool error over MCP, 429 over REST).
func refused(err error) error {
	var rl *questions.RateLimitError
	var pc *questions.PendingCapError
	switch {
	case errors.As(err, &rl):
		return fault.Wrap(fault.TooMany, i18n.M("agents.rateLimited", rl.Seconds()), err)
	case errors.As(err, &pc):
		return fault.Wrap(fault.TooMany, i18n.M("agents.pendingCap", pc.Max), err)
	}
	return fault.Wrap(fault.TooMany, i18n.M("agents.refused", err.Error()), err)
}

// Store is what the inbox keeps in the database.
type Store interface {
	AgentConversation(ctx context.Context, agent string) (*chat.Conversation, bool, error)
	AppendMessage(ctx context.Context, m *chat.Message) error
	Card(ctx context.Context, id string) (*questions.Card, error)
	TokenStore
}

// AutoAnswerer answers an agent's question card from memory (SPEC §14),
// before anyone is asked: the answers and the memories that gave them, ok
// false when the card must be asked. Only memories scoped to the agent's
// conversation may answer it.
type AutoAnswerer func(ctx context.Context, conversationID string, qs []questions.Question) (a questions.Answered, ok bool)

// Options wire an Inbox.
type Options struct {
	Store   Store
	Manager *questions.Manager
	Events  events.Emitter
	Logger  *slog.Logger
	// AutoAnswer, when set, may answer a question card at once.
	AutoAnswer AutoAnswerer
}

// Inbox files agents' cards and notices. It is safe for concurrent use.
type Inbox struct {
	store      Store
	qm         *questions.Manager
	ev         events.Emitter
	log        *slog.Logger
	autoAnswer AutoAnswerer
	*tokens

	mu sync.Mutex
	// lastCard is each agent's newest card: once it is answered, the next
	// card is spared by the rate limit (an answer frees its place).
	lastCard map[string]string
}

// New returns an inbox.
func New(opt Options) *Inbox {
	if opt.Events == nil {
		opt.Events = events.Discard
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	log := opt.Logger.With("component", "agents")
	return &Inbox{store: opt.Store, qm: opt.Manager, ev: opt.Events, log: log, autoAnswer: opt.AutoAnswer,
		tokens: newTokens(opt.Store, log), lastCard: map[string]string{}}
}

// AskRequest is one question card from an agent: input is the §1 tool
// input (the whole object: extra fields are ignored).
type AskRequest struct {
	Agent   string
	Input   json.RawMessage
	Context string
	// Timeout overrides the question timeout setting (0 = never).
	Timeout *time.Duration
}

// PermissionRequest is Claude Code's --permission-prompt-tool call.
type PermissionRequest struct {
	Agent     string
	ToolName  string
	Input     json.RawMessage
	ToolUseID string
	Context   string
	Timeout   *time.Duration
}

// Ask files an agent's questions as a pending card of its conversation.
func (in *Inbox) Ask(ctx context.Context, req AskRequest) (*questions.Card, error) {
	qs, err := questions.ParseInput(req.Input)
	if err != nil {
		return nil, err
	}
	args, err := json.Marshal(map[string]any{"questions": qs})
	if err != nil {
		return nil, fmt.Errorf("encode questions: %w", err)
	}
	return in.file(ctx, req.Agent, req.Context, AskTool, string(args), questions.AgentAsk{Questions: qs, Timeout: req.Timeout})
}

// RequestPermission files an approval card of the agent's tool call: its
// input shown and editable.
func (in *Inbox) RequestPermission(ctx context.Context, req PermissionRequest) (*questions.Card, error) {
	name := strings.TrimSpace(req.ToolName)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return nil, inputErr("agents.badToolName", 200)
	}
	input := req.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(input, &obj); err != nil || obj == nil {
		return nil, inputErr("agents.badPermissionInput")
	}
	args, err := json.Marshal(map[string]any{"tool_name": name, "input": input, "tool_use_id": req.ToolUseID})
	if err != nil {
		return nil, fmt.Errorf("encode permission request: %w", err)
	}
	desc := ""
	if req.ToolUseID != "" {
		desc = "tool use " + req.ToolUseID
	}
	tool := &questions.ApprovalTool{Name: name, Description: desc, Arguments: input}
	return in.file(ctx, req.Agent, req.Context, PermissionTool, string(args), questions.AgentAsk{Tool: tool, Timeout: req.Timeout})
}

// file checks the agent and context, makes the card in the agent's
// conversation, then the message that carries its context (so the chat
// shows the context above the card).
func (in *Inbox) file(ctx context.Context, agent, contextText, tool, args string, ask questions.AgentAsk) (*questions.Card, error) {
	agent, err := CleanAgentName(agent)
	if err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(contextText); n > api.MaxAgentContextChars {
		return nil, inputErr("agents.contextTooLong", api.MaxAgentContextChars, n)
	}
	if ask.Timeout != nil && *ask.Timeout < 0 {
		return nil, inputErr("agents.badTimeout")
	}
	conv, created, err := in.store.AgentConversation(ctx, agent)
	if err != nil {
		return nil, err
	}
	if created {
		title := conv.Title
		in.ev.Emit(events.ConversationUpdated, events.ConversationUpdatedPayload{ConversationID: conv.ID, Title: &title})
	}
	ask.ConversationID, ask.Agent, ask.Context = conv.ID, agent, contextText
	ask.ToolCallID = "agent_" + uuid.NewString()
	ask.Spare = in.lastAnswered(agent)
	card := in.answeredFromMemory(ctx, ask)
	if card == nil {
		card, err = in.qm.CreateForAgent(ctx, ask)
		var rl *questions.RateLimitError
		switch {
		case errors.As(err, &rl), errors.Is(err, questions.ErrTooManyPending):
			in.log.Info("agent card refused", "agent", agent, "err", err)
			return nil, refused(err)
		case err != nil:
			return nil, err
		}
	}
	in.mu.Lock()
	in.lastCard[agent] = card.ID
	in.mu.Unlock()
	msg := &chat.Message{ConversationID: conv.ID, Role: chat.RoleAssistant, Content: contextText,
		ToolCalls: []chat.ToolCall{{ID: card.ToolCallID, Name: tool, Arguments: args}}}
	if err := in.store.AppendMessage(ctx, msg); err != nil {
		// The card stands (it is saved and shown); only its context line is missing.
		in.log.Error("save the context of an agent's card", "agent", agent, "question_id", card.ID, "err", err)
		return card, nil
	}
	in.ev.Emit(events.MessageDone, events.MessageDonePayload{ConversationID: conv.ID, Message: *msg})
	return card, nil
}

// answeredFromMemory stores a question card the agent's memories answer
// as answered at once (nil: it must be asked; a failure to store it is
// logged and the card is asked).
func (in *Inbox) answeredFromMemory(ctx context.Context, ask questions.AgentAsk) *questions.Card {
	if in.autoAnswer == nil || ask.Tool != nil {
		return nil
	}
	a, ok := in.autoAnswer(ctx, ask.ConversationID, ask.Questions)
	if !ok {
		return nil
	}
	card, err := in.qm.CreateAnsweredForAgent(ctx, ask, a)
	if err != nil {
		in.log.Warn("agent card not answered from memory: asked", "agent", ask.Agent, "err", err)
		return nil
	}
	return card
}

// lastAnswered reports whether the agent's newest card left pending.
func (in *Inbox) lastAnswered(agent string) bool {
	in.mu.Lock()
	id, ok := in.lastCard[agent]
	in.mu.Unlock()
	if !ok {
		return false
	}
	c, ok := in.qm.Get(id)
	return ok && c.Status != questions.StatusPending
}

// Notify adds an agent's notice to its conversation and announces it (the
// window shows a notification when in the background). It returns at once.
func (in *Inbox) Notify(ctx context.Context, agent, message, level string) error {
	agent, err := CleanAgentName(agent)
	if err != nil {
		return err
	}
	message = strings.TrimSpace(message)
	if n := utf8.RuneCountInString(message); n == 0 || n > api.MaxNoticeChars {
		return inputErr("agents.badNotice", api.MaxNoticeChars, n)
	}
	switch level {
	case "":
		level = LevelInfo
	case LevelInfo, LevelSuccess, LevelWarning:
	default:
		return inputErr("agents.badLevel", level)
	}
	conv, created, err := in.store.AgentConversation(ctx, agent)
	if err != nil {
		return err
	}
	if created {
		title := conv.Title
		in.ev.Emit(events.ConversationUpdated, events.ConversationUpdatedPayload{ConversationID: conv.ID, Title: &title})
	}
	msg := &chat.Message{ConversationID: conv.ID, Role: chat.RoleAssistant, Content: noticeMarks[level] + " " + message}
	if err := in.store.AppendMessage(ctx, msg); err != nil {
		return fmt.Errorf("save notice of agent %q: %w", agent, err)
	}
	in.ev.Emit(events.MessageDone, events.MessageDonePayload{ConversationID: conv.ID, Message: *msg})
	in.ev.Emit(events.AgentNotice, events.AgentNoticePayload{ConversationID: conv.ID, Agent: agent, Message: message, Level: level})
	return nil
}

// noticeMarks open a notice line by its level.
var noticeMarks = map[string]string{LevelInfo: "ℹ️", LevelSuccess: "✅", LevelWarning: "⚠️"}

// CleanAgentName trims an agent's name and checks it: 1..64 characters,
// no control characters.
func CleanAgentName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n == 0 || n > api.MaxAgentNameChars {
		return "", inputErr("agents.badName", api.MaxAgentNameChars, n)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return "", inputErr("agents.nameControl")
	}
	return name, nil
}
