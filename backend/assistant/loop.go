package assistant

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/trace"
)

// runLoop is the state of one run while it executes.
type runLoop struct {
	rt      *Runtime
	ctx     context.Context
	run     *chat.Run
	profile Profile
	// instructions are the conversation's project's (SPEC §14): they open
	// the system prompt.
	instructions string
	model        llm.Model
	state        func(string)
	// shutdown is set when the app closes while a card waits: the card
	// stays pending in storage and the run is resumed after a restart, so
	// nothing more is written.
	shutdown bool
	// afterUserTurn is set until the run's first card is shown when the run
	// was started by a new user message or a late answer: the rate limit
	// spares that card (SPEC §1).
	afterUserTurn bool
	// resuming is set while tool calls an earlier process left without a
	// result are completed.
	resuming bool
	// attachments of the tool result being made (images an MCP tool returned).
	attachments []chat.Attachment
	// text is the run's tool form (native or in text, SPEC §8).
	text textForm
	// traceAfter is the card just answered while tracing: the next model
	// request marks its hop (backend/trace).
	traceAfter string
	// known is the visible path as last read plus the messages the loop
	// stored since (nil = read it again); see history.
	known []chat.Message
	// saved counts the messages the run stored (see StartRequest.Unwind).
	saved int
	// runUnsaved: the run's status changed and is saved with the next
	// message (see saveRunWithNext).
	runUnsaved bool
	// heldStats are statistics written when the step ends (see recordOutcome).
	heldStats []StatDelta
	// thinkingNote is said once in a reply's figures: the server refused
	// the thinking fields (see refuseThinking).
	thinkingNote string
	// toolSources are the passages of the search_knowledge result being made.
	toolSources []chat.Source
	// With tool calling off, the collections are searched once a run with
	// the user's message and the passages go into the system prompt.
	promptSearched bool
	promptText     string
	promptSources  []chat.Source
	// The memories' block of the system prompt, made once a run (SPEC §14).
	memorySearched bool
	memoryText     string
	// memoryPre is the block started with the run (nil: none).
	memoryPre *memoryBlock
	// done is closed when the run has ended.
	done <-chan struct{}
}

// askUserTool is ask_user_question's definition, made once: its schema is
// a tree of maps, built anew it cost every model request (issue #42). The
// requests only read it.
var askUserTool = sync.OnceValue(func() llm.Tool {
	return llm.Tool{Name: ToolAskUser, Description: questions.ToolDescription(), Parameters: questions.ToolSchema()}
})

// tools lists the definitions the profile opted in to, in a stable order.
func (l *runLoop) tools(sub bool) []llm.Tool {
	var defs []llm.Tool
	for _, name := range l.profile.Tools {
		switch name {
		case ToolAskUser:
			if !sub && l.rt.opt.Asker != nil {
				defs = append(defs, askUserTool())
			}
		case ToolSpawnAgents:
			if !sub {
				defs = append(defs, spawnAgentsTool)
			}
		default:
			if t, ok := l.rt.tools[name]; ok {
				defs = append(defs, t.definition())
			}
		}
	}
	if len(l.collections()) > 0 {
		defs = append(defs, searchKnowledgeTool)
	}
	if !sub && l.offersRemember() {
		defs = append(defs, rememberTool)
	}
	for _, t := range l.mcpTools(sub) {
		defs = append(defs, mcpDefinition(t))
	}
	return defs
}

// messages builds the model's input from the saved history.
func (l *runLoop) messages() ([]llm.Message, error) {
	history, err := l.history()
	if err != nil {
		return nil, err
	}
	msgs := make([]llm.Message, 0, len(history)+1)
	system := l.profile.SystemPrompt
	if l.instructions != "" {
		system = strings.TrimSpace(l.instructions + "\n\n" + system)
	}
	if mp := l.memoryPrompt(history); mp != "" {
		system = strings.TrimSpace(system + "\n\n" + mp)
	}
	if mode, _ := l.text.current(); mode == ToolCallingOff {
		if kp := l.knowledgePrompt(history); kp != "" {
			system = strings.TrimSpace(system + "\n\n" + kp)
		}
	}
	if system != "" {
		msgs = append(msgs, llm.Message{Role: chat.RoleSystem, Content: system})
	}
	var open []chat.ToolCall // calls of the last assistant message still without a result
	closeOpen := func() {
		for _, tc := range open {
			msgs = append(msgs, llm.Message{Role: chat.RoleTool, Content: missingToolResult, ToolCallID: tc.ID, ToolName: tc.Name})
		}
		open = nil
	}
	for _, m := range history {
		if m.Role == chat.RoleTool {
			open = slices.DeleteFunc(open, func(tc chat.ToolCall) bool { return tc.ID == m.ToolCallID })
		} else {
			closeOpen()
		}
		lm := l.withThinkingOf(llm.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName}, m)
		if m.Role == chat.RoleUser && len(m.Attachments) > 0 {
			lm = withAttachments(lm, m.Attachments)
		}
		for _, tc := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		msgs = append(msgs, lm)
		if m.Role == chat.RoleAssistant {
			open = slices.Clone(m.ToolCalls)
		}
	}
	closeOpen()
	return msgs, nil
}

// step calls the model once and runs the tools it asked for. more reports
// whether the model must be called again; stop that the run must end.
func (l *runLoop) step() (more, stop bool, err error) {
	conv, runID := l.run.ConversationID, l.run.ID
	msgs, err := l.messages()
	if err != nil {
		return false, false, err
	}
	l.state(chat.StateRequesting)
	messageID := chat.NewMessageID()
	streaming := false
	clock := &replyClock{start: time.Now()}
	began := func() {
		clock.token()
		if !streaming {
			streaming = true
			l.state(chat.StateStreaming)
		}
	}
	call := &mainCall{traceKey: l.traceAfter, onReasoning: func(delta string, moved bool) {
		if moved {
			clock.moved()
		} else {
			clock.thought()
		}
		began()
		l.rt.emit(events.MessageReasoning, events.MessageReasoningPayload{ConversationID: conv, RunID: runID, MessageID: messageID, Delta: delta, Moved: moved})
	}}
	l.traceAfter = ""
	resp, preset, err := l.chat(msgs, l.tools(false), clock.token, call, func(text string) {
		began()
		l.rt.emit(events.MessageDelta, events.MessageDeltaPayload{ConversationID: conv, RunID: runID, MessageID: messageID, Delta: text})
	})
	if err == nil {
		err = l.ctx.Err()
	}
	if err != nil {
		// Keep what the user already saw: the partial text and thinking
		// are saved as the assistant's message (without tool calls, which
		// never ran).
		if resp.Text != "" || resp.Reasoning != "" {
			l.save(&chat.Message{ID: messageID, Role: chat.RoleAssistant, Content: resp.Text,
				Reasoning: resp.Reasoning, ReasoningMs: clock.reasoningMs(), ReasoningSource: resp.ReasoningSource})
		}
		return false, false, err
	}
	am := &chat.Message{ID: messageID, Role: chat.RoleAssistant, Content: resp.Text,
		Reasoning: resp.Reasoning, ReasoningMs: clock.reasoningMs(), ReasoningSource: resp.ReasoningSource,
		Stats: clock.stats(l.ctx, l.rt, l.model, msgs, resp), Sources: l.runSources()}
	for _, tc := range resp.ToolCalls {
		id := tc.ID
		if id == "" {
			id = "call_" + chat.NewID()[:8]
		}
		am.ToolCalls = append(am.ToolCalls, chat.ToolCall{ID: id, Name: tc.Name, Arguments: tc.Arguments})
		trace.Mark(id, trace.HopParsed)
	}
	if len(am.ToolCalls) == 0 {
		// The figures of a reply that called tools are not shown: the
		// note waits for the run's answer.
		am.Stats.ThinkingNote = l.takeThinkingNote()
	}
	if err := l.save(am); err != nil {
		return false, false, err
	}
	if len(am.ToolCalls) == 0 {
		return false, false, nil
	}
	l.text.preset = preset
	stop, err = l.runToolCalls(am.ToolCalls, nil)
	if err == nil && !stop {
		err = l.tooManyInvalid()
	}
	return !stop && err == nil, stop, err
}

// runToolCalls executes calls in order and stores each result. After the
// user cancels a card (or the run is cancelled) the remaining calls get a
// cancelled result so the history stays consistent.
// known holds cards already asked for some of the calls (by tool call id).
func (l *runLoop) runToolCalls(calls []chat.ToolCall, known map[string]*questions.Card) (stop bool, err error) {
	var held []*chat.Message
	for _, tc := range calls {
		result := cancelledToolResult
		if !stop && l.ctx.Err() == nil {
			l.state(chat.StateToolExecuting)
			var halt bool
			if preset, ok := l.text.takePreset(tc.ID); ok {
				result = preset
			} else {
				result, halt = l.executeTool(tc, known[tc.ID])
			}
			l.noteResult(result)
			if l.shutdown {
				return true, nil
			}
			if l.ctx.Err() != nil && tc.Name != ToolAskUser {
				// Whatever the tool made of the cancel ("context canceled",
				// failed sub-agents) means nothing to the model.
				result = interruptedToolResult
			}
			stop = stop || halt
		} else {
			stop = true
		}
		atts, sources := l.attachments, l.toolSources
		l.attachments, l.toolSources = nil, nil
		m := &chat.Message{Role: chat.RoleTool, Content: result, ToolCallID: tc.ID, ToolName: tc.Name, Attachments: atts, Sources: sources}
		if stop || l.ctx.Err() != nil {
			// No tool runs after this one: its result and the cancelled
			// ones after it are written in one transaction.
			held = append(held, m)
			continue
		}
		// A result is stored before the next tool runs: after a crash a
		// tool with a stored result is not run again.
		if err := l.save(m); err != nil {
			return true, err
		}
	}
	if err := l.saveAll(held); err != nil {
		return true, err
	}
	if l.ctx.Err() != nil {
		stop = true
	}
	return stop, nil
}

// completePendingToolCalls finishes the tool calls of the last assistant
// message that have no result yet (after a restart). A card the user already
// answered, skipped or cancelled for one of them (the process died before
// the tool result was stored) gives its result without asking again; a
// restored pending card is waited on.
func (l *runLoop) completePendingToolCalls(restored *questions.Card) (stop bool, err error) {
	history, err := l.history()
	if err != nil {
		return false, err
	}
	am, pending := unansweredToolCalls(history)
	if len(pending) == 0 {
		return false, nil
	}
	known, err := l.askedCards(*am, pending)
	if err != nil {
		return false, err
	}
	if restored != nil {
		known[restored.ToolCallID] = restored
	}
	l.resuming = true
	defer func() { l.resuming = false }()
	return l.runToolCalls(pending, known)
}

// askedCards finds the cards already asked for the pending calls of the
// assistant message am: question cards of ask_user_question calls, approval
// cards of MCP calls. A card belongs to a call when it has the call's id and
// was asked by am's run or after am (a retry runs under a new run id);
// models may reuse call ids across turns, so older cards of other runs with
// the same id are not it. The newest match wins.
func (l *runLoop) askedCards(am chat.Message, pending []chat.ToolCall) (map[string]*questions.Card, error) {
	known := map[string]*questions.Card{}
	kindOf := func(tc chat.ToolCall) questions.Kind {
		switch {
		case tc.Name == ToolAskUser:
			return questions.KindQuestion
		case tc.Name == ToolRemember && l.rt.opt.Memory != nil:
			return questions.KindApproval
		case l.rt.opt.MCP != nil && looksLikeMCP(tc.Name):
			return questions.KindApproval
		}
		return ""
	}
	if l.rt.opt.Cards == nil || !slices.ContainsFunc(pending, func(tc chat.ToolCall) bool { return kindOf(tc) != "" }) {
		return known, nil
	}
	cards, err := l.rt.opt.Cards(l.ctx, l.run.ConversationID)
	if err != nil {
		return nil, fmt.Errorf("load question cards of %s: %w", l.run.ConversationID, err)
	}
	open := map[string]questions.Kind{}
	for _, tc := range pending {
		open[tc.ID] = kindOf(tc)
	}
	for _, c := range cards {
		if k := open[c.ToolCallID]; k == "" || c.Kind != k || c.RunID != am.RunID && c.CreatedAt.Before(am.CreatedAt) {
			continue
		}
		if prev := known[c.ToolCallID]; prev == nil || !c.CreatedAt.Before(prev.CreatedAt) {
			known[c.ToolCallID] = c
		}
	}
	return known, nil
}

func (l *runLoop) save(m *chat.Message) error { return l.saveAll([]*chat.Message{m}) }

// saveAll stores msgs in one transaction, then announces them.
func (l *runLoop) saveAll(msgs []*chat.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	for _, m := range msgs {
		m.ConversationID = l.run.ConversationID
		m.RunID = l.run.ID
	}
	// Saved even when the run was just cancelled: the history must stay whole.
	ctx := context.WithoutCancel(l.ctx)
	var err error
	if ra, ok := l.rt.opt.History.(runAppender); ok && l.runUnsaved {
		err = ra.SaveRunAndAppend(ctx, l.run, msgs)
	} else {
		err = appendMessages(ctx, l.rt.opt.History, msgs)
	}
	if err != nil {
		l.known = nil
		return fmt.Errorf("save %s message in conversation %s: %w", msgs[0].Role, msgs[0].ConversationID, err)
	}
	l.runUnsaved = false
	l.saved += len(msgs)
	for _, m := range msgs {
		l.remember(m)
		l.rt.emit(events.MessageDone, events.MessageDonePayload{ConversationID: m.ConversationID, RunID: m.RunID, Message: *m})
	}
	return nil
}

// executeTool runs one call and returns the tool result text; halt is true
// when the run must stop (the user cancelled a card).
func (l *runLoop) executeTool(tc chat.ToolCall, asked *questions.Card) (result string, halt bool) {
	if tc.Name == ToolRemember && (l.offersRemember() || asked != nil && asked.Kind == questions.KindApproval && l.rt.opt.Memory != nil) {
		return l.runRemember(tc, asked)
	}
	if l.isMCP(tc.Name) || asked != nil && asked.Kind == questions.KindApproval {
		result, l.attachments, halt = l.runMCP(tc, asked)
		return result, halt
	}
	if tc.Name == ToolSearchKnowledge && len(l.collections()) > 0 {
		result, l.toolSources = l.searchKnowledge(tc.Arguments, l.nextSourceNumber())
		return result, false
	}
	if !l.profile.hasTool(tc.Name) {
		return fmt.Sprintf("unknown tool %q", tc.Name), false
	}
	switch tc.Name {
	case ToolAskUser:
		if l.rt.opt.Asker == nil {
			return fmt.Sprintf("unknown tool %q", tc.Name), false
		}
		return l.askUser(tc, asked)
	case ToolSpawnAgents:
		return l.spawnAgents(tc.Arguments), false
	}
	t, ok := l.rt.tools[tc.Name]
	if !ok {
		return fmt.Sprintf("unknown tool %q", tc.Name), false
	}
	out, err := t.Run(l.ctx, tc.Arguments)
	if err != nil {
		return "error: " + err.Error(), false
	}
	return out, false
}

// askUser shows a card and waits for the user. A card already asked for
// this call (before a restart) is not asked again: a pending one is waited
// on, a resolved one gives its stored outcome.
func (l *runLoop) askUser(tc chat.ToolCall, asked *questions.Card) (string, bool) {
	conv := l.run.ConversationID
	var card *questions.Card
	if asked != nil && asked.ToolCallID == tc.ID {
		if asked.Status != questions.StatusPending {
			out := questions.OutcomeFor(asked)
			return out.Result, out.StopRun
		}
		card = asked
	} else {
		qs, err := questions.ParseInput([]byte(tc.Arguments))
		if err != nil {
			return err.Error(), false
		}
		if result, ok := l.autoAnswer(tc, qs); ok {
			return result, false // answered from memory: the run does not pause
		}
		card, err = l.rt.opt.Asker.Create(l.ctx, questions.AskRequest{ConversationID: conv, RunID: l.run.ID, ToolCallID: tc.ID,
			Questions: qs, AfterUserTurn: l.afterUserTurn})
		if errors.Is(err, questions.ErrClosed) {
			l.shutdown = true // the app is closing; a saved card is restored after the restart
			return "", true
		}
		if err != nil {
			return err.Error(), false // invalid input, rate limit...: the model may retry
		}
		l.afterUserTurn = false
		l.recordAsked()
	}
	l.run.Status = chat.RunAwaiting
	_ = l.rt.opt.History.SaveRun(context.WithoutCancel(l.ctx), l.run)
	l.rt.setState(StateInfo{ConversationID: conv, RunID: l.run.ID, State: chat.StateAwaitingUserResponse, PendingQuestion: card})
	out, err := l.rt.opt.Asker.Wait(l.ctx, card.ID)
	if trace.Enabled() {
		trace.Mark(card.ID, trace.HopResumed)
		l.traceAfter = card.ID
	}
	if errors.Is(err, questions.ErrClosed) {
		l.shutdown = true
		return "", true
	}
	l.run.Status = chat.RunRunning
	l.saveRunWithNext()
	if err != nil {
		return "error: " + err.Error(), false
	}
	l.recordOutcome(card, out)
	if !out.StopRun && l.ctx.Err() == nil {
		l.state(chat.StateToolExecuting)
	}
	return out.Result, out.StopRun
}

// subAgentHint is what a sub-agent gets when it tries a parent-only tool.
func subAgentRefusal(name string) string {
	if name == ToolAskUser {
		return questions.SubAgentRefusal
	}
	return strings.ReplaceAll(questions.SubAgentRefusal, ToolAskUser, name)
}
