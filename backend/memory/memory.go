// Package memory is what Parley remembers across conversations (SPEC §14):
// the Memory type, the text of a memory made from a card's answer, which
// conversations a memory applies to (its scope), the block of a run's
// system prompt that lists them, and the matching that answers a card from
// a memory (auto-answer). It holds no state: the store keeps the memories
// and the service decides when they are made and used.
package memory

import (
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/questions"
)

// MaxTextChars bounds a memory's text (characters, after trimming).
const MaxTextChars = 500

// Source types of a memory (SPEC §14).
const (
	// SourceAnswer: made from the user's answer to a card ("remember" on respond).
	SourceAnswer = "answer"
	// SourceUser: typed by the user.
	SourceUser = "user"
	// SourceModel: proposed by the model (the remember tool) and approved.
	SourceModel = "model"
)

// AnsweredBy is a card's answered_by when a memory answered it.
const AnsweredBy = "memory"

// Source says where a memory came from.
type Source struct {
	Type string `json:"type"`
	// ConversationID is the conversation of an answer or of the model that
	// proposed it ("" for the user's own); the conversation may since have
	// been deleted.
	ConversationID string `json:"conversationId,omitempty"`
	// QuestionID is the card an answer memory was made from.
	QuestionID string `json:"question_id,omitempty"`
}

// Answer is what a memory made from a card's answer keeps to answer the
// same question again: the question as asked, its option labels, and the
// answer as the user gave it.
type Answer struct {
	Question string                `json:"question"`
	Labels   []string              `json:"labels"`
	Input    questions.AnswerInput `json:"input"`
}

// Memory is one short fact Parley keeps.
type Memory struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Source Source `json:"source"`
	// ProjectID scopes the memory to one project's conversations; nil =
	// every conversation.
	ProjectID *string `json:"project_id"`
	// ScopeConversationID scopes the memory to one conversation: a memory
	// made from an answer to an agent's card (SPEC §10) applies only in
	// that agent's conversation, and only such a memory answers its cards.
	ScopeConversationID *string `json:"scope_conversation_id,omitempty"`
	// AutoAnswer lets the memory answer a later card with the same question
	// and options (answer memories only).
	AutoAnswer bool       `json:"auto_answer"`
	CreatedAt  time.Time  `json:"created_at"`
	UsedAt     *time.Time `json:"used_at"`
	// Answer is set for answer memories (not on the wire).
	Answer *Answer `json:"-"`
}

// Errors of CheckText.
var (
	ErrEmpty   = errors.New("a memory needs a text")
	ErrTooLong = errors.New("a memory's text is too long")
)

// CheckText trims a memory's text and checks its length: ErrEmpty, or
// ErrTooLong (n is the length found).
func CheckText(text string) (trimmed string, n int, err error) {
	trimmed = strings.TrimSpace(text)
	n = utf8.RuneCountInString(trimmed)
	switch {
	case n == 0:
		return "", 0, ErrEmpty
	case n > MaxTextChars:
		return "", n, ErrTooLong
	}
	return trimmed, n, nil
}

// FromAnswer is the memory of one answered question of a card:
// "<header>: <question> — <answer>" (without "<header>: " when the question
// has none), cut to MaxTextChars, where answer is the answer's text as the
// model got it (labels, then free text, joined with ", "). in is the answer
// as the user gave it, kept for auto-answer.
func FromAnswer(q questions.Question, in questions.AnswerInput, answer string) (string, Answer) {
	text := strings.TrimSpace(q.Question) + " — " + strings.TrimSpace(answer)
	if h := strings.TrimSpace(q.Header); h != "" {
		text = h + ": " + text
	}
	if utf8.RuneCountInString(text) > MaxTextChars {
		r := []rune(text)
		text = strings.TrimSpace(string(r[:MaxTextChars-1])) + "…"
	}
	sel := slices.Clone(in.Selected)
	if sel == nil {
		sel = []string{}
	}
	return text, Answer{Question: strings.TrimSpace(q.Question), Labels: Labels(q),
		Input: questions.AnswerInput{Selected: sel, Custom: strings.TrimSpace(in.Custom)}}
}

// Labels are a question's option labels as asked (trimmed).
func Labels(q questions.Question) []string {
	out := make([]string, len(q.Options))
	for i, o := range q.Options {
		out[i] = strings.TrimSpace(o.Label)
	}
	return out
}

// Scope is the conversation a memory may apply to: its id and its
// project's ("" = in no project).
type Scope struct {
	Conversation string
	Project      string
}

// InScope reports whether the memory applies to the conversation: one
// scoped to a conversation only there; else one without a project
// everywhere, one with a project only in that project.
func InScope(m Memory, sc Scope) bool {
	if m.ScopeConversationID != nil {
		return sc.Conversation != "" && *m.ScopeConversationID == sc.Conversation
	}
	return m.ProjectID == nil || sc.Project != "" && *m.ProjectID == sc.Project
}

// Scoped keeps the memories that apply to the conversation.
func Scoped(ms []Memory, sc Scope) []Memory {
	out := make([]Memory, 0, len(ms))
	for _, m := range ms {
		if InScope(m, sc) {
			out = append(out, m)
		}
	}
	return out
}

// ForAgentCard keeps the memories that may answer a card an agent filed
// in its conversation (SPEC §10): only those scoped to that conversation;
// a memory of every conversation or of a project never answers an agent.
func ForAgentCard(ms []Memory, conversationID string) []Memory {
	out := make([]Memory, 0, len(ms))
	for _, m := range ms {
		if m.ScopeConversationID != nil && conversationID != "" && *m.ScopeConversationID == conversationID {
			out = append(out, m)
		}
	}
	return out
}

// SameQuestion reports whether a memory's answer is for this question: the
// same question text and the same option labels, in any order (a model may
// shuffle the options; labels are unique within a question, so comparing
// them as sets is exact). Texts compare exactly after trimming, case
// included. A changed option list (one added, removed or renamed) is
// another question.
func SameQuestion(a Answer, q questions.Question) bool {
	return a.Question == strings.TrimSpace(q.Question) && SameLabels(a.Labels, Labels(q))
}

// SameLabels reports whether two lists of option labels hold the same
// labels, in any order.
func SameLabels(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Match answers a card's questions from memories: every question must be
// answered by an auto-answer memory made for the same question (see
// SameQuestion; the newest such memory wins), and the answers must still
// be valid for the questions as asked now (a single-select question that
// was multi-select, free text no longer allowed: asked again). It returns
// the answers by question text and the memory that answered each, in the
// questions' order; ok is false when the card must be asked.
func Match(ms []Memory, qs []questions.Question) (answers map[string]questions.AnswerInput, ids []string, ok bool) {
	if len(qs) == 0 {
		return nil, nil, false
	}
	answers = make(map[string]questions.AnswerInput, len(qs))
	for _, q := range qs {
		var best *Memory
		for i := range ms {
			m := &ms[i]
			if !m.AutoAnswer || m.Answer == nil || m.Source.Type != SourceAnswer || !SameQuestion(*m.Answer, q) {
				continue
			}
			if best == nil || m.CreatedAt.After(best.CreatedAt) || m.CreatedAt.Equal(best.CreatedAt) && m.ID > best.ID {
				best = m
			}
		}
		if best == nil {
			return nil, nil, false
		}
		answers[strings.TrimSpace(q.Question)] = questions.AnswerInput{Selected: slices.Clone(best.Answer.Input.Selected), Custom: best.Answer.Input.Custom}
		ids = append(ids, best.ID)
	}
	trimmed := make([]questions.Question, len(qs))
	for i, q := range qs {
		q.Question = strings.TrimSpace(q.Question)
		q.Options = slices.Clone(q.Options)
		for j := range q.Options {
			q.Options[j].Label = strings.TrimSpace(q.Options[j].Label)
		}
		if len(q.Options) == 0 {
			q.AllowCustom = true // as the card will have it
		}
		trimmed[i] = q
	}
	if _, err := questions.ValidateAnswers(trimmed, answers, ""); err != nil {
		return nil, nil, false
	}
	return answers, ids, true
}
