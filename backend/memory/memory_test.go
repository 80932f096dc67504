package memory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/questions"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func langQuestion(labels ...string) questions.Question {
	q := questions.Question{Question: "Which language should I use?", Header: "Language", AllowCustom: true}
	for _, l := range labels {
		q.Options = append(q.Options, questions.Option{Label: l})
	}
	return q
}

func TestCheckText(t *testing.T) {
	got, _, err := CheckText("  likes tea  ")
	require.NoError(t, err)
	assert.Equal(t, "likes tea", got, "trimmed")
	_, _, err = CheckText(" \n ")
	assert.ErrorIs(t, err, ErrEmpty, "blank")
	_, _, err = CheckText(strings.Repeat("é", MaxTextChars))
	assert.NoError(t, err, "500 characters (not bytes) fit")
	_, n, err := CheckText(strings.Repeat("é", MaxTextChars+1))
	assert.ErrorIs(t, err, ErrTooLong, "501 characters")
	assert.Equal(t, MaxTextChars+1, n, "the length found")
}

func TestFromAnswerText(t *testing.T) {
	q := langQuestion("Go", "Rust")
	text, a := FromAnswer(q, questions.AnswerInput{Selected: []string{"Go"}, Custom: " with generics "}, "Go, with generics")
	assert.Equal(t, "Language: Which language should I use? — Go, with generics", text)
	assert.Equal(t, Answer{Question: q.Question, Labels: []string{"Go", "Rust"},
		Input: questions.AnswerInput{Selected: []string{"Go"}, Custom: "with generics"}}, a)

	q.Header = ""
	text, _ = FromAnswer(q, questions.AnswerInput{Selected: []string{"Rust"}}, "Rust")
	assert.Equal(t, "Which language should I use? — Rust", text, "no header, no colon")

	long := questions.Question{Question: strings.Repeat("q", 400)}
	text, _ = FromAnswer(long, questions.AnswerInput{Custom: strings.Repeat("a", 300)}, strings.Repeat("a", 300))
	_, n, err := CheckText(text)
	require.NoError(t, err, "a long question and answer are cut to fit")
	assert.Equal(t, MaxTextChars, n)
	assert.True(t, strings.HasSuffix(text, "…"), "the cut is shown")
}

func TestScope(t *testing.T) {
	global := Memory{ID: "g"}
	inA := Memory{ID: "a", ProjectID: ptr("proj-a")}
	inB := Memory{ID: "b", ProjectID: ptr("proj-b")}
	agent := Memory{ID: "agent", ScopeConversationID: ptr("conv-agent")}
	all := []Memory{global, inA, inB, agent}

	ids := func(ms []Memory) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	assert.Equal(t, []string{"g"}, ids(Scoped(all, Scope{Conversation: "c1"})), "a conversation in no project: global memories only")
	assert.Equal(t, []string{"g", "a"}, ids(Scoped(all, Scope{Conversation: "c1", Project: "proj-a"})), "a project's conversation: global and its project's")
	assert.Equal(t, []string{"g", "b"}, ids(Scoped(all, Scope{Project: "proj-b"})))
	assert.Equal(t, []string{"g"}, ids(Scoped(all, Scope{Project: "proj-c"})), "another project's memories never apply")
	assert.Equal(t, []string{"g", "agent"}, ids(Scoped(all, Scope{Conversation: "conv-agent"})), "a conversation's own memory applies there")

	// An agent's card: only the memory of its own conversation may answer it.
	assert.Equal(t, []string{"agent"}, ids(ForAgentCard(all, "conv-agent")))
	assert.Empty(t, ForAgentCard(all, "conv-other"), "another agent's conversation: none")
	assert.Empty(t, ForAgentCard(all, ""))
}

func answerMemory(id string, created time.Time, q questions.Question, in questions.AnswerInput) Memory {
	text, a := FromAnswer(q, in, strings.Join(in.Selected, ", "))
	return Memory{ID: id, Text: text, Source: Source{Type: SourceAnswer}, AutoAnswer: true, CreatedAt: created, Answer: &a}
}

func TestMatchNeedsTheSameQuestionAndOptions(t *testing.T) {
	asked := langQuestion("Go", "Rust", "Zig")
	m := answerMemory("m1", t0, asked, questions.AnswerInput{Selected: []string{"Rust"}})
	ms := []Memory{m}

	answers, ids, ok := Match(ms, []questions.Question{asked})
	require.True(t, ok, "the same question and options")
	assert.Equal(t, []string{"Rust"}, answers[asked.Question].Selected)
	assert.Equal(t, []string{"m1"}, ids)

	_, _, ok = Match(ms, []questions.Question{langQuestion("Zig", "Go", "Rust")})
	assert.True(t, ok, "the options in another order are the same options")

	for name, q := range map[string]questions.Question{
		"an option added":   langQuestion("Go", "Rust", "Zig", "C"),
		"an option removed": langQuestion("Go", "Rust"),
		"an option renamed": langQuestion("Go", "Rust", "Odin"),
		"a label's case":    langQuestion("go", "Rust", "Zig"),
		"another question":  {Question: "Which language should I use now?", Options: asked.Options},
	} {
		_, _, ok := Match(ms, []questions.Question{q})
		assert.False(t, ok, "%s: asked again", name)
	}

	off := m
	off.AutoAnswer = false
	_, _, ok = Match([]Memory{off}, []questions.Question{asked})
	assert.False(t, ok, "a memory without auto_answer never answers")

	typed := m
	typed.Source = Source{Type: SourceUser}
	_, _, ok = Match([]Memory{typed}, []questions.Question{asked})
	assert.False(t, ok, "only answer memories answer")
}

func TestMatchNeedsEveryQuestionAndAValidAnswer(t *testing.T) {
	lang := langQuestion("Go", "Rust")
	tabs := questions.Question{Question: "Tabs or spaces?", Options: []questions.Option{{Label: "Tabs"}, {Label: "Spaces"}}}
	ms := []Memory{answerMemory("m1", t0, lang, questions.AnswerInput{Selected: []string{"Go"}})}
	_, _, ok := Match(ms, []questions.Question{lang, tabs})
	assert.False(t, ok, "one question of the card has no memory: the card is asked")

	ms = append(ms, answerMemory("m2", t0, tabs, questions.AnswerInput{Selected: []string{"Spaces"}}))
	answers, ids, ok := Match(ms, []questions.Question{lang, tabs})
	require.True(t, ok, "every question answered")
	assert.Equal(t, []string{"m1", "m2"}, ids, "in the questions' order")
	assert.Len(t, answers, 2)

	multi := langQuestion("Go", "Rust")
	multi.MultiSelect = true
	two := answerMemory("m3", t0, multi, questions.AnswerInput{Selected: []string{"Go", "Rust"}})
	_, _, ok = Match([]Memory{two}, []questions.Question{langQuestion("Go", "Rust")})
	assert.False(t, ok, "two labels no longer fit a single-select question: asked again")

	custom := answerMemory("m4", t0, lang, questions.AnswerInput{Custom: "Python"})
	strict := langQuestion("Go", "Rust")
	strict.AllowCustom = false
	_, _, ok = Match([]Memory{custom}, []questions.Question{strict})
	assert.False(t, ok, "free text no longer allowed: asked again")
}

func TestMatchTakesTheNewestMemory(t *testing.T) {
	q := langQuestion("Go", "Rust")
	ms := []Memory{
		answerMemory("old", t0, q, questions.AnswerInput{Selected: []string{"Go"}}),
		answerMemory("new", t0.Add(time.Hour), q, questions.AnswerInput{Selected: []string{"Rust"}}),
	}
	answers, ids, ok := Match(ms, []questions.Question{q})
	require.True(t, ok)
	assert.Equal(t, []string{"new"}, ids)
	assert.Equal(t, []string{"Rust"}, answers[q.Question].Selected)
}

func TestPromptListsNewestUsedFirst(t *testing.T) {
	ms := []Memory{
		{ID: "a", Text: "made first, used last", CreatedAt: t0, UsedAt: ptr(t0.Add(3 * time.Hour))},
		{ID: "b", Text: "made second, never used", CreatedAt: t0.Add(time.Hour)},
		{ID: "c", Text: "made third, used before b was made", CreatedAt: t0.Add(2 * time.Hour), UsedAt: ptr(t0.Add(30 * time.Minute))},
	}
	text, ids := Prompt(ms, "hello", PromptBudget, nil)
	assert.Equal(t, []string{"a", "b", "c"}, ids)
	assert.Equal(t, PromptIntro+"\n- made first, used last\n- made second, never used\n- made third, used before b was made", text)

	text, ids = Prompt(nil, "hello", PromptBudget, nil)
	assert.Empty(t, text, "no memories, no block")
	assert.Empty(t, ids)

	text, _ = Prompt([]Memory{{ID: "x", Text: "two\nlines", CreatedAt: t0}}, "", PromptBudget, nil)
	assert.Equal(t, PromptIntro+"\n- two lines", text, "a memory stays on its line")
}

func TestPromptKeepsToTheBudgetAndPicksNearestPastIt(t *testing.T) {
	var ms []Memory
	for i := range 300 {
		ms = append(ms, Memory{ID: fmt.Sprintf("m%03d", i), Text: fmt.Sprintf("Filler fact number %d about nothing in particular at all.", i),
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)})
	}
	// The oldest memory is the one the message is about.
	ms[0].Text = "The user's cat is called Zephyr and eats salmon."
	ms[1].Text = "The user's dog is called Biscuit."

	text, ids := Prompt(ms, "What should I feed my cat Zephyr?", PromptBudget, nil)
	assert.LessOrEqual(t, Tokens(text), PromptBudget+len(ids), "about the budget (a token a line for the line breaks at most)")
	assert.Less(t, len(ids), len(ms), "not everything fits")
	assert.Contains(t, ids, "m000", "the memory nearest the message is listed although it is the oldest")
	assert.NotContains(t, ids, "m001", "an old memory that shares no keyword is not")
	assert.Contains(t, ids, "m299", "the newest is listed")
	assert.Contains(t, text, "Zephyr")

	// Listed newest used first, the near one included.
	pos := func(id string) int {
		for i, x := range ids {
			if x == id {
				return i
			}
		}
		return -1
	}
	assert.Equal(t, 0, pos("m299"))
	assert.Equal(t, len(ids)-1, pos("m000"), "in recency order, the oldest comes last")

	_, all := Prompt(ms[:10], "What should I feed my cat Zephyr?", PromptBudget, nil)
	assert.Len(t, all, 10, "under the budget, every memory is listed")
}

func TestKeywords(t *testing.T) {
	assert.Equal(t, []string{"cat", "zephyr", "salmon", "dinner"}, keywords("The cats, Zephyr & salmon for dinner!"))
	assert.Equal(t, []string{"猫が", "が好"}, keywords("猫が好"), "pairs of characters in scripts without spaces")
}

// Past the budget, a memory near the message by meaning but sharing no
// keyword with it is listed when vectors are given, and only then; the
// vectors are asked for only when the memories do not all fit.
func TestPromptPicksNearestByMeaningPastTheBudget(t *testing.T) {
	var ms []Memory
	vectors := map[string][]float32{}
	for i := range 300 {
		id := fmt.Sprintf("m%03d", i)
		ms = append(ms, Memory{ID: id, Text: fmt.Sprintf("Filler fact number %d about nothing in particular at all.", i),
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)})
		vectors[id] = Normalize([]float32{0, 1, float32(i % 3)})
	}
	ms[0].Text = "The user drives an old automobile."
	vectors["m000"] = Normalize([]float32{1, 0, 0})
	ms[1].Text = "The user's dog is called Biscuit."
	vectors["m001"] = Normalize([]float32{-1, 0, 0})
	query := Normalize([]float32{1, 0, 0}) // "Which car should I buy?" by meaning

	asked := 0
	byMeaning := func() []int {
		asked++
		return NearestByMeaning(ms, vectors, query, MaxNearbyByMeaning)
	}
	_, ids := Prompt(ms, "Which car should I buy?", PromptBudget, byMeaning)
	assert.Contains(t, ids, "m000", "nearest by meaning although no keyword is shared and it is the oldest")
	assert.NotContains(t, ids, "m001", "pointing away from the message: not near")
	assert.Equal(t, 1, asked)

	_, ids = Prompt(ms, "Which car should I buy?", PromptBudget, nil)
	assert.NotContains(t, ids, "m000", "by keyword alone it is not found")

	_, ids = Prompt(ms[:10], "Which car should I buy?", PromptBudget, byMeaning)
	assert.Len(t, ids, 10)
	assert.Equal(t, 1, asked, "everything fits: no vectors asked for")
}

func TestNearestByMeaningAndVectorCoding(t *testing.T) {
	ms := []Memory{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	vectors := map[string][]float32{
		"a": Normalize([]float32{1, 1}), "b": Normalize([]float32{1, 0}), "c": Normalize([]float32{0, -1}), "d": {1, 0, 0}}
	assert.Equal(t, []int{1, 0}, NearestByMeaning(ms, vectors, Normalize([]float32{1, 0}), 5), "best first; away and other-sized left out")
	assert.Equal(t, []int{1}, NearestByMeaning(ms, vectors, Normalize([]float32{1, 0}), 1))
	v := []float32{0.25, -1.5, 3}
	assert.Equal(t, v, DecodeVector(EncodeVector(v)))
	assert.Nil(t, Normalize([]float32{0, 0}))
	assert.Equal(t, []int{1, 5, 2, 3}, interleave([]int{1, 2, 3}, []int{5, 2}))
}
