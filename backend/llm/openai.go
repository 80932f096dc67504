package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/trace"
)

// openAIModel talks to any OpenAI-compatible chat endpoint.
type openAIModel struct {
	cfg       Config
	transport http.RoundTripper
}

// NewOpenAI returns a Model for an OpenAI-compatible endpoint.
func NewOpenAI(cfg Config) (Model, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Model == "" {
		return nil, NewError(KindModelNotFound, nil, "llm.noModel")
	}
	transport := http.RoundTripper(sharedTransport)
	if cfg.Transport != nil {
		transport = cfg.Transport
	}
	return &openAIModel{cfg: cfg, transport: transport}, nil
}

// Identity implements the identity IdentityOf reads.
func (m *openAIModel) Identity() Identity {
	return Identity{BaseURL: m.cfg.BaseURL, Model: m.cfg.Model}
}

// sharedTransport keeps connections to the local server alive across calls.
var sharedTransport = &http.Transport{
	Proxy:               nil, // local servers: never through a proxy
	DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 4,
	IdleConnTimeout:     90 * time.Second,
}

// Name is the model's name (for the reply figures).
func (m *openAIModel) Name() string { return m.cfg.Model }

// Chat implements Model.
func (m *openAIModel) Chat(ctx context.Context, req Request) (Response, error) {
	// A fresh tee per call sees the raw SSE frames langchaingo hides
	// (error frames, whether [DONE] arrived, the thinking).
	extras := newRequestExtras(req)
	tee := &streamTee{onCall: req.OnToolCall, thinkingSent: extras != nil}
	texts := newLongTexts()
	client, err := openai.New(
		openai.WithBaseURL(m.cfg.BaseURL),
		openai.WithToken(tokenOrNone(m.cfg.APIKey)),
		openai.WithModel(m.cfg.Model),
		openai.WithHTTPClient(&http.Client{Transport: &teeTransport{base: m.transport, tee: tee, extras: extras, texts: texts}}),
	)
	if err != nil {
		return Response{}, fmt.Errorf("create model client: %w", err)
	}

	// The streamed reply is the splitter's (split.Reply): no second copy
	// of every piece.
	var reasoning strings.Builder
	source := ""
	fromField := false
	toolStarted := false
	split := newThinkSplitter(func(text string, moved bool) {
		if source == "" {
			source = ReasoningFromTags
		}
		reasoning.WriteString(text)
		if req.OnReasoning != nil {
			req.OnReasoning(text, moved)
		}
	}, func(text string) {
		if req.OnDelta != nil {
			req.OnDelta(text)
		}
	})
	// The tee reads each frame before langchaingo parses it: the thinking
	// of a frame is handed on when langchaingo hands on the frame (with an
	// empty chunk for a frame of thinking only), before its text.
	takeReasoning := func() {
		text, from := tee.takeReasoning()
		if text == "" {
			return
		}
		split.noBareClose() // the server separates the thinking itself
		fromField = true
		if source == "" || source == ReasoningFromTags {
			source = from
		}
		reasoning.WriteString(text)
		if req.OnReasoning != nil {
			req.OnReasoning(text, false)
		}
	}
	opts := []llms.CallOption{
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			takeReasoning()
			if len(chunk) == 0 {
				return nil
			}
			if isToolCallChunk(chunk) {
				if !toolStarted {
					toolStarted = true
					if req.OnToolCallStart != nil {
						req.OnToolCallStart()
					}
				}
				return nil
			}
			split.WriteBytes(chunk)
			return nil
		}),
	}
	if len(req.Tools) > 0 {
		opts = append(opts, llms.WithTools(toLangchainTools(req.Tools)))
	}
	resp, err := client.GenerateContent(ctx, toLangchainMessages(req.Messages, texts), opts...)
	takeReasoning()
	split.Close()
	if trace.Enabled() && err == nil && len(resp.Choices) > 0 {
		for _, tc := range resp.Choices[0].ToolCalls {
			trace.Mark(tc.ID, trace.HopStreamEnd)
		}
	}
	partial := Response{Text: split.Reply(), Reasoning: reasoning.String(), ReasoningSource: source}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return partial, ctxErr
	}
	if err != nil {
		return partial, m.classify(err, tee)
	}
	if msg := tee.errorMessage(); msg != "" {
		return partial, NewError(KindStream, nil, "llm.serverError", msg)
	}
	if !tee.finished() {
		if fe := (*fault.Error)(nil); errors.As(tee.transportErr(), &fe) {
			return partial, fe
		}
		return partial, NewError(KindStream, nil, "llm.dropped")
	}
	out := Response{Reasoning: partial.Reasoning, ReasoningSource: source}
	if len(resp.Choices) > 0 {
		c := resp.Choices[0]
		out.Text = c.Content
		if split.found {
			// langchaingo's content still has the tags: the reply is what
			// follows them, as streamed.
			_, out.Text, _ = splitThinkTags(c.Content, !fromField)
		}
		for _, tc := range c.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			// langchaingo starts a new call for every delta that has neither
			// a type nor arguments, so an empty argument delta (some servers
			// send them) becomes a call without id and name, and the
			// argument deltas after it land there. It continues the call
			// before it: merge it back.
			if tc.ID == "" && tc.FunctionCall.Name == "" {
				if n := len(out.ToolCalls); n > 0 {
					out.ToolCalls[n-1].Arguments += tc.FunctionCall.Arguments
				}
				continue
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.FunctionCall.Name, Arguments: tc.FunctionCall.Arguments})
		}
	}
	if len(resp.Choices) > 0 {
		out.Usage = usageOf(resp.Choices[0].GenerationInfo)
	}
	if out.Text == "" && split.reply.Len() > 0 {
		out.Text = split.Reply()
	}
	if strings.TrimSpace(out.Text) == "" && len(out.ToolCalls) == 0 && strings.TrimSpace(out.Reasoning) == "" {
		// (A reply of thinking only is an answer: it happens, ollama#15288.)
		return out, NewError(KindEmpty, nil, "llm.empty")
	}
	return out, nil
}

// usageOf reads the token counts langchaingo copies into GenerationInfo
// (nil when the server sent no usage).
func usageOf(info map[string]any) *Usage {
	in, _ := info["PromptTokens"].(int)
	out, _ := info["CompletionTokens"].(int)
	if in == 0 && out == 0 {
		return nil
	}
	return &Usage{PromptTokens: in, CompletionTokens: out}
}

func tokenOrNone(key string) string {
	if key == "" {
		return "none" // the client requires a token; local servers ignore it
	}
	return key
}

// isToolCallChunk tells the marshalled tool-call deltas langchaingo passes
// to the streaming func apart from text.
func isToolCallChunk(chunk []byte) bool {
	if len(chunk) < 2 || chunk[0] != '[' && chunk[0] != '{' {
		return false
	}
	var calls []map[string]json.RawMessage
	if chunk[0] == '[' {
		if json.Unmarshal(chunk, &calls) != nil || len(calls) == 0 {
			return false
		}
	} else {
		var one map[string]json.RawMessage
		if json.Unmarshal(chunk, &one) != nil {
			return false
		}
		calls = append(calls, one)
	}
	for _, c := range calls {
		if _, ok := c["function"]; ok {
			return true
		}
		if _, ok := c["arguments"]; ok {
			return true
		}
	}
	return false
}

func toLangchainTools(tools []Tool) []llms.Tool {
	out := make([]llms.Tool, 0, len(tools))
	for _, t := range tools {
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		out = append(out, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return out
}

// toLangchainMessages converts msgs; their long texts go in as texts'
// placeholders (nil texts: as they are).
func toLangchainMessages(msgs []Message, texts *longTexts) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case "system":
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, texts.stand(m.Content)))
		case "user":
			mc := llms.TextParts(llms.ChatMessageTypeHuman, texts.stand(m.Content))
			for _, img := range m.Images {
				// A data URL: local servers cannot fetch anything else from us.
				mc.Parts = append(mc.Parts, llms.ImageURLContent{URL: "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)})
			}
			out = append(out, mc)
		case "assistant":
			mc := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				mc.Parts = append(mc.Parts, llms.TextContent{Text: texts.stand(m.Content)})
			}
			for _, tc := range m.ToolCalls {
				args := tc.Arguments
				if args == "" {
					args = "{}"
				}
				mc.Parts = append(mc.Parts, llms.ToolCall{ID: tc.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: tc.Name, Arguments: args}})
			}
			out = append(out, mc)
		case "tool":
			// One message per tool result: the provider refuses more parts.
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: m.ToolName, Content: texts.stand(m.Content)},
			}})
		}
	}
	return out
}

// classify turns a client error into a user-readable model-server failure.
func (m *openAIModel) classify(err error, tee *streamTee) error {
	if netErr := tee.transportErr(); netErr != nil {
		err = netErr
	}
	// A transport that says what went wrong in its own words (the built-in
	// engine's: it stopped mid-answer, it could not start) is said as is.
	if fe := (*fault.Error)(nil); errors.As(err, &fe) {
		return fe
	}
	if status, body := tee.httpError(); status != 0 {
		msg := serverMessage(body)
		if status == http.StatusBadRequest && tee.thinkingSent && namesThinking(msg) {
			return serverError(KindThinkingRefused, err, fmt.Sprintf(
				"The model server refused the thinking setting (HTTP %d: %s).", status, msg))
		}
		return m.httpError(status, msg, err)
	}
	msg := err.Error()
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr) && opErr.Op == "dial", errors.Is(err, syscall.ECONNREFUSED),
		strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such host"):
		return unreachableError(m.cfg.BaseURL, err)
	case errors.Is(err, bufio.ErrTooLong), strings.Contains(msg, "token too long"):
		// langchaingo reads SSE lines with a 64 KiB limit.
		return NewError(KindStream, err, "llm.chunkTooLarge")
	case strings.Contains(msg, "error reading streaming response"), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF), strings.Contains(msg, "connection reset"):
		return NewError(KindStream, err, "llm.dropped")
	}
	if em := tee.errorMessage(); em != "" {
		return NewError(KindStream, err, "llm.serverError", em)
	}
	return NewError(KindHTTP, err, "llm.callFailed", msg)
}

func (m *openAIModel) unreachable() string { return unreachableMessage(m.cfg.BaseURL) }

// unreachableMessage says that nothing answers at baseURL, in plain words
// (the UI shows it as text).
func unreachableMessage(baseURL string) string {
	return unreachableText(baseURL).String()
}

// unreachableText is unreachableMessage as a catalogue message.
func unreachableText(baseURL string) i18n.Message {
	if strings.Contains(baseURL, ":11434") {
		return i18n.M("llm.unreachableOllama", baseURL)
	}
	return i18n.M("llm.unreachable", baseURL)
}

// httpError explains a non-200 answer, using the server's own message.
func (m *openAIModel) httpError(status int, serverMsg string, cause error) *fault.Error {
	lower := strings.ToLower(serverMsg)
	detail := ""
	if serverMsg != "" {
		detail = ": " + serverMsg
	}
	switch {
	case strings.Contains(lower, "does not support tools"), strings.Contains(lower, "tools are not supported"),
		strings.Contains(lower, "tool calling is not supported"), strings.Contains(lower, "tools param requires --jinja"):
		return NewError(KindNoTools, cause, "llm.noTools", m.cfg.Model)
	case toolRoleRefused(lower):
		return NewError(KindNoToolRole, cause, "llm.toolRoleRefused", status, detail)
	case status == http.StatusNotFound && (serverMsg == "" || strings.Contains(lower, "model")):
		return NewError(KindModelNotFound, cause, "llm.modelNotFound", m.cfg.Model, m.cfg.BaseURL)
	case status == http.StatusNotFound:
		return NewError(KindHTTP, cause, "llm.noChatEndpoint", m.cfg.BaseURL, detail)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return NewError(KindHTTP, cause, "llm.refused", m.cfg.BaseURL, status, detail)
	}
	if serverMsg == "" {
		serverMsg = http.StatusText(status)
	}
	return NewError(KindHTTP, cause, "llm.httpError", status, serverMsg)
}

// namesThinking tells a refusal of the thinking fields: Ollama's `think
// value "low" is not supported for this model` and `"m" does not support
// thinking` (server/routes.go), vLLM's and LM Studio's validation errors
// naming reasoning_effort, chat_template_kwargs or reasoning_content.
func namesThinking(msg string) bool {
	lower := strings.ToLower(msg)
	return strings.Contains(lower, "reasoning") || strings.Contains(lower, "think") || strings.Contains(lower, "effort")
}

// toolRoleRefused tells a server's refusal of the `tool` role: llama.cpp's
// and vLLM's template errors ("Conversation roles must alternate
// user/assistant/...", "Unknown role: tool"), LM Studio's "unsupported
// role".
func toolRoleRefused(lower string) bool {
	if !strings.Contains(lower, "role") {
		return false
	}
	return strings.Contains(lower, "alternate") || strings.Contains(lower, "role: tool") ||
		strings.Contains(lower, "role 'tool'") || strings.Contains(lower, `role "tool"`) || strings.Contains(lower, "tool role")
}

// serverMessage extracts the message of an error body: OpenAI's
// {"error":{"message"}} (llama.cpp adds "code" and "type"), Ollama's
// {"error":"..."}, {"message"}, FastAPI's {"detail"} (vLLM) or plain text.
func serverMessage(body []byte) string {
	text := strings.TrimSpace(string(body))
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &obj) == nil {
		switch {
		case errorText(obj.Error) != "":
			text = errorText(obj.Error)
		case obj.Message != "":
			text = obj.Message
		default:
			text = detailText(obj.Detail) // "" for JSON without a message: the status says more
		}
	}
	if strings.HasPrefix(text, "<") { // an HTML error page says nothing useful
		return ""
	}
	const max = 300
	if r := []rune(text); len(r) > max {
		text = string(r[:max]) + "…"
	}
	return text
}

// errorText reads the value of an "error" field: {"message"} (OpenAI,
// llama.cpp, vLLM), a plain string (Ollama), or an object with only a
// "type"; "" when it says nothing.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var flat string
	if json.Unmarshal(raw, &flat) == nil {
		return strings.TrimSpace(flat)
	}
	var nested struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(raw, &nested) == nil {
		if m := strings.TrimSpace(nested.Message); m != "" {
			return m
		}
		return nested.Type
	}
	return ""
}

// detailText reads FastAPI's "detail": a string, or a list of {"msg"}.
func detailText(raw json.RawMessage) string {
	var flat string
	if json.Unmarshal(raw, &flat) == nil {
		return flat
	}
	var list []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return list[0].Msg
	}
	return ""
}

// teeTransport lets streamTee watch the response body as langchaingo reads
// it, and adds to the request body what langchaingo v0.1.14 cannot send
// (extras: the thinking fields).
type teeTransport struct {
	base   http.RoundTripper
	tee    *streamTee
	extras *requestExtras
	texts  *longTexts
}

func (t *teeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if key := trace.KeyFrom(r.Context()); key != "" {
		trace.Mark(key, trace.HopNextRequest)
	}
	if (t.extras != nil || t.texts.any()) && r.Body != nil {
		body, err := readBody(r)
		_ = r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the request body: %w", err)
		}
		if t.extras != nil {
			if body, err = t.extras.rewrite(body); err != nil {
				return nil, err
			}
		}
		if body, err = t.texts.splice(body); err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	res, err := t.base.RoundTrip(r)
	if err != nil {
		// langchaingo hides network errors behind a generic text; keep the real one.
		t.tee.setTransportErr(err)
		return res, err
	}
	if res.StatusCode != http.StatusOK {
		// langchaingo keeps only error.message of an OpenAI-style body and
		// drops plain-text or {"error":"..."} bodies: keep the server's words.
		body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = res.Body.Close()
		t.tee.setHTTPError(res.StatusCode, body)
		res.Body = io.NopCloser(bytes.NewReader(body))
		return res, nil
	}
	res.Body = &teeBody{ReadCloser: res.Body, tee: t.tee}
	return res, nil
}

// readBody reads a request's body whole (in one piece when its length is known).
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength <= 0 {
		return io.ReadAll(r.Body)
	}
	body := make([]byte, r.ContentLength)
	_, err := io.ReadFull(r.Body, body)
	return body, err
}

type teeBody struct {
	io.ReadCloser
	tee *streamTee
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.tee.write(p[:n])
	}
	if err != nil && err != io.EOF && isFault(err) {
		// The transport's own words for a failure mid-stream (langchaingo
		// hides them behind its own).
		b.tee.setTransportErr(err)
	}
	return n, err
}

// isFault tells an error that is or wraps a *fault.Error. Apart from Read
// so that the target errors.As needs is not put on the heap for every read
// (it escapes), only when there is an error.
func isFault(err error) bool {
	var fe *fault.Error
	return errors.As(err, &fe)
}

// streamTee records, from raw SSE lines, an error frame's message and
// whether the stream ended properly ([DONE] or a finish_reason, or a plain
// JSON body for non-streamed calls).
type streamTee struct {
	mu       sync.Mutex
	calls    []teeCall // the tool calls seen in the stream, in order
	complete []ToolCall
	started  []string // ids of calls started since the last write (for the trace)
	// onCall receives each tool call once the server has finished it.
	onCall   func(ToolCall)
	partial  []byte
	done     bool
	finish   bool
	plain    bool
	errorMsg string
	netErr   error
	status   int    // a non-200 answer's status
	body     []byte // and its body
	// thinkingSent: the request said something about thinking (a refusal
	// naming it is KindThinkingRefused).
	thinkingSent bool
	// reasoning read from the frames and not yet taken, and the field it
	// came in (reasoning or reasoning_content).
	reasoning     strings.Builder
	reasoningFrom string
	// hasReasoning: reasoning is not empty (read without the lock).
	hasReasoning atomic.Bool
}

// takeReasoning returns the thinking read since the last call and its field.
func (t *streamTee) takeReasoning() (string, string) {
	if !t.hasReasoning.Load() {
		// Most frames carry none: no lock shared with the reading goroutine
		// for every chunk (part of the loop's cost over a bare call).
		return "", ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.reasoning.Len() == 0 {
		return "", ""
	}
	text := t.reasoning.String()
	t.reasoning.Reset()
	t.hasReasoning.Store(false)
	return text, t.reasoningFrom
}

func (t *streamTee) setHTTPError(status int, body []byte) {
	t.mu.Lock()
	t.status, t.body = status, body
	t.mu.Unlock()
}

func (t *streamTee) httpError() (int, []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.status, t.body
}

func (t *streamTee) setTransportErr(err error) {
	t.mu.Lock()
	t.netErr = err
	t.mu.Unlock()
}

func (t *streamTee) transportErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.netErr
}

func (t *streamTee) write(p []byte) {
	t.mu.Lock()
	// Lines are looked at in place; only a line split across reads is
	// copied (into partial, which is reused).
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = append(t.partial, p...)
			break
		}
		line := p[:i]
		if len(t.partial) > 0 {
			t.partial = append(t.partial, line...)
			line = t.partial
		}
		t.line(bytes.TrimSpace(line))
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	if len(t.partial) > 0 && t.partial[0] == '{' {
		t.plain = true
	}
	complete, onCall, started := t.complete, t.onCall, t.started
	t.complete, t.started = nil, nil
	t.mu.Unlock()
	for _, id := range started {
		trace.Begin(id, trace.HopChunk)
	}
	for _, tc := range complete {
		trace.Mark(tc.ID, trace.HopCallComplete)
		if onCall != nil {
			onCall(tc)
		}
	}
}

// teeCall is a tool call as the stream's deltas build it.
type teeCall struct {
	index int
	call  ToolCall
	done  bool
}

// toolDelta is one tool-call delta of a chunk (OpenAI streaming).
type toolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// addToolDeltas follows the calls: a delta with another index or another
// id starts a new call, which completes the one before it.
func (t *streamTee) addToolDeltas(deltas []toolDelta) {
	for _, d := range deltas {
		n := len(t.calls)
		var last *teeCall
		if n > 0 {
			last = &t.calls[n-1]
		}
		idx := n
		if d.Index != nil {
			idx = *d.Index
		} else if last != nil && d.ID == "" {
			idx = last.index
		}
		if last == nil || idx != last.index || d.ID != "" && last.call.ID != "" && d.ID != last.call.ID {
			t.completeLast()
			t.calls = append(t.calls, teeCall{index: idx, call: ToolCall{ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments}})
			if d.ID != "" && trace.Enabled() {
				t.started = append(t.started, d.ID)
			}
			continue
		}
		if last.call.ID == "" {
			last.call.ID = d.ID
		}
		if last.call.Name == "" {
			last.call.Name = d.Function.Name
		}
		last.call.Arguments += d.Function.Arguments
	}
}

// completeLast hands the last call on as finished (once).
func (t *streamTee) completeLast() {
	if n := len(t.calls); n > 0 && !t.calls[n-1].done {
		t.calls[n-1].done = true
		t.complete = append(t.complete, t.calls[n-1].call)
	}
}

func (t *streamTee) line(line []byte) {
	if bytes.HasPrefix(line, []byte("{")) {
		t.plain = true
		return
	}
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		t.done = true
		return
	}
	if !frameMatters(data) {
		return
	}
	var frame struct {
		Error   json.RawMessage `json:"error"`
		Choices []struct {
			FinishReason *string `json:"finish_reason"`
			Delta        struct {
				ToolCalls []toolDelta `json:"tool_calls"`
				// The thinking (SPEC §9): Ollama's /v1 sends `reasoning`
				// (openai/openai.go, the Delta of a chunk), llama.cpp's
				// server `reasoning_content` (common/chat.cpp, a message
				// diff's reasoning_content_delta), vLLM ≥ 0.11 `reasoning`.
				Reasoning        string `json:"reasoning"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &frame) != nil {
		return
	}
	if len(frame.Error) > 0 && string(frame.Error) != "null" {
		t.errorMsg = errorText(frame.Error)
		if t.errorMsg == "" {
			t.errorMsg = "an error without a message"
		}
	}
	for i, c := range frame.Choices {
		if i == 0 {
			t.addReasoning(c.Delta.Reasoning, ReasoningFromField)
			t.addReasoning(c.Delta.ReasoningContent, ReasoningFromContentField)
			t.addToolDeltas(c.Delta.ToolCalls)
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			t.finish = true
			t.completeLast()
		}
	}
}

func (t *streamTee) addReasoning(text, from string) {
	if text == "" {
		return
	}
	t.reasoning.WriteString(text)
	t.reasoningFrom = from
	t.hasReasoning.Store(true)
}

// frameMatters tells, without decoding, whether a data frame may carry an
// error, a tool call, thinking or a finish reason. Most frames are text deltas that langchaingo
// decodes anyway; decoding each a second time here was the assistant loop's
// largest cost over a bare langchaingo call. Inside JSON strings quotes
// are escaped, so a delta's text cannot match these keys. One pass over
// the frame's bytes, not a substring search per key: those cost the loop
// about 1 µs a frame, 5% of a 200-token exchange.
func frameMatters(data []byte) bool {
	for i := 0; i+1 < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		at := data[i:]
		switch at[1] {
		case 'e':
			if bytes.HasPrefix(at, []byte(`"error"`)) {
				return true
			}
		case 't':
			if bytes.HasPrefix(at, []byte(`"tool_calls"`)) {
				return true
			}
		case 'r':
			if bytes.HasPrefix(at, []byte(`"reasoning"`)) || bytes.HasPrefix(at, []byte(`"reasoning_content"`)) {
				return true
			}
		case 'f':
			key := []byte(`"finish_reason"`)
			if bytes.HasPrefix(at, key) && !bytes.HasPrefix(bytes.TrimLeft(at[len(key):], " \t\r\n:"), []byte("null")) {
				return true
			}
		}
	}
	return false
}

func (t *streamTee) errorMessage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.errorMsg
}

func (t *streamTee) finished() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Scanner may stop before a trailing line without newline; a plain JSON
	// body (non-streaming) is complete when it decoded.
	return t.done || t.finish || t.plain
}
