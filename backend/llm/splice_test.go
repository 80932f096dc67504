package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// longText is a text past spliceMin with what JSON escapes (quotes,
// backslashes, control characters, HTML, U+2028) and what it does not.
func longText(tag string) string {
	var b strings.Builder
	for i := 0; b.Len() < 3*spliceMin; i++ {
		b.WriteString(tag + ` line "quoted" \ back\slash <b>&amp;</b> tab	é ✓ 🙂 ` + "\u2028\x01\n")
	}
	return b.String()
}

// TestLongTextsReachTheServerWhole: long texts of every role are spliced
// into the body (see longTexts) and the server reads each as it was, also
// with the thinking fields rewritten into the body, and with a model whose
// system prompt langchaingo joins to the user's message.
func TestLongTextsReachTheServerWhole(t *testing.T) {
	system, user, answer, result := longText("system"), longText("user"), longText("answer"), longText("result")
	msgs := []Message{
		{Role: "system", Content: system},
		{Role: "user", Content: "short " + user},
		{Role: "assistant", Content: answer, Reasoning: "I thought.", ReasoningSource: ReasoningFromContentField,
			ToolCalls: []ToolCall{{ID: "call_1", Name: "calculator", Arguments: `{"expression":"1+1"}`}}},
		{Role: "tool", Content: result, ToolCallID: "call_1", ToolName: "calculator"},
		{Role: "user", Content: "and?"},
	}
	for _, tc := range []struct {
		name, model string
		thinking    Thinking
	}{{"plain", "m", Thinking{}}, {"thinking fields", "m", Thinking{Effort: "none", TemplateOff: true}}, {"system joined to the user's message", "o1", Thinking{}}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modelserver.New(modelserver.Turns(modelserver.Turn{Text: "ok"}), modelserver.WithoutOllamaAPI())
			defer srv.Close()
			_, err := newModel(t, srv.URL(), tc.model).Chat(testCtx(t), Request{Messages: msgs, Thinking: tc.thinking})
			require.NoError(t, err)
			raw := srv.RawRequests()[0]
			require.NotContains(t, string(raw), "parley-text-", "a placeholder was sent")
			var body struct {
				Messages []rawMessage `json:"messages"`
				Effort   *string      `json:"reasoning_effort"`
			}
			require.NoError(t, json.Unmarshal(raw, &body), "body %.300s", raw)
			require.Equal(t, tc.thinking.Effort != "", body.Effort != nil, "the thinking fields are written too")
			var got []string
			for _, m := range body.Messages {
				got = append(got, m.text(t))
			}
			if tc.model == "o1" {
				require.Equal(t, []string{system + "\n\n" + "short " + user, answer, result, "and?"}, got)
				return
			}
			require.Equal(t, []string{system, "short " + user, answer, result, "and?"}, got)
		})
	}
}
