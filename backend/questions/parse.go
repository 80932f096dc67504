package questions

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// A tool input the model got wrong is a *fault.Error of kind
// fault.Validation. Its Msg is the tool result the model receives, naming
// the field and the rule so it can retry, e.g. "invalid input:
// questions[1].options must have 2-4 items (got 5)": always English, as
// every text for the model. Its Text is the same message from the
// catalogue, which an agent's person reads in their language.

// inputErr names the field (e.g. "questions[1].options"; "arguments" for
// the whole input) and the rule (a catalogue key).
func inputErr(field, rule string, args ...any) error {
	return &fault.Error{Kind: fault.Validation,
		Msg:  "invalid input: " + field + " " + fmt.Sprintf(i18n.Source(rule), args...),
		Text: i18n.M("questions.invalid", field, i18n.M(rule, args...))}
}

// ParseInput decodes the model's tool arguments into validated, normalized
// questions. It is strict about the limits and lenient where that is safe:
// unknown fields are ignored, options may be plain strings, the
// single-question form {"question","options","allowCustom","customPlaceholder"}
// is accepted, a "questions" array sent as a JSON string is decoded, and
// booleans sent as "true"/"false" are accepted. allowCustom defaults to true.
// Errors are inputErr's.
func ParseInput(raw []byte) ([]Question, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, inputErr("arguments", "questions.rule.argsMissing")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		if !json.Valid(raw) {
			return nil, inputErr("arguments", "questions.rule.argsNotJSON", err.Error())
		}
		return nil, inputErr("arguments", "questions.rule.argsNotObject")
	}
	if top == nil { // the literal null
		return nil, inputErr("arguments", "questions.rule.argsNotObject")
	}

	var qs []Question
	switch {
	case present(top["questions"]):
		items, err := decodeQuestionList(top["questions"])
		if err != nil {
			return nil, err
		}
		qs = make([]Question, 0, len(items))
		for i, item := range items {
			q, err := decodeQuestion(item, fmt.Sprintf("questions[%d]", i))
			if err != nil {
				return nil, err
			}
			qs = append(qs, q)
		}
	case present(top["question"]):
		// Single-question form: the object itself is the one question.
		q, err := decodeQuestionObject(top, "questions[0]")
		if err != nil {
			return nil, err
		}
		qs = []Question{q}
	default:
		return nil, inputErr("questions", "questions.rule.questionsRequired", MinQuestions, MaxQuestions)
	}

	qs = normalizeQuestions(qs)
	if err := ValidateQuestions(qs); err != nil {
		return nil, err
	}
	return qs, nil
}

// present reports whether a field was sent with a non-null value.
func present(v json.RawMessage) bool {
	return len(v) > 0 && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// decodeQuestionList accepts an array, or an array encoded as a JSON string
// (some models double-encode nested arguments).
func decodeQuestionList(v json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err == nil {
		return items, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		if err := json.Unmarshal([]byte(s), &items); err == nil {
			return items, nil
		}
	}
	return nil, inputErr("questions", "questions.rule.questionsArray", MinQuestions, MaxQuestions)
}

func decodeQuestion(v json.RawMessage, path string) (Question, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		// A bare string is an open-ended question.
		return Question{Question: s, AllowCustom: true}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
		return Question{}, inputErr(path, "questions.rule.questionObject")
	}
	return decodeQuestionObject(obj, path)
}

func decodeQuestionObject(obj map[string]json.RawMessage, path string) (Question, error) {
	var q Question
	var err error
	text, ok, err := stringField(obj, "question", path)
	if err != nil {
		return q, err
	}
	if !ok {
		return q, inputErr(path+".question", "questions.rule.required", MinQuestionLen, MaxQuestionLen)
	}
	q.Question = text
	if q.Header, _, err = stringField(obj, "header", path); err != nil {
		return q, err
	}
	// "customPlaceholder" is the single-question form's name for placeholder.
	if q.Placeholder, ok, err = stringField(obj, "placeholder", path); err != nil {
		return q, err
	} else if !ok {
		if q.Placeholder, _, err = stringField(obj, "customPlaceholder", path); err != nil {
			return q, err
		}
	}
	multi, err := boolField(obj, "multiSelect", path)
	if err != nil {
		return q, err
	}
	q.MultiSelect = multi != nil && *multi
	custom, err := boolField(obj, "allowCustom", path)
	if err != nil {
		return q, err
	}
	q.AllowCustom = custom == nil || *custom
	q.Options, err = decodeOptions(obj["options"], path+".options")
	return q, err
}

func decodeOptions(v json.RawMessage, path string) ([]Option, error) {
	if !present(v) {
		return []Option{}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, inputErr(path, "questions.rule.optionsArray", MinOptions, MaxOptions)
	}
	opts := make([]Option, 0, len(items))
	for i, item := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		var label string
		if err := json.Unmarshal(item, &label); err == nil {
			opts = append(opts, Option{Label: label})
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(item, &obj); err != nil || obj == nil {
			return nil, inputErr(p, "questions.rule.optionShape")
		}
		label, ok, err := stringField(obj, "label", p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, inputErr(p+".label", "questions.rule.required", MinLabelLen, MaxLabelLen)
		}
		desc, _, err := stringField(obj, "description", p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, Option{Label: label, Description: desc})
	}
	return opts, nil
}

// stringField reads an optional string field; null counts as absent.
func stringField(obj map[string]json.RawMessage, key, path string) (string, bool, error) {
	v, ok := obj[key]
	if !ok || !present(v) {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, inputErr(path+"."+key, "questions.rule.string")
	}
	return s, true, nil
}

// boolField reads an optional boolean; nil means absent so defaults apply.
func boolField(obj map[string]json.RawMessage, key, path string) (*bool, error) {
	v, ok := obj[key]
	if !ok || !present(v) {
		return nil, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err == nil {
		return &b, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		switch s {
		case "true":
			b = true
			return &b, nil
		case "false":
			return &b, nil
		}
	}
	return nil, inputErr(path+"."+key, "questions.rule.boolean")
}
