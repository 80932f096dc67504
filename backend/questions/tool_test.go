package questions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolSchemaUsesTheLimits(t *testing.T) {
	raw, err := json.Marshal(ToolSchema())
	require.NoError(t, err, "marshal schema")
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
	require.NoError(t, json.Unmarshal(raw, &s), "unmarshal schema")
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
		assert.Equal(t, c.want, c.got, c.what)
	}
	assert.Equal(t, "questions", strings.Join(s.Required, ","), "required fields wrong: %s", raw)
	assert.Equal(t, "question", strings.Join(q.Items.Required, ","), "required fields wrong: %s", raw)
	assert.Equal(t, "label", strings.Join(p.Options.Items.Required, ","), "required fields wrong: %s", raw)
	assert.False(t, p.MultiSelect.Default, "multiSelect default wrong")
	assert.True(t, p.AllowCustom.Default, "allowCustom default wrong")
}

func TestToolDescription(t *testing.T) {
	d := ToolDescription()
	for _, want := range []string{
		"several valid approaches", "preference matters", "before guessing",
		"1-4 questions", "2-4 choices", "at most 12 characters", "own answer", "Not available to sub-agents",
	} {
		assert.Contains(t, d, want, "description lacks %q", want)
	}
	assert.Equal(t, "ask_user_question", ToolName)
}
