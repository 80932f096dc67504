package questions

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolSchemaUsesTheLimits(t *testing.T) {
	raw, err := json.Marshal(ToolSchema())
	if err != nil {
		t.Fatalf("marshal schema: %v", err)
	}
	var s struct {
		Required   []string
		Properties struct {
			Questions struct {
				MinItems, MaxItems int
				Items              struct {
					Required   []string
					Properties struct {
						Question    struct{ MinLength, MaxLength int }
						Header      struct{ MaxLength int }
						Placeholder struct{ MaxLength int }
						MultiSelect struct{ Default bool }
						AllowCustom struct{ Default bool }
						Options     struct {
							MaxItems int
							Items    struct {
								Required   []string
								Properties struct {
									Label       struct{ MinLength, MaxLength int }
									Description struct{ MaxLength int }
								}
							}
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("unmarshal schema: %v", err)
	}
	q := s.Properties.Questions
	p := q.Items.Properties
	checks := []struct {
		what      string
		got, want int
	}{
		{"questions.minItems", q.MinItems, MinQuestions},
		{"questions.maxItems", q.MaxItems, MaxQuestions},
		{"question.minLength", p.Question.MinLength, MinQuestionLen},
		{"question.maxLength", p.Question.MaxLength, MaxQuestionLen},
		{"header.maxLength", p.Header.MaxLength, MaxHeaderLen},
		{"placeholder.maxLength", p.Placeholder.MaxLength, MaxPlaceholderLen},
		{"options.maxItems", p.Options.MaxItems, MaxOptions},
		{"label.minLength", p.Options.Items.Properties.Label.MinLength, MinLabelLen},
		{"label.maxLength", p.Options.Items.Properties.Label.MaxLength, MaxLabelLen},
		{"description.maxLength", p.Options.Items.Properties.Description.MaxLength, MaxDescriptionLen},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
		}
	}
	if strings.Join(s.Required, ",") != "questions" || strings.Join(q.Items.Required, ",") != "question" ||
		strings.Join(p.Options.Items.Required, ",") != "label" {
		t.Errorf("required fields wrong: %s", raw)
	}
	if p.MultiSelect.Default || !p.AllowCustom.Default {
		t.Errorf("defaults wrong: multiSelect=%v allowCustom=%v", p.MultiSelect.Default, p.AllowCustom.Default)
	}
}

func TestToolDescription(t *testing.T) {
	d := ToolDescription()
	for _, want := range []string{
		"several valid approaches", "preference matters", "before guessing",
		"1-4 questions", "2-4 choices", "at most 12 characters", "own answer", "Not available to sub-agents",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q:\n%s", want, d)
		}
	}
	if ToolName != "ask_user_question" {
		t.Errorf("ToolName = %q", ToolName)
	}
}
