package modelserver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

// The card fits the prompt: a cover letter asks about tone and length, a
// trip about dates and budget, code about language; anything else gets the
// general card.
func TestDemoCardFitsThePrompt(t *testing.T) {
	for _, c := range []struct {
		prompt  string
		headers []string
	}{
		{"Write a cover letter for a design job", []string{"Tone", "Length"}},
		{"Plan a weekend trip to Porto", []string{"Dates", "Budget"}},
		{"I'm travelling to Japan in spring", []string{"Dates", "Budget"}},
		{"Write a function that sorts names", []string{"Language", "Extras"}},
		{"Fix the bug in my script", []string{"Language", "Extras"}},
		{"Help me plan a party", []string{"Tone", "Include"}},
		{`<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>`, []string{"Tone", "Include"}},
	} {
		d := newDemo(t)
		resp := d.send(llm.Message{Role: "user", Content: c.prompt})
		assert.Contains(t, resp.Text, "two quick questions", c.prompt)
		_, qs := askCall(t, resp, 2)
		assert.Equal(t, c.headers, []string{qs[0].Header, qs[1].Header}, c.prompt)
	}
	letter := newDemo(t)
	_, qs := askCall(t, letter.send(llm.Message{Role: "user", Content: "Write a cover letter"}), 2)
	assert.Equal(t, "What tone should the letter have?", qs[0].Question)
}

// The reply lists the answers in the order of the card's questions, and
// goes on in the card's topic.
func TestDemoReplyListsAnswersInQuestionOrder(t *testing.T) {
	for _, prompt := range []string{"Help me plan a party", "Write a function that sorts names", "Write a cover letter"} {
		d := newDemo(t)
		tc, qs := askCall(t, d.send(llm.Message{Role: "user", Content: prompt}), 2)
		input := map[string]questions.AnswerInput{}
		for _, q := range qs {
			input[q.Question] = questions.AnswerInput{Selected: []string{q.Options[1].Label}}
		}
		answers, err := questions.ValidateAnswers(qs, input, "")
		require.NoError(t, err)
		reply := d.send(toolResult(tc, questions.SubmitResult(answers, "")))
		assert.Empty(t, reply.ToolCalls)
		first := strings.Index(reply.Text, "**"+qs[0].Question+"** "+qs[0].Options[1].Label)
		second := strings.Index(reply.Text, "**"+qs[1].Question+"** "+qs[1].Options[1].Label)
		assert.True(t, first >= 0 && second > first, "%s: answers in the order asked:\n%s", prompt, reply.Text)
	}
	d := newDemo(t)
	tc, _ := askCall(t, d.send(llm.Message{Role: "user", Content: "Write a cover letter"}), 2)
	assert.Contains(t, d.send(toolResult(tc, questions.DeclinedResult)).Text, "a formal tone, about one page", "a skip goes with the topic's defaults")
}

// A late answer (the card timed out, then "Answer anyway") gets a reply that
// uses it, not the same card again.
func TestDemoRepliesToALateAnswer(t *testing.T) {
	d := newDemo(t)
	tc, qs := askCall(t, d.send(llm.Message{Role: "user", Content: "Plan a weekend trip to Porto"}), 2)
	timedOut := d.send(toolResult(tc, questions.TimedOutResult))
	require.Contains(t, timedOut.Text, "I didn't hear back")
	card := &questions.Card{Questions: qs, Answers: map[string]string{
		qs[0].Question: qs[0].Options[2].Label, qs[1].Question: qs[1].Options[0].Label}, Comments: "Vegetarian food"}
	reply := d.send(llm.Message{Role: "user", Content: questions.LateAnswerText(card)})
	assert.Empty(t, reply.ToolCalls, "no card asked again")
	assert.Contains(t, reply.Text, "earlier questions")
	first := strings.Index(reply.Text, "**"+qs[0].Question+"** "+qs[0].Options[2].Label)
	second := strings.Index(reply.Text, "**"+qs[1].Question+"** "+qs[1].Options[0].Label)
	assert.True(t, first >= 0 && second > first, "answers in the order asked:\n%s", reply.Text)
	assert.Contains(t, reply.Text, "Vegetarian food")
	assert.Contains(t, reply.Text, "the itinerary")

	// A new message after that is a new request: the demo asks again.
	askCall(t, d.send(llm.Message{Role: "user", Content: "Now plan another trip"}), 2)
}

// "Think it through" makes the demo think first (SPEC §9): the thinking in
// Ollama's field, apart from the answer.
func TestDemoThinksWhenAskedToThinkItThrough(t *testing.T) {
	d := newDemo(t)
	resp := d.send(llm.Message{Role: "user", Content: "Think it through: is 9.11 bigger than 9.9?"})
	assert.Contains(t, resp.Text, "9.9 is bigger")
	assert.NotContains(t, resp.Text, "hundredths against")
	assert.Contains(t, resp.Reasoning, "90 hundredths against 11 hundredths")
	assert.Equal(t, llm.ReasoningFromField, resp.ReasoningSource)
	assert.Empty(t, resp.ToolCalls)
}

// "Remember that …" proposes the fact with the remember tool when it is
// offered (SPEC §14), and the reply says whether it was kept.
func TestDemoProposesToRemember(t *testing.T) {
	demo := modelserver.Demo()
	remember := modelserver.ToolDef{Type: "function"}
	remember.Function.Name = "remember"
	user := modelserver.Message{Role: "user", Content: "Please remember that I deploy with Docker!"}
	turn := demo(modelserver.ChatRequest{Messages: []modelserver.Message{user}, Tools: []modelserver.ToolDef{remember}})
	require.Len(t, turn.ToolCalls, 1, "a remember call: %+v", turn)
	assert.Equal(t, "remember", turn.ToolCalls[0].Name)
	assert.JSONEq(t, `{"text":"I deploy with Docker."}`, turn.ToolCalls[0].Arguments)

	// Without the tool (memory off), the usual card.
	plain := demo(modelserver.ChatRequest{Messages: []modelserver.Message{user}})
	require.Len(t, plain.ToolCalls, 1)
	assert.Equal(t, questions.ToolName, plain.ToolCalls[0].Name)

	call := modelserver.Message{Role: "assistant"}
	call.ToolCalls = append(call.ToolCalls, struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}{ID: turn.ToolCalls[0].ID})
	call.ToolCalls[0].Function.Name = "remember"
	after := func(result string) string {
		return demo(modelserver.ChatRequest{Messages: []modelserver.Message{user, call, {Role: "tool", ToolCallID: turn.ToolCalls[0].ID, Content: result}}}).Text
	}
	assert.Contains(t, after(`Remembered: "I deploy with Docker."`), "keep that in mind")
	assert.Contains(t, after(`The user edited the text, then approved it. Remembered: "I deploy with Docker Compose."`), "keep that in mind")
	assert.Contains(t, after("The user chose not to remember this; nothing was kept."), "won't keep")
}
