package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
)

// ToolRemember is the model's tool to propose a memory (SPEC §14): an
// approval card "Remember this?" with the text editable; only an approved
// text is kept.
const ToolRemember = "remember"

// Memory is what the loop needs of the user's memories (SPEC §14); the
// service implements it. nil (Options.Memory) = no memory.
type Memory interface {
	// On reports whether memory is on: the remember tool is offered,
	// memories go into the system prompt and answer cards.
	On() bool
	// Prompt returns the memory block of the conversation's run, for its
	// system prompt ("" = none), and the memories it lists.
	Prompt(ctx context.Context, conversationID, userMessage string) (text string, ids []string)
	// Used marks the memories a run's prompt listed as used, stored once
	// after is closed (the run's end): the run's request to the model does
	// not wait for the write.
	Used(ids []string, after <-chan struct{})
	// AutoAnswer stores the card of an ask_user_question call as answered
	// when the memories answer every question of it (SPEC §14), and
	// returns it; nil when the card must be asked.
	AutoAnswer(ctx context.Context, req questions.AskRequest) (*questions.Card, error)
	// Keep stores a memory the model proposed and the user approved.
	Keep(ctx context.Context, conversationID, text string) error
}

// RememberDescription tells the model what the tool does.
const RememberDescription = "Propose to remember one short fact about the user or their work for later conversations " +
	"(a preference, a decision, a detail they will not want to repeat). The user sees it, may edit it, and approves or rejects it. " +
	"Use it sparingly, for lasting facts only, never for secrets. One fact per call, in one sentence."

var rememberSchema = json.RawMessage(fmt.Sprintf(`{"type":"object","required":["text"],"properties":{"text":{"type":"string","minLength":1,"maxLength":%d,"pattern":"\\S","description":"the fact, in one sentence, as it should be remembered"}},"additionalProperties":false}`,
	memory.MaxTextChars))

var rememberTool = func() llm.Tool {
	params := map[string]any{}
	if err := json.Unmarshal(rememberSchema, &params); err != nil {
		panic(err)
	}
	return llm.Tool{Name: ToolRemember, Description: RememberDescription, Parameters: params}
}()

// Tool results of remember.
const (
	rememberRejected = "The user chose not to remember this; nothing was kept. Do not propose it again unless the user asks."
	rememberTimedOut = "The user did not answer the request to remember this in time; nothing was kept."
	rememberOff      = "Memory is turned off in Parley's settings; nothing was kept."
)

// rejectedWithReason opens the result of a rejection with a reason.
var rejectedWithReason = strings.TrimSuffix(questions.RejectedResult("\x00"), "\x00")

// rememberServer names Parley itself on the approval card, where an MCP
// tool's card names its server.
const rememberServer = "Parley"

// remembers reports whether the run offers the remember tool: memory is
// on and cards can be shown.
func (l *runLoop) remembers() bool {
	return l.rt.opt.Memory != nil && l.rt.opt.Approver != nil && l.rt.opt.Memory.On()
}

// offersRemember reports whether the model gets the remember tool: memory
// is on and the profile lets it ask the user (ask_user_question: remember
// asks with a card too) or lists remember itself. Sub-agents never get it.
func (l *runLoop) offersRemember() bool {
	return l.remembers() && (l.profile.hasTool(ToolAskUser) || l.profile.hasTool(ToolRemember))
}

// memoryPrompt is the memory block of the run's system prompt, made once a
// run from the user's last message ("" when memory is off or none apply).
// The block started with the run (see prefetchMemory) is taken when it is
// for that message.
func (l *runLoop) memoryPrompt(history []chat.Message) string {
	if l.memorySearched {
		return l.memoryText
	}
	l.memorySearched = true
	pre := l.memoryPre
	l.memoryPre = nil
	mem := l.rt.opt.Memory
	if mem == nil || !mem.On() {
		return ""
	}
	message := ""
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == chat.RoleUser {
			message = history[i].Content
			break
		}
	}
	var ids []string
	if pre != nil && pre.message == message {
		<-pre.done
		l.memoryText, ids = pre.text, pre.ids
	} else {
		l.memoryText, ids = mem.Prompt(l.ctx, l.run.ConversationID, message)
	}
	if len(ids) > 0 {
		mem.Used(ids, l.done)
	}
	return l.memoryText
}

// memoryBlock is a run's memory block made while the run starts.
type memoryBlock struct {
	message string
	done    chan struct{} // closed once text and ids are set
	text    string
	ids     []string
}

// prefetchMemory starts making the memory block of a run that starts with
// the user's message, beside storing that message: with 10,000 memories
// it takes ~50 µs (SPEC §14: the first request to the model is not
// measurably later than with none, issue #41). nil when memory is off.
func (r *Runtime) prefetchMemory(ctx context.Context, req StartRequest) *memoryBlock {
	mem := r.opt.Memory
	if mem == nil || req.UserText == "" || !mem.On() {
		return nil
	}
	b := &memoryBlock{message: req.UserText, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.text, b.ids = mem.Prompt(ctx, req.ConversationID, req.UserText)
	}()
	return b
}

// autoAnswer answers the card of an ask_user_question call from memory
// when every question of it has an auto-answer memory (SPEC §14): the card
// is stored as answered and the run goes on without pausing. ok is false
// when the card must be asked.
func (l *runLoop) autoAnswer(tc chat.ToolCall, qs []questions.Question) (result string, ok bool) {
	mem := l.rt.opt.Memory
	if mem == nil || !mem.On() {
		return "", false
	}
	card, err := mem.AutoAnswer(l.ctx, questions.AskRequest{ConversationID: l.run.ConversationID, RunID: l.run.ID,
		ToolCallID: tc.ID, Questions: qs})
	if err != nil {
		if !errors.Is(err, questions.ErrClosed) {
			l.rt.log.Warn("answer a card from memory", "conversation", l.run.ConversationID, "err", err)
		}
		return "", false // asked as usual (after Close, Create says so)
	}
	if card == nil {
		return "", false
	}
	return questions.OutcomeFor(card).Result, true
}

// runRemember runs the remember tool: an approval card with the text
// editable (or the card asked before a restart), then the approved text
// is kept. halt is true when the user cancelled (the run stops).
func (l *runLoop) runRemember(tc chat.ToolCall, asked *questions.Card) (result string, halt bool) {
	if asked == nil {
		if l.resuming && !l.remembers() {
			return rememberOff, false
		}
		var in struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(tc.Arguments), &in); err != nil {
			return `invalid input: the arguments of remember must be {"text": "..."}`, false
		}
		text, n, err := memory.CheckText(in.Text)
		switch {
		case errors.Is(err, memory.ErrEmpty):
			return `invalid input: "text" must be a non-empty string`, false
		case errors.Is(err, memory.ErrTooLong):
			return fmt.Sprintf(`invalid input: "text" must be at most %d characters (got %d)`, memory.MaxTextChars, n), false
		}
		if !l.remembers() {
			return rememberOff, false
		}
		args, _ := json.Marshal(map[string]string{"text": text})
		tc.Arguments = string(args)
	}
	tool := questions.ApprovalTool{Server: rememberServer, Name: ToolRemember, Description: i18n.T("memory.rememberThis"),
		Arguments: json.RawMessage(tc.Arguments), InputSchema: rememberSchema}
	out, stop := l.approve(tc, tool, &questions.Source{Type: questions.SourceModel, Tool: ToolRemember}, asked)
	if stop {
		return out.Result, true
	}
	switch out.Status {
	case questions.StatusApproved:
	case questions.StatusRejected:
		if reason, ok := strings.CutPrefix(out.Result, rejectedWithReason); ok {
			return rememberRejected + " Reason: " + reason, false
		}
		return rememberRejected, false
	case questions.StatusTimedOut:
		return rememberTimedOut, false
	default:
		return out.Result, false // an error making the card
	}
	var approved struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal([]byte(out.Arguments), &approved)
	text, _, err := memory.CheckText(approved.Text)
	if err != nil {
		return "Nothing was kept: the approved text was empty or too long.", false
	}
	var proposed struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal([]byte(tc.Arguments), &proposed)
	if !l.remembers() {
		return rememberOff, false
	}
	if err := l.rt.opt.Memory.Keep(context.WithoutCancel(l.ctx), l.run.ConversationID, text); err != nil {
		return "error: nothing was kept: " + err.Error(), false
	}
	if strings.TrimSpace(proposed.Text) != text {
		return fmt.Sprintf("The user edited the text, then approved it. Remembered: %q", text), false
	}
	return fmt.Sprintf("Remembered: %q", text), false
}
