// Package assistant runs conversations: it calls the model, streams its text,
// executes tools (asking the user through the QuestionManager, spawning
// sub-agents) and reports run states and events. It persists through
// chat.History before announcing anything.
package assistant

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/textcalls"
)

// Asker is the part of the QuestionManager the loop uses.
type Asker interface {
	Create(ctx context.Context, req questions.AskRequest) (*questions.Card, error)
	Wait(ctx context.Context, cardID string) (questions.Outcome, error)
}

// Options wire a Runtime.
type Options struct {
	History chat.History
	Events  events.Emitter
	Asker   Asker
	// Model returns the model client for a model name ("" = the default).
	Model func(name string) (llm.Model, error)
	// Profile returns the assistant profile by name ("" = the default).
	Profile func(name string) Profile
	// Cards lists a conversation's question cards, oldest first (the store),
	// so that a run continued after a crash finds the answer given before
	// it; nil = none are looked up.
	Cards func(ctx context.Context, conversationID string) ([]*questions.Card, error)
	// Capabilities tells how each model takes tools (SPEC §8); nil = native
	// until a server refuses, remembered for this process only.
	Capabilities Capabilities
	// Stats, when set, receives what each run adds to its model's
	// statistics (how well the model asks).
	Stats func(model string, d StatDelta)
	// ContextLength returns a model's context window where the server
	// tells it (0 = unknown), for the reply figures; nil = unknown.
	ContextLength func(ctx context.Context, model string) int
	Tools         []Tool // tools profiles may opt in to, besides ask_user_question and spawn_agents
	// MCP offers the MCP servers' tools (SPEC §6) and Approver makes their
	// approval and elicitation cards; nil = no MCP tools.
	MCP      MCPHost
	Approver Approver
	// Knowledge searches the user's collections (SPEC §11) and
	// ConversationKnowledge names a conversation's; nil = no search_knowledge.
	Knowledge             Knowledge
	ConversationKnowledge func(ctx context.Context, conversationID string) []string
	// Project tells what a conversation's project gives its runs (SPEC
	// §14), read when a run starts; nil = no projects.
	Project func(ctx context.Context, conversationID string) ProjectScope
	// Memory puts the user's memories into runs, answers cards from them
	// and keeps what the model proposes to remember (SPEC §14); nil = none.
	Memory   Memory
	MaxSteps int // model calls per run; default 12
	Logger   *slog.Logger
	// OnActivity, when set, is told how many conversations' runs work
	// (requesting, streaming, running tools) and how many wait for the
	// user's answer, whenever either changes (so that background work
	// gives way: issue #42). It is called with the runtime's lock held,
	// in order: it must return at once and not call the runtime.
	OnActivity func(working, waiting int)
}

// ProjectScope is what a conversation's project gives its runs (SPEC §14);
// its collections come with the conversation's (ConversationKnowledge).
type ProjectScope struct {
	// Instructions open the system prompt, before the profile's prompt.
	Instructions string
	// Model answers a run that was given none (the conversation has no
	// model of its own), instead of the profile's model.
	Model string
}

// StateInfo is a conversation's run state (SPEC §2).
type StateInfo struct {
	ConversationID  string          `json:"conversationId"`
	RunID           string          `json:"runId,omitempty"`
	State           string          `json:"state"`
	Error           string          `json:"error,omitempty"`
	PendingQuestion *questions.Card `json:"pending_question,omitempty"`
}

// shown is the state with its error said in the language chosen now: the
// runtime keeps the error as i18n.Store made it, so that switching languages
// changes the banner of a run that failed before.
func (s StateInfo) shown() StateInfo {
	s.Error = i18n.ShowStored(s.Error, i18n.Current())
	return s
}

// ErrRunActive is returned when a conversation already has an active run.
var ErrRunActive = errors.New("a run is already active in this conversation")

// Runtime owns the active runs, one per conversation at most.
type Runtime struct {
	opt    Options
	caps   Capabilities
	log    *slog.Logger
	tools  map[string]Tool
	mu     sync.Mutex
	active map[string]*activeRun
	states map[string]StateInfo
	// working and waiting count the conversations in those states (OnActivity).
	working, waiting int
	// starting counts the runs being started (their user's turn being
	// stored): OnActivity counts them as working, so that background work
	// gives way from the moment the user sends, not once the turn is saved.
	starting int
	wg       sync.WaitGroup
	closed   bool
}

type activeRun struct {
	run    chat.Run
	cancel context.CancelFunc
	done   chan struct{}
	// ended is set (under Runtime.mu) with the run's final state: from then
	// on the conversation takes a new run, which waits for done first.
	ended bool
}

// New returns a Runtime.
func New(opt Options) *Runtime {
	if opt.Events == nil {
		opt.Events = events.Discard
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = 12
	}
	if opt.Approver == nil {
		opt.MCP = nil // without cards, no MCP tool could be approved or elicit
	}
	if opt.Profile == nil {
		opt.Profile = func(string) Profile { return DefaultProfile() }
	}
	tools := map[string]Tool{}
	for _, t := range opt.Tools {
		tools[t.Name] = t
	}
	if opt.Capabilities == nil {
		opt.Capabilities = textcalls.NewCapabilities(nil, nil, nil)
	}
	return &Runtime{opt: opt, caps: opt.Capabilities, log: opt.Logger, tools: tools, active: map[string]*activeRun{}, states: map[string]StateInfo{}}
}

// StartRequest starts a run.
type StartRequest struct {
	ConversationID string
	Profile        string
	// UserText is stored as the user turn; empty continues from the saved
	// history (retry after an error, resume after a restart).
	UserText    string
	ResumedFrom string
	// RunID, when set, continues that saved run under its id instead of
	// starting a new one (see Resume).
	RunID string
	// AwaitCard, when set, is a restored pending card of this conversation:
	// the run waits for its answer before calling the model.
	AwaitCard *questions.Card
	// UserAttachments are stored with the user turn (text files, images).
	UserAttachments []chat.Attachment
	// Model, when set, answers this run instead of the profile's model
	// (the conversation's chosen model, or regenerate with another model).
	Model string
	// Thinking, when set, overrides the profile's thinking setting (the
	// conversation's).
	Thinking string
	// Prepare, when set, runs once the conversation's run slot is taken and
	// before anything is stored: it moves the visible path for an edit, a
	// regenerated reply or a changed answer (SPEC §7). Its error ends the
	// start with nothing stored.
	Prepare func(ctx context.Context, runID string) error
	// Unwind, when set, runs when the run fails or is cancelled before it
	// stored a message of its own, before that end is announced: it puts
	// back what Prepare moved (a regenerated reply that never came leaves
	// the old reply shown, not a path ending at the user's message).
	Unwind func(ctx context.Context) error
}

// hasUserTurn tells whether the start stores a user turn.
func (req StartRequest) hasUserTurn() bool { return req.UserText != "" || len(req.UserAttachments) > 0 }

// Start begins a run in the background and returns its id. A previous run
// that has announced its final state does not refuse it: Start waits for
// that run's goroutine to return (so never call it from an event handler
// running on that goroutine).
func (r *Runtime) Start(req StartRequest) (string, error) {
	r.mu.Lock()
	for {
		if r.closed {
			r.mu.Unlock()
			return "", errors.New("the app is shutting down")
		}
		prev := r.active[req.ConversationID]
		if prev == nil {
			break
		}
		if !prev.ended {
			r.mu.Unlock()
			return "", ErrRunActive
		}
		// The previous run has announced its end and is returning.
		r.mu.Unlock()
		<-prev.done
		r.mu.Lock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := chat.Run{ID: chat.NewID(), ConversationID: req.ConversationID, Status: chat.RunRunning,
		ResumedFrom: req.ResumedFrom, StartedAt: time.Now().UTC()}
	if req.RunID != "" {
		run.ID = req.RunID
	}
	if req.AwaitCard != nil && req.AwaitCard.RunID != "" {
		run.ID = req.AwaitCard.RunID // the restored card's run goes on
	}
	ar := &activeRun{run: run, cancel: cancel, done: make(chan struct{})}
	r.active[req.ConversationID] = ar
	r.wg.Add(1)
	r.starting++
	r.activityLocked()
	r.mu.Unlock()

	if req.Prepare != nil {
		if err := req.Prepare(ctx, run.ID); err != nil {
			r.started()
			r.release(ar)
			return "", err
		}
	}
	memory := r.prefetchMemory(ctx, req)
	// Write before show: the run and the user's turn are stored before the
	// run is announced; a failure here leaves nothing half-started.
	m, err := r.storeStart(ctx, &run, req)
	if err != nil {
		r.started()
		r.release(ar)
		return "", err
	}
	if m != nil {
		r.emit(events.MessageDone, events.MessageDonePayload{ConversationID: req.ConversationID, RunID: run.ID, Message: *m})
	}
	// Working from now on, before the goroutine gets to its first step: the
	// conversation never shows idle with a run going.
	r.setState(StateInfo{ConversationID: req.ConversationID, RunID: run.ID, State: chat.StateRequesting})
	r.started()
	go func() {
		defer r.release(ar)
		r.execute(ctx, ar, req, memory)
	}()
	return run.ID, nil
}

// storeStart stores a new run and the user's turn it starts with (nil when
// none), in one commit when the History can.
func (r *Runtime) storeStart(ctx context.Context, run *chat.Run, req StartRequest) (*chat.Message, error) {
	var m *chat.Message
	if req.hasUserTurn() {
		m = &chat.Message{ConversationID: req.ConversationID, RunID: run.ID, Role: chat.RoleUser, Content: req.UserText,
			Attachments: req.UserAttachments}
	}
	if ra, ok := r.opt.History.(runAppender); ok && m != nil {
		if err := ra.SaveRunAndAppend(ctx, run, []*chat.Message{m}); err != nil {
			return nil, fmt.Errorf("start run in conversation %s: %w", req.ConversationID, err)
		}
		return m, nil
	}
	if err := r.opt.History.SaveRun(ctx, run); err != nil {
		return nil, fmt.Errorf("start run in conversation %s: %w", req.ConversationID, err)
	}
	if m == nil {
		return nil, nil
	}
	if err := r.opt.History.AppendMessage(ctx, m); err != nil {
		run.Status = chat.RunFailed
		_ = r.opt.History.SaveRun(context.Background(), run)
		return nil, fmt.Errorf("save message in conversation %s: %w", req.ConversationID, err)
	}
	return m, nil
}

// Resume continues a run saved before a restart, under its own id, from
// the saved history: tool calls without a result are run first, then the
// model is called again. It refuses a conversation whose last message is a
// final assistant answer (nothing to continue). A pending card is resumed
// with Start and AwaitCard instead, so that it is not asked twice.
func (r *Runtime) Resume(ctx context.Context, conversationID, runID, profile string) error {
	history, err := r.opt.History.Messages(ctx, conversationID)
	if err != nil {
		return fmt.Errorf("load conversation %s: %w", conversationID, err)
	}
	if !resumable(history) {
		return fmt.Errorf("resume run %s in conversation %s: nothing to continue", runID, conversationID)
	}
	_, err = r.Start(StartRequest{ConversationID: conversationID, Profile: profile, RunID: runID})
	return err
}

// resumable tells whether the model still owes an answer: the history ends
// with the user's turn, a tool result, or tool calls without results.
func resumable(history []chat.Message) bool {
	if len(history) == 0 {
		return false
	}
	last := history[len(history)-1]
	return last.Role == chat.RoleUser || last.Role == chat.RoleTool ||
		last.Role == chat.RoleAssistant && len(last.ToolCalls) > 0
}

// Done returns a channel closed when the conversation's active run has
// ended (already closed when none is active).
func (r *Runtime) Done(conversationID string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ar := r.active[conversationID]; ar != nil {
		return ar.done
	}
	return closedChan
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (r *Runtime) release(ar *activeRun) {
	ar.cancel()
	r.mu.Lock()
	if r.active[ar.run.ConversationID] == ar {
		delete(r.active, ar.run.ConversationID)
	}
	r.mu.Unlock()
	close(ar.done)
	r.wg.Done()
}

// Cancel stops the conversation's active run and waits until it has
// stopped, so its history is consistent when Cancel returns.
func (r *Runtime) Cancel(conversationID string) bool {
	r.mu.Lock()
	ar := r.active[conversationID]
	r.mu.Unlock()
	if ar == nil {
		return false
	}
	ar.cancel()
	<-ar.done
	return true
}

// Active reports whether the conversation has a run going (one that has
// announced its final state no longer counts).
func (r *Runtime) Active(conversationID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ar := r.active[conversationID]
	return ar != nil && !ar.ended
}

// State returns the conversation's run state, its error said in the
// language chosen now.
func (r *Runtime) State(conversationID string) StateInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.states[conversationID]; ok {
		return s.shown()
	}
	return StateInfo{ConversationID: conversationID, State: chat.StateIdle}
}

// Forget drops the state of a deleted conversation.
func (r *Runtime) Forget(conversationID string) {
	r.mu.Lock()
	if s, ok := r.states[conversationID]; ok {
		r.countLocked(s.State, -1)
		r.activityLocked()
	}
	delete(r.states, conversationID)
	r.mu.Unlock()
}

// countLocked adds n to the count of state's kind of activity, if any.
func (r *Runtime) countLocked(state string, n int) {
	switch state {
	case chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting:
		r.working += n
	case chat.StateAwaitingUserResponse:
		r.waiting += n
	}
}

// activityLocked tells OnActivity the counts (runs being started work).
func (r *Runtime) activityLocked() {
	if r.opt.OnActivity != nil {
		r.opt.OnActivity(r.working+r.starting, r.waiting)
	}
}

// started ends a start's count in starting (its state is set, or it failed).
func (r *Runtime) started() {
	r.mu.Lock()
	r.starting--
	r.activityLocked()
	r.mu.Unlock()
}

// Close cancels every run and waits for them.
func (r *Runtime) Close() {
	r.mu.Lock()
	r.closed = true
	for _, ar := range r.active {
		ar.cancel()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// closing reports whether Close has begun.
func (r *Runtime) closing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *Runtime) emit(name string, payload any) { r.opt.Events.Emit(name, payload) }

func (r *Runtime) setState(s StateInfo) {
	if r.storeState(s, nil) {
		r.emit(events.ConversationState, s)
	}
}

// storeState records the conversation's state and reports whether it
// changed (and must be announced). With ended, it is that run's final state
// and the run is marked ended in the same step, so whoever sees the final
// state can start the next run at once.
func (r *Runtime) storeState(s StateInfo, ended *activeRun) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev, had := r.states[s.ConversationID]
	same := had && prev.State == s.State && prev.RunID == s.RunID && prev.Error == s.Error && prev.PendingQuestion == nil && s.PendingQuestion == nil
	r.states[s.ConversationID] = s
	if !had || prev.State != s.State {
		w, q := r.working, r.waiting // (starting does not change here)
		if had {
			r.countLocked(prev.State, -1)
		}
		r.countLocked(s.State, 1)
		if w != r.working || q != r.waiting {
			r.activityLocked()
		}
	}
	if ended != nil {
		ended.ended = true
	}
	return !same
}

// Tool results that keep the history whole when a run stops: every
// assistant tool call gets one.
const (
	// cancelledToolResult closes tool calls that never ran because the run stopped.
	cancelledToolResult = "Cancelled by the user before this tool ran."
	// interruptedToolResult replaces the result of a tool the run was cancelled in.
	interruptedToolResult = "Cancelled by the user while this tool was running."
	// missingToolResult is sent (not stored) for a call an earlier process
	// left without a result, since servers refuse unanswered tool calls.
	missingToolResult = "No result: the run was interrupted before this tool finished."
)

// execute is one run's goroutine.
// memory is the run's memory block being made (nil: made when needed).
func (r *Runtime) execute(ctx context.Context, ar *activeRun, req StartRequest, memory *memoryBlock) {
	run := &ar.run
	conv := run.ConversationID
	profile := r.opt.Profile(req.Profile)
	state := func(s string) { r.setState(StateInfo{ConversationID: conv, RunID: run.ID, State: s}) }

	var loop *runLoop
	finish := func(status, errMsg string) {
		loop.flushStats(-1) // before the end is announced
		if req.Unwind != nil && loop.saved == 0 && (status == chat.RunFailed || status == chat.RunCancelled) {
			if err := req.Unwind(context.Background()); err != nil {
				r.log.Error("put back the visible path of a run that stored nothing", "run", run.ID, "err", err)
			}
		}
		run.Status = status
		run.Error = errMsg
		now := time.Now().UTC()
		run.EndedAt = &now
		if err := r.opt.History.SaveRun(context.Background(), run); err != nil {
			r.log.Error("save run", "run", run.ID, "err", err)
		}
		final := StateInfo{ConversationID: conv, RunID: run.ID, State: chat.StateIdle}
		if status == chat.RunFailed {
			final.State, final.Error = chat.StateError, errMsg
		}
		changed := r.storeState(final, ar)
		final = final.shown()
		if status == chat.RunFailed {
			r.emit(events.RunError, events.RunErrorPayload{ConversationID: conv, RunID: run.ID, Error: final.Error})
		}
		if changed {
			r.emit(events.ConversationState, final)
		}
	}

	var scope ProjectScope
	if r.opt.Project != nil {
		scope = r.opt.Project(ctx, conv)
	}
	switch {
	case req.Model != "":
		// The whole run (sub-agents, statistics) uses the chosen model.
		profile.Model = req.Model
	case scope.Model != "":
		profile.Model = scope.Model
	}
	if req.Thinking != "" {
		profile.Thinking = req.Thinking
	}
	loop = &runLoop{rt: r, ctx: ctx, run: run, profile: profile, instructions: scope.Instructions, state: state, afterUserTurn: req.hasUserTurn(),
		memoryPre: memory, done: ar.done}
	defer loop.flushStats(-1) // a run left awaiting at shutdown

	// A restored card, or tool calls a crash left without results, are
	// completed before the model is called again (and before it is needed).
	if stop, err := loop.completePendingToolCalls(req.AwaitCard); err != nil || stop {
		loop.end(stop, err, finish)
		return
	}
	model, err := r.opt.Model(profile.Model)
	if err != nil {
		finish(chat.RunFailed, runErrorText(err))
		return
	}
	loop.model = model
	loop.begin(req.UserText)
	for step := 0; ; step++ {
		if step >= r.opt.MaxSteps {
			finish(chat.RunFailed, i18n.Store(fault.New(fault.Internal, i18n.M("agent.maxSteps", r.opt.MaxSteps))))
			return
		}
		held := len(loop.heldStats)
		more, stop, err := loop.step()
		loop.flushStats(held) // those held before this step's model call
		if err != nil || stop {
			loop.end(stop, err, finish)
			return
		}
		if !more {
			finish(chat.RunCompleted, "")
			return
		}
	}
}

// end finishes a run that stopped early: cancelled by the user or failed.
func (l *runLoop) end(stop bool, err error, finish func(status, errMsg string)) {
	if l.shutdown {
		return // the run stays awaiting its card; it resumes after a restart
	}
	if l.ctx.Err() != nil && l.rt.closing() {
		// The app is closing, not the user cancelling: the run is left
		// interrupted so that the next start offers a retry.
		finish(chat.RunInterrupted, "")
		return
	}
	if l.ctx.Err() != nil || (stop && err == nil) {
		finish(chat.RunCancelled, "")
		return
	}
	finish(chat.RunFailed, runErrorText(err))
}

// userMessage turns an error into text for the user (a sub-agent's result
// for the model).
func userMessage(err error) string { return i18n.ShowStored(runErrorText(err), i18n.Current()) }

// runErrorText is a failed run's error as it is kept (the run's row, the
// conversation's state): the model server's message, or err's catalogue
// message, said in the language chosen when it is shown (i18n.ShowStored);
// other errors as their words.
func runErrorText(err error) string {
	if err == nil {
		return i18n.Store(fault.New(fault.Internal, i18n.M("agent.failed")))
	}
	if le := fault.Coded(err); le != nil { // the model server's failure
		if le.Text.Key != "" {
			return i18n.Store(le)
		}
		if le.Msg != "" { // a server's own words, without the cause's
			return i18n.Store(errors.New(le.Msg))
		}
	}
	return i18n.Store(err)
}
