package textcalls

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzRecognizer: any stream, cut anywhere, never panics; where nothing is
// a call the visible text is the input exactly; and how the stream is cut
// changes neither the visible text nor the calls.
func FuzzRecognizer(f *testing.F) {
	for _, s := range []string{
		"plain text",
		"Let me ask.\n<tool_call>\n{\"name\": \"ask_user_question\", \"arguments\": " + askArgs + "}\n</tool_call>\nDone.",
		"```json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1\"}}\n```",
		"for example:\n```json\n{\"name\": \"calculator\", \"arguments\": {}}\n```",
		"```python\n<tool_call>x</tool_call>\n```\n<tool_call>{'name':'current_time'}",
		"`<tool_call>` and ``` and <tool_ and\n``",
		"<tool_call><tool_call>{\"name\":\"calculator\",\"arguments\":{}}</tool_call></tool_call>",
	} {
		f.Add(s, uint16(3), uint16(11))
	}
	f.Fuzz(func(t *testing.T, s string, a, b uint16) {
		_, whole := feed([]string{s})
		i, j := int(a)%(len(s)+1), int(b)%(len(s)+1)
		if i > j {
			i, j = j, i
		}
		emitted, cut := feed([]string{s[:i], s[i:j], s[j:]})
		require.Equal(t, cut.Text(), strings.Join(emitted, ""), "what was emitted is Text()")
		require.Equal(t, whole.Text(), cut.Text(), "visible text depends on the cuts %d,%d", i, j)
		require.Equal(t, whole.Calls(), cut.Calls(), "calls depend on the cuts %d,%d", i, j)
		bytes := make([]string, 0, len(s))
		for k := 0; k < len(s); k++ {
			bytes = append(bytes, s[k:k+1])
		}
		_, bytewise := feed(bytes)
		require.Equal(t, whole.Text(), bytewise.Text(), "byte by byte: visible text")
		require.Len(t, bytewise.Calls(), len(whole.Calls()), "byte by byte: calls")
		if len(whole.Calls()) == 0 {
			require.Equal(t, s, whole.Text(), "nothing was a call, so the visible text is the input")
		}
	})
}
