// Package llm is Parley's one small interface to chat models. It wraps
// langchaingo's OpenAI-compatible client (which works for Ollama's /v1,
// llama.cpp's server, LM Studio and vLLM) and turns its quirks and failures
// into plain results and user-readable errors. It also talks to Ollama's
// native API for model management.
package llm

import (
	"context"
	"net/http"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// DefaultBaseURL is Ollama's OpenAI-compatible endpoint.
const DefaultBaseURL = "http://127.0.0.1:11434/v1"

// Config selects an endpoint and model.
type Config struct {
	BaseURL string
	Model   string
	APIKey  string
	// Transport, when set, carries the requests instead of the shared
	// loopback transport (the built-in engine's supervisor: it starts the
	// engine and adds its secret, backend/engine).
	Transport http.RoundTripper
}

// ToolCall is one call the model made.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one turn sent to the model.
type Message struct {
	Role       string // system, user, assistant or tool
	Content    string
	ToolCalls  []ToolCall // assistant only
	ToolCallID string     // tool only
	ToolName   string     // tool only
	// Images go with a user message as OpenAI image_url content parts
	// (vision models only).
	Images []Image
	// Reasoning is an assistant turn's thinking, sent back in the field
	// ReasoningField(ReasoningSource) names ("" = none is sent; SPEC §9).
	Reasoning       string
	ReasoningSource string
}

// Image is a picture sent to a vision model.
type Image struct {
	MIMEType string
	Data     []byte
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Request is one model call.
type Request struct {
	Messages []Message
	Tools    []Tool
	// OnDelta receives streamed text only (never tool-call JSON or empty chunks).
	OnDelta func(text string)
	// OnToolCallStart is called once, when the first tool-call chunk arrives.
	OnToolCallStart func()
	// OnToolCall, when set, receives each native tool call as soon as the
	// server has finished it (a later call started or finish_reason came),
	// before the stream ends and Chat returns, from the goroutine reading
	// the stream: it must not block. The Response's ToolCalls are still the
	// authority (a call is only final if Chat succeeds with it). Nothing
	// uses it yet: showing the card then would show it before the assistant
	// message that asks it is stored (see the trace's call_complete hop).
	OnToolCall func(ToolCall)
	// Thinking asks the server to think less, more or not at all; the zero
	// value sends nothing (the server decides).
	Thinking Thinking
	// OnReasoning receives the thinking as it streams (never the reply's
	// text, never given to OnDelta). moved: text already given to OnDelta
	// was thinking (a `</think>` came without a `<think>` before it); the
	// reply starts again after it. Called on the goroutine calling Chat.
	OnReasoning func(delta string, moved bool)
}

// Thinking is what a request says about thinking (SPEC §9).
type Thinking struct {
	// Effort is sent as reasoning_effort: "none", "low", "medium" or
	// "high" ("" = not sent).
	Effort string
	// TemplateOff sends chat_template_kwargs {"enable_thinking": false}
	// (llama.cpp's server and vLLM; Ollama has its own reasoning_effort).
	TemplateOff bool
}

// Sends tells whether the request carries any of it.
func (t Thinking) Sends() bool { return t.Effort != "" || t.TemplateOff }

// Response is what the model answered.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	// Usage is the server's token count (nil when it sent none).
	Usage *Usage
	// Reasoning is the thinking that came with the answer, from
	// ReasoningSource (ReasoningFromField, ...; "" when none came).
	Reasoning       string
	ReasoningSource string
}

// Usage is what the server counted for one call.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Model is a chat model.
type Model interface {
	// Chat calls the model. On error the Response still carries any text
	// that was streamed before the failure.
	Chat(ctx context.Context, req Request) (Response, error)
}

// A model-server failure is a *fault.Error whose Code is one of the kinds
// below (fault.CodeOf, fault.Coded): its Text is the message for the user,
// from the catalogue, so that an HTTP client can get it in its own language
// (Accept-Language); Msg, without Text, is the server's own words. Its fault
// kind is fault.Internal: the service says which are the user's mistake or
// the server's failure (PullModel, ListModels).

// Kinds of model-server failure (the Code of its *fault.Error).
const (
	KindUnreachable   = "unreachable"
	KindHTTP          = "http"
	KindBadRequest    = "bad_request" // the server refused the user's input (HTTP 400)
	KindModelNotFound = "model_not_found"
	KindNoTools       = "no_tools"
	KindStream        = "stream"
	KindEmpty         = "empty"
)

// NewError is a model-server failure of a kind saying the catalogue message
// key with args. cause may be nil.
func NewError(kind string, cause error, key string, args ...any) *fault.Error {
	return &fault.Error{Kind: fault.Internal, Code: kind, Text: i18n.M(key, args...), Err: cause}
}

// serverError is a model-server failure of a kind in the server's own words.
func serverError(kind string, cause error, msg string) *fault.Error {
	return &fault.Error{Kind: fault.Internal, Code: kind, Msg: msg, Err: cause}
}

// unreachableError: nothing answers at baseURL.
func unreachableError(baseURL string, cause error) *fault.Error {
	return &fault.Error{Kind: fault.Internal, Code: KindUnreachable, Text: unreachableText(baseURL), Err: cause}
}

// KindNoToolRole: the server refused a message with the `tool` role
// (some chat templates know only system, user and assistant).
const KindNoToolRole = "no_tool_role"

// KindThinkingRefused: the server refused what the request said about
// thinking (HTTP 400 naming reasoning, think or effort: Ollama 0.17.4's
// `think value "low" is not supported for this model`), or the thinking
// sent back with the history.
const KindThinkingRefused = "thinking_refused"

// Identity names the server and the model a Model talks to (what
// capabilities and statistics are kept by).
type Identity struct {
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
}

// IdentityOf returns the identity of m (zero when m does not say).
func IdentityOf(m Model) Identity {
	if n, ok := m.(interface{ Identity() Identity }); ok {
		return n.Identity()
	}
	return Identity{}
}
