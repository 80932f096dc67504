package questions

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// An answer that breaks the rules of SPEC §1 is a *fault.Error of kind
// fault.Validation (the card stays pending; the HTTP API answers 422). Its
// Text, from the catalogue, names the question; the user reads it in their
// language.

// answerErr is an answer's fault whose reason is the catalogue message key
// (numbers are passed as strings: written as fmt writes them, in every
// language, the English text as it always read). question is the question
// the problem is about; "" for the whole card.
func answerErr(question, key string, args ...any) error {
	if question == "" {
		return fault.New(fault.Validation, i18n.M("questions.answer.invalid", i18n.M(key, args...)))
	}
	return fault.New(fault.Validation, i18n.M("questions.answer.invalidTo", question, i18n.M(key, args...)))
}

// protocolErr is an answer's fault only a client of the API can cause (the
// window never sends it): said in English.
func protocolErr(format string, args ...any) error {
	return fault.Newf(fault.Validation, "invalid answer: "+format, args...)
}

// ValidateAnswers checks the user's answers against the card's questions,
// whatever the UI allowed, and returns the answer text per question: the
// selected labels (in the order given) then the trimmed free text, joined
// with ", ". Errors are of kind fault.Validation.
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
