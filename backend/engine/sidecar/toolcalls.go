package sidecar

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"strings"
)

// The native tool-call formats of the chat templates (SPEC §12: calls
// reach Parley in the template's own format where it has one; otherwise
// the text goes out as it is and Parley reads §8's text form from it).
// The format is told from the GGUF's chat template by the marks each
// family's template writes. Read from the llama.cpp source node-llama-cpp
// 3.21.1 ships (llama/gitRelease.bundle): the templates in
// models/templates (meta-llama-Llama-3.1-8B/3.2-3B/3.3-70B-Instruct,
// mistralai-Mistral-Nemo-Instruct-2407, Mistral-Small-3.2-24B-Instruct-2506:
// how each writes an assistant's calls and a tool's result),
// tests/test-chat.cpp (Mistral Nemo's reply
// [TOOL_CALLS][{"name": …, "arguments": {…}, "id": "123456789"}]) and
// common/chat.cpp (Ministral's [TOOL_CALLS]name[ARGS]{…}, and the
// preserved_tokens its formats keep). Gemma 3's template has no tools at
// all: formatNone.
type callFormat int

const (
	formatNone callFormat = iota
	// formatHermes: <tool_call>{"name": ..., "arguments": {...}}</tool_call>
	// (Hermes, Qwen 2.5 and 3; callParser).
	formatHermes
	// formatLlama3: the whole reply is {"name": ..., "parameters": {...}},
	// optionally after <|python_tag|> (Meta's Llama 3.1/3.2/3.3
	// templates: "Respond in the format {"name": function name,
	// "parameters": dictionary of argument name and its value}", and the
	// same for an assistant's call in the history). Also read, as models
	// write them: "type": "function" before the name, "arguments" for
	// "parameters", and several calls separated by ";".
	formatLlama3
	// formatMistral: [TOOL_CALLS] then a JSON array of {"name",
	// "arguments", "id"?} (Mistral 7B v0.3, Nemo: the template writes the
	// calls so and lists the tools in [AVAILABLE_TOOLS]); or, from Mistral
	// Small 3.2 and Devstral on, [TOOL_CALLS]name[CALL_ID]id[ARGS]{...}
	// once per call (their templates write them so). The call ids are 9
	// letters and digits: the templates refuse any other.
	formatMistral
)

// detectFormat tells a template's native tool-call format.
func detectFormat(tmpl string) callFormat {
	switch {
	case strings.Contains(tmpl, openTag):
		return formatHermes
	case strings.Contains(tmpl, mistralTag):
		return formatMistral
	case strings.Contains(tmpl, "<|start_header_id|>") && strings.Contains(tmpl, "ipython"):
		return formatLlama3
	}
	return formatNone
}

// preserve are the special tokens of the format the engine must write as
// text (llama.cpp's server keeps them as its chat formats'
// preserved_tokens).
func (f callFormat) preserve() []string {
	switch f {
	case formatHermes:
		return []string{openTag, closeTag}
	case formatLlama3:
		return []string{pythonTag}
	case formatMistral:
		return []string{mistralTag, mistralArgs, mistralCallID}
	}
	return nil
}

// textParser turns generated text into text and calls.
type textParser interface {
	write(s string) error
	close() error
}

// newCallParser is the parser of a format.
func newCallParser(f callFormat, onText func(string) error, onCall func(id, name, args string) error) textParser {
	switch f {
	case formatHermes:
		return &callParser{hermes: true, onText: onText, onCall: func(name, args string) error { return onCall("", name, args) }}
	case formatLlama3:
		return &llamaParser{deciding: true, onText: onText, onCall: onCall}
	case formatMistral:
		return &mistralParser{onText: onText, onCall: onCall}
	}
	return &callParser{onText: onText}
}

const (
	pythonTag     = "<|python_tag|>"
	mistralTag    = "[TOOL_CALLS]"
	mistralArgs   = "[ARGS]"
	mistralCallID = "[CALL_ID]"
)

// llamaParser reads Llama 3's calls. The reply is held back while it may
// still be one (it starts with "{" and the first key is "name" or "type",
// maybe after <|python_tag|>), and parsed at its end; anything else
// streams as text from the first character that tells.
type llamaParser struct {
	deciding bool
	held     strings.Builder
	onText   func(string) error
	onCall   func(id, name, args string) error
}

func (p *llamaParser) write(s string) error {
	if !p.deciding {
		return p.onText(s)
	}
	p.held.WriteString(s)
	if mayBeLlamaCall(p.held.String()) {
		return nil
	}
	p.deciding = false
	held := p.held.String()
	p.held.Reset()
	return p.onText(held)
}

func (p *llamaParser) close() error {
	if !p.deciding {
		return nil
	}
	held := p.held.String()
	p.held.Reset()
	calls, ok := parseLlamaCalls(held)
	if !ok {
		return p.onText(held) // JSON, but no call: the model's words
	}
	for _, c := range calls {
		if err := p.onCall("", c.name, c.args); err != nil {
			return err
		}
	}
	return nil
}

// mayBeLlamaCall tells whether a reply beginning with s may still be a
// Llama 3 call.
func mayBeLlamaCall(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	if len(t) < len(pythonTag) && strings.HasPrefix(pythonTag, t) {
		return true
	}
	t = strings.TrimLeft(strings.TrimPrefix(t, pythonTag), " \t\r\n")
	if t == "" {
		return true
	}
	if t[0] != '{' {
		return false
	}
	t = strings.TrimLeft(t[1:], " \t\r\n")
	if t == "" {
		return true
	}
	if t[0] != '"' {
		return false
	}
	key, closed := t[1:], false
	if i := strings.IndexByte(key, '"'); i >= 0 {
		key, closed = key[:i], true
	}
	for _, k := range []string{"name", "type"} {
		if key == k || (!closed && strings.HasPrefix(k, key)) {
			return true
		}
	}
	return false
}

type parsedCall struct{ id, name, args string }

// parseLlamaCalls reads a whole reply as Llama 3 calls: JSON objects with
// a name and parameters (or arguments), separated by space or ";".
func parseLlamaCalls(s string) ([]parsedCall, bool) {
	rest := strings.TrimLeft(s, " \t\r\n")
	rest = strings.TrimPrefix(rest, pythonTag)
	var calls []parsedCall
	for {
		rest = strings.TrimLeft(rest, " \t\r\n;")
		if rest == "" {
			break
		}
		dec := json.NewDecoder(strings.NewReader(rest))
		var c struct {
			Type       string          `json:"type"`
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
			Arguments  json.RawMessage `json:"arguments"`
		}
		if err := dec.Decode(&c); err != nil || c.Name == "" || (c.Type != "" && c.Type != "function") {
			return nil, false
		}
		params := c.Parameters
		if len(params) == 0 {
			params = c.Arguments
		}
		if len(params) == 0 {
			return nil, false
		}
		calls = append(calls, parsedCall{name: c.Name, args: argumentsText(params)})
		rest = rest[dec.InputOffset():]
	}
	return calls, len(calls) > 0
}

// argumentsText is a call's arguments as OpenAI's API sends them: a JSON
// object's text (a model that wrote them as a string of JSON is read too).
func argumentsText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	if strings.TrimSpace(string(raw)) == "null" {
		return "{}"
	}
	return string(raw)
}

// mistralParser reads Mistral's calls: text streams until [TOOL_CALLS]
// (held back while the text may begin it); what follows it, to the end
// of the reply, is the calls, parsed at the end. What does not parse goes
// out as the model wrote it.
type mistralParser struct {
	pending string
	space   string // the space held back before [TOOL_CALLS]
	inCalls bool
	calls   strings.Builder
	onText  func(string) error
	onCall  func(id, name, args string) error
}

func (p *mistralParser) write(s string) error {
	if p.inCalls {
		p.calls.WriteString(s)
		return nil
	}
	p.pending += s
	i := strings.Index(p.pending, mistralTag)
	if i < 0 {
		// Held back: what may begin the tag, and the space before it (a
		// call's text does not end in its line break).
		keep := partialSuffix(p.pending, mistralTag)
		text := strings.TrimRight(p.pending[:len(p.pending)-keep], " \n")
		p.pending = p.pending[len(text):]
		return p.onText(text)
	}
	before := strings.TrimRight(p.pending[:i], " \n")
	p.space = p.pending[len(before):i]
	p.calls.WriteString(p.pending[i+len(mistralTag):])
	p.pending, p.inCalls = "", true
	return p.onText(before)
}

func (p *mistralParser) close() error {
	if !p.inCalls {
		rest := p.pending
		p.pending = ""
		return p.onText(rest)
	}
	body := p.calls.String()
	calls, ok := parseMistralCalls(body)
	if !ok {
		return p.onText(p.space + mistralTag + body)
	}
	for _, c := range calls {
		id := c.id
		if !validMistralID(id) {
			id = newMistralID()
		}
		if err := p.onCall(id, c.name, c.args); err != nil {
			return err
		}
	}
	return nil
}

// parseMistralCalls reads what follows the first [TOOL_CALLS]: a JSON
// array of calls, or name[CALL_ID]id[ARGS]{...} (the [CALL_ID] part
// optional), either once or more, each after its own [TOOL_CALLS].
func parseMistralCalls(body string) ([]parsedCall, bool) {
	var calls []parsedCall
	for _, part := range strings.Split(body, mistralTag) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.HasPrefix(part, "[") && !strings.HasPrefix(part, mistralArgs) {
			var list []struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				ID        string          `json:"id"`
			}
			if err := json.Unmarshal([]byte(part), &list); err != nil || len(list) == 0 {
				return nil, false
			}
			for _, c := range list {
				if c.Name == "" {
					return nil, false
				}
				args := "{}"
				if len(c.Arguments) > 0 {
					args = argumentsText(c.Arguments)
				}
				calls = append(calls, parsedCall{id: c.ID, name: c.Name, args: args})
			}
			continue
		}
		head, args, ok := strings.Cut(part, mistralArgs)
		if !ok {
			return nil, false
		}
		name, id, _ := strings.Cut(head, mistralCallID)
		name = strings.TrimSpace(name)
		args = strings.TrimSpace(args)
		if name == "" || !json.Valid([]byte(args)) {
			return nil, false
		}
		calls = append(calls, parsedCall{id: strings.TrimSpace(id), name: name, args: argumentsText(json.RawMessage(args))})
	}
	return calls, len(calls) > 0
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// validMistralID tells whether id is what Mistral's templates take: 9
// letters and digits.
func validMistralID(id string) bool {
	if len(id) != 9 {
		return false
	}
	for _, c := range []byte(id) {
		if strings.IndexByte(alnum, c) < 0 {
			return false
		}
	}
	return true
}

// newMistralID is a random call id of 9 letters and digits.
func newMistralID() string {
	b := make([]byte, 9)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}

// mistralID is the 9-character id an id Mistral's templates would refuse
// is given in the prompt (the same each time, so the evaluated prefix is
// reused): calls made by another model of the conversation, or §8's
// text-form calls.
func mistralID(id string) string {
	if validMistralID(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	b := make([]byte, 9)
	for i := range b {
		b[i] = alnum[int(sum[i])%len(alnum)]
	}
	return string(b)
}

// fixMistralIDs gives every tool call id and tool_call_id of the
// (normalized) messages Mistral's form.
func fixMistralIDs(messages []any) {
	for _, m := range messages {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		if id, ok := mm["tool_call_id"].(string); ok {
			mm["tool_call_id"] = mistralID(id)
		}
		calls, _ := mm["tool_calls"].([]any)
		for _, c := range calls {
			if cm, ok := c.(map[string]any); ok {
				id, _ := cm["id"].(string)
				cm["id"] = mistralID(id)
			}
		}
	}
}
