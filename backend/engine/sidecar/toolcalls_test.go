package sidecar

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/gguf"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/runner"
)

// newServerWith is an engine serving the given fixture models.
func newServerWith(t *testing.T, specs map[string]ggufgen.Spec) string {
	t.Helper()
	backend, err := runner.Load(enginetest.LibDir(t))
	require.NoError(t, err)
	dir := t.TempDir()
	var list []ModelEntry
	for id, spec := range specs {
		p := filepath.Join(dir, id+".gguf")
		require.NoError(t, ggufgen.Write(p, spec))
		list = append(list, ModelEntry{ID: id, Path: p})
	}
	b, err := json.Marshal(list)
	require.NoError(t, err)
	file := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(file, b, 0o600))
	srv := New(Config{Secret: secret, ModelsFile: file, Backend: backend, Context: 4096, Threads: 1})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL
}

var cardTools = []any{map[string]any{"type": "function", "function": map[string]any{"name": "ask_user_question",
	"description": "Ask the user", "parameters": map[string]any{"type": "object"}}}}

// withTools is a streamed request with the question card tool.
func withTools(model string, msgs ...any) map[string]any {
	return map[string]any{"model": model, "stream": true, "temperature": 0, "tools": cardTools, "messages": msgs}
}

// assertCardCall checks that s is the card fixture's one call.
func assertCardCall(t *testing.T, s enginetest.Stream) {
	t.Helper()
	require.Len(t, s.Calls, 1, "the native call becomes a tool call (text: %q)", s.Text)
	assert.Equal(t, "ask_user_question", s.Calls[0].Name)
	assert.NotEmpty(t, s.Calls[0].ID)
	assert.JSONEq(t, enginetest.CardArguments, s.Calls[0].Arguments)
	assert.Equal(t, "tool_calls", s.Finish)
	assert.True(t, s.Done)
}

// answered is the conversation after the card call: the assistant's call
// and the tool's result.
func answered(callID, text string) []any {
	return []any{
		user("Pick for me"),
		map[string]any{"role": "assistant", "content": text, "tool_calls": []any{map[string]any{"id": callID, "type": "function",
			"function": map[string]any{"name": "ask_user_question", "arguments": enginetest.CardArguments}}}},
		map[string]any{"role": "tool", "tool_call_id": callID, "content": `{"answers": {"Which colour?": "Blue"}}`},
	}
}

// Llama 3.2's template: the model answers with the JSON object alone
// (Meta's format for custom tools); it becomes a tool call, and the
// tool's result, rendered back through the template (role tool →
// ipython), gets the follow-up. Without tools the same reply is text
// (Parley reads §8's text form from it).
func TestLlama3NativeToolCall(t *testing.T) {
	url := newServerWith(t, map[string]ggufgen.Spec{"llama": enginetest.LlamaCardSpec("")})
	s := stream(t, url, withTools("llama", user("Pick for me")))
	assertCardCall(t, s)
	assert.Empty(t, s.Text, "the call is the whole reply")

	next := stream(t, url, withTools("llama", answered(s.Calls[0].ID, "")...))
	assert.Empty(t, next.Calls)
	assert.Equal(t, enginetest.CardFollowUp, next.Text, "the tool's result reached the model through the template")
	assert.Equal(t, "stop", next.Finish)

	plain := stream(t, url, chatBody("llama", true, user("Pick for me")))
	assert.Empty(t, plain.Calls)
	assert.Equal(t, enginetest.LlamaCard, plain.Text)
}

// A Llama reply that starts like JSON but is no call stays text, all of
// it: streamed from the first key that is not "name" or "type", held to
// the end (then given whole) when it is a JSON object with a name but
// no parameters.
func TestLlama3JSONThatIsNoCallStaysText(t *testing.T) {
	const colour = `{"colour": "blue", "reason": "it is calm and it suits a bedroom well"}`
	const person = `{"name": "Alice", "age": 31}`
	const python = `<|python_tag|>brave_search.call(query="weather")`
	url := newServerWith(t, map[string]ggufgen.Spec{
		"colour": {Template: enginetest.Llama32Template, Answer: colour},
		"person": {Template: enginetest.Llama32Template, Answer: person},
		"python": {Template: enginetest.Llama32Template, Answer: python},
		"tagged": {Template: enginetest.Llama32Template, Answer: "<|python_tag|>" + enginetest.LlamaCard},
	})
	s := stream(t, url, withTools("colour", user("A colour as JSON")))
	assert.Empty(t, s.Calls)
	assert.Equal(t, colour, s.Text, "nothing lost")
	assert.Greater(t, s.Chunks, 10, "it streamed as it came")
	assert.Equal(t, "stop", s.Finish)

	s = stream(t, url, withTools("person", user("A person as JSON")))
	assert.Empty(t, s.Calls)
	assert.Equal(t, person, s.Text)

	s = stream(t, url, withTools("python", user("Weather?")))
	assert.Empty(t, s.Calls, "a built-in tool's call (no JSON) is left as text")
	assert.Equal(t, python, s.Text)

	assertCardCall(t, stream(t, url, withTools("tagged", user("Pick for me"))))
}

// Mistral Nemo's template: text, then the control token [TOOL_CALLS] and
// a JSON array of calls. The token is written as text only for the
// parser (runner.Request.Preserve); the call gets an id of 9 letters and
// digits, which the template demands of the next turn's history, where
// the tool's result goes in [TOOL_RESULTS]. An id of another form (a call
// another model made) is made into one the template takes.
func TestMistralNativeToolCall(t *testing.T) {
	url := newServerWith(t, map[string]ggufgen.Spec{"mistral": enginetest.MistralCardSpec("")})
	s := stream(t, url, withTools("mistral", user("Pick for me")))
	assertCardCall(t, s)
	assert.Equal(t, "Let me ask.", s.Text, "the text before the call stays text")
	assert.Regexp(t, regexp.MustCompile(`^[A-Za-z0-9]{9}$`), s.Calls[0].ID)

	next := stream(t, url, withTools("mistral", answered(s.Calls[0].ID, s.Text)...))
	assert.Empty(t, next.Calls)
	assert.Equal(t, enginetest.CardFollowUp, next.Text, "the tool's result reached the model through the template")

	other := stream(t, url, withTools("mistral", answered("call_0123456789abcdef", s.Text)...))
	assert.Equal(t, enginetest.CardFollowUp, other.Text, "another form of id is made one the template takes")
}

// After [TOOL_CALLS], what is no call goes out as the model wrote it.
func TestMistralBracketThatIsNoCallStaysText(t *testing.T) {
	const answer = "Here you are: [TOOL_CALLS] not a call at all"
	url := newServerWith(t, map[string]ggufgen.Spec{"mistral": {Template: enginetest.MistralNemoTemplate, Answer: answer,
		PromptEnds: []string{"[/INST]"}, Controls: []string{"[TOOL_CALLS]"}}})
	s := stream(t, url, withTools("mistral", user("Hi")))
	assert.Empty(t, s.Calls)
	assert.Equal(t, answer, s.Text, "nothing lost")
}

// Gemma 3's template has no tools (its GGUF does not say "tools"): the
// reply is text whatever it holds, and Parley reads §8's text form from
// it.
func TestGemma3HasNoNativeToolsTextFormPassesThrough(t *testing.T) {
	textCall := "Let me ask.\n<tool_call>\n" + enginetest.Card + "\n</tool_call>"
	specs := map[string]ggufgen.Spec{"gemma": {Template: enginetest.Gemma3Template, Answer: textCall}}
	url := newServerWith(t, specs)
	assert.Equal(t, formatNone, detectFormat(enginetest.Gemma3Template))

	s := stream(t, url, withTools("gemma", map[string]any{"role": "system", "content": "Tools: ..."}, user("Pick for me")))
	assert.Empty(t, s.Calls)
	assert.Equal(t, textCall, s.Text)

	p := filepath.Join(t.TempDir(), "g.gguf")
	require.NoError(t, ggufgen.Write(p, specs["gemma"]))
	info, err := gguf.Read(p)
	require.NoError(t, err)
	assert.NotContains(t, info.Capabilities(), gguf.CapTools, "the library says the model has no tools of its own")
}

func TestDetectFormat(t *testing.T) {
	assert.Equal(t, formatHermes, detectFormat(ggufgen.ChatML))
	assert.Equal(t, formatLlama3, detectFormat(enginetest.Llama32Template))
	assert.Equal(t, formatLlama3, detectFormat(enginetest.Llama31Template))
	assert.Equal(t, formatMistral, detectFormat(enginetest.MistralNemoTemplate))
	assert.Equal(t, formatNone, detectFormat(enginetest.Gemma3Template))
}

// The parsers on their own, fed a piece at a time: every split of the
// reply gives the same text and calls.
func TestParsersAcrossEverySplit(t *testing.T) {
	cases := []struct {
		format      callFormat
		reply, text string
		calls       []string // name:args
	}{
		{formatLlama3, ` {"type": "function", "name": "a", "parameters": {"x": 1}}; {"name": "b", "arguments": "{\"y\":2}"}`, "", []string{`a:{"x": 1}`, `b:{"y":2}`}},
		{formatLlama3, `{"name": "a"}`, `{"name": "a"}`, nil},
		{formatLlama3, `{"name": "a", "parameters": {}} and then words`, `{"name": "a", "parameters": {}} and then words`, nil},
		{formatLlama3, `{ "names": [1, 2] }`, `{ "names": [1, 2] }`, nil},
		{formatLlama3, `Sure! {"name": "a", "parameters": {}}`, `Sure! {"name": "a", "parameters": {}}`, nil},
		{formatMistral, `Ok.[TOOL_CALLS]a[ARGS]{"x": 1}[TOOL_CALLS]b[CALL_ID]abcDEF123[ARGS]{}`, "Ok.", []string{`a:{"x": 1}`, `b:{}`}},
		{formatMistral, `[TOOL_CALLS][{"name": "a", "arguments": {"x": [1]}, "id": "abcDEF123"}, {"name": "b"}]`, "", []string{`a:{"x": [1]}`, `b:{}`}},
		{formatMistral, "A [TOOL_CALL] is not [TOOL_CALLS", "A [TOOL_CALL] is not [TOOL_CALLS", nil},
		{formatMistral, "Look:\n[TOOL_CALLS][{broken", "Look:\n[TOOL_CALLS][{broken", nil},
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.reply); cut++ {
			var text strings.Builder
			var calls []string
			var ids []string
			p := newCallParser(c.format, func(s string) error { text.WriteString(s); return nil },
				func(id, name, args string) error {
					calls = append(calls, name+":"+args)
					ids = append(ids, id)
					return nil
				})
			for _, piece := range []string{c.reply[:cut], c.reply[cut:]} {
				require.NoError(t, p.write(piece))
			}
			require.NoError(t, p.close())
			assert.Equal(t, c.text, text.String(), "%q cut at %d", c.reply, cut)
			assert.Equal(t, c.calls, calls, "%q cut at %d", c.reply, cut)
			if c.format == formatMistral && len(ids) > 0 {
				assert.Contains(t, ids, "abcDEF123", "the model's own id, when valid")
				for _, id := range ids {
					assert.True(t, validMistralID(id), id)
				}
			}
		}
	}
}

// Llama 3.1's and 3.3's templates have a quote in a comment, which the
// Jinja engine cannot scan: they render all the same.
func TestLlama31TemplateRenders(t *testing.T) {
	var msgs []map[string]any
	for _, m := range answered("call_1", "") {
		msgs = append(msgs, m.(map[string]any))
	}
	out, err := Render(enginetest.Llama31Template, normalizeMessages(msgs), []map[string]any{cardTools[0].(map[string]any)}, "<|begin_of_text|>", "<|eot_id|>", nil)
	require.NoError(t, err)
	assert.Contains(t, out, `{"name": "ask_user_question", "parameters": {"questions"`)
	assert.Contains(t, out, "<|start_header_id|>ipython<|end_header_id|>\n\n")
	assert.True(t, strings.HasSuffix(out, "<|start_header_id|>assistant<|end_header_id|>\n\n"))
	assert.Equal(t, `a {{- "" -}} b {{ "" }}c`, withoutComments(`a {#- it's -#} b {# x #}c`))
}
