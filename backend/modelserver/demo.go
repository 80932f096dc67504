package modelserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/questions"
)

// Demo is the scripted assistant of Parley's demo mode: it shows the
// question flow without any model server. A user message gets a short reply
// and a question card that fits it (a cover letter, a trip, code, or
// anything else; see demoTopics); the answer (or a skip, a timeout, or a
// late answer) gets a reply that uses it. Messages mentioning "three
// questions", "sub-agent", "no question" or "think it through" show those
// flows (the chat offers them as suggestions:
// frontend/src/lib/demoPrompts.ts); the last one thinks first, as thinking
// models do (SPEC §9), slowly enough to watch. "Remember that …" proposes
// the fact with the remember tool when it is offered (SPEC §14).
func Demo() Script {
	return func(req ChatRequest) Turn {
		if isSubAgent(req) {
			return subAgentTurn(req)
		}
		last := req.LastMessage()
		if last.Role == "tool" {
			return afterTool(req, last)
		}
		if late, ok := questions.ParseLateAnswer(last.Content); ok && last.Role == "user" {
			return afterLateAnswer(req, late)
		}
		text := strings.ToLower(last.Content)
		switch {
		case strings.Contains(text, "remember that") && offers(req, demoRememberTool):
			args, _ := json.Marshal(map[string]string{"text": rememberedFact(last.Content)})
			return Turn{Text: "I'd like to keep that for later conversations.",
				ToolCalls: []ToolCall{{ID: "call_demo_remember", Name: demoRememberTool, Arguments: string(args)}}}
		case strings.Contains(text, "three questions"):
			return Turn{Text: "Let me get three things straight first.", ToolCalls: []ToolCall{{ID: "call_demo_3", Name: questions.ToolName, Arguments: threeQuestions}}}
		case strings.Contains(text, "sub-agent"), strings.Contains(text, "subagent"):
			return Turn{Text: "I'll ask a helper to research that.", ToolCalls: []ToolCall{{ID: "call_demo_spawn", Name: "spawn_agents",
				Arguments: `{"agents":[{"name":"researcher","task":"Collect three facts for the user's request."}]}`}}}
		case strings.Contains(text, "think it through"), strings.Contains(text, "step by step"):
			return Turn{Reasoning: demoThinking, ReasoningShape: ShapeReasoning, ReasoningDelay: demoThinkingPace, Text: demoThoughtAnswer}
		case strings.Contains(text, "no question"), strings.Contains(text, "just answer"):
			return Turn{Text: "Sure — here is a direct answer without any questions.\n\n- This is the **demo model**.\n- Connect a real model server in Settings for real answers."}
		}
		t := topicFor(last.Content)
		return Turn{Text: t.intro, ToolCalls: []ToolCall{{ID: "call_demo_1", Name: questions.ToolName, Arguments: t.questions}}}
	}
}

const threeQuestions = `{"questions":[
 {"question":"Which city are you travelling to?","header":"City","options":[
   {"label":"Lisbon","description":"Hills, trams and tiles"},
   {"label":"Porto","description":"Port wine and the Douro"}],"placeholder":"Another city"},
 {"question":"Which activities do you enjoy?","header":"Activities","multiSelect":true,"options":[
   {"label":"Museums"},{"label":"Food tours"},{"label":"Hiking"},{"label":"Beaches"}]},
 {"question":"Anything else I should know?","header":"Notes","options":[]}]}`

// The thinking scenario: about two seconds of thinking, then the answer.
const (
	demoThinking = "The user asks which is bigger, 9.11 or 9.9. As decimal numbers, not as version numbers. " +
		"9.9 is the same as 9.90. The whole parts are equal, so compare the decimals: 90 hundredths against 11 hundredths. " +
		"90 is more than 11, so 9.9 is bigger.\n\nThe trap: as software versions 9.11 comes after 9.9. " +
		"The question is about numbers, so the answer is 9.9. I should say so briefly and mention the trap."
	demoThinkingPace  = 40 * time.Millisecond
	demoThoughtAnswer = "**9.9 is bigger.** Written with two decimals it is 9.90, and 90 hundredths are more than 11 hundredths. " +
		"(As *version numbers*, 9.11 would come after 9.9: that is the usual trap.)\n" + demoFooter
)

const demoFooter = "\n(This is the demo model: connect a real model server in Settings for real answers.)"

func isSubAgent(req ChatRequest) bool {
	return len(req.Messages) > 0 && req.Messages[0].Role == "system" && strings.Contains(req.Messages[0].Content, "sub-agent")
}

// subAgentTurn tries to ask the user (which sub-agents may not), then
// reports the refusal it got.
func subAgentTurn(req ChatRequest) Turn {
	last := req.LastMessage()
	if last.Role != "tool" {
		return Turn{ToolCalls: []ToolCall{{ID: "call_sub_ask", Name: questions.ToolName,
			Arguments: `{"questions":[{"question":"Which facts?","options":["Food","History"]}]}`}}}
	}
	return Turn{Text: "I could not ask the user (" + last.Content + "), so here are general facts: it has good food, a long history and friendly people."}
}

// demoRememberTool is Parley's tool to propose a memory (SPEC §14).
const demoRememberTool = "remember"

// offers reports whether the request offers the tool.
func offers(req ChatRequest, name string) bool {
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// callName is the name of the tool call with the given id (the latest one), "" when not found.
func callName(req ChatRequest, callID string) string {
	for _, m := range slices.Backward(req.Messages) {
		for _, tc := range m.ToolCalls {
			if tc.ID == callID {
				return tc.Function.Name
			}
		}
	}
	return ""
}

// rememberedFact is what follows "remember that" in a message, as a
// sentence: "Please remember that I deploy with Docker!" gives "I deploy
// with Docker."; the whole message when nothing follows.
func rememberedFact(message string) string {
	fact := strings.TrimSpace(message)
	if lower := strings.ToLower(message); len(lower) == len(message) {
		if i := strings.Index(lower, "remember that"); i >= 0 {
			if rest := strings.TrimSpace(message[i+len("remember that"):]); rest != "" {
				fact = rest
			}
		}
	}
	fact = strings.TrimRight(fact, ".!? ")
	if fact == "" {
		return "Something the user asked to remember."
	}
	r, n := utf8.DecodeRuneInString(fact)
	return string(unicode.ToUpper(r)) + fact[n:] + "."
}

// askedQuestions returns the questions of the ask_user_question call with
// the given id (the latest one: models reuse ids), nil when not found.
func askedQuestions(req ChatRequest, callID string) []questions.Question {
	for _, m := range slices.Backward(req.Messages) {
		for _, tc := range m.ToolCalls {
			if tc.ID == callID && tc.Function.Name == questions.ToolName {
				qs, err := questions.ParseInput([]byte(tc.Function.Arguments))
				if err != nil {
					return nil
				}
				return qs
			}
		}
	}
	return nil
}

func afterTool(req ChatRequest, last Message) Turn {
	content := last.Content
	lower := strings.ToLower(content)
	if callName(req, last.ToolCallID) == demoRememberTool {
		if strings.HasPrefix(content, "Remembered:") || strings.Contains(content, "then approved it. Remembered:") {
			return Turn{Text: "Got it — I'll keep that in mind in later conversations."}
		}
		return Turn{Text: "Okay — I won't keep that."}
	}
	asked := askedQuestions(req, last.ToolCallID)
	topic := genericTopic
	if len(asked) > 0 {
		topic = topicAsking(asked[0].Question)
	}
	var submitted struct {
		Answers  map[string]string `json:"answers"`
		Comments string            `json:"comments"`
	}
	var spawned struct {
		Results []struct {
			Name   string `json:"name"`
			Result string `json:"result"`
			Error  string `json:"error"`
		} `json:"results"`
	}
	switch {
	case json.Unmarshal([]byte(content), &submitted) == nil && submitted.Answers != nil:
		var b strings.Builder
		b.WriteString("Thanks! Here is what I'll go with:\n\n")
		writeAnswers(&b, inQuestionOrder(asked, submitted.Answers), submitted.Comments)
		fmt.Fprintf(&b, "\nHere's a plan: I'll draft %s with those choices, show you the draft, and adjust anything you want changed.\n", topic.subject)
		b.WriteString(demoFooter)
		return Turn{Text: b.String()}
	case json.Unmarshal([]byte(content), &spawned) == nil && spawned.Results != nil:
		var b strings.Builder
		b.WriteString("My helper reported back:\n\n")
		for _, r := range spawned.Results {
			if r.Error != "" {
				fmt.Fprintf(&b, "- %s failed: %s\n", r.Name, r.Error)
			} else {
				fmt.Fprintf(&b, "- %s: %s\n", r.Name, r.Result)
			}
		}
		return Turn{Text: b.String()}
	case strings.Contains(lower, "cancel"):
		return Turn{Text: "Understood — I've stopped here. Send a new message whenever you want to continue."}
	case strings.Contains(lower, "declined"):
		return Turn{Text: "No problem — I'll go with sensible defaults: " + topic.defaults + "."}
	case strings.Contains(lower, "timed out"):
		return Turn{Text: "I didn't hear back, so I went with sensible defaults (" + topic.defaults + "). You can still answer the card and I'll adjust."}
	}
	return Turn{Text: "Done."}
}

// afterLateAnswer replies to a late answer (a card that timed out, answered
// anyway): it uses the answers instead of asking again.
func afterLateAnswer(req ChatRequest, late questions.LateAnswer) Turn {
	topic := genericTopic
	if len(late.Items) > 0 {
		topic = topicAsking(late.Items[0].Question)
	}
	var b strings.Builder
	b.WriteString("Thanks — your answers to my earlier questions arrived. I'll adjust and go with:\n\n")
	writeAnswers(&b, late.Items, late.Comments)
	fmt.Fprintf(&b, "\nInstead of the defaults I assumed (%s), I'll redo %s with your choices and show you the result.\n", topic.defaults, topic.subject)
	b.WriteString(demoFooter)
	return Turn{Text: b.String()}
}

// inQuestionOrder lists answers in the order the card asked them; answers
// to questions not found in the history follow, sorted.
func inQuestionOrder(asked []questions.Question, answers map[string]string) []questions.LateAnswerItem {
	var items []questions.LateAnswerItem
	seen := map[string]bool{}
	for _, q := range asked {
		if a, ok := answers[q.Question]; ok && !seen[q.Question] {
			items = append(items, questions.LateAnswerItem{Question: q.Question, Answer: a})
			seen[q.Question] = true
		}
	}
	var rest []string
	for q := range answers {
		if !seen[q] {
			rest = append(rest, q)
		}
	}
	sort.Strings(rest)
	for _, q := range rest {
		items = append(items, questions.LateAnswerItem{Question: q, Answer: answers[q]})
	}
	return items
}

func writeAnswers(b *strings.Builder, items []questions.LateAnswerItem, comments string) {
	for _, it := range items {
		fmt.Fprintf(b, "- **%s** %s\n", it.Question, it.Answer)
	}
	if comments != "" {
		fmt.Fprintf(b, "\nYou also said: _%s_\n", comments)
	}
}
