package textcalls

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/llm"
)

// ToolPrompt describes the tools for the system prompt of a model without
// native tool calling, with the exact form a call must take.
func ToolPrompt(tools []llm.Tool) string {
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString("You can call the tools listed below. To call one, write the call exactly in this form, then stop writing and wait for the result:\n")
	b.WriteString("<tool_call>\n{\"name\": \"<tool name>\", \"arguments\": {<the arguments as a JSON object>}}\n</tool_call>\n")
	b.WriteString("The arguments must be valid JSON that follows the tool's parameters (double quotes, no comments). ")
	b.WriteString("To call several tools, write one <tool_call> block for each. ")
	b.WriteString("The result comes back in the next message, inside <tool_response>; then continue your answer. ")
	b.WriteString("Never put a call in a code block, and never write a <tool_call> block only to show one.\n\n")
	b.WriteString("Available tools:\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "\n## %s\n%s\n", t.Name, strings.TrimSpace(t.Description))
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		schema, err := json.Marshal(params)
		if err != nil {
			schema = []byte(`{"type":"object"}`)
		}
		fmt.Fprintf(&b, "Parameters (JSON Schema): %s\n", schema)
	}
	return b.String()
}

// FormatCall writes a call in the form ToolPrompt asks for.
func FormatCall(name, arguments string) string {
	args := strings.TrimSpace(arguments)
	if args == "" {
		args = "{}"
	}
	n, _ := json.Marshal(name)
	return fmt.Sprintf("<tool_call>\n{\"name\": %s, \"arguments\": %s}\n</tool_call>", n, args)
}

// FormatResult writes a tool result for a server that takes no `tool`
// messages: it goes back in a user message.
func FormatResult(name, content string) string {
	return fmt.Sprintf("<tool_response name=%q>\n%s\n</tool_response>", name, content)
}

// Render turns the history for a model without native tool calling: the
// tools are described in the system prompt, an assistant turn's calls are
// written into its text as the model wrote them, and each result follows
// as a `tool` message, or, when toolRole is false (the server refuses that
// role), in a user message (consecutive results in one).
func Render(msgs []llm.Message, tools []llm.Tool, toolRole bool) []llm.Message {
	out := make([]llm.Message, 0, len(msgs)+1)
	prompt := ToolPrompt(tools)
	if len(msgs) > 0 && msgs[0].Role == "system" {
		sys := msgs[0]
		sys.Content = strings.TrimRight(sys.Content, "\n") + "\n\n" + prompt
		out = append(out, sys)
		msgs = msgs[1:]
	} else {
		out = append(out, llm.Message{Role: "system", Content: prompt})
	}
	for _, m := range msgs {
		switch {
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			parts := []string{}
			if t := strings.TrimSpace(m.Content); t != "" {
				parts = append(parts, t)
			}
			for _, tc := range m.ToolCalls {
				parts = append(parts, FormatCall(tc.Name, tc.Arguments))
			}
			out = append(out, llm.Message{Role: "assistant", Content: strings.Join(parts, "\n\n"), Reasoning: m.Reasoning, ReasoningSource: m.ReasoningSource})
		case m.Role == "tool" && !toolRole:
			text := FormatResult(m.ToolName, m.Content)
			if n := len(out); n > 0 && out[n-1].Role == "user" && strings.HasPrefix(out[n-1].Content, "<tool_response") {
				out[n-1].Content += "\n" + text
				continue
			}
			out = append(out, llm.Message{Role: "user", Content: text})
		default:
			out = append(out, m)
		}
	}
	return out
}
