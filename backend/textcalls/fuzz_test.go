package textcalls

import (
	"strings"
	"testing"
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
		if got := strings.Join(emitted, ""); got != cut.Text() {
			t.Fatalf("emitted %q, but Text() is %q", got, cut.Text())
		}
		if whole.Text() != cut.Text() {
			t.Fatalf("visible text depends on the cuts %d,%d: whole %q, cut %q", i, j, whole.Text(), cut.Text())
		}
		if len(whole.Calls()) != len(cut.Calls()) {
			t.Fatalf("calls depend on the cuts %d,%d: whole %+v, cut %+v", i, j, whole.Calls(), cut.Calls())
		}
		for k := range whole.Calls() {
			if whole.Calls()[k] != cut.Calls()[k] {
				t.Fatalf("call %d depends on the cuts %d,%d: whole %+v, cut %+v", k, i, j, whole.Calls()[k], cut.Calls()[k])
			}
		}
		bytes := make([]string, 0, len(s))
		for k := 0; k < len(s); k++ {
			bytes = append(bytes, s[k:k+1])
		}
		if _, bytewise := feed(bytes); bytewise.Text() != whole.Text() || len(bytewise.Calls()) != len(whole.Calls()) {
			t.Fatalf("byte by byte: %q %+v, whole: %q %+v", bytewise.Text(), bytewise.Calls(), whole.Text(), whole.Calls())
		}
		if len(whole.Calls()) == 0 && whole.Text() != s {
			t.Fatalf("nothing was a call, but the visible text %q is not the input %q", whole.Text(), s)
		}
	})
}
