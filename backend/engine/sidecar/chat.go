package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/engine/runner"
)

// chatRequest is what POST /v1/chat/completions reads (OpenAI's fields and
// llama.cpp's server's extras that Parley sends).
type chatRequest struct {
	Model               string           `json:"model"`
	Messages            []map[string]any `json:"messages"`
	Tools               []map[string]any `json:"tools"`
	Stream              bool             `json:"stream"`
	MaxTokens           *int             `json:"max_tokens"`
	MaxCompletionTokens *int             `json:"max_completion_tokens"`
	Temperature         *float64         `json:"temperature"`
	TopP                *float64         `json:"top_p"`
	TopK                *int             `json:"top_k"`
	MinP                *float64         `json:"min_p"`
	Seed                *uint64          `json:"seed"`
	Stop                json.RawMessage  `json:"stop"`
	ReasoningEffort     *string          `json:"reasoning_effort"`
	ChatTemplateKwargs  map[string]any   `json:"chat_template_kwargs"`
}

func (r chatRequest) stops() []string {
	if len(r.Stop) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(r.Stop, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(r.Stop, &many)
	return many
}

func (r chatRequest) maxTokens() int {
	switch {
	case r.MaxCompletionTokens != nil:
		return *r.MaxCompletionTokens
	case r.MaxTokens != nil:
		return *r.MaxTokens
	}
	return 0
}

const maxBody = 64 << 20

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		writeError(w, 400, "invalid_request_error", "invalid JSON: "+err.Error())
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, 400, "invalid_request_error", "messages is empty")
		return
	}
	model, release, err := s.use(req.Model)
	if err != nil {
		s.modelError(w, err)
		return
	}
	defer release()

	// The template's native tool calls are read only when the request
	// gives tools (without them, the text is Parley's §8 text form).
	format := formatNone
	if len(req.Tools) > 0 {
		format = detectFormat(model.Template())
	}
	prompt, err := renderPrompt(model, req)
	if err != nil {
		writeError(w, 400, "invalid_request_error", "the model's chat template failed: "+err.Error())
		return
	}
	gen := runner.Request{
		Prompt: prompt, MaxTokens: req.maxTokens(), Stop: req.stops(),
		Sampling: runner.Sampling{Temperature: req.Temperature, TopP: req.TopP, TopK: req.TopK, MinP: req.MinP, Seed: req.Seed},
		OnToken:  func() { s.generated.Add(1) },
		Preserve: format.preserve(),
	}
	out := newOutput(w, req, s.log)
	parser := newCallParser(format, out.text, out.call)

	s.active.Add(1)
	res, err := model.Generate(r.Context(), gen, parser.write)
	s.active.Add(-1)
	if err == nil {
		err = parser.close()
	}
	if err != nil {
		if canceled(r.Context(), err) {
			s.cancelled.Add(1)
			s.log.Info("generation cancelled", "tokens", res.CompletionTokens)
			return
		}
		if errors.Is(err, runner.ErrTooLong) && !out.started {
			writeError(w, 400, "exceed_context_size_error", err.Error())
			return
		}
		out.fail(err)
		return
	}
	s.lastMu.Lock()
	s.last = res
	s.lastMu.Unlock()
	out.finish(res)
}

func (s *Server) modelError(w http.ResponseWriter, err error) {
	var nm errNoModel
	if errors.As(err, &nm) {
		writeError(w, 404, "not_found_error", err.Error())
		return
	}
	writeError(w, 500, "server_error", err.Error())
}

// renderPrompt formats the messages with the model's template.
func renderPrompt(m *runner.Model, req chatRequest) (string, error) {
	tmpl := m.Template()
	if tmpl == "" {
		tmpl = fallbackTemplate
	}
	bos, eos := m.SpecialTexts()
	vars := map[string]any{}
	for k, v := range req.ChatTemplateKwargs {
		vars[k] = v
	}
	if _, ok := vars["enable_thinking"]; !ok {
		vars["enable_thinking"] = req.ReasoningEffort == nil || *req.ReasoningEffort != "none"
	}
	messages := normalizeMessages(req.Messages)
	if detectFormat(tmpl) == formatMistral {
		fixMistralIDs(messages) // its templates refuse other ids
	}
	return Render(tmpl, messages, req.Tools, bos, eos, vars)
}

// fallbackTemplate is ChatML, for a GGUF without a template.
const fallbackTemplate = `{% for message in messages %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}`

// normalizeMessages gives templates what they expect: content as a string
// (the text parts of a list joined), a tool call's arguments as an object.
func normalizeMessages(in []map[string]any) []any {
	out := make([]any, 0, len(in))
	for _, m := range in {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		if parts, ok := c["content"].([]any); ok {
			var b strings.Builder
			for _, p := range parts {
				if pm, ok := p.(map[string]any); ok && pm["type"] == "text" {
					if t, ok := pm["text"].(string); ok {
						b.WriteString(t)
					}
				}
			}
			c["content"] = b.String()
		}
		if c["content"] == nil {
			c["content"] = ""
		}
		if calls, ok := c["tool_calls"].([]any); ok {
			fixed := make([]any, 0, len(calls))
			for _, tc := range calls {
				tm, ok := tc.(map[string]any)
				if !ok {
					continue
				}
				cp := map[string]any{}
				for k, v := range tm {
					cp[k] = v
				}
				if fn, ok := tm["function"].(map[string]any); ok {
					f := map[string]any{}
					for k, v := range fn {
						f[k] = v
					}
					if args, ok := f["arguments"].(string); ok {
						var obj any
						if json.Unmarshal([]byte(args), &obj) == nil {
							f["arguments"] = obj
						}
					}
					cp["function"] = f
				}
				fixed = append(fixed, cp)
			}
			c["tool_calls"] = fixed
		}
		out = append(out, c)
	}
	return out
}

// output writes the answer: streamed as llama.cpp's server streams it (a
// role chunk, text deltas, each tool call's id/type/name then its
// arguments, the finish reason, a usage chunk, [DONE]), or whole.
type output struct {
	w       http.ResponseWriter
	req     chatRequest
	id      string
	created int64
	started bool
	text_   strings.Builder
	calls   []map[string]any
	log     interface{ Info(string, ...any) }
}

func newOutput(w http.ResponseWriter, req chatRequest, log interface{ Info(string, ...any) }) *output {
	return &output{w: w, req: req, id: newID("chatcmpl-"), created: time.Now().Unix(), log: log}
}

func (o *output) send(v any) error {
	b, _ := json.Marshal(v)
	if _, err := fmt.Fprintf(o.w, "data: %s\n\n", b); err != nil {
		return err
	}
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

func (o *output) chunk(delta map[string]any, finish any) map[string]any {
	return map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.req.Model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
}

func (o *output) start() error {
	if o.started || !o.req.Stream {
		return nil
	}
	o.started = true
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	o.w.WriteHeader(200)
	return o.send(o.chunk(map[string]any{"role": "assistant", "content": ""}, nil))
}

func (o *output) text(s string) error {
	if s == "" {
		return nil
	}
	if !o.req.Stream {
		o.text_.WriteString(s)
		return nil
	}
	if err := o.start(); err != nil {
		return err
	}
	return o.send(o.chunk(map[string]any{"content": s}, nil))
}

// call hands on a tool call; id "" makes one.
func (o *output) call(id, name, args string) error {
	i := len(o.calls)
	if id == "" {
		id = newID("call_")[:20]
	}
	o.calls = append(o.calls, map[string]any{"id": id, "type": "function",
		"function": map[string]string{"name": name, "arguments": args}})
	if !o.req.Stream {
		return nil
	}
	if err := o.start(); err != nil {
		return err
	}
	if err := o.send(o.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": id, "type": "function",
		"function": map[string]string{"name": name, "arguments": ""}}}}, nil)); err != nil {
		return err
	}
	return o.send(o.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
		"function": map[string]string{"arguments": args}}}}, nil))
}

func usage(res runner.Result) map[string]any {
	return map[string]any{"prompt_tokens": res.PromptTokens, "completion_tokens": res.CompletionTokens,
		"total_tokens":          res.PromptTokens + res.CompletionTokens,
		"prompt_tokens_details": map[string]int{"cached_tokens": res.CachedTokens}}
}

func (o *output) finish(res runner.Result) {
	finish := res.FinishReason
	if len(o.calls) > 0 {
		finish = "tool_calls"
	}
	if !o.req.Stream {
		msg := map[string]any{"role": "assistant", "content": o.text_.String()}
		if len(o.calls) > 0 {
			msg["tool_calls"] = o.calls
		}
		writeJSON(o.w, 200, map[string]any{"id": o.id, "object": "chat.completion", "created": o.created, "model": o.req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage(res)})
		return
	}
	if o.start() != nil {
		return
	}
	_ = o.send(o.chunk(map[string]any{}, finish))
	_ = o.send(map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.req.Model,
		"choices": []any{}, "usage": usage(res)})
	_, _ = io.WriteString(o.w, "data: [DONE]\n\n")
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
}

// fail reports a failure: as an HTTP error before the stream started, as
// an error frame (then [DONE]) after, as llama.cpp's server does.
func (o *output) fail(err error) {
	o.log.Info("generation failed", "err", err)
	if !o.started {
		writeError(o.w, 500, "server_error", err.Error())
		return
	}
	_ = o.send(map[string]any{"error": map[string]any{"message": err.Error(), "type": "server_error"}})
	_, _ = io.WriteString(o.w, "data: [DONE]\n\n")
}

// callParser passes text on and turns Hermes-style tool calls
// (<tool_call>{"name": ..., "arguments": {...}}</tool_call>, Qwen's and
// Hermes' templates) into calls. Text that may begin a tag is held back
// until it is known.
type callParser struct {
	hermes  bool
	pending string
	inCall  bool
	called  bool
	onText  func(string) error
	onCall  func(name, args string) error
}

const (
	openTag  = "<tool_call>"
	closeTag = "</tool_call>"
)

func (p *callParser) write(s string) error {
	if !p.hermes {
		return p.onText(s)
	}
	p.pending += s
	for {
		if !p.inCall {
			i := strings.Index(p.pending, openTag)
			if i < 0 {
				// Held back: what may begin the tag, and the space before
				// it (a call's text does not end in its line break).
				keep := partialSuffix(p.pending, openTag)
				text := strings.TrimRight(p.pending[:len(p.pending)-keep], " \n")
				p.pending = p.pending[len(text):]
				if p.called && strings.TrimSpace(text) == "" {
					return nil // the space between and after calls
				}
				return p.onText(text)
			}
			before := p.pending[:i]
			if !(p.called && strings.TrimSpace(before) == "") {
				if err := p.onText(strings.TrimRight(before, " \n")); err != nil {
					return err
				}
			}
			p.pending = p.pending[i+len(openTag):]
			p.inCall = true
			continue
		}
		j := strings.Index(p.pending, closeTag)
		if j < 0 {
			return nil
		}
		body := p.pending[:j]
		p.pending = p.pending[j+len(closeTag):]
		p.inCall = false
		if err := p.emitCall(body, closeTag); err != nil {
			return err
		}
	}
}

// emitCall hands on the call in body; a body that is no call goes out as
// the model wrote it (the tags with it, close being the closing one seen).
func (p *callParser) emitCall(body, close string) error {
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &call); err != nil || call.Name == "" {
		// Not a call after all: the model's words, as written.
		return p.onText(openTag + body + close)
	}
	args := "{}"
	if len(call.Arguments) > 0 {
		var str string
		if json.Unmarshal(call.Arguments, &str) == nil {
			args = str
		} else {
			args = string(call.Arguments)
		}
	}
	p.called = true
	return p.onCall(call.Name, args)
}

// close ends the text: an unterminated call is parsed as it is.
func (p *callParser) close() error {
	if !p.hermes {
		return nil
	}
	rest := p.pending
	p.pending = ""
	if p.inCall {
		p.inCall = false
		return p.emitCall(rest, "")
	}
	if p.called && strings.TrimSpace(rest) == "" {
		return nil
	}
	return p.onText(rest)
}

// partialSuffix is the length of the longest end of s that begins tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
