package modelserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Demo is the scripted assistant of Parley's demo mode: it shows the
// question flow without any model server. A user message gets a short reply
// and a question card; the answer (or a skip or timeout) gets a reply that
// uses it. Messages mentioning "three questions" or "sub-agent" show those
// flows.
func Demo() Script {
	return func(req ChatRequest) Turn {
		if isSubAgent(req) {
			return subAgentTurn(req)
		}
		last := req.LastMessage()
		if last.Role == "tool" {
			return afterTool(req, last)
		}
		text := strings.ToLower(last.Content)
		switch {
		case strings.Contains(text, "three questions"):
			return Turn{Text: "Let me get three things straight first.", ToolCalls: []ToolCall{{ID: "call_demo_3", Name: "ask_user_question", Arguments: threeQuestions}}}
		case strings.Contains(text, "sub-agent"), strings.Contains(text, "subagent"):
			return Turn{Text: "I'll ask a helper to research that.", ToolCalls: []ToolCall{{ID: "call_demo_spawn", Name: "spawn_agents",
				Arguments: `{"agents":[{"name":"researcher","task":"Collect three facts for the user's request."}]}`}}}
		case strings.Contains(text, "no question"), strings.Contains(text, "just answer"):
			return Turn{Text: "Sure — here is a direct answer without any questions.\n\n- This is the **demo model**.\n- Connect a real model server in Settings for real answers."}
		}
		return Turn{Text: "Happy to help! Before I start, two quick questions so I don't have to guess.",
			ToolCalls: []ToolCall{{ID: "call_demo_1", Name: "ask_user_question", Arguments: twoQuestions}}}
	}
}

const twoQuestions = `{"questions":[
 {"question":"What tone should the answer have?","header":"Tone","options":[
   {"label":"Friendly","description":"Warm and conversational"},
   {"label":"Formal","description":"Precise and businesslike"},
   {"label":"Playful","description":"Light, with a bit of humour"}]},
 {"question":"What should it include?","header":"Include","multiSelect":true,"options":[
   {"label":"Examples","description":"Concrete examples"},
   {"label":"Summary","description":"A short summary at the top"},
   {"label":"Next steps","description":"What to do afterwards"}]}]}`

const threeQuestions = `{"questions":[
 {"question":"Which city are you travelling to?","header":"City","options":[
   {"label":"Lisbon","description":"Hills, trams and tiles"},
   {"label":"Porto","description":"Port wine and the Douro"}],"placeholder":"Another city"},
 {"question":"Which activities do you enjoy?","header":"Activities","multiSelect":true,"options":[
   {"label":"Museums"},{"label":"Food tours"},{"label":"Hiking"},{"label":"Beaches"}]},
 {"question":"Anything else I should know?","header":"Notes","options":[]}]}`

func isSubAgent(req ChatRequest) bool {
	return len(req.Messages) > 0 && req.Messages[0].Role == "system" && strings.Contains(req.Messages[0].Content, "sub-agent")
}

// subAgentTurn tries to ask the user (which sub-agents may not), then
// reports the refusal it got.
func subAgentTurn(req ChatRequest) Turn {
	last := req.LastMessage()
	if last.Role != "tool" {
		return Turn{ToolCalls: []ToolCall{{ID: "call_sub_ask", Name: "ask_user_question",
			Arguments: `{"questions":[{"question":"Which facts?","options":["Food","History"]}]}`}}}
	}
	return Turn{Text: "I could not ask the user (" + last.Content + "), so here are general facts: it has good food, a long history and friendly people."}
}

func afterTool(req ChatRequest, last Message) Turn {
	content := last.Content
	lower := strings.ToLower(content)
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
		keys := make([]string, 0, len(submitted.Answers))
		for k := range submitted.Answers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "- **%s** %s\n", k, submitted.Answers[k])
		}
		if submitted.Comments != "" {
			fmt.Fprintf(&b, "\nYou also said: _%s_\n", submitted.Comments)
		}
		b.WriteString("\nHere's a plan: I'll draft it with those choices, show you the draft, and adjust anything you want changed.\n")
		b.WriteString("\n(This is the demo model: connect a real model server in Settings for real answers.)")
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
		return Turn{Text: "No problem — I'll go with sensible defaults: a friendly tone, with a short summary and next steps."}
	case strings.Contains(lower, "timed out"):
		return Turn{Text: "I didn't hear back, so I went with sensible defaults. You can still answer the card and I'll adjust."}
	}
	return Turn{Text: "Done."}
}
