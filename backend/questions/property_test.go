package questions

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
)

// Random generation with a fixed seed, so a failure reproduces.
const propertyRuns = 2000

// tricky text: JSON and HTML specials, unicode, spaces inside.
var alphabet = []rune(`abcXYZ 09"\<>&/{}:,é日本😀` + "\t\u2028")

func randText(r *rand.Rand, minLen, maxLen int) string {
	for {
		n := minLen + r.IntN(maxLen-minLen+1)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		if s := strings.TrimSpace(b.String()); len([]rune(s)) >= minLen {
			return s
		}
	}
}

// randQuestions builds a valid card; texts are made unique with an index.
func randQuestions(r *rand.Rand) []Question {
	qs := make([]Question, 1+r.IntN(MaxQuestions))
	for i := range qs {
		q := Question{Question: fmt.Sprintf("%d %s", i, randText(r, 1, 40)), AllowCustom: r.IntN(2) == 0}
		if n := r.IntN(4); n > 0 { // 0 = open-ended, else 2..4 options
			n++
			if n > MaxOptions {
				n = MaxOptions
			}
			for j := range n {
				q.Options = append(q.Options, Option{Label: fmt.Sprintf("%d-%s", j, randText(r, 1, 20))})
			}
			q.MultiSelect = r.IntN(2) == 0
		}
		qs[i] = q
	}
	return normalizeQuestions(qs)
}

// randAnswers answers every question validly.
func randAnswers(r *rand.Rand, qs []Question) map[string]AnswerInput {
	out := map[string]AnswerInput{}
	for _, q := range qs {
		var a AnswerInput
		if len(q.Options) > 0 {
			picks := 1
			if q.MultiSelect {
				picks = r.IntN(len(q.Options) + 1) // 0 picks: the free text answers
				if !q.AllowCustom {
					picks = 1 + r.IntN(len(q.Options))
				}
			}
			for _, k := range r.Perm(len(q.Options))[:picks] {
				a.Selected = append(a.Selected, q.Options[k].Label)
			}
		}
		if q.AllowCustom && (len(a.Selected) == 0 || r.IntN(3) == 0) {
			a.Custom = randText(r, 1, 60)
		}
		out[q.Question] = a
	}
	return out
}

func TestPropertyValidAnswersGiveExactJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for run := range propertyRuns {
		qs := randQuestions(r)
		require.NoError(t, ValidateQuestions(qs), "run %d: generator made invalid questions", run)
		answers := randAnswers(r, qs)
		comments := ""
		if r.IntN(2) == 0 {
			comments = randText(r, 1, 80)
		}
		got, err := ValidateAnswers(qs, answers, comments)
		require.NoError(t, err, "run %d: valid answer refused\nquestions %+v\nanswers %+v", run, qs, answers)
		result := SubmitResult(got, comments)
		var decoded struct {
			Answers  map[string]string `json:"answers"`
			Comments *string           `json:"comments"`
		}
		require.NoError(t, json.Unmarshal([]byte(result), &decoded), "run %d: result is not JSON\n%s", run, result)
		var keys, texts []string
		for k := range decoded.Answers {
			keys = append(keys, k)
		}
		for _, q := range qs {
			texts = append(texts, q.Question)
			a := answers[q.Question]
			want := strings.Join(append(slices.Clone(a.Selected), nonEmpty(strings.TrimSpace(a.Custom))...), ", ")
			require.Equal(t, want, decoded.Answers[q.Question], "run %d: answer", run)
		}
		slices.Sort(keys)
		slices.Sort(texts)
		require.Equal(t, texts, keys, "run %d: answers keys, want exactly the question texts", run)
		if comments == "" {
			require.Nil(t, decoded.Comments, "run %d: comments present, want none", run)
		} else {
			require.NotNil(t, decoded.Comments, "run %d: comments missing, want %q", run, comments)
			require.Equal(t, comments, *decoded.Comments, "run %d: comments", run)
		}
	}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func TestPropertyForeignLabelRefused(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for run := 0; run < propertyRuns; run++ {
		qs := randQuestions(r)
		answers := randAnswers(r, qs)
		// Pick a question with options and slip in a label that is not one of them.
		i := r.IntN(len(qs))
		q := qs[i]
		foreign := randText(r, 1, 30)
		if slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == strings.TrimSpace(foreign) }) {
			continue
		}
		a := answers[q.Question]
		if q.MultiSelect {
			a.Selected = append(a.Selected, foreign)
		} else {
			a.Selected = []string{foreign}
		}
		answers[q.Question] = a
		_, err := ValidateAnswers(qs, answers, "")
		require.Equal(t, fault.Validation, fault.KindOf(err), "run %d: foreign label %q for %q accepted or misreported: %v", run, foreign, q.Question, err)
		require.Equal(t, q.Question, fault.As(err).Text.Args[0], "run %d: foreign label %q misreported: %v", run, foreign, err)
	}
}
