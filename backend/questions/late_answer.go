package questions

import (
	"fmt"
	"strings"
)

// A timed-out card answered anyway is posted to the conversation as a new
// user turn carrying the questions and answers (SPEC §1). The model reads it
// long after its own tool call ended, so the turn says plainly what it is.

// LateAnswerIntro opens a late-answer turn: in the user's voice, it tells
// the model these answer its own earlier questions, to use them now, and
// not to ask again.
const LateAnswerIntro = "Here are my answers to the questions you asked me earlier. " +
	"They came after your question had timed out, so you went ahead without them: " +
	"please use them now, changing your earlier reply where they matter, and don't ask these questions again."

// earlierLateAnswerIntros opened late-answer turns stored by earlier
// versions; such turns are still recognised.
var earlierLateAnswerIntros = []string{
	"Here are my answers to your earlier questions (they arrived after the question timed out):",
}

// LateAnswerText is the user turn that carries the late answer of c: the
// intro, then each question with its answer in the card's order, then the
// comments.
func LateAnswerText(c *Card) string { return lateAnswerText(LateAnswerIntro, c) }

func lateAnswerText(intro string, c *Card) string {
	var b strings.Builder
	b.WriteString(intro)
	b.WriteString("\n")
	for _, q := range c.Questions {
		fmt.Fprintf(&b, "\nQ: %s\nA: %s\n", q.Question, c.Answers[q.Question])
	}
	if c.Comments != "" {
		fmt.Fprintf(&b, "\nComments: %s\n", c.Comments)
	}
	return b.String()
}

// IsLateAnswerTurn reports whether content is the user turn posted for the
// late answer of c, in this version's wording or an earlier one.
func IsLateAnswerTurn(c *Card, content string) bool {
	if content == LateAnswerText(c) {
		return true
	}
	for _, intro := range earlierLateAnswerIntros {
		if content == lateAnswerText(intro, c) {
			return true
		}
	}
	return false
}

// LateAnswer is a late answer read back from its user turn.
type LateAnswer struct {
	Items    []LateAnswerItem // in the order of the card's questions
	Comments string
}

// LateAnswerItem is one question of a late answer with its answer.
type LateAnswerItem struct {
	Question string
	Answer   string
}

// ParseLateAnswer reads a late-answer turn back from its text (the demo
// model has nothing else to go on); ok is false for any other text.
func ParseLateAnswer(text string) (la LateAnswer, ok bool) {
	body, found := "", false
	for _, intro := range append([]string{LateAnswerIntro}, earlierLateAnswerIntros...) {
		if body, found = strings.CutPrefix(text, intro+"\n"); found {
			break
		}
	}
	if !found {
		return LateAnswer{}, false
	}
	body = "\n" + strings.TrimSuffix(body, "\n")
	if i := strings.LastIndex(body, "\n\nComments: "); i >= 0 {
		la.Comments = body[i+len("\n\nComments: "):]
		body = body[:i]
	}
	for _, block := range strings.Split(body, "\n\nQ: ")[1:] {
		q, a, found := strings.Cut(block, "\nA: ")
		if !found {
			return LateAnswer{}, false
		}
		la.Items = append(la.Items, LateAnswerItem{Question: q, Answer: a})
	}
	return la, len(la.Items) > 0
}
