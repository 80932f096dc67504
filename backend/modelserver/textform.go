package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// Text forms of a tool call, as models without native tool calling write
// them (SPEC §8).
const (
	FormTag   = "tag"   // <tool_call>{"name":...,"arguments":...}</tool_call> (Hermes, Qwen)
	FormFence = "fence" // a ```json block with name and arguments
)

// WithoutTools makes the server refuse every request that offers tools
// with 400 "<model> does not support tools", as Ollama does for a model
// whose template has none (before the script is asked).
func WithoutTools() Option {
	return func(h *handler) { h.refuseTools = true }
}

// WithoutToolRole makes the server refuse every request with a `tool`
// message, as a chat template that knows only system, user and assistant
// does in llama.cpp's server (before the script is asked).
func WithoutToolRole() Option {
	return func(h *handler) { h.refuseToolRole = true }
}

// WithVision makes /api/show list the "vision" capability for models.
func WithVision(models ...string) Option {
	return func(h *handler) {
		h.vision = map[string]bool{}
		for _, m := range models {
			h.vision[m] = true
		}
	}
}

// refuse answers a request the server's options refuse; false when none does.
func (h *handler) refuse(w http.ResponseWriter, req ChatRequest) bool {
	if h.refuseTools && len(req.Tools) > 0 {
		writeJSON(w, 400, map[string]any{"error": map[string]string{
			"message": fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", req.Model), "type": "api_error"}})
		return true
	}
	if h.refuseToolRole {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				llamaCppError(w, 400, "Conversation roles must alternate user/assistant/user/assistant/...", "invalid_request_error")
				return true
			}
		}
	}
	return false
}

// FormatCall writes a call in a text form.
func FormatCall(form string, tc ToolCall) string {
	args := tc.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	name, _ := json.Marshal(tc.Name)
	if form == FormFence {
		return fmt.Sprintf("```json\n{\"name\": %s, \"arguments\": %s}\n```", name, args)
	}
	return fmt.Sprintf("<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>", name, args)
}

// TextTools wraps a script for a model without native tool calling: the
// calls of its turns are written into the text in form, and the requests
// it sees are read back as a native script expects them (calls written in
// assistant text become tool calls; results sent in user messages become
// tool messages). chunk, when > 0, streams the text in pieces of that many
// bytes, so tags are cut in the middle.
func TextTools(script Script, form string, chunk int) Script {
	return func(req ChatRequest) Turn {
		turn := script(nativeView(req))
		if len(turn.ToolCalls) > 0 {
			parts := []string{}
			if strings.TrimSpace(turn.Text) != "" {
				parts = append(parts, strings.TrimSpace(turn.Text))
			}
			for _, tc := range turn.ToolCalls {
				parts = append(parts, FormatCall(form, tc))
			}
			turn.Text = strings.Join(parts, "\n\n")
			turn.ToolCalls = nil
		}
		if chunk > 0 && turn.ChunkSize == 0 {
			turn.ChunkSize = chunk
		}
		return turn
	}
}

var (
	textCall     = regexp.MustCompile("(?s)<tool_call>\\s*(\\{.*?\\})\\s*</tool_call>|```json\\s*(\\{.*?\\})\\s*```")
	textResponse = regexp.MustCompile(`(?s)<tool_response name="([^"]*)">\n(.*?)\n</tool_response>`)
)

// toolSection starts the tools Parley describes in the system prompt.
const toolSection = "\n\n# Tools\n"

// nativeView reads a text-form history as native tool calling would have
// sent it.
func nativeView(req ChatRequest) ChatRequest {
	out := req
	out.Messages = nil
	var pending []string // ids of calls still without a result
	for _, m := range req.Messages {
		switch {
		case m.Role == "system":
			// The tools described in text would have come natively.
			if i := strings.Index(m.Content, toolSection); i >= 0 {
				m.Content = m.Content[:i]
			}
			out.Messages = append(out.Messages, m)
		case m.Role == "assistant" && len(m.ToolCalls) == 0 && textCall.MatchString(m.Content):
			nm := Message{Role: "assistant", Content: strings.TrimSpace(textCall.ReplaceAllString(m.Content, ""))}
			pending = nil
			for i, match := range textCall.FindAllStringSubmatch(m.Content, -1) {
				var call struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				_ = json.Unmarshal([]byte(match[1]+match[2]), &call)
				id := fmt.Sprintf("text_call_%d", i+1)
				nm.ToolCalls = append(nm.ToolCalls, messageToolCall(id, call.Name, string(call.Arguments)))
				pending = append(pending, id)
			}
			out.Messages = append(out.Messages, nm)
		case m.Role == "tool" && len(pending) > 0:
			m.ToolCallID, pending = pending[0], pending[1:]
			out.Messages = append(out.Messages, m)
		case m.Role == "user" && textResponse.MatchString(m.Content):
			for _, r := range textResponse.FindAllStringSubmatch(m.Content, -1) {
				tm := Message{Role: "tool", Content: r[2]}
				if len(pending) > 0 {
					tm.ToolCallID, pending = pending[0], pending[1:]
				}
				out.Messages = append(out.Messages, tm)
			}
		default:
			out.Messages = append(out.Messages, m)
		}
	}
	return out
}

func messageToolCall(id, name, args string) (tc struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}) {
	tc.ID, tc.Type = id, "function"
	tc.Function.Name, tc.Function.Arguments = name, args
	return tc
}
