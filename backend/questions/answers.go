package questions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ValidationError is a user answer that breaks the rules of SPEC §1. The
// card stays pending; the HTTP API maps it to 422. Msg is the whole text
// (naming the question); Question and Reason are its parts.
type ValidationError struct {
	Msg      string // e.g. `invalid answer to "Which database?": "Oracle" is not one of its options`
	Question string // the question text the problem is about; "" for the whole card
	Reason   string
}

func (e *ValidationError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Question == "" {
		return "invalid answer: " + e.Reason
	}
	return fmt.Sprintf("invalid answer to %q: %s", e.Question, e.Reason)
}

func answerErr(question, format string, args ...any) *ValidationError {
	e := &ValidationError{Question: question, Reason: fmt.Sprintf(format, args...)}
	e.Msg = e.Error()
	return e
}

// ValidateAnswers checks the user's answers against the card's questions,
// whatever the UI allowed, and returns the answer text per question: the
// selected labels (in the order given) then the trimmed free text, joined
// with ", ". Errors are *ValidationError.
func ValidateAnswers(qs []Question, answers map[string]AnswerInput, comments string) (map[string]string, error) {
	if n := chars(comments); n > MaxCommentsLen {
		return nil, answerErr("", "comments must be at most %d characters (got %d)", MaxCommentsLen, n)
	}
	known := make(map[string]bool, len(qs))
	for _, q := range qs {
		known[q.Question] = true
	}
	unknown := make([]string, 0)
	for text := range answers {
		if !known[text] {
			unknown = append(unknown, text)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, answerErr("", "there is no question %q on this card", unknown[0])
	}

	out := make(map[string]string, len(qs))
	for _, q := range qs {
		text, err := answerText(q, answers[q.Question])
		if err != nil {
			return nil, err
		}
		out[q.Question] = text
	}
	return out, nil
}

func answerText(q Question, a AnswerInput) (string, error) {
	if !q.MultiSelect && len(a.Selected) > 1 {
		return "", answerErr(q.Question, "only one option may be selected (got %d)", len(a.Selected))
	}
	parts := make([]string, 0, len(a.Selected)+1)
	for _, sel := range a.Selected {
		label := strings.TrimSpace(sel)
		if !slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == label }) {
			return "", answerErr(q.Question, "%q is not one of its options", sel)
		}
		if slices.Contains(parts, label) {
			return "", answerErr(q.Question, "%q is selected more than once", label)
		}
		parts = append(parts, label)
	}
	if custom := strings.TrimSpace(a.Custom); custom != "" {
		if !q.AllowCustom {
			return "", answerErr(q.Question, "free text is not allowed; pick one of the options")
		}
		if n := chars(custom); n < MinCustomLen || n > MaxCustomLen {
			return "", answerErr(q.Question, "free text must be %d-%d characters (got %d)", MinCustomLen, MaxCustomLen, n)
		}
		parts = append(parts, custom)
	}
	if len(parts) == 0 {
		if len(q.Options) == 0 {
			return "", answerErr(q.Question, "an answer is required; type one")
		}
		return "", answerErr(q.Question, "an answer is required; select an option or type one")
	}
	return strings.Join(parts, ", "), nil
}

// submitPayload is the exact shape of the submit tool result.
type submitPayload struct {
	Answers  map[string]string `json:"answers"`
	Comments string            `json:"comments,omitempty"`
}

// SubmitResult is the tool result for a submitted card:
// {"answers":{"<question text>":"<answer>",...}} plus "comments" only when
// given. HTML characters are kept as they are (the model reads text, not a
// web page); keys come out sorted, as encoding/json writes maps.
func SubmitResult(answers map[string]string, comments string) string {
	p := submitPayload{Answers: answers, Comments: strings.TrimSpace(comments)}
	if p.Answers == nil {
		p.Answers = map[string]string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		// Cannot happen for map[string]string; keep the result well-formed anyway.
		return `{"answers":{}}`
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
