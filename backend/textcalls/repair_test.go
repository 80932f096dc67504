package textcalls

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/questions"
)

// card is what the user would see: each question with its option labels.
type card map[string][]string

func cardOf(qs []questions.Question) card {
	out := card{}
	for _, q := range qs {
		labels := []string{}
		for _, o := range q.Options {
			labels = append(labels, o.Label)
		}
		out[q.Question] = labels
	}
	return out
}

// Arguments of ask_user_question as small models send them: each is
// repaired to the card meant, or refused with the SPEC §1 error text.
func TestMalformedArgumentsAreRepairedOrRefused(t *testing.T) {
	colour := card{"Which colour?": {"Red", "Blue"}}
	cases := []struct {
		name     string
		raw      string
		want     card   // the card shown
		refusal  string // or the exact tool result
		repaired bool
	}{
		{name: "valid", raw: `{"questions":[{"question":"Which colour?","options":[{"label":"Red"},{"label":"Blue"}]}]}`, want: colour},
		{name: "options as plain strings", raw: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}]}`, want: colour},
		{name: "code fence", raw: "```json\n{\"questions\":[{\"question\":\"Which colour?\",\"options\":[\"Red\",\"Blue\"]}]}\n```", want: colour, repaired: true},
		{name: "bare code fence", raw: "```\n{\"questions\":[{\"question\":\"Which colour?\",\"options\":[\"Red\",\"Blue\"]}]}\n```", want: colour, repaired: true},
		{name: "trailing commas", raw: `{"questions":[{"question":"Which colour?","options":["Red","Blue",],},],}`, want: colour, repaired: true},
		{name: "single quotes", raw: `{'questions': [{'question': 'Which colour?', 'options': ['Red', 'Blue']}]}`, want: colour, repaired: true},
		{name: "single quotes around a double quote", raw: `{'questions': [{'question': 'Which "colour"?', 'options': ['Red', 'Blue']}]}`,
			want: card{`Which "colour"?`: {"Red", "Blue"}}, repaired: true},
		{name: "escaped apostrophe in single quotes", raw: `{'questions': [{'question': 'What\'s your colour?', 'options': ['Red', 'Blue']}]}`,
			want: card{"What's your colour?": {"Red", "Blue"}}, repaired: true},
		{name: "arguments as a JSON string", raw: `"{\"questions\":[{\"question\":\"Which colour?\",\"options\":[\"Red\",\"Blue\"]}]}"`, want: colour, repaired: true},
		{name: "questions as a JSON string", raw: `{"questions":"[{\"question\":\"Which colour?\",\"options\":[\"Red\",\"Blue\"]}]"}`, want: colour},
		{name: "bare keys", raw: `{questions: [{question: "Which colour?", options: ["Red", "Blue"]}]}`, want: colour, repaired: true},
		{name: "Python literals", raw: `{'questions': [{'question': 'Which colour?', 'options': ['Red', 'Blue'], 'multiSelect': False, 'allowCustom': True, 'header': None}]}`, want: colour, repaired: true},
		{name: "line break inside a string", raw: "{\"questions\":[{\"question\":\"Which\ncolour?\",\"options\":[\"Red\",\"Blue\"]}]}",
			want: card{"Which\ncolour?": {"Red", "Blue"}}, repaired: true},
		{name: "single-question form", raw: `{"question":"Which colour?","options":["Red","Blue"]}`, want: colour},
		{name: "fence around trailing commas", raw: "```json\n{\"questions\":[{\"question\":\"Which colour?\",\"options\":[\"Red\",\"Blue\",]}]}\n```", want: colour, repaired: true},
		// Ambiguous: refused with the §1 text, nothing guessed.
		{name: "cut off", raw: `{"questions":[{"question":"Which colour?","options":["Red","Blue"]}`,
			refusal: "invalid input: arguments are not valid JSON: unexpected end of JSON input"},
		{name: "apostrophe inside single quotes", raw: `{'questions': [{'question': 'What's your colour?'}]}`,
			refusal: "invalid input: arguments are not valid JSON: invalid character '\\'' looking for beginning of object key string"},
		{name: "missing comma", raw: `{"questions":[{"question":"Which colour?" "options":["Red","Blue"]}]}`,
			refusal: "invalid input: arguments are not valid JSON: invalid character '\"' after object key:value pair"},
		{name: "prose", raw: `Ask which colour they like`,
			refusal: "invalid input: arguments are not valid JSON: invalid character 'A' looking for beginning of value"},
		{name: "empty", raw: ``, refusal: `invalid input: arguments must be a JSON object with a "questions" array (got nothing)`},
		{name: "one option", raw: `{'questions': [{'question': 'Which colour?', 'options': ['Red']}]}`,
			refusal: "invalid input: questions[0].options must have 2-4 items (got 1)", repaired: true},
		{name: "five questions", raw: `{"questions":["a?","b?","c?","d?","e?",]}`,
			refusal: "invalid input: questions must have 1-4 items (got 5)", repaired: true},
		{name: "no questions", raw: `{"query": "Which colour?",}`, refusal: "invalid input: questions is required (an array of 1-4 questions)", repaired: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fixed, repaired := RepairArguments(c.raw)
			assert.Equal(t, c.repaired, repaired, "repaired: %s", fixed)
			qs, err := questions.ParseInput([]byte(fixed))
			if c.refusal != "" {
				require.Error(t, err)
				assert.Equal(t, c.refusal, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, cardOf(qs))
		})
	}
}

func TestRepairLeavesValidJSONAlone(t *testing.T) {
	for _, raw := range []string{`{}`, `{"a":1}`, ` {"a": [1, 2]} `, `[1]`, `"text"`} {
		fixed, repaired := RepairArguments(raw)
		assert.False(t, repaired, raw)
		assert.Equal(t, raw, fixed)
	}
}
