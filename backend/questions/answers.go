package questions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parley-app/parley/backend/i18n"
)

// ValidationError is a user answer that breaks the rules of SPEC §1. The
// card stays pending; the HTTP API maps it to 422. Msg is the whole text
// (naming the question) in English; Question and Reason are its parts.
// Text is the same from the catalogue: the user reads it in their language
// (Error in the window's, Localized for an HTTP client's).
type ValidationError struct {
	Msg      string // e.g. `invalid answer to "Which database?": "Oracle" is not one of its options`
	Question string // the question text the problem is about; "" for the whole card
	Reason   string
	Text     i18n.Message
}

func (e *ValidationError) Error() string {
	if e.Text.Key != "" {
		return e.Text.String()
	}
	if e.Msg != "" {
		return e.Msg
	}
	if e.Question == "" {
		return "invalid answer: " + e.Reason
	}
	return fmt.Sprintf("invalid answer to %q: %s", e.Question, e.Reason)
}

// Localized is the catalogue message (empty for a request no user makes).
func (e *ValidationError) Localized() i18n.Message { return e.Text }

// answerErr is a ValidationError whose reason is the catalogue message key
// (numbers are passed as strings: written as fmt writes them, in every
// language, the English text as it always read).
func answerErr(question, key string, args ...any) *ValidationError {
	e := &ValidationError{Question: question, Reason: fmt.Sprintf(i18n.Source(key), args...)}
	e.Msg = e.Error()
	if question == "" {
		e.Text = i18n.M("questions.answer.invalid", i18n.M(key, args...))
	} else {
		e.Text = i18n.M("questions.answer.invalidTo", question, i18n.M(key, args...))
	}
	return e
}

// protocolErr is a ValidationError only a client of the API can cause (the
// window never sends it): said in English.
func protocolErr(format string, args ...any) *ValidationError {
	e := &ValidationError{Reason: fmt.Sprintf(format, args...)}
	e.Msg = e.Error()
	return e
}

// ValidateAnswers checks the user's answers against the card's questions,
// whatever the UI allowed, and returns the answer text per question: the
// selected labels (in the order given) then the trimmed free text, joined
// with ", ". Errors are *ValidationError.
func ValidateAnswers(qs []Question, answers map[string]AnswerInput, comments string) (map[string]string, error) {
	if n := chars(comments); n > MaxCommentsLen {
		return nil, answerErr("", "questions.answer.commentsTooLong", strconv.Itoa(MaxCommentsLen), strconv.Itoa(n))
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
		return nil, answerErr("", "questions.answer.noSuchQuestion", unknown[0])
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
		return "", answerErr(q.Question, "questions.answer.onlyOne", strconv.Itoa(len(a.Selected)))
	}
	parts := make([]string, 0, len(a.Selected)+1)
	for _, sel := range a.Selected {
		label := strings.TrimSpace(sel)
		if !slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == label }) {
			return "", answerErr(q.Question, "questions.answer.notAnOption", sel)
		}
		if slices.Contains(parts, label) {
			return "", answerErr(q.Question, "questions.answer.selectedTwice", label)
		}
		parts = append(parts, label)
	}
	if custom := strings.TrimSpace(a.Custom); custom != "" {
		if !q.AllowCustom {
			return "", answerErr(q.Question, "questions.answer.noFreeText")
		}
		if n := chars(custom); n < MinCustomLen || n > MaxCustomLen {
			return "", answerErr(q.Question, "questions.answer.freeTextLength", strconv.Itoa(MinCustomLen), strconv.Itoa(MaxCustomLen), strconv.Itoa(n))
		}
		parts = append(parts, custom)
	}
	if len(parts) == 0 {
		if len(q.Options) == 0 {
			return "", answerErr(q.Question, "questions.answer.typeOne")
		}
		return "", answerErr(q.Question, "questions.answer.required")
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
