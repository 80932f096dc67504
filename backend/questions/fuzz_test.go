package questions

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
)

// checkLimits restates the SPEC §1 limits independently of ValidateQuestions.
func checkLimits(t *testing.T, qs []Question) {
	t.Helper()
	require.GreaterOrEqual(t, len(qs), 1, "accepted %d questions", len(qs))
	require.LessOrEqual(t, len(qs), 4, "accepted %d questions", len(qs))
	seenQ := map[string]bool{}
	for i, q := range qs {
		n := utf8.RuneCountInString(q.Question)
		require.GreaterOrEqual(t, n, 1, "questions[%d].question %q breaks the limits", i, q.Question)
		require.LessOrEqual(t, n, 500, "questions[%d].question %q breaks the limits", i, q.Question)
		require.Equal(t, strings.TrimSpace(q.Question), q.Question, "questions[%d].question %q breaks the limits", i, q.Question)
		require.False(t, seenQ[q.Question], "questions[%d].question %q breaks the limits", i, q.Question)
		seenQ[q.Question] = true
		require.LessOrEqual(t, utf8.RuneCountInString(q.Header), 12, "questions[%d] header too long", i)
		require.LessOrEqual(t, utf8.RuneCountInString(q.Placeholder), 100, "questions[%d] placeholder too long", i)
		switch len(q.Options) {
		case 0:
			require.False(t, q.MultiSelect, "open-ended questions[%d] has multiSelect=%v allowCustom=%v", i, q.MultiSelect, q.AllowCustom)
			require.True(t, q.AllowCustom, "open-ended questions[%d] has multiSelect=%v allowCustom=%v", i, q.MultiSelect, q.AllowCustom)
		case 2, 3, 4:
		default:
			require.FailNow(t, "wrong number of options", "questions[%d] has %d options", i, len(q.Options))
		}
		seenL := map[string]bool{}
		for j, o := range q.Options {
			n := utf8.RuneCountInString(o.Label)
			require.GreaterOrEqual(t, n, 1, "questions[%d].options[%d] %+v breaks the limits", i, j, o)
			require.LessOrEqual(t, n, 200, "questions[%d].options[%d] %+v breaks the limits", i, j, o)
			require.False(t, seenL[o.Label], "questions[%d].options[%d] %+v breaks the limits", i, j, o)
			require.LessOrEqual(t, utf8.RuneCountInString(o.Description), 500, "questions[%d].options[%d] %+v breaks the limits", i, j, o)
			seenL[o.Label] = true
		}
	}
}

func FuzzParseInput(f *testing.F) {
	for _, s := range seedInputs {
		f.Add(s)
	}
	for _, s := range []string{
		`{"questions":[{"question":"Q","options":["A","B","C","D","E"]}]}`,
		`{"questions":[{"question":"Q","multiSelect":true}]}`,
		`{"questions":"[{\"question\":\"Q\"}]"}`,
		`{"questions":["Q1","Q1"]}`,
		`{"question":"Q","options":[" A","A "]}`,
		`{`, `null`, `[]`, `""`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		qs, err := ParseInput([]byte(raw))
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "invalid input: "), "error %q lacks the invalid input prefix", err)
			return
		}
		checkLimits(t, qs)
		// Accepted input round-trips: what the UI gets parses to the same.
		again, err := json.Marshal(map[string]any{"questions": qs})
		require.NoError(t, err)
		_, err = ParseInput(again)
		require.NoError(t, err, "normalized questions refused:\n%s", again)
	})
}

func FuzzValidateAnswers(f *testing.F) {
	seedAnswers := []struct{ input, answers, comments string }{
		{seedInputs[0], `{"Which language should the project use?":{"selected":["Go"]},"What is your experience level?":{"custom":"Intermediate"}}`, ""},
		{seedInputs[1], `{"Which features do you need?":{"selected":["Auth","Search"],"custom":"Export"}}`, "thanks"},
		{seedInputs[2], `{"What is your favorite programming language?":{"selected":["JavaScript"]}}`, ""},
		{seedInputs[3], `{"Do you want to proceed with this action?":{"custom":"maybe"}}`, ""},
		{seedInputs[4], `{"How would you rate this feature?":{"selected":["Good","Poor"]}}`, ""},
		{seedInputs[2], `{"Who?":{"selected":["x"]}}`, ""},
	}
	for _, s := range seedAnswers {
		f.Add(s.input, s.answers, s.comments)
	}
	f.Fuzz(func(t *testing.T, input, answersJSON, comments string) {
		qs, err := ParseInput([]byte(input))
		if err != nil {
			return
		}
		var answers map[string]AnswerInput
		if json.Unmarshal([]byte(answersJSON), &answers) != nil {
			return
		}
		got, err := ValidateAnswers(qs, answers, comments)
		if err != nil {
			require.Equal(t, fault.Validation, fault.KindOf(err), "error %T %v is not a fault.Validation", err, err)
			return
		}
		require.LessOrEqual(t, utf8.RuneCountInString(strings.TrimSpace(comments)), 2000, "accepted comments over 2000 characters")
		require.Len(t, got, len(qs), "answers for %d questions", len(qs))
		for _, q := range qs {
			a := answers[q.Question]
			if !q.MultiSelect {
				require.LessOrEqual(t, len(a.Selected), 1, "single-select %q accepted %d labels", q.Question, len(a.Selected))
			}
			for _, sel := range a.Selected {
				found := false
				for _, o := range q.Options {
					found = found || o.Label == strings.TrimSpace(sel)
				}
				require.True(t, found, "label %q is not an option of %q", sel, q.Question)
			}
			custom := strings.TrimSpace(a.Custom)
			if custom != "" {
				require.True(t, q.AllowCustom, "free text %q accepted for %q", custom, q.Question)
				require.LessOrEqual(t, utf8.RuneCountInString(custom), 1000, "free text %q accepted for %q", custom, q.Question)
			}
			require.NotEmpty(t, got[q.Question], "question %q accepted without an answer", q.Question)
		}
		var decoded map[string]any
		require.NoError(t, json.Unmarshal([]byte(SubmitResult(got, comments)), &decoded), "result is not JSON")
	})
}
