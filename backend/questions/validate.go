package questions

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// normalizeQuestions returns a deep copy with text trimmed, options never nil
// and allowCustom forced on for open-ended questions (a question without
// options must accept free text or it could not be answered).
func normalizeQuestions(qs []Question) []Question {
	out := make([]Question, len(qs))
	for i, q := range qs {
		q.Question = strings.TrimSpace(q.Question)
		q.Header = strings.TrimSpace(q.Header)
		q.Placeholder = strings.TrimSpace(q.Placeholder)
		opts := make([]Option, len(q.Options))
		for j, o := range q.Options {
			opts[j] = Option{Label: strings.TrimSpace(o.Label), Description: strings.TrimSpace(o.Description)}
		}
		q.Options = opts
		if len(opts) == 0 {
			q.AllowCustom = true
		}
		out[i] = q
	}
	return out
}

// chars counts characters the way the limits mean them: code points of the
// trimmed text.
func chars(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }

// ValidateQuestions checks questions against the limits of SPEC §1. It is run
// on every card, whether it came from ParseInput or straight from Create.
// Errors are inputErr's, naming the field (0-based indexes).
func ValidateQuestions(qs []Question) error {
	if n := len(qs); n < MinQuestions || n > MaxQuestions {
		return inputErr("questions", "questions.rule.count", MinQuestions, MaxQuestions, n)
	}
	seenQuestion := make(map[string]int, len(qs))
	for i, q := range qs {
		path := fmt.Sprintf("questions[%d]", i)
		if n := chars(q.Question); n < MinQuestionLen || n > MaxQuestionLen {
			return inputErr(path+".question", "questions.rule.length", MinQuestionLen, MaxQuestionLen, n)
		}
		key := strings.TrimSpace(q.Question)
		if j, dup := seenQuestion[key]; dup {
			return inputErr(path+".question", "questions.rule.unique", j)
		}
		seenQuestion[key] = i
		if n := chars(q.Header); n > MaxHeaderLen {
			return inputErr(path+".header", "questions.rule.atMost", MaxHeaderLen, n)
		}
		if n := chars(q.Placeholder); n > MaxPlaceholderLen {
			return inputErr(path+".placeholder", "questions.rule.atMost", MaxPlaceholderLen, n)
		}
		if err := validateOptions(q, path); err != nil {
			return err
		}
	}
	return nil
}

func validateOptions(q Question, path string) error {
	n := len(q.Options)
	if n == 0 {
		if q.MultiSelect {
			return inputErr(path+".multiSelect", "questions.rule.multiOpen")
		}
		if !q.AllowCustom {
			return inputErr(path+".allowCustom", "questions.rule.customOpen")
		}
		return nil
	}
	if n < MinOptions || n > MaxOptions {
		return inputErr(path+".options", "questions.rule.count", MinOptions, MaxOptions, n)
	}
	seenLabel := make(map[string]int, n)
	for j, o := range q.Options {
		p := fmt.Sprintf("%s.options[%d]", path, j)
		if c := chars(o.Label); c < MinLabelLen || c > MaxLabelLen {
			return inputErr(p+".label", "questions.rule.length", MinLabelLen, MaxLabelLen, c)
		}
		label := strings.TrimSpace(o.Label)
		if k, dup := seenLabel[label]; dup {
			return inputErr(p+".label", "questions.rule.labelUnique", label, path, k)
		}
		seenLabel[label] = j
		if c := chars(o.Description); c > MaxDescriptionLen {
			return inputErr(p+".description", "questions.rule.atMost", MaxDescriptionLen, c)
		}
	}
	return nil
}
