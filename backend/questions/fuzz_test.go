package questions

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkLimits restates the SPEC §1 limits independently of ValidateQuestions.
func checkLimits(t *testing.T, qs []Question) {
	t.Helper()
	if len(qs) < 1 || len(qs) > 4 {
		t.Fatalf("accepted %d questions", len(qs))
	}
	seenQ := map[string]bool{}
	for i, q := range qs {
		n := utf8.RuneCountInString(q.Question)
		if n < 1 || n > 500 || q.Question != strings.TrimSpace(q.Question) || seenQ[q.Question] {
			t.Fatalf("questions[%d].question %q breaks the limits", i, q.Question)
		}
		seenQ[q.Question] = true
		if utf8.RuneCountInString(q.Header) > 12 || utf8.RuneCountInString(q.Placeholder) > 100 {
			t.Fatalf("questions[%d] header/placeholder too long", i)
		}
		switch len(q.Options) {
		case 0:
			if q.MultiSelect || !q.AllowCustom {
				t.Fatalf("open-ended questions[%d] has multiSelect=%v allowCustom=%v", i, q.MultiSelect, q.AllowCustom)
			}
		case 2, 3, 4:
		default:
			t.Fatalf("questions[%d] has %d options", i, len(q.Options))
		}
		seenL := map[string]bool{}
		for j, o := range q.Options {
			n := utf8.RuneCountInString(o.Label)
			if n < 1 || n > 200 || seenL[o.Label] || utf8.RuneCountInString(o.Description) > 500 {
				t.Fatalf("questions[%d].options[%d] %+v breaks the limits", i, j, o)
			}
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
			if !strings.HasPrefix(err.Error(), "invalid input: ") {
				t.Fatalf("error %q lacks the invalid input prefix", err)
			}
			return
		}
		checkLimits(t, qs)
		// Accepted input round-trips: what the UI gets parses to the same.
		again, err := json.Marshal(map[string]any{"questions": qs})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseInput(again); err != nil {
			t.Fatalf("normalized questions refused: %v\n%s", err, again)
		}
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
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T is not *ValidationError", err)
			}
			return
		}
		if utf8.RuneCountInString(strings.TrimSpace(comments)) > 2000 {
			t.Fatal("accepted comments over 2000 characters")
		}
		if len(got) != len(qs) {
			t.Fatalf("got %d answers for %d questions", len(got), len(qs))
		}
		for _, q := range qs {
			a := answers[q.Question]
			if !q.MultiSelect && len(a.Selected) > 1 {
				t.Fatalf("single-select %q accepted %d labels", q.Question, len(a.Selected))
			}
			for _, sel := range a.Selected {
				found := false
				for _, o := range q.Options {
					found = found || o.Label == strings.TrimSpace(sel)
				}
				if !found {
					t.Fatalf("label %q is not an option of %q", sel, q.Question)
				}
			}
			custom := strings.TrimSpace(a.Custom)
			if custom != "" && (!q.AllowCustom || utf8.RuneCountInString(custom) > 1000) {
				t.Fatalf("free text %q accepted for %q", custom, q.Question)
			}
			if got[q.Question] == "" {
				t.Fatalf("question %q accepted without an answer", q.Question)
			}
		}
		var decoded map[string]any
		if err := json.Unmarshal([]byte(SubmitResult(got, comments)), &decoded); err != nil {
			t.Fatalf("result is not JSON: %v", err)
		}
	})
}
