package questions

import "fmt"

// ToolDescription tells the model when and how to use ask_user_question.
// The limits come from limits.go so the text cannot drift from validation.
func ToolDescription() string {
	return fmt.Sprintf(`Ask the user clarifying questions and wait for the answers.
Use it before guessing: when there are several valid approaches and the user's preference matters (a design choice, a trade-off, missing requirements), ask instead of silently picking one. Do not use it for things you can find out yourself or for simple confirmations.

Limits: %d-%d questions per call. Each question: "question" of %d-%d characters, unique within the call; optional "header" (a short chip label, at most %d characters); "options" with %d-%d choices, each a "label" of %d-%d characters (unique within the question) and an optional "description" of at most %d characters, or no options at all for an open-ended question; "multiSelect" lets the user pick several options (needs options); "placeholder" (at most %d characters) is the hint shown in the free-text field.
Users can always type their own answer instead of picking an option (allowCustom, default true; set it to false only when the options are exhaustive).

The result is JSON {"answers":{"<question text>":"<answer>"}} (several selected options are joined with ", "), possibly with "comments". If the user declines or the question times out, proceed with your best judgement. If the user cancels, stop.

Not available to sub-agents.`,
		MinQuestions, MaxQuestions,
		MinQuestionLen, MaxQuestionLen, MaxHeaderLen,
		MinOptions, MaxOptions, MinLabelLen, MaxLabelLen, MaxDescriptionLen,
		MaxPlaceholderLen)
}

// ToolSchema is the JSON schema of the tool input (SPEC §1), built from the
// same limits as the validation. "0 or 2-4 options" cannot be said without
// anyOf, which several OpenAI-compatible servers reject, so the schema says
// 0-4 and the description and the validation carry the rest.
func ToolSchema() map[string]any {
	option := map[string]any{
		"type":     "object",
		"required": []string{"label"},
		"properties": map[string]any{
			"label": map[string]any{
				"type": "string", "minLength": MinLabelLen, "maxLength": MaxLabelLen,
				"description": "The choice shown to the user; unique within the question.",
			},
			"description": map[string]any{
				"type": "string", "maxLength": MaxDescriptionLen,
				"description": "Optional explanation of the choice or its trade-offs.",
			},
		},
	}
	question := map[string]any{
		"type":     "object",
		"required": []string{"question"},
		"properties": map[string]any{
			"question": map[string]any{
				"type": "string", "minLength": MinQuestionLen, "maxLength": MaxQuestionLen,
				"description": "The full question text; unique within the call.",
			},
			"header": map[string]any{
				"type": "string", "maxLength": MaxHeaderLen,
				"description": fmt.Sprintf("Very short label shown as a chip (at most %d characters).", MaxHeaderLen),
			},
			"options": map[string]any{
				"type": "array", "minItems": 0, "maxItems": MaxOptions, "items": option,
				"description": fmt.Sprintf("%d-%d choices, or none for an open-ended question.", MinOptions, MaxOptions),
			},
			"multiSelect": map[string]any{
				"type": "boolean", "default": false,
				"description": "Allow selecting several options (needs options).",
			},
			"allowCustom": map[string]any{
				"type": "boolean", "default": true,
				"description": "Let the user type their own answer (always true without options).",
			},
			"placeholder": map[string]any{
				"type": "string", "maxLength": MaxPlaceholderLen,
				"description": "Hint shown in the free-text field.",
			},
		},
	}
	return map[string]any{
		"type":     "object",
		"required": []string{"questions"},
		"properties": map[string]any{
			"questions": map[string]any{
				"type": "array", "minItems": MinQuestions, "maxItems": MaxQuestions, "items": question,
				"description": fmt.Sprintf("%d-%d questions shown together on one card.", MinQuestions, MaxQuestions),
			},
		},
	}
}
