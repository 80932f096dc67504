package assistant

import (
	"context"
	"strings"
	"sync"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/textcalls"
	"github.com/parley-app/parley/backend/trace"
)

// mainCall is what a model call of the run's own loop (not a sub-agent's)
// adds: the card just answered, whose trace marks the request
// (backend/trace), and where the thinking goes (shown as it streams).
type mainCall struct {
	traceKey    string
	onReasoning func(delta string, moved bool)
}

// How a profile's model gets its tools (Profile.ToolCalling, SPEC §8).
const (
	ToolCallingAuto   = "auto"   // native when the model supports it, else in text
	ToolCallingNative = "native" // always native (a refusal is an error)
	ToolCallingText   = "text"   // described in the system prompt, calls written in the reply
	ToolCallingOff    = "off"    // no tools at all
)

// ToolCallingModes lists the values Profile.ToolCalling takes.
var ToolCallingModes = []string{ToolCallingAuto, ToolCallingNative, ToolCallingText, ToolCallingOff}

// Capabilities tells how a model takes tools and remembers what its
// server refused (textcalls.Capabilities).
type Capabilities interface {
	NativeTools(ctx context.Context, id llm.Identity) bool
	ToolRole(id llm.Identity) bool
	RefuseTools(id llm.Identity)
	RefuseToolRole(id llm.Identity)
	// Ollama tells a server with Ollama's native API; ThinkingRefused and
	// RefuseThinking remember thinking settings a server refused (SPEC §9).
	Ollama(ctx context.Context, id llm.Identity) bool
	ThinkingRefused(id llm.Identity, setting string) bool
	RefuseThinking(id llm.Identity, setting string)
}

// MaxInvalidCalls bounds the tool calls a run may get wrong (unreadable,
// unknown tool, invalid input) before it stops with an error.
const MaxInvalidCalls = 3

// invalidCallPrefix starts the result of a call the model wrote in text
// that could not be read at all.
const invalidCallPrefix = "invalid tool call"

// unreadableCallResult tells the model how to write a call.
const unreadableCallResult = invalidCallPrefix + `: write it as <tool_call>{"name": "<tool name>", "arguments": {...}}</tool_call> with valid JSON inside`

// textForm is a run's tool form: native or in text, and what the server takes.
type textForm struct {
	mu       sync.Mutex
	chosen   bool
	mode     string // ToolCallingNative, ToolCallingText or ToolCallingOff
	auto     bool   // the mode came from detection: a refusal may switch it
	toolRole bool
	id       llm.Identity

	// The run's loop only (not sub-agents):
	preset  map[string]string // results of calls that could not be read, by call id
	invalid int
}

// begin decides the run's tool form once the model is known, and notes
// whether the user's new message corrects a reply given without asking.
func (l *runLoop) begin(userText string) {
	l.chooseForm()
	if userText != "" {
		l.noteCorrection(userText)
	}
}

func (l *runLoop) chooseForm() {
	f := &l.text
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.chosen || l.model == nil {
		return
	}
	f.chosen = true
	f.id = llm.IdentityOf(l.model)
	caps := l.rt.caps
	f.toolRole = caps.ToolRole(f.id)
	switch l.profile.ToolCalling {
	case ToolCallingNative, ToolCallingText, ToolCallingOff:
		f.mode = l.profile.ToolCalling
	default:
		f.auto = true
		f.mode = ToolCallingNative
		if !caps.NativeTools(l.ctx, f.id) {
			f.mode = ToolCallingText
		}
	}
}

func (f *textForm) identity() llm.Identity {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.id
}

func (f *textForm) modelName() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.id.Model
}

func (f *textForm) current() (mode string, toolRole bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode, f.toolRole
}

// chat calls the model once in the run's tool form. In text form the tools
// are described in the system prompt and the history rendered for it; in
// both forms calls written into the reply are recognized while it streams
// (their text never reaches onDelta; the thinking is never read for them)
// and join the native ones, each with an id and its arguments repaired
// where unambiguous. A server that refuses native tools (in auto mode),
// `tool` messages or the thinking fields is remembered and asked again in
// the form it takes. preset holds the results of calls that could not be
// read at all, by call id. main is nil for a sub-agent's call (a
// background call: it asks not to think where the setting is auto).
func (l *runLoop) chat(msgs []llm.Message, tools []llm.Tool, onToolCallStart func(), main *mainCall, onDelta func(string)) (resp llm.Response, preset map[string]string, err error) {
	l.chooseForm()
	for attempt := 0; ; attempt++ {
		mode, toolRole := l.text.current()
		thinking, setting := l.thinkingRequest(main == nil)
		sent := msgs
		if l.rt.caps.ThinkingRefused(l.text.identity(), textcalls.RefusedHistory) {
			sent = withoutThinking(msgs)
		}
		req := llm.Request{Messages: sent, Tools: tools, OnToolCallStart: onToolCallStart, Thinking: thinking}
		names := make([]string, 0, len(tools))
		for _, t := range tools {
			names = append(names, t.Name)
		}
		switch {
		case mode == ToolCallingOff || len(tools) == 0:
			req.Tools, names = nil, nil
		case mode == ToolCallingText:
			req.Messages = textcalls.Render(sent, tools, toolRole)
			req.Tools = nil
		}
		var rec *textcalls.Recognizer
		if len(names) > 0 {
			rec = textcalls.NewRecognizer(names, onDelta)
			req.OnDelta = func(text string) { rec.Write(text) }
		} else {
			req.OnDelta = onDelta
		}
		req.OnReasoning = func(delta string, moved bool) {
			if moved && rec != nil {
				// The text read so far was thinking: no call was in it.
				rec = textcalls.NewRecognizer(names, onDelta)
			}
			if main != nil && main.onReasoning != nil {
				main.onReasoning(delta, moved)
			}
		}
		ctx := l.ctx
		if main != nil {
			ctx = trace.WithKey(ctx, main.traceKey)
		}
		resp, err = l.model.Chat(ctx, req)
		if err == nil {
			err = l.ctx.Err()
		}
		if err != nil && attempt < 4 && (l.switchForm(err, mode, req.Messages) || l.refuseThinking(err, req, setting, main != nil)) {
			continue
		}
		if rec == nil {
			return resp, nil, err
		}
		if err != nil {
			// Keep what was shown; a call cut off is not run.
			resp.Text = rec.Text()
			return resp, nil, err
		}
		rec.Close()
		resp, preset = l.withRecognized(resp, rec)
		return resp, preset, nil
	}
}

// switchForm learns from a refusal: native tools refused in auto mode
// switch the run to text form, a refused `tool` message to results in user
// messages. It reports whether to ask again.
func (l *runLoop) switchForm(err error, mode string, sent []llm.Message) bool {
	code := fault.CodeOf(err)
	if code == "" {
		return false
	}
	f := &l.text
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case code == llm.KindNoTools && mode == ToolCallingNative && f.auto:
		l.rt.caps.RefuseTools(f.id)
		f.mode = ToolCallingText
		l.rt.log.Info("model refused native tools; using text-form tool calls", "model", f.id.Model, "base_url", f.id.BaseURL)
		return true
	case code == llm.KindNoToolRole && mode == ToolCallingText && f.toolRole && hasToolMessage(sent):
		l.rt.caps.RefuseToolRole(f.id)
		f.toolRole = false
		l.rt.log.Info("server refused tool messages; sending tool results as user messages", "model", f.id.Model, "base_url", f.id.BaseURL)
		return true
	}
	return false
}

func hasToolMessage(msgs []llm.Message) bool {
	for _, m := range msgs {
		if m.Role == "tool" {
			return true
		}
	}
	return false
}

// withRecognized replaces the reply's text by what was shown and adds the
// calls found in it; every call gets an id and repaired arguments. A
// recognized call that names no tool gets its result prepared (preset):
// how to write a call.
func (l *runLoop) withRecognized(resp llm.Response, rec *textcalls.Recognizer) (llm.Response, map[string]string) {
	found := rec.Calls()
	if len(found) > 0 {
		resp.Text = strings.TrimSpace(rec.Text())
	} else {
		resp.Text = rec.Text()
	}
	var preset map[string]string
	calls := make([]llm.ToolCall, 0, len(resp.ToolCalls)+len(found))
	for _, tc := range resp.ToolCalls {
		if tc.ID == "" {
			tc.ID = newCallID()
		}
		if fixed, repaired := textcalls.RepairArguments(tc.Arguments); repaired {
			tc.Arguments = fixed
			l.record(StatDelta{Repaired: 1})
		}
		calls = append(calls, tc)
	}
	for _, c := range found {
		args := c.Arguments
		if !c.Invalid {
			if fixed, repaired := textcalls.RepairArguments(args); repaired {
				args, c.Repaired = fixed, true
			}
			if c.Repaired {
				l.record(StatDelta{Repaired: 1})
			}
		}
		id := newCallID()
		if c.Name == "" {
			if preset == nil {
				preset = map[string]string{}
			}
			preset[id] = unreadableCallResult
		}
		calls = append(calls, llm.ToolCall{ID: id, Name: c.Name, Arguments: args})
	}
	resp.ToolCalls = calls
	return resp, preset
}

func newCallID() string { return "call_" + chat.NewID()[:8] }

// takePreset returns the result prepared for a call that could not be read.
func (f *textForm) takePreset(id string) (string, bool) {
	r, ok := f.preset[id]
	delete(f.preset, id)
	return r, ok
}

// noteResult counts calls the model got wrong (refused).
func (l *runLoop) noteResult(result string) {
	if strings.HasPrefix(result, "invalid input:") || strings.HasPrefix(result, "error: invalid input:") || strings.HasPrefix(result, invalidCallPrefix) || strings.HasPrefix(result, "unknown tool") {
		l.text.invalid++
		l.record(StatDelta{Refused: 1})
	}
}

// tooManyInvalid ends a run whose model keeps getting its calls wrong.
func (l *runLoop) tooManyInvalid() error {
	if l.text.invalid < MaxInvalidCalls {
		return nil
	}
	return llm.NewError("invalid_calls", nil, "agent.invalidCalls", l.text.invalid)
}
