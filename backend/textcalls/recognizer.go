// Package textcalls lets models without native tool calling use tools
// (SPEC §8): it describes the tools in the system prompt, recognizes calls
// written into the streamed reply (`<tool_call>{...}</tool_call>` or a
// fenced json block) without ever showing their text, repairs malformed
// arguments where that is unambiguous, and renders the history back in a
// form such models understand. It knows nothing of the assistant loop.
package textcalls

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Forms of a call written in text.
const (
	FormTag   = "tag"   // <tool_call>{"name":...,"arguments":...}</tool_call>
	FormFence = "fence" // ```json {"name":...,"arguments":...} ```
)

// Call is a tool call recognized in the reply text.
type Call struct {
	Name      string
	Arguments string // a JSON object, repaired when it needed it; as written when Invalid
	Form      string
	// Repaired: the call or its arguments were malformed and repaired.
	Repaired bool
	// Invalid: the text inside <tool_call> could not be read as a call;
	// Name is a best guess ("" when none) and Arguments the text as written.
	Invalid bool
}

const (
	openTag  = "<tool_call>"
	closeTag = "</tool_call>"
	fence    = "```"
)

type recState int

const (
	stText  recState = iota // prose: shown, watching for a tag or a fence
	stTag                   // inside <tool_call>: held
	stFence                 // inside a json fence that may be a call: held
	stCode                  // inside a code block that is shown
)

// Recognizer finds tool calls in a reply as it streams. Text that cannot
// be part of a call is passed to emit at once; only the shortest ambiguous
// suffix (the start of a tag or of a fence) and a json block that may be a
// call are held back until they are decided. Not safe for concurrent use.
type Recognizer struct {
	known   map[string]bool
	emit    func(string)
	buf     string // received, neither shown nor consumed yet
	state   recState
	visible strings.Builder
	calls   []Call
	// lineStart: buf begins at the start of a line.
	lineStart bool
	prev      byte   // the byte before buf (0 after a call or at the start)
	fenceLine string // the opening line of the held json fence
	// scanned: how much of a held tag or fence was already searched for
	// its end, so that a long one is not searched again for every piece.
	scanned int
	// tail: pieces of a held tag or fence that cannot have ended it, kept
	// apart from buf (appending to a long string copies it every time).
	tail []byte
	// fenceSure: the held json block's first key was one a call starts with.
	fenceSure bool
}

// NewRecognizer returns a recognizer for the given tool names (a fenced
// json block is a call only when it names one of them). emit receives the
// visible text; it may be nil.
func NewRecognizer(tools []string, emit func(visible string)) *Recognizer {
	known := make(map[string]bool, len(tools))
	for _, t := range tools {
		known[t] = true
	}
	if emit == nil {
		emit = func(string) {}
	}
	return &Recognizer{known: known, emit: emit, lineStart: true}
}

// Write takes the next piece of the stream.
func (r *Recognizer) Write(chunk string) {
	if chunk == "" {
		return
	}
	if r.plain(chunk) {
		r.show(chunk)
		return
	}
	if r.quiet(chunk) {
		r.tail = append(r.tail, chunk...)
		return
	}
	r.flushTail()
	r.buf += chunk
	r.process(false)
}

// plain reports whether chunk, in prose with nothing held, can be shown as
// it is: without '<', '`' or a line break it can neither start nor end a
// tag or a fence, nor leave an ambiguous tail (most pieces of a reply).
func (r *Recognizer) plain(chunk string) bool {
	if r.state != stText || r.buf != "" || len(r.tail) != 0 || r.lineStart {
		return false
	}
	// A loop, not strings.IndexAny: that builds its set of bytes on every
	// call, the most of this check for a chunk of a few bytes (issue #42).
	for i := 0; i < len(chunk); i++ {
		if c := chunk[i]; c == '<' || c == '`' || c == '\n' {
			return false
		}
	}
	return true
}

// quiet reports whether chunk, inside a held tag or call-like json block,
// cannot end it (nor start the next tag), so that it needs no look yet.
func (r *Recognizer) quiet(chunk string) bool {
	var markers []string
	switch {
	case r.state == stTag:
		markers = []string{closeTag, openTag}
	case r.state == stFence && r.fenceSure:
		markers = []string{fence}
	default:
		return false
	}
	look := r.lastBytes(len(closeTag)-1) + chunk
	for _, m := range markers {
		if strings.Contains(look, m) {
			return false
		}
	}
	return true
}

// lastBytes returns up to n of the last bytes received (buf and tail).
func (r *Recognizer) lastBytes(n int) string {
	if len(r.tail) >= n {
		return string(r.tail[len(r.tail)-n:])
	}
	rest := n - len(r.tail)
	return r.buf[max(0, len(r.buf)-rest):] + string(r.tail)
}

func (r *Recognizer) flushTail() {
	if len(r.tail) > 0 {
		r.buf += string(r.tail)
		r.tail = r.tail[:0]
	}
}

// Close ends the stream: held text that turned out not to be a call is
// shown, an unterminated <tool_call> is read as a call.
func (r *Recognizer) Close() {
	r.flushTail()
	r.process(true)
}

// Text is the visible text so far (everything passed to emit).
func (r *Recognizer) Text() string { return r.visible.String() }

// Calls are the calls recognized so far, in order.
func (r *Recognizer) Calls() []Call { return r.calls }

// visibleStart is the room first made for the text shown.
const visibleStart = 2048

func (r *Recognizer) show(s string) {
	if s == "" {
		return
	}
	if r.visible.Cap() == 0 {
		r.visible.Grow(visibleStart) // a reply's text grows by a few bytes a chunk
	}
	r.visible.WriteString(s)
	r.emit(s)
	r.lineStart = s[len(s)-1] == '\n'
	r.prev = s[len(s)-1]
}

// consume drops n bytes of buf that were a call (never shown).
func (r *Recognizer) consume(n int) {
	r.buf = r.buf[n:]
	r.scanned = 0
	r.lineStart = true
	r.prev = 0
}

func (r *Recognizer) process(final bool) {
	for {
		var more bool
		switch r.state {
		case stText:
			more = r.text(final)
		case stTag:
			more = r.tag(final)
		case stFence:
			more = r.jsonFence(final)
		case stCode:
			more = r.code(final)
		}
		if !more {
			return
		}
	}
}

// text handles prose; it reports whether the state changed (and buf must
// be looked at again).
func (r *Recognizer) text(final bool) bool {
	tag := r.findTag(r.buf)
	fpos := r.findFence(r.buf, 0)
	switch {
	case tag >= 0 && (fpos < 0 || tag < fpos):
		r.show(r.buf[:tag])
		r.consume(tag + len(openTag))
		r.state = stTag
		return true
	case fpos >= 0:
		nl := strings.IndexByte(r.buf[fpos:], '\n')
		if nl < 0 && !final {
			r.show(r.buf[:fpos]) // the fence's info string is not complete yet
			r.buf = r.buf[fpos:]
			return false
		}
		end := len(r.buf)
		if nl >= 0 {
			end = fpos + nl + 1
		}
		line := r.buf[fpos:end]
		before := r.buf[:fpos]
		info := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "`"))
		if jsonInfo(info) && !exampleContext(r.visible.String()+before) {
			r.show(before)
			r.fenceLine = line
			r.fenceSure = false
			r.consume(end)
			r.state = stFence
			return true
		}
		r.show(r.buf[:end])
		r.buf = r.buf[end:]
		r.state = stCode
		return true
	}
	hold := 0
	if !final {
		hold = r.ambiguousTail()
	}
	r.show(r.buf[:len(r.buf)-hold])
	r.buf = r.buf[len(r.buf)-hold:]
	return false
}

// ambiguousTail is the length of the end of buf that may begin a tag or a
// fence.
func (r *Recognizer) ambiguousTail() int {
	hold := 0
	for n := min(len(openTag)-1, len(r.buf)); n > 0; n-- {
		if strings.HasSuffix(r.buf, openTag[:n]) {
			hold = n
			break
		}
	}
	ls := strings.LastIndexByte(r.buf, '\n') + 1
	if ls == 0 && !r.lineStart {
		return hold
	}
	if tail := r.buf[ls:]; tail != "" && fencePrefix(tail) {
		hold = max(hold, len(tail))
	}
	return hold
}

// fencePrefix: s (the start of a line, not ended yet) may still become
// or be a fence line.
func fencePrefix(s string) bool {
	t := strings.TrimLeft(s, " ")
	if len(s)-len(t) > 3 {
		return false
	}
	return strings.HasPrefix(fence, t) || strings.HasPrefix(t, fence)
}

// findTag finds <tool_call> outside inline code (`<tool_call>` is prose
// about the tag, not a call).
func (r *Recognizer) findTag(s string) int {
	from := 0
	for {
		i := strings.Index(s[from:], openTag)
		if i < 0 {
			return -1
		}
		i += from
		before := r.prev
		if i > 0 {
			before = s[i-1]
		}
		if before != '`' {
			return i
		}
		from = i + 1
	}
}

// findFence finds a line starting with ``` (after at most 3 spaces) in s
// from byte from on.
func (r *Recognizer) findFence(s string, from int) int {
	for p := from; p < len(s); {
		if (p == 0 && r.lineStart) || (p > 0 && s[p-1] == '\n') {
			q := p
			for q < len(s) && q-p < 3 && s[q] == ' ' {
				q++
			}
			if strings.HasPrefix(s[q:], fence) {
				return p
			}
		}
		nl := strings.IndexByte(s[p:], '\n')
		if nl < 0 {
			return -1
		}
		p += nl + 1
	}
	return -1
}

func jsonInfo(info string) bool {
	switch strings.ToLower(info) {
	case "json", "json5", "jsonc", "tool_call", "":
		return true
	}
	return false
}

// examplePhrases mark prose that introduces a code block as an example.
var examplePhrases = []string{"example", "e.g.", "for instance", "such as", "like this", "look like", "looks like", "sample", "syntax", "format"}

// exampleContext reports whether the paragraph before a fence presents
// what follows as an example.
func exampleContext(before string) bool {
	if i := strings.LastIndex(strings.TrimRight(before, " \n"), "\n\n"); i >= 0 {
		before = before[i:]
	}
	if len(before) > 400 {
		before = before[len(before)-400:]
	}
	lower := strings.ToLower(before)
	for _, p := range examplePhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// tag collects a <tool_call> until its end tag (or the next one, or the
// end of the stream).
func (r *Recognizer) tag(final bool) bool {
	from := max(0, r.scanned-len(closeTag)+1)
	end := indexFrom(r.buf, closeTag, from)
	next := indexFrom(r.buf, openTag, from)
	switch {
	case next >= 0 && (end < 0 || next < end):
		r.calls = append(r.calls, tagCall(r.buf[:next]))
		r.consume(next)
		r.state = stText
		return true
	case end >= 0:
		r.calls = append(r.calls, tagCall(r.buf[:end]))
		r.consume(end + len(closeTag))
		r.state = stText
		return true
	case !final:
		r.scanned = len(r.buf)
	default:
		if strings.TrimSpace(r.buf) == "" { // a bare tag at the very end: text
			r.show(openTag + r.buf)
			r.buf = ""
		} else {
			r.calls = append(r.calls, tagCall(r.buf))
			r.consume(len(r.buf))
		}
		r.state = stText
	}
	return false
}

// jsonFence holds a json block while it may be a call: it becomes a call
// when it closes as an object naming a known tool with arguments, and is
// shown as soon as it cannot be one.
func (r *Recognizer) jsonFence(final bool) bool {
	// Search from the start of the last line already searched.
	from := strings.LastIndexByte(r.buf[:r.scanned], '\n') + 1
	end := closingFence(r.buf[from:], true, final)
	if end >= 0 {
		end += from
	}
	r.scanned = len(r.buf)
	if end >= 0 {
		body := r.buf[:end]
		stop := end + strings.Index(r.buf[end:], fence) + len(fence)
		if c, ok := r.fenceCall(body); ok {
			r.calls = append(r.calls, c)
			r.consume(stop)
		} else {
			r.show(r.fenceLine + r.buf[:stop])
			r.buf = r.buf[stop:]
		}
		r.scanned = 0
		r.state = stText
		return true
	}
	if final {
		if c, ok := r.fenceCall(r.buf); ok {
			r.calls = append(r.calls, c)
			r.consume(len(r.buf))
		} else {
			r.show(r.fenceLine + r.buf)
			r.buf = ""
		}
		r.scanned = 0
		r.state = stText
		return false
	}
	possible, decided := mayBeCall(r.buf)
	r.fenceSure = possible && decided
	if !possible {
		r.show(r.fenceLine)
		r.scanned = 0
		r.state = stCode
		return true
	}
	return false
}

// closingFence finds the line that closes a fence ("```" alone after at
// most 3 spaces) in s (whose first byte starts a line when atStart); -1
// when not (yet) there. Before the end of the stream (final) the line must
// be complete.
func closingFence(s string, atStart, final bool) int {
	for p := 0; p < len(s); {
		if (p == 0 && atStart) || (p > 0 && s[p-1] == '\n') {
			q := p
			for q < len(s) && q-p < 3 && s[q] == ' ' {
				q++
			}
			if strings.HasPrefix(s[q:], fence) {
				rest := s[q+len(fence):]
				if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
					rest = rest[:nl]
				} else if !final {
					return -1
				}
				if strings.TrimSpace(strings.TrimLeft(rest, "`")) == "" {
					return p
				}
			}
		}
		nl := strings.IndexByte(s[p:], '\n')
		if nl < 0 {
			return -1
		}
		p += nl + 1
	}
	return -1
}

// code passes a shown code block through, watching for its closing fence.
func (r *Recognizer) code(final bool) bool {
	if end := closingFence(r.buf, r.lineStart, final); end >= 0 {
		stop := end + strings.Index(r.buf[end:], fence) + len(fence)
		r.show(r.buf[:stop])
		r.buf = r.buf[stop:]
		r.lineStart = false
		r.state = stText
		return true
	}
	hold := 0
	if !final {
		// A closing fence may be on its way: keep the start of the last line.
		ls := strings.LastIndexByte(r.buf, '\n') + 1
		if tail := r.buf[ls:]; (ls > 0 || r.lineStart) && tail != "" && fencePrefix(tail) {
			hold = len(tail)
		}
	}
	r.show(r.buf[:len(r.buf)-hold])
	r.buf = r.buf[len(r.buf)-hold:]
	if hold > 0 {
		r.lineStart = true
	}
	return false
}

// callKeys may open a call object.
var callKeys = map[string]bool{"name": true, "arguments": true, "parameters": true, "function": true, "type": true}

var firstKey = regexp.MustCompile(`^\{\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z_][A-Za-z0-9_]*)\s*:)`)

// mayBeCall reports whether the start of a json block can still be a call,
// and whether that is decided (its first key is complete).
func mayBeCall(body string) (possible, decided bool) {
	t := strings.TrimLeft(body, " \t\r\n")
	if t == "" {
		return true, false
	}
	if t[0] != '{' {
		return false, true
	}
	m := firstKey.FindStringSubmatch(t)
	if m == nil {
		rest := strings.TrimLeft(t[1:], " \t\r\n")
		// An empty object, or a key that does not start like one, is no call.
		return rest == "" || rest[0] == '"' || rest[0] == '\'' || isIdentStart(rest[0]), false
	}
	return callKeys[m[1]+m[2]+m[3]], true
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// fenceCall reads a json block as a call: an object naming a known tool,
// with arguments.
func (r *Recognizer) fenceCall(body string) (Call, bool) {
	c, hasArgs, ok := parseCall(body)
	if !ok || !hasArgs || !r.known[c.Name] {
		return Call{}, false
	}
	c.Form = FormFence
	return c, true
}

var nameField = regexp.MustCompile(`["']?name["']?\s*:\s*["']([A-Za-z0-9_.:-]{1,64})["']`)

// tagCall reads what was inside <tool_call>; text that is no call object
// becomes an invalid call (the model is told how to write it).
func tagCall(body string) Call {
	if c, _, ok := parseCall(body); ok {
		c.Form = FormTag
		return c
	}
	c := Call{Form: FormTag, Invalid: true, Arguments: strings.TrimSpace(body)}
	if m := nameField.FindStringSubmatch(body); m != nil {
		c.Name = m[1]
		if i := strings.Index(body, `"arguments"`); i >= 0 {
			args := strings.TrimSpace(body[i+len(`"arguments"`):])
			args = strings.TrimSpace(strings.TrimPrefix(args, ":"))
			args = strings.TrimSuffix(strings.TrimSpace(args), "}")
			c.Arguments = strings.TrimSpace(args)
		}
	}
	return c
}

// parseCall reads {"name": ..., "arguments": {...}} (also "parameters",
// OpenAI's {"function": {...}}, arguments as a JSON string, or the
// arguments beside the name), repairing it where unambiguous.
func parseCall(body string) (c Call, hasArgs, ok bool) {
	text := strings.TrimSpace(body)
	if inner, fenced := stripFence(text); fenced {
		text = inner
	}
	repaired := false
	if !json.Valid([]byte(text)) {
		fixed, err := lenientJSON(text)
		if err != nil {
			return Call{}, false, false
		}
		text, repaired = fixed, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) != nil || obj == nil {
		return Call{}, false, false
	}
	if fn, isFn := obj["function"]; isFn && obj["name"] == nil {
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) == nil && inner != nil {
			obj = inner
		}
	}
	if json.Unmarshal(obj["name"], &c.Name) != nil || c.Name == "" {
		return Call{}, false, false
	}
	args, hasArgs := obj["arguments"]
	if !hasArgs {
		args, hasArgs = obj["parameters"]
	}
	switch {
	case hasArgs && len(args) > 0 && args[0] == '"':
		var s string
		_ = json.Unmarshal(args, &s)
		fixed, _ := RepairArguments(s)
		c.Arguments, repaired = strings.TrimSpace(fixed), true
	case hasArgs && string(args) != "null":
		c.Arguments = compact(args)
	case len(obj) > 1 && !hasArgs:
		// The arguments were written beside the name.
		rest := map[string]json.RawMessage{}
		for k, v := range obj {
			if k != "name" {
				rest[k] = v
			}
		}
		b, _ := json.Marshal(rest)
		c.Arguments, repaired, hasArgs = string(b), true, true
	default:
		c.Arguments = "{}"
	}
	c.Repaired = repaired
	return c, hasArgs, true
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// indexFrom is strings.Index of sub in s from byte from on.
func indexFrom(s, sub string, from int) int {
	if from >= len(s) {
		return -1
	}
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}
