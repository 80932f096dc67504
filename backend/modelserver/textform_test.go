package modelserver_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
)

// The modes of a model without native tool calling, as the real client
// sees them.
func TestTextToolModes(t *testing.T) {
	call := modelserver.ToolCall{Name: "calculator", Arguments: `{"expression":"1+1"}`}
	script := modelserver.TextTools(modelserver.Turns(
		modelserver.Turn{Text: "Let me compute.", ToolCalls: []modelserver.ToolCall{call}},
		modelserver.Turn{Text: "plain"},
	), modelserver.FormTag, 3)
	srv := modelserver.New(script, modelserver.WithoutTools(), modelserver.WithoutToolRole())
	t.Cleanup(srv.Close)
	m, err := llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), Model: "small"})
	require.NoError(t, err)
	var le *fault.Error

	// Tools offered natively: 400 "does not support tools", before the script.
	_, err = m.Chat(testCtx(t), llm.Request{Messages: user("hi"), Tools: []llm.Tool{askTool}})
	require.True(t, errors.As(err, &le), "%v", err)
	assert.Equal(t, llm.KindNoTools, le.Code)

	// Without tools: the call written in the text, in 3-byte pieces.
	resp, rec, err := chatRecording(t, m, llm.Request{Messages: user("hi")})
	require.NoError(t, err)
	want := "Let me compute.\n\n" + modelserver.FormatCall(modelserver.FormTag, call)
	assert.Equal(t, want, resp.Text)
	assert.Empty(t, resp.ToolCalls)
	assert.Equal(t, want, strings.Join(rec.deltas, ""))
	assert.Len(t, rec.deltas, (len(want)+2)/3, "3-byte pieces")

	// A `tool` message: refused as a template without that role refuses it.
	_, err = m.Chat(testCtx(t), llm.Request{Messages: []llm.Message{
		{Role: "user", Content: "hi"}, {Role: "assistant", Content: want}, {Role: "tool", Content: "2", ToolCallID: "c1", ToolName: "calculator"},
	}})
	require.True(t, errors.As(err, &le), "%v", err)
	assert.Equal(t, llm.KindNoToolRole, le.Code)
	assert.Len(t, srv.Requests(), 3)
}

func TestFormatCallInBothForms(t *testing.T) {
	c := modelserver.ToolCall{Name: "current_time"}
	assert.Equal(t, "<tool_call>\n{\"name\": \"current_time\", \"arguments\": {}}\n</tool_call>", modelserver.FormatCall(modelserver.FormTag, c))
	assert.Equal(t, "```json\n{\"name\": \"current_time\", \"arguments\": {}}\n```", modelserver.FormatCall(modelserver.FormFence, c))
}
