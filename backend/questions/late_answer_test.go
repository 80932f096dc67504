package questions

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lateCard() *Card {
	return &Card{
		Questions: []Question{
			{Question: "What tone should the letter have?", Options: []Option{{Label: "Warm"}, {Label: "Formal"}}},
			{Question: "How long should it be?", Options: []Option{{Label: "Short"}, {Label: "One page"}}},
			{Question: "Anything else?", AllowCustom: true},
		},
		Answers:  map[string]string{"What tone should the letter have?": "Formal", "How long should it be?": "Short, One page", "Anything else?": "Mention Lisbon"},
		Comments: "Thanks!",
	}
}

// The late-answer turn tells a model what it is: the answers to its own
// earlier questions, to be used now, not asked again; then each question
// with its answer in the card's order.
func TestLateAnswerTextSaysWhatItIs(t *testing.T) {
	text := LateAnswerText(lateCard())
	intro, body, found := strings.Cut(text, "\n")
	require.True(t, found)
	for _, want := range []string{"my answers to the questions you asked", "timed out", "use them now", "don't ask these questions again"} {
		assert.Contains(t, intro, want)
	}
	assert.Equal(t, "\nQ: What tone should the letter have?\nA: Formal\n"+
		"\nQ: How long should it be?\nA: Short, One page\n"+
		"\nQ: Anything else?\nA: Mention Lisbon\n"+
		"\nComments: Thanks!\n", body)
}

func TestParseLateAnswerReadsTheTurnBack(t *testing.T) {
	c := lateCard()
	for name, text := range map[string]string{
		"current": LateAnswerText(c),
		"earlier": lateAnswerText(earlierLateAnswerIntros[0], c),
	} {
		la, ok := ParseLateAnswer(text)
		require.True(t, ok, name)
		assert.Equal(t, []LateAnswerItem{
			{"What tone should the letter have?", "Formal"},
			{"How long should it be?", "Short, One page"},
			{"Anything else?", "Mention Lisbon"},
		}, la.Items, name)
		assert.Equal(t, "Thanks!", la.Comments, name)
		assert.True(t, IsLateAnswerTurn(c, text), name)
	}
	c.Comments = ""
	la, ok := ParseLateAnswer(LateAnswerText(c))
	require.True(t, ok)
	assert.Len(t, la.Items, 3)
	assert.Empty(t, la.Comments)

	for _, other := range []string{"", "Write a cover letter", "Q: What?\nA: That", LateAnswerIntro, LateAnswerIntro + "\nno questions here"} {
		_, ok := ParseLateAnswer(other)
		assert.False(t, ok, "%q is not a late answer", other)
		assert.False(t, IsLateAnswerTurn(lateCard(), other))
	}
}
