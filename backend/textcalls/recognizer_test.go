package textcalls

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var knownTools = []string{"ask_user_question", "calculator", "current_time", "files__read"}

// feed runs text through a recognizer in the given pieces and returns what
// was emitted (piece by piece) and the recognizer.
func feed(pieces []string) ([]string, *Recognizer) {
	var emitted []string
	r := NewRecognizer(knownTools, func(s string) { emitted = append(emitted, s) })
	for _, p := range pieces {
		r.Write(p)
	}
	r.Close()
	return emitted, r
}

// chunkings cuts s whole, byte by byte, in 3-byte pieces and at random.
func chunkings(s string) map[string][]string {
	out := map[string][]string{"whole": {s}}
	var bytes1, bytes3 []string
	for i := 0; i < len(s); i++ {
		bytes1 = append(bytes1, s[i:i+1])
	}
	for i := 0; i < len(s); i += 3 {
		bytes3 = append(bytes3, s[i:min(i+3, len(s))])
	}
	out["1 byte"], out["3 bytes"] = bytes1, bytes3
	rng := rand.New(rand.NewPCG(1, 2))
	var random []string
	for rest := s; len(rest) > 0; {
		n := min(1+rng.IntN(9), len(rest))
		random, rest = append(random, rest[:n]), rest[n:]
	}
	out["random"] = random
	return out
}

const askArgs = `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`

func TestRecognizerFindsCallsAndShowsTheRest(t *testing.T) {
	type call struct{ Name, Arguments string }
	cases := []struct {
		name    string
		in      string
		visible string
		calls   []call
	}{
		{"tag with text before and after",
			"Let me ask.\n<tool_call>\n{\"name\": \"ask_user_question\", \"arguments\": " + askArgs + "}\n</tool_call>\nWaiting.",
			"Let me ask.\n\nWaiting.", []call{{"ask_user_question", askArgs}}},
		{"fenced json block",
			"I need to know one thing.\n\n```json\n{\"name\": \"ask_user_question\", \"arguments\": " + askArgs + "}\n```\n",
			"I need to know one thing.\n\n\n", []call{{"ask_user_question", askArgs}}},
		{"two calls in one reply",
			"Two things.\n<tool_call>{\"name\":\"calculator\",\"arguments\":{\"expression\":\"2+2\"}}</tool_call>\n<tool_call>{\"name\":\"current_time\",\"arguments\":{}}</tool_call>",
			"Two things.\n\n", []call{{"calculator", `{"expression":"2+2"}`}, {"current_time", `{}`}}},
		{"tag and fence in one reply",
			"A: <tool_call>{\"name\":\"calculator\",\"arguments\":{\"expression\":\"1\"}}</tool_call>\n```json\n{\"name\":\"calculator\",\"arguments\":{\"expression\":\"2\"}}\n```",
			"A: \n", []call{{"calculator", `{"expression":"1"}`}, {"calculator", `{"expression":"2"}`}}},
		{"an MCP tool", "<tool_call>{\"name\":\"files__read\",\"arguments\":{\"path\":\"a.txt\"}}</tool_call>",
			"", []call{{"files__read", `{"path":"a.txt"}`}}},
		{"unterminated tag at the end", "Asking.\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"3*3\"}}",
			"Asking.\n", []call{{"calculator", `{"expression":"3*3"}`}}},
		{"parameters instead of arguments", "<tool_call>{\"name\":\"calculator\",\"parameters\":{\"expression\":\"1\"}}</tool_call>",
			"", []call{{"calculator", `{"expression":"1"}`}}},
		{"arguments as a JSON string", `<tool_call>{"name":"calculator","arguments":"{\"expression\":\"1\"}"}</tool_call>`,
			"", []call{{"calculator", `{"expression":"1"}`}}},
		{"OpenAI's function object", "```json\n{\"type\":\"function\",\"function\":{\"name\":\"calculator\",\"arguments\":{\"expression\":\"5\"}}}\n```",
			"", []call{{"calculator", `{"expression":"5"}`}}},
		{"single quotes in the tag", "<tool_call>{'name': 'calculator', 'arguments': {'expression': '7'}}</tool_call>",
			"", []call{{"calculator", `{"expression":"7"}`}}},
		{"unknown tool in a tag is still a call", "<tool_call>{\"name\":\"search\",\"arguments\":{}}</tool_call>",
			"", []call{{"search", `{}`}}},
	}
	for _, c := range cases {
		for how, pieces := range chunkings(c.in) {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				emitted, r := feed(pieces)
				assert.Equal(t, c.visible, r.Text())
				assert.Equal(t, c.visible, strings.Join(emitted, ""))
				var got []call
				for _, fc := range r.Calls() {
					got = append(got, call{fc.Name, fc.Arguments})
				}
				assert.Equal(t, c.calls, got)
				for _, e := range emitted {
					assert.NotContains(t, e, "tool_call", "call text flashed up")
					assert.NotContains(t, e, `"arguments"`, "call text flashed up")
				}
			})
		}
	}
}

func TestRecognizerShowsExamplesAndOtherCode(t *testing.T) {
	cases := []struct{ name, in string }{
		{"fence after 'for example'", "You could call a tool, for example:\n\n```json\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1+1\"}}\n```\nThat is all."},
		{"fence after 'e.g.'", "A call looks like this, e.g.\n```json\n{\"name\": \"ask_user_question\", \"arguments\": {}}\n```"},
		{"json block naming no known tool", "Here is the data:\n```json\n{\"name\": \"Alice\", \"arguments\": [\"a\", \"b\"]}\n```\n"},
		{"json block without arguments", "```json\n{\"name\": \"calculator\"}\n```"},
		{"json array", "```json\n[1, 2, 3]\n```\nDone."},
		{"json object of other keys", "```json\n{\"city\": \"Lisbon\", \"days\": 3}\n```\n"},
		{"tag inside a python block", "Code:\n```python\nprint('<tool_call>{\"name\":\"calculator\",\"arguments\":{}}</tool_call>')\n```\nEnd."},
		{"tag in inline code", "The model writes `<tool_call>` around its calls."},
		{"a bare tag at the end", "Something <tool_call>"},
		{"unfinished fence", "```json\n{\"name\": \"calc"},
		{"plain prose with angle brackets", "if a < b and c <tool or <tool_cal then"},
		{"backticks in prose", "use ``` to fence, or `` for inline, ` alone"},
	}
	for _, c := range cases {
		for how, pieces := range chunkings(c.in) {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				emitted, r := feed(pieces)
				assert.Empty(t, r.Calls())
				assert.Equal(t, c.in, r.Text())
				assert.Equal(t, c.in, strings.Join(emitted, ""))
			})
		}
	}
}

func TestRecognizerHoldsBackOnlyTheAmbiguousSuffix(t *testing.T) {
	var emitted strings.Builder
	r := NewRecognizer(knownTools, func(s string) { emitted.WriteString(s) })
	r.Write("Hello wor")
	assert.Equal(t, "Hello wor", emitted.String(), "plain text passes at once")
	r.Write("ld <tool")
	assert.Equal(t, "Hello world ", emitted.String(), "only the start of a tag is held")
	r.Write("kit")
	assert.Equal(t, "Hello world <toolkit", emitted.String(), "released once it cannot be a tag")
	r.Write("\n``")
	assert.Equal(t, "Hello world <toolkit\n", emitted.String(), "the start of a fence is held")
	r.Write("`python\nx = 1\n")
	assert.Equal(t, "Hello world <toolkit\n```python\nx = 1\n", emitted.String(), "other code passes at once")
	r.Write("```\n```json\n[")
	assert.Equal(t, "Hello world <toolkit\n```python\nx = 1\n```\n```json\n[", emitted.String(), "a json block that cannot be a call is shown at once")
	r.Close()
	require.Empty(t, r.Calls())
}

func TestRecognizerUnreadableTagIsAnInvalidCall(t *testing.T) {
	_, r := feed([]string{"<tool_call>{\"name\": \"ask_user_question\", \"arguments\": {\"questions\": [}</tool_call>"})
	calls := r.Calls()
	require.Len(t, calls, 1)
	assert.True(t, calls[0].Invalid)
	assert.Equal(t, "ask_user_question", calls[0].Name)

	_, r = feed([]string{"<tool_call>call the calculator please</tool_call>"})
	calls = r.Calls()
	require.Len(t, calls, 1)
	assert.True(t, calls[0].Invalid)
	assert.Empty(t, calls[0].Name)
	assert.Empty(t, r.Text())
}
