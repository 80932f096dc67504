package questions

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
)

func answerQuestions() []Question {
	return []Question{
		{Question: "Which database?", Options: []Option{{Label: "Postgres"}, {Label: "SQLite"}}, AllowCustom: true},
		{Question: "Which features?", Options: []Option{{Label: "Auth"}, {Label: "Billing"}, {Label: "Search"}}, MultiSelect: true, AllowCustom: true},
		{Question: "Proceed?", Options: []Option{{Label: "Yes"}, {Label: "No"}}, AllowCustom: false},
		{Question: "Project name?", Options: []Option{}, AllowCustom: true},
	}
}

// full answers every question validly; tests override one.
func full(override map[string]AnswerInput) map[string]AnswerInput {
	a := map[string]AnswerInput{
		"Which database?": {Selected: []string{"Postgres"}},
		"Which features?": {Selected: []string{"Auth"}},
		"Proceed?":        {Selected: []string{"Yes"}},
		"Project name?":   {Custom: "parley"},
	}
	for k, v := range override {
		if v.Selected == nil && v.Custom == "" {
			delete(a, k)
			continue
		}
		a[k] = v
	}
	return a
}

func TestValidateAnswersErrors(t *testing.T) {
	tests := []struct {
		name     string
		answers  map[string]AnswerInput
		comments string
		want     string
	}{
		{"label not an option (spoofed)", full(map[string]AnswerInput{"Which database?": {Selected: []string{"MySQL"}}}), "",
			`invalid answer to "Which database?": "MySQL" is not one of its options`},
		{"label of another question", full(map[string]AnswerInput{"Which database?": {Selected: []string{"Auth"}}}), "",
			`invalid answer to "Which database?": "Auth" is not one of its options`},
		{"single-select with two labels", full(map[string]AnswerInput{"Which database?": {Selected: []string{"Postgres", "SQLite"}}}), "",
			`invalid answer to "Which database?": only one option may be selected (got 2)`},
		{"label selected twice", full(map[string]AnswerInput{"Which features?": {Selected: []string{"Auth", "Auth"}}}), "",
			`invalid answer to "Which features?": "Auth" is selected more than once`},
		{"free text where not allowed", full(map[string]AnswerInput{"Proceed?": {Custom: "maybe"}}), "",
			`invalid answer to "Proceed?": free text is not allowed; pick one of the options`},
		{"free text too long", full(map[string]AnswerInput{"Project name?": {Custom: strings.Repeat("x", 1001)}}), "",
			`invalid answer to "Project name?": free text must be 1-1000 characters (got 1001)`},
		{"question not answered", full(map[string]AnswerInput{"Which database?": {}}), "",
			`invalid answer to "Which database?": an answer is required; select an option or type one`},
		{"blank free text is no answer", full(map[string]AnswerInput{"Project name?": {Custom: "   "}}), "",
			`invalid answer to "Project name?": an answer is required; type one`},
		{"empty selection is no answer", full(map[string]AnswerInput{"Proceed?": {Selected: []string{}, Custom: ""}}), "",
			`invalid answer to "Proceed?": an answer is required; select an option or type one`},
		{"unknown question", full(map[string]AnswerInput{"Which colour?": {Selected: []string{"Red"}}}), "",
			`invalid answer: there is no question "Which colour?" on this card`},
		{"comments too long", full(nil), strings.Repeat("c", 2001),
			`invalid answer: comments must be at most 2000 characters (got 2001)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateAnswers(answerQuestions(), tt.answers, tt.comments)
			require.Error(t, err, "accepted: %v", got)
			require.Equal(t, fault.Validation, fault.KindOf(err), "%v", err)
			require.EqualError(t, err, tt.want)
		})
	}
}

func TestValidateAnswersAccepted(t *testing.T) {
	tests := []struct {
		name     string
		answers  map[string]AnswerInput
		comments string
		question string
		want     string
	}{
		{"single label", full(nil), "", "Which database?", "Postgres"},
		{"single free text", full(map[string]AnswerInput{"Which database?": {Custom: "  CockroachDB \n"}}), "", "Which database?", "CockroachDB"},
		{"single label plus free text", full(map[string]AnswerInput{"Which database?": {Selected: []string{"SQLite"}, Custom: "with WAL"}}), "", "Which database?", "SQLite, with WAL"},
		{"multi keeps the order given", full(map[string]AnswerInput{"Which features?": {Selected: []string{"Search", "Auth"}}}), "", "Which features?", "Search, Auth"},
		{"multi plus free text last", full(map[string]AnswerInput{"Which features?": {Selected: []string{"Auth", "Billing"}, Custom: "Export"}}), "", "Which features?", "Auth, Billing, Export"},
		{"multi free text only", full(map[string]AnswerInput{"Which features?": {Custom: "None"}}), "", "Which features?", "None"},
		{"label with stray spaces matches", full(map[string]AnswerInput{"Proceed?": {Selected: []string{" No "}}}), "", "Proceed?", "No"},
		{"free text at the limit", full(map[string]AnswerInput{"Project name?": {Custom: strings.Repeat("é", 1000)}}), "", "Project name?", strings.Repeat("é", 1000)},
		{"comments at the limit", full(nil), strings.Repeat("c", 2000), "Proceed?", "Yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateAnswers(answerQuestions(), tt.answers, tt.comments)
			require.NoError(t, err, "ValidateAnswers")
			require.Len(t, got, len(answerQuestions()), "want one answer per question")
			mustEqual(t, "answer", got[tt.question], tt.want)
		})
	}
}

// The error values and texts other packages (and the HTTP API) rely on.
func TestErrorTexts(t *testing.T) {
	mustEqual(t, "ErrNotFound", ErrNotFound.Error(), "question not found")
	mustEqual(t, "ErrConflict", ErrConflict.Error(), "question is no longer pending")
	_, err := ValidateAnswers(answerQuestions(), map[string]AnswerInput{"nope?": {Custom: "x"}}, "")
	require.Equal(t, fault.Validation, fault.KindOf(err), "ValidateAnswers error = %#v", err)
	require.Contains(t, err.Error(), `"nope?"`, "want the message naming the question")
}
