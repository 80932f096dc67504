package modelserver

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Knowledge scripts a model that works from the user's documents (SPEC
// §11): offered search_knowledge, it searches with the user's message; given
// passages from one file it answers citing [n]; given passages from
// several files it asks which one applies (ask_user_question, one option a
// file), then answers from the chosen file. With tool calling off it cites
// the passages Parley put in the system prompt. Anything else goes to next.
func Knowledge(next Script) Script {
	return func(req ChatRequest) Turn {
		last := req.LastMessage()
		switch {
		case last.Role == "tool" && calledTool(req, last.ToolCallID) == "search_knowledge":
			return afterSearch(req, last.Content)
		case last.Role == "tool" && calledTool(req, last.ToolCallID) == "ask_user_question" && lastSearch(req) != "":
			return afterChoice(lastSearch(req), last.Content)
		case last.Role == "user" && offered(req, "search_knowledge"):
			q, _ := json.Marshal(map[string]string{"query": last.Content})
			return Turn{Text: "Let me look in your documents.", ToolCalls: []ToolCall{{ID: "call_kn_search", Name: "search_knowledge", Arguments: string(q)}}}
		case last.Role == "user" && len(req.Messages) > 0 && req.Messages[0].Role == "system" &&
			strings.Contains(req.Messages[0].Content, "Passages from the user's documents"):
			ps := parsePassages(req.Messages[0].Content)
			if len(ps) > 0 {
				return Turn{Text: citing(ps[0])}
			}
		}
		return next(req)
	}
}

// passage is one numbered passage of a search_knowledge result.
type passage struct {
	n       string
	path    string
	locator string
	text    string
}

var passageHeader = regexp.MustCompile(`^\[(\d+)\] (.+) \(([^()]*)\)$`)

// parsePassages reads the "[n] <path> (<locator>)" lines and the text under each.
func parsePassages(s string) []passage {
	var out []passage
	for _, ln := range strings.Split(s, "\n") {
		if m := passageHeader.FindStringSubmatch(ln); m != nil {
			out = append(out, passage{n: m[1], path: m[2], locator: m[3]})
			continue
		}
		if len(out) > 0 && strings.TrimSpace(ln) != "" && !strings.HasPrefix(ln, "(These passages") {
			p := &out[len(out)-1]
			p.text = strings.TrimSpace(p.text + " " + ln)
		}
	}
	return out
}

func citing(p passage) string {
	return fmt.Sprintf("According to %s, %s [%s]", path.Base(p.path), firstSentence(p.text), p.n)
}

func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".!?"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func afterSearch(req ChatRequest, result string) Turn {
	ps := parsePassages(result)
	if len(ps) == 0 {
		return Turn{Text: "I found nothing about that in your documents."}
	}
	var files []passage
	seen := map[string]bool{}
	for _, p := range ps {
		if !seen[p.path] {
			seen[p.path] = true
			files = append(files, p)
		}
	}
	if len(files) == 1 || !offered(req, "ask_user_question") {
		return Turn{Text: citing(ps[0])}
	}
	files = files[:min(len(files), 4)]
	var opts []map[string]string
	for _, f := range files {
		opts = append(opts, map[string]string{"label": path.Base(f.path), "description": firstSentence(f.text)})
	}
	args, _ := json.Marshal(map[string]any{"questions": []map[string]any{{
		"question": "Your documents disagree. Which one should I follow?", "header": "Document", "options": opts}}})
	return Turn{Text: "These documents say different things.", ToolCalls: []ToolCall{{ID: "call_kn_ask", Name: "ask_user_question", Arguments: string(args)}}}
}

// afterChoice answers from the file the user chose.
func afterChoice(search, answer string) Turn {
	var res struct {
		Answers map[string]string `json:"answers"`
	}
	_ = json.Unmarshal([]byte(answer), &res)
	for _, chosen := range res.Answers {
		for _, p := range parsePassages(search) {
			if path.Base(p.path) == chosen {
				return Turn{Text: "Going by " + citing(p)}
			}
		}
	}
	return Turn{Text: "I will not choose between your documents then."}
}

// calledTool names the tool of the assistant call with that id.
func calledTool(req ChatRequest, callID string) string {
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			if tc.ID == callID {
				return tc.Function.Name
			}
		}
	}
	return ""
}

// lastSearch is the last search_knowledge result of the request.
func lastSearch(req ChatRequest) string {
	out := ""
	for _, m := range req.Messages {
		if m.Role == "tool" && calledTool(req, m.ToolCallID) == "search_knowledge" {
			out = m.Content
		}
	}
	return out
}

func offered(req ChatRequest, tool string) bool {
	for _, t := range req.Tools {
		if t.Function.Name == tool {
			return true
		}
	}
	return false
}
