// Package enginetest helps the built-in engine's tests: fixture models
// (backend/engine/ggufgen), the models file, and a reader of the engine's
// streamed answers.
package enginetest

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/libs"
)

// Answer is what the fixture model "fixed" writes.
const Answer = "Hello from the built-in engine. This reply is the same every time."

// CardArguments are the arguments of the fixture "card"'s question card
// call.
const CardArguments = `{"questions": [{"question": "Which colour?", "header": "Colour", "multiSelect": false, "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}]}`

// Card is that call in the Hermes format the fixtures' template asks for.
const Card = `{"name": "ask_user_question", "arguments": ` + CardArguments + `}`

// CardFollowUp is what the fixture "card" writes once the card is
// answered (the prompt holds the tool's result).
const CardFollowUp = "Thank you: your answer settles it."

// CardSpec is the fixture "card": it asks the question card (Card, after
// a sentence) until it has an answer, then writes CardFollowUp.
func CardSpec(name string) ggufgen.Spec {
	return ggufgen.Spec{Name: name, Answer: "Let me ask.\n<tool_call>\n" + Card + "\n</tool_call>", AfterTool: CardFollowUp}
}

// The chat templates of other model families, as their GGUFs carry them
// (templates/: Meta's and Mistral's from llama.cpp's models/templates, in
// the llama.cpp source node-llama-cpp 3.21.1 ships; Gemma 3's, which that
// source lacks, written out as google/gemma-3-*-it's tokenizer_config.json
// has it: no tools, roles that must alternate).
var (
	//go:embed templates/meta-llama-Llama-3.2-3B-Instruct.jinja
	Llama32Template string
	//go:embed templates/meta-llama-Llama-3.1-8B-Instruct.jinja
	Llama31Template string
	//go:embed templates/mistralai-Mistral-Nemo-Instruct-2407.jinja
	MistralNemoTemplate string
	//go:embed templates/google-gemma-3-it.jinja
	Gemma3Template string
)

// LlamaCard is the question card call in Llama 3's native format: the
// whole reply is the JSON object, with "parameters".
const LlamaCard = `{"name": "ask_user_question", "parameters": ` + CardArguments + `}`

// LlamaCardSpec is the fixture "card" on Llama 3.2's template: it answers
// LlamaCard until it has an answer, then CardFollowUp. The tool's result
// follows "<|start_header_id|>ipython<|end_header_id|>" in the prompt; the
// fixture's vocabulary makes "ipython<|end_header_id|>" its one control
// token, the mark the weights look for (ggufgen.Spec.ToolMark).
func LlamaCardSpec(name string) ggufgen.Spec {
	return ggufgen.Spec{Name: name, Template: Llama32Template, Answer: LlamaCard, AfterTool: CardFollowUp,
		ToolMark: "ipython<|end_header_id|>"}
}

// MistralCard is the question card call in Mistral's native format (v3,
// Nemo's), after a sentence: [TOOL_CALLS] is a control token, as in
// Mistral's vocabulary.
const MistralCard = `Let me ask. [TOOL_CALLS][{"name": "ask_user_question", "arguments": ` + CardArguments + `}]`

// MistralCardSpec is the fixture "card" on Mistral Nemo's template: its
// prompts end in the control tokens [/INST] or [/TOOL_RESULTS], and a
// tool's result is marked by [TOOL_RESULTS], as in Mistral's vocabulary.
func MistralCardSpec(name string) ggufgen.Spec {
	return ggufgen.Spec{Name: name, Template: MistralNemoTemplate, Answer: MistralCard, AfterTool: CardFollowUp,
		PromptEnds: []string{"[/INST]", "[/TOOL_RESULTS]"}, ToolMark: "[TOOL_RESULTS]", Controls: []string{"[TOOL_CALLS]"}}
}

// Entry is a fixture model.
type Entry struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// Write writes the fixture models into dir: "fixed" (writes Answer),
// "loop" (writes "la la la, " forever), "card" (calls ask_user_question,
// in the Hermes format, then CardFollowUp once answered: CardSpec),
// "random" (random weights).
func Write(t testing.TB, dir string) []Entry {
	t.Helper()
	specs := map[string]ggufgen.Spec{
		"fixed":  {Answer: Answer},
		"loop":   {Answer: "la la la, ", Loop: true},
		"card":   CardSpec(""),
		"random": {Seed: 7},
	}
	var list []Entry
	for _, id := range []string{"fixed", "loop", "card", "random"} {
		p := filepath.Join(dir, id+".gguf")
		require.NoError(t, ggufgen.Write(p, specs[id]))
		list = append(list, Entry{id, p})
	}
	return list
}

// Models writes the fixture models (Write) and a models file listing them
// into dir, and returns the file's path.
func Models(t testing.TB, dir string) string {
	t.Helper()
	b, err := json.Marshal(Write(t, dir))
	require.NoError(t, err)
	file := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(file, b, 0o600))
	return file
}

// LibDir is the engine's libraries (scripts/engine-libs.sh puts them in
// place; scripts/setup.sh runs it).
func LibDir(t testing.TB) string {
	t.Helper()
	dir, err := libs.Dir(os.Getenv)
	require.NoError(t, err, "the built-in engine's libraries: run scripts/engine-libs.sh (scripts/setup.sh does)")
	return dir
}

// Stream is a streamed answer, read.
type Stream struct {
	Text      string
	Calls     []Call
	Finish    string
	Usage     map[string]any
	Error     string // an error frame's message
	Done      bool   // data: [DONE] came
	Chunks    int
	FirstRole bool // the first chunk carried the role
}

// Call is one tool call of a stream.
type Call struct {
	ID, Name, Arguments string
}

// ReadStream reads SSE chunks from r until [DONE] or the end; after each
// content delta it calls onText (nil: none) with the text so far; it
// stops early when onText returns false.
func ReadStream(r io.Reader, onText func(string) bool) (Stream, error) {
	var s Stream
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			s.Done = true
			return s, nil
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Role      string `json:"role"`
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return s, err
		}
		s.Chunks++
		if c.Error != nil {
			s.Error = c.Error.Message
		}
		if c.Usage != nil {
			s.Usage = c.Usage
		}
		for _, ch := range c.Choices {
			if s.Chunks == 1 && ch.Delta.Role == "assistant" {
				s.FirstRole = true
			}
			for _, tc := range ch.Delta.ToolCalls {
				for len(s.Calls) <= tc.Index {
					s.Calls = append(s.Calls, Call{})
				}
				c := &s.Calls[tc.Index]
				if tc.ID != "" {
					c.ID = tc.ID
				}
				c.Name += tc.Function.Name
				c.Arguments += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				s.Finish = *ch.FinishReason
			}
			if ch.Delta.Content != "" {
				s.Text += ch.Delta.Content
				if onText != nil && !onText(s.Text) {
					return s, nil
				}
			}
		}
	}
	return s, sc.Err()
}
