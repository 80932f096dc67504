package questions

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubmitResultExact(t *testing.T) {
	four := []Question{
		{Question: "Which database?", Options: []Option{{Label: "Postgres"}, {Label: "SQLite"}}, AllowCustom: true},
		{Question: "Which features?", Options: []Option{{Label: "Auth"}, {Label: "Billing"}, {Label: "Search"}}, MultiSelect: true, AllowCustom: true},
		{Question: "Deploy where?", Options: []Option{{Label: "Fly"}, {Label: "VPS"}}, AllowCustom: true},
		{Question: "Project name?", Options: []Option{}, AllowCustom: true},
	}
	tests := []struct {
		name     string
		qs       []Question
		answers  map[string]AnswerInput
		comments string
		want     string
	}{
		{"single select", four[:1], map[string]AnswerInput{"Which database?": {Selected: []string{"Postgres"}}}, "",
			`{"answers":{"Which database?":"Postgres"}}`},
		{"multi select", four[1:2], map[string]AnswerInput{"Which features?": {Selected: []string{"Auth", "Billing"}}}, "",
			`{"answers":{"Which features?":"Auth, Billing"}}`},
		{"free text", four[3:], map[string]AnswerInput{"Project name?": {Custom: " parley "}}, "",
			`{"answers":{"Project name?":"parley"}}`},
		{"multi plus free text", four[1:2], map[string]AnswerInput{"Which features?": {Selected: []string{"Auth", "Search"}, Custom: "CSV export"}}, "",
			`{"answers":{"Which features?":"Auth, Search, CSV export"}}`},
		{"four questions in one card", four, map[string]AnswerInput{
			"Which database?": {Selected: []string{"SQLite"}},
			"Which features?": {Selected: []string{"Billing", "Auth"}},
			"Deploy where?":   {Custom: "Hetzner"},
			"Project name?":   {Custom: "parley"},
		}, "",
			`{"answers":{"Deploy where?":"Hetzner","Project name?":"parley","Which database?":"SQLite","Which features?":"Billing, Auth"}}`},
		{"comments present", four[:1], map[string]AnswerInput{"Which database?": {Selected: []string{"Postgres"}}}, "Keep it simple",
			`{"answers":{"Which database?":"Postgres"},"comments":"Keep it simple"}`},
		{"blank comments are absent", four[:1], map[string]AnswerInput{"Which database?": {Selected: []string{"Postgres"}}}, "  \n",
			`{"answers":{"Which database?":"Postgres"}}`},
		{"HTML and quotes survive as text", four[3:], map[string]AnswerInput{"Project name?": {Custom: `<b>"A" & B</b>`}}, "x < y",
			`{"answers":{"Project name?":"<b>\"A\" & B</b>"},"comments":"x < y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers, err := ValidateAnswers(tt.qs, tt.answers, tt.comments)
			require.NoError(t, err, "ValidateAnswers")
			got := SubmitResult(answers, tt.comments)
			mustEqual(t, "result", got, tt.want)
			require.True(t, json.Valid([]byte(got)), "not JSON: %s", got)
		})
	}
}

func TestSubmitResultNilAnswers(t *testing.T) {
	mustEqual(t, "result", SubmitResult(nil, ""), `{"answers":{}}`)
}

func TestOutcomeTexts(t *testing.T) {
	mustEqual(t, "cancelled", CancelledResult, "User cancelled the question")
	mustEqual(t, "sub-agent", SubAgentRefusal, "ask_user_question is not available to sub-agents")
	for _, tt := range []struct {
		name, text string
		must       []string
	}{
		{"declined", DeclinedResult, []string{"declined", "roceed without the answers", "best judgement"}},
		{"timed out", TimedOutResult, []string{"timed out", "reasonable assumptions", "state them"}},
	} {
		for _, want := range tt.must {
			assert.Contains(t, tt.text, want, "%s result", tt.name)
		}
	}
}
