// Package events names the events Parley emits (SPEC §3) and defines the
// emitter interface that backend packages receive instead of the Wails
// runtime, so every package can be tested without a window.
package events

import (
	"sync"

	"github.com/parley-app/parley/backend/trace"
)

// Event names shared by Wails events and the SSE stream.
const (
	ConversationState = "conversation:state"
	MessageDelta      = "message:delta"
	// MessageReasoning is a piece of an assistant reply's thinking (SPEC §9).
	MessageReasoning = "message:reasoning"
	MessageDone      = "message:done"
	QuestionAsk      = "question:ask"
	QuestionResolved = "question:resolved"
	RunError         = "run:error"
	// The conversation list's events.
	ConversationUpdated = "conversation:updated"
	ConversationDeleted = "conversation:deleted"
	// ModelPull reports the progress of downloading an Ollama model.
	ModelPull = "model:pull"
	// MCPServer reports an MCP server's state (SPEC §6); the payload is
	// api.MCPServer.
	MCPServer = "mcp:server"
	// KnowledgeProgress reports a collection's indexing (SPEC §11); the
	// payload is api.KnowledgeProgress.
	KnowledgeProgress = "knowledge:progress"
	// AgentNotice is an agent's notify_user (SPEC §10); the payload is
	// AgentNoticePayload. The window raises a notification for it.
	AgentNotice = "agent:notice"
	// ProjectChanged: a project was created, changed or deleted (SPEC §14);
	// the payload is ProjectChangedPayload.
	ProjectChanged = "project:changed"

	// MemoryChanged says memories were added, changed or deleted (SPEC
	// §14), so that a list of them reloads; the payload is
	// MemoryChangedPayload.
	MemoryChanged = "memory:changed"

	// EngineDownload reports a model download's progress and state (SPEC
	// §12), at most 5 times a second per download; the payload is
	// library.Download.
	EngineDownload = "engine:download"
	// EngineState reports the built-in engine's state (SPEC §12); the
	// payload is engine.Status.
	EngineState = "engine:state"

	// UpdateState reports the updater's state (SPEC §13) at each change:
	// checking, downloading, ready, refused...; the payload is
	// update.Status, as GET /api/v1/update answers.
	UpdateState = "update:state"
)

// Names lists every event Go emits, in the order of SPEC §3 and then the
// list's and the download's.
var Names = []string{ConversationState, MessageDelta, MessageReasoning, MessageDone, QuestionAsk, QuestionResolved, RunError, ConversationUpdated, ConversationDeleted, ModelPull, MCPServer, KnowledgeProgress, AgentNotice, ProjectChanged, MemoryChanged, EngineDownload, EngineState, UpdateState}

// Emitter sends one event to every client (the window, SSE subscribers).
// Payloads are JSON-marshalable objects with "conversationId" at the top level.
type Emitter interface {
	Emit(name string, payload any)
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(name string, payload any)

// Emit calls f.
func (f EmitterFunc) Emit(name string, payload any) { f(name, payload) }

// Discard drops every event.
var Discard Emitter = EmitterFunc(func(string, any) {})

// Event is one emitted event, as recorded or fanned out.
type Event struct {
	Name    string `json:"name"`
	Payload any    `json:"payload"`
}

// Recorder keeps every event in order; tests use it to assert on sequences.
type Recorder struct {
	mu     sync.Mutex
	events []Event
	notify chan struct{}
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{notify: make(chan struct{}, 1)} }

// Emit records the event.
func (r *Recorder) Emit(name string, payload any) {
	r.mu.Lock()
	r.events = append(r.events, Event{Name: name, Payload: payload})
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// Events returns a copy of everything recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Names returns the recorded event names in order.
func (r *Recorder) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, len(r.events))
	for i, e := range r.events {
		names[i] = e.Name
	}
	return names
}

// Changed is signalled (without blocking) after each Emit; tests wait on it
// instead of sleeping.
func (r *Recorder) Changed() <-chan struct{} { return r.notify }

// Multi fans one event out to several emitters in order.
type Multi []Emitter

// Emit sends the event to each emitter.
func (m Multi) Emit(name string, payload any) {
	if trace.Enabled() {
		trace.Mark(TraceKey(name, payload), trace.HopEmitted)
	}
	for _, e := range m {
		e.Emit(name, payload)
	}
}

// TraceKey is the key of a question:ask event in the card trace (the card's
// id), "" for other events.
func TraceKey(name string, payload any) string {
	if name != QuestionAsk {
		return ""
	}
	if k, ok := payload.(interface{ TraceKey() string }); ok {
		return k.TraceKey()
	}
	return ""
}
