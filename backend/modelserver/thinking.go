package modelserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Shape is how a server streams a thinking model's thinking (SPEC §9),
// read in the servers' sources:
//
//   - Ollama's /v1 (ollama/ollama openai/openai.go, v0.17.4 to v0.33):
//     every chunk's delta is {"role","content","reasoning"}, the thinking
//     in "reasoning" with "content":"" until the answer starts; v0.17.4's
//     ToChunk may put thinking and tool calls in one chunk (later versions
//     split them, ToStreamChunks).
//   - llama.cpp's llama-server with --reasoning-format deepseek/auto
//     (common/chat.cpp, a message diff's reasoning_content_delta):
//     "reasoning_content" deltas, no content.
//   - llama-server with --reasoning-format none and builds before mid-2025:
//     the thinking left in the content as "<think>…</think>", or, when the
//     template opened the tag (qwen3), the content starts with the thinking
//     and has only the "</think>".
type Shape int

// Shapes.
const (
	ShapeReasoning        Shape = iota // delta.reasoning (Ollama, vLLM ≥ 0.11)
	ShapeReasoningContent              // delta.reasoning_content (llama.cpp, vLLM ≤ 0.10)
	ShapeThinkTags                     // <think>…</think> at the start of the content
	ShapeOpenedThinkTags               // …</think> at the start of the content (template opened the tag)
)

// WithThinkingModels makes /api/show list "thinking" among the models'
// capabilities (Ollama infers it from the template: thinking/template.go).
func WithThinkingModels(models ...string) Option {
	return func(h *handler) {
		if h.thinking == nil {
			h.thinking = map[string]bool{}
		}
		for _, m := range models {
			h.thinking[m] = true
		}
	}
}

// WithOldThinkLevels makes the server refuse a thinking level
// (reasoning_effort low/medium/high) for thinking models other than
// gpt-oss, as Ollama 0.17.4 did (server/routes.go: `think value %q is not
// supported for this model`; lifted in v0.17.7, ollama#14625).
func WithOldThinkLevels() Option {
	return func(h *handler) { h.oldThinkLevels = true }
}

// refuseThinking answers as Ollama's /v1 does to a reasoning_effort it
// does not take (openai/openai.go FromChatRequest, server/routes.go
// ChatHandler): an unknown value, a level for a model that cannot think
// ("none" is always taken: it only turns thinking off), and, with
// WithOldThinkLevels, any level but for gpt-oss. The middleware wraps the
// error as {"error":{"message","type":"api_error","param":null,"code":null}}
// with the status kept. Servers without the Ollama API take anything
// (llama.cpp passes unknown fields on to its parameters).
func (h *handler) refuseThinking(w http.ResponseWriter, req ChatRequest) bool {
	if h.openAIOnly || req.ReasoningEffort == nil || *req.ReasoningEffort == "" {
		return false
	}
	effort := *req.ReasoningEffort
	fail := func(msg string) bool {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": msg, "type": "api_error", "param": nil, "code": nil}})
		return true
	}
	if !slices.Contains([]string{"high", "medium", "low", "none"}, effort) {
		return fail(fmt.Sprintf(`invalid reasoning value: '%s' (must be "high", "medium", "low", or "none")`, effort))
	}
	if effort == "none" {
		return false
	}
	installed, _ := h.installed(req.Model)
	if !h.thinksModel(installed) {
		return fail(fmt.Sprintf("%q does not support thinking", req.Model))
	}
	if h.oldThinkLevels && !strings.HasPrefix(installed, "gpt-oss") {
		return fail(fmt.Sprintf("think value %q is not supported for this model", effort))
	}
	return false
}

func (h *handler) thinksModel(model string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.thinking[model]
}

// thinkingContent is the text a turn streams as content: its Text, after
// its thinking when the shape leaves the thinking in the content.
func thinkingContent(turn Turn) string {
	if turn.Reasoning == "" {
		return turn.Text
	}
	switch turn.ReasoningShape {
	case ShapeThinkTags:
		return "<think>" + turn.Reasoning + "</think>\n\n" + turn.Text
	case ShapeOpenedThinkTags:
		return turn.Reasoning + "</think>\n\n" + turn.Text
	}
	return turn.Text
}

// reasoningDeltas are the thinking pieces of a turn that sends its thinking
// in a field (none when it is in the content), each as the delta it goes in.
func reasoningDeltas(turn Turn) []map[string]any {
	if turn.Reasoning == "" || turn.ReasoningShape == ShapeThinkTags || turn.ReasoningShape == ShapeOpenedThinkTags {
		return nil
	}
	pieces := splitText(turn.Reasoning)
	if turn.ChunkSize > 0 {
		pieces = splitBytes(turn.Reasoning, turn.ChunkSize)
	}
	out := make([]map[string]any, 0, len(pieces))
	for _, p := range pieces {
		out = append(out, reasoningDelta(turn.ReasoningShape, p))
	}
	return out
}

func reasoningDelta(shape Shape, piece string) map[string]any {
	if shape == ShapeReasoningContent {
		return map[string]any{"reasoning_content": piece}
	}
	// Ollama sends the role and an empty content with every thinking piece.
	return map[string]any{"role": "assistant", "content": "", "reasoning": piece}
}

// reasoningMessage adds a turn's thinking to a non-streamed answer's message.
func reasoningMessage(msg map[string]any, turn Turn) {
	switch {
	case turn.Reasoning == "":
	case turn.ReasoningShape == ShapeReasoning:
		msg["reasoning"] = turn.Reasoning
	case turn.ReasoningShape == ShapeReasoningContent:
		msg["reasoning_content"] = turn.Reasoning
	}
}
