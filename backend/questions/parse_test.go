package questions

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
)

// q builds the JSON of one question with n options named A, B, C...
func optionsJSON(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, `"`+string(rune('A'+i))+`"`)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestParseInputErrors(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name, input, want string
	}{
		{"empty arguments", ``, `invalid input: arguments must be a JSON object with a "questions" array (got nothing)`},
		{"array instead of object", `[]`, `invalid input: arguments must be a JSON object with a "questions" array`},
		{"null", `null`, `invalid input: arguments must be a JSON object with a "questions" array`},
		{"string", `"hi"`, `invalid input: arguments must be a JSON object with a "questions" array`},
		{"no questions", `{}`, `invalid input: questions is required (an array of 1-4 questions)`},
		{"questions null", `{"questions":null}`, `invalid input: questions is required (an array of 1-4 questions)`},
		{"questions not array", `{"questions":5}`, `invalid input: questions must be an array of 1-4 questions`},
		{"questions string not array", `{"questions":"nope"}`, `invalid input: questions must be an array of 1-4 questions`},
		{"zero questions", `{"questions":[]}`, `invalid input: questions must have 1-4 items (got 0)`},
		{"five questions", `{"questions":[{"question":"1"},{"question":"2"},{"question":"3"},{"question":"4"},{"question":"5"}]}`,
			`invalid input: questions must have 1-4 items (got 5)`},
		{"question not object", `{"questions":[7]}`, `invalid input: questions[0] must be an object with a "question" field`},
		{"question missing", `{"questions":[{"options":["A","B"]}]}`, `invalid input: questions[0].question is required (1-500 characters)`},
		{"question not string", `{"questions":[{"question":3}]}`, `invalid input: questions[0].question must be a string`},
		{"question blank", `{"questions":[{"question":"   "}]}`, `invalid input: questions[0].question must be 1-500 characters (got 0)`},
		{"question too long", `{"questions":[{"question":"` + long(501) + `"}]}`, `invalid input: questions[0].question must be 1-500 characters (got 501)`},
		{"question duplicate", `{"questions":[{"question":"Q"},{"question":" Q "}]}`,
			`invalid input: questions[1].question must be unique within the call (same text as questions[0].question)`},
		{"header too long", `{"questions":[{"question":"Q","header":"` + long(13) + `"}]}`, `invalid input: questions[0].header must be at most 12 characters (got 13)`},
		{"header not string", `{"questions":[{"question":"Q","header":true}]}`, `invalid input: questions[0].header must be a string`},
		{"one option", `{"questions":[{"question":"Q","options":["A"]}]}`, `invalid input: questions[0].options must have 2-4 items (got 1)`},
		{"five options (SPEC example)", `{"questions":[{"question":"Q0","options":["A","B"]},{"question":"Q1","options":` + optionsJSON(5) + `}]}`,
			`invalid input: questions[1].options must have 2-4 items (got 5)`},
		{"options not array", `{"questions":[{"question":"Q","options":"A,B"}]}`,
			`invalid input: questions[0].options must be an array of 2-4 options, or empty for an open-ended question`},
		{"option not string or object", `{"questions":[{"question":"Q","options":["A",2]}]}`,
			`invalid input: questions[0].options[1] must be a string or an object with a "label"`},
		{"label missing", `{"questions":[{"question":"Q","options":[{"description":"d"},"B"]}]}`,
			`invalid input: questions[0].options[0].label is required (1-200 characters)`},
		{"label not string", `{"questions":[{"question":"Q","options":[{"label":1},"B"]}]}`, `invalid input: questions[0].options[0].label must be a string`},
		{"label blank", `{"questions":[{"question":"Q","options":["A"," "]}]}`, `invalid input: questions[0].options[1].label must be 1-200 characters (got 0)`},
		{"label too long", `{"questions":[{"question":"Q","options":["A","` + long(201) + `"]}]}`,
			`invalid input: questions[0].options[1].label must be 1-200 characters (got 201)`},
		{"label duplicate", `{"questions":[{"question":"Q","options":["A","B","A "]}]}`,
			`invalid input: questions[0].options[2].label must be unique within the question ("A" repeats questions[0].options[0].label)`},
		{"description too long", `{"questions":[{"question":"Q","options":[{"label":"A","description":"` + long(501) + `"},"B"]}]}`,
			`invalid input: questions[0].options[0].description must be at most 500 characters (got 501)`},
		{"description not string", `{"questions":[{"question":"Q","options":[{"label":"A","description":[]},"B"]}]}`,
			`invalid input: questions[0].options[0].description must be a string`},
		{"placeholder too long", `{"questions":[{"question":"Q","placeholder":"` + long(101) + `"}]}`,
			`invalid input: questions[0].placeholder must be at most 100 characters (got 101)`},
		{"customPlaceholder too long", `{"question":"Q","customPlaceholder":"` + long(101) + `"}`,
			`invalid input: questions[0].placeholder must be at most 100 characters (got 101)`},
		{"multiSelect without options", `{"questions":[{"question":"Q","multiSelect":true}]}`,
			`invalid input: questions[0].multiSelect must be false for an open-ended question (got true with 0 options)`},
		{"multiSelect not bool", `{"questions":[{"question":"Q","options":["A","B"],"multiSelect":"yes"}]}`,
			`invalid input: questions[0].multiSelect must be a boolean`},
		{"allowCustom not bool", `{"questions":[{"question":"Q","options":["A","B"],"allowCustom":1}]}`,
			`invalid input: questions[0].allowCustom must be a boolean`},
		{"single form one option", `{"question":"Q","options":["A"]}`, `invalid input: questions[0].options must have 2-4 items (got 1)`},
		{"single form question blank", `{"question":"","options":["A","B"]}`, `invalid input: questions[0].question must be 1-500 characters (got 0)`},
		{"later question invalid", `{"questions":[{"question":"Q0"},{"question":"Q1","options":["A","B"]},{"question":"Q2","header":"` + long(20) + `"}]}`,
			`invalid input: questions[2].header must be at most 12 characters (got 20)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs, err := ParseInput([]byte(tt.input))
			require.Error(t, err, "ParseInput accepted %s as %+v", tt.input, qs)
			require.EqualError(t, err, tt.want)
			require.Equal(t, fault.Validation, fault.KindOf(err))
		})
	}
}

func TestParseInputInvalidJSON(t *testing.T) {
	for _, in := range []string{`{`, `{"questions":[}`, `{"questions": [{"question": "Q",}]}`} {
		_, err := ParseInput([]byte(in))
		if assert.Error(t, err, "ParseInput(%s) succeeded, want an invalid JSON error", in) {
			assert.True(t, strings.HasPrefix(err.Error(), "invalid input: arguments are not valid JSON: "), "ParseInput(%s) = %v, want an invalid JSON error", in, err)
		}
	}
}

func TestParseInputNormalization(t *testing.T) {
	ab := []Option{{Label: "A"}, {Label: "B"}}
	tests := []struct {
		name, input string
		want        []Question
	}{
		{"full form, allowCustom omitted defaults to true",
			`{"questions":[{"question":"Q","header":"H","options":[{"label":"A","description":"first"},{"label":"B"}],"multiSelect":true,"placeholder":"type"}]}`,
			[]Question{{Question: "Q", Header: "H", Options: []Option{{"A", "first"}, {"B", ""}}, MultiSelect: true, AllowCustom: true, Placeholder: "type"}}},
		{"allowCustom false kept", `{"questions":[{"question":"Q","options":["A","B"],"allowCustom":false}]}`,
			[]Question{{Question: "Q", Options: ab, AllowCustom: false}}},
		{"allowCustom null means default", `{"questions":[{"question":"Q","options":["A","B"],"allowCustom":null}]}`,
			[]Question{{Question: "Q", Options: ab, AllowCustom: true}}},
		{"options as plain strings", `{"questions":[{"question":"Q","options":["A","B"]}]}`,
			[]Question{{Question: "Q", Options: ab, AllowCustom: true}}},
		{"mixed strings and objects", `{"questions":[{"question":"Q","options":["A",{"label":"B","description":"b"}]}]}`,
			[]Question{{Question: "Q", Options: []Option{{"A", ""}, {"B", "b"}}, AllowCustom: true}}},
		{"single-question form", `{"question":"Pick a language","options":["Go","Rust"],"allowCustom":false,"customPlaceholder":"Other..."}`,
			[]Question{{Question: "Pick a language", Options: []Option{{Label: "Go"}, {Label: "Rust"}}, AllowCustom: false, Placeholder: "Other..."}}},
		{"single-question form, allowCustom omitted", `{"question":"Q","options":["A","B"]}`,
			[]Question{{Question: "Q", Options: ab, AllowCustom: true}}},
		{"open-ended forces allowCustom", `{"questions":[{"question":"Your name?","allowCustom":false}]}`,
			[]Question{{Question: "Your name?", Options: []Option{}, AllowCustom: true}}},
		{"empty options is open-ended", `{"questions":[{"question":"Q","options":[]}]}`,
			[]Question{{Question: "Q", Options: []Option{}, AllowCustom: true}}},
		{"null options is open-ended", `{"questions":[{"question":"Q","options":null}]}`,
			[]Question{{Question: "Q", Options: []Option{}, AllowCustom: true}}},
		{"unknown fields ignored", `{"questions":[{"question":"Q","options":[{"label":"A","icon":"x"},"B"],"priority":3}],"reason":"because"}`,
			[]Question{{Question: "Q", Options: ab, AllowCustom: true}}},
		{"text trimmed", `{"questions":[{"question":"  Q?\n","header":" H ","options":[" A ",{"label":"B","description":" d "}],"placeholder":" p "}]}`,
			[]Question{{Question: "Q?", Header: "H", Options: []Option{{"A", ""}, {"B", "d"}}, AllowCustom: true, Placeholder: "p"}}},
		{"questions double-encoded as a string", `{"questions":"[{\"question\":\"Q\",\"options\":[\"A\",\"B\"]}]"}`,
			[]Question{{Question: "Q", Options: ab, AllowCustom: true}}},
		{"question as a bare string", `{"questions":["What should it be called?"]}`,
			[]Question{{Question: "What should it be called?", Options: []Option{}, AllowCustom: true}}},
		{"booleans as strings", `{"questions":[{"question":"Q","options":["A","B"],"multiSelect":"true","allowCustom":"false"}]}`,
			[]Question{{Question: "Q", Options: ab, MultiSelect: true, AllowCustom: false}}},
		{"placeholder wins over customPlaceholder", `{"questions":[{"question":"Q","placeholder":"p","customPlaceholder":"c"}]}`,
			[]Question{{Question: "Q", Options: []Option{}, AllowCustom: true, Placeholder: "p"}}},
		{"questions wins over single form", `{"questions":[{"question":"Q"}],"question":"ignored"}`,
			[]Question{{Question: "Q", Options: []Option{}, AllowCustom: true}}},
		{"limits are inclusive (code points)", `{"questions":[{"question":"` + strings.Repeat("é", 500) + `","header":"` + strings.Repeat("日", 12) + `","options":["` + strings.Repeat("a", 200) + `",{"label":"b","description":"` + strings.Repeat("d", 500) + `"},"c","d"],"placeholder":"` + strings.Repeat("p", 100) + `"},{"question":"2"},{"question":"3"},{"question":"4"}]}`,
			[]Question{
				{Question: strings.Repeat("é", 500), Header: strings.Repeat("日", 12), Options: []Option{{strings.Repeat("a", 200), ""}, {"b", strings.Repeat("d", 500)}, {"c", ""}, {"d", ""}}, AllowCustom: true, Placeholder: strings.Repeat("p", 100)},
				{Question: "2", Options: []Option{}, AllowCustom: true},
				{Question: "3", Options: []Option{}, AllowCustom: true},
				{Question: "4", Options: []Option{}, AllowCustom: true},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseInput([]byte(tt.input))
			require.NoError(t, err, "ParseInput")
			require.Equal(t, tt.want, got)
		})
	}
}

// The examples of the design documents in ../shared/seeds are all accepted.
var seedInputs = []string{
	// 000/003: the questions form with headers, descriptions and multiSelect.
	`{"questions":[{"question":"Which language should the project use?","header":"Language","options":[{"label":"Python","description":"Great for beginners"},{"label":"Go","description":"Fast and simple"}],"multiSelect":false},{"question":"What is your experience level?","header":"Level","options":[{"label":"Beginner"},{"label":"Expert"}]}]}`,
	`{"questions":[{"question":"Which features do you need?","header":"Features","options":[{"label":"Auth"},{"label":"Billing"},{"label":"Search"}],"multiSelect":true}]}`,
	// 001: the single-question form.
	`{"question":"What is your favorite programming language?","options":["JavaScript","Python","Go"],"allowCustom":true}`,
	`{"question":"Do you want to proceed with this action?","options":["Yes","No"],"allowCustom":false}`,
	`{"question":"How would you rate this feature?","options":["Excellent","Good","Fair","Poor"],"allowCustom":true,"customPlaceholder":"Or describe your experience..."}`,
}

func TestParseInputSeedExamples(t *testing.T) {
	for _, in := range seedInputs {
		_, err := ParseInput([]byte(in))
		assert.NoError(t, err, "ParseInput(%s)", in)
	}
}

// ValidateQuestions is also what Create runs for cards built in Go.
func TestValidateQuestionsDirect(t *testing.T) {
	tests := []struct {
		name string
		qs   []Question
		want string
	}{
		{"open-ended without allowCustom", []Question{{Question: "Q"}}, `invalid input: questions[0].allowCustom must be true for an open-ended question (got false with 0 options)`},
		{"nil", nil, `invalid input: questions must have 1-4 items (got 0)`},
		{"ok", []Question{{Question: "Q", Options: []Option{{Label: "A"}, {Label: "B"}}}}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateQuestions(tt.qs)
			got := ""
			if err != nil {
				got = err.Error()
			}
			require.Equal(t, tt.want, got)
		})
	}
}
