package assistant

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/llm"
)

// ToolSearchKnowledge searches the collections of the conversation and its
// profile (SPEC §11).
const ToolSearchKnowledge = "search_knowledge"

// Knowledge searches collections (backend/knowledge): passages best first.
type Knowledge interface {
	Search(ctx context.Context, collections []string, query string, topK int) ([]chat.Source, error)
}

// Bounds of the tool's input.
const (
	knowledgeDefaultTopK = 8
	knowledgeMaxTopK     = 50
	// knowledgePromptPassages is how many passages go into the system
	// prompt when tool calling is off.
	knowledgePromptPassages = 5
)

// SearchKnowledgeDescription tells the model what the tool does and how to
// use what it returns: cite [n], and ask instead of choosing between files
// that disagree.
const SearchKnowledgeDescription = "Search the user's own documents (the knowledge collections attached to this conversation) " +
	"and return the most relevant passages, numbered [1], [2], … and grouped by file, each with its file path and where it is in the file. " +
	"Use it whenever the answer may be in the user's documents. Cite every passage you use as [n] in your answer. " +
	"When passages from different files disagree, or several files could be meant, do not pick one: " +
	"ask the user which one applies with ask_user_question (name the files in the options)."

var searchKnowledgeParameters = map[string]any{
	"type":     "object",
	"required": []string{"query"},
	"properties": map[string]any{
		"query": map[string]any{"type": "string", "description": "what to look for, in words the documents would use"},
		"top_k": map[string]any{"type": "integer", "minimum": 1, "maximum": knowledgeMaxTopK,
			"description": fmt.Sprintf("how many passages to return (default %d)", knowledgeDefaultTopK)},
	},
}

var searchKnowledgeTool = llm.Tool{Name: ToolSearchKnowledge, Description: SearchKnowledgeDescription, Parameters: searchKnowledgeParameters}

// collections are the run's collections: its profile's and its
// conversation's, each once.
func (l *runLoop) collections() []string {
	if l.rt.opt.Knowledge == nil {
		return nil
	}
	var conv []string
	if l.rt.opt.ConversationKnowledge != nil {
		conv = l.rt.opt.ConversationKnowledge(l.ctx, l.run.ConversationID)
	}
	seen := map[string]bool{}
	var out []string
	for _, id := range append(append([]string(nil), l.profile.Knowledge...), conv...) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// FormatPassages writes passages as the model gets them: numbered from
// first, the passages of one file together (files in the order of their
// best passage), each a line "[n] <path> (<locator>)" followed by its text.
// It returns the sources in the numbering used.
func FormatPassages(passages []chat.Source, first int) (string, []chat.Source) {
	var order []string
	byFile := map[string][]chat.Source{}
	for _, p := range passages {
		if _, ok := byFile[p.Path]; !ok {
			order = append(order, p.Path)
		}
		byFile[p.Path] = append(byFile[p.Path], p)
	}
	var b strings.Builder
	var numbered []chat.Source
	n := first
	for _, path := range order {
		for _, p := range byFile[path] {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "[%d] %s (%s)\n%s", n, p.Path, p.Locator, p.Text)
			p.N = n
			numbered = append(numbered, p)
			n++
		}
	}
	return b.String(), numbered
}

// knowledgeResult is the tool result for passages found: the numbered
// passages and, when they come from several files, the reminder to ask
// rather than choose.
func knowledgeResult(query string, passages []chat.Source, first int) (string, []chat.Source) {
	if len(passages) == 0 {
		return fmt.Sprintf("No passages found for %q in the user's documents. Try other words, or answer without them and say so.", query), nil
	}
	text, numbered := FormatPassages(passages, first)
	files := map[string]bool{}
	for _, p := range passages {
		files[p.Path] = true
	}
	if len(files) > 1 {
		text += fmt.Sprintf("\n\n(These passages come from %d files. Cite them as [n]. If they disagree, or more than one could be meant, ask the user which one applies with %s instead of choosing.)",
			len(files), ToolAskUser)
	}
	return text, numbered
}

// searchKnowledge runs the tool for the run's loop; the sources are kept
// with the tool result (and so given to every reply of the run after it).
func (l *runLoop) searchKnowledge(arguments string, numberFrom int) (string, []chat.Source) {
	var in struct {
		Query string `json:"query"`
		TopK  int    `json:"top_k"`
	}
	if err := json.Unmarshal([]byte(arguments), &in); err != nil || strings.TrimSpace(in.Query) == "" {
		return `invalid input: "query" must be a non-empty string`, nil
	}
	if in.TopK == 0 {
		in.TopK = knowledgeDefaultTopK
	}
	if in.TopK < 1 || in.TopK > knowledgeMaxTopK {
		return fmt.Sprintf("invalid input: top_k must be 1-%d (got %d)", knowledgeMaxTopK, in.TopK), nil
	}
	cols := l.collections()
	if len(cols) == 0 {
		return "No knowledge collection is attached to this conversation.", nil
	}
	found, err := l.rt.opt.Knowledge.Search(l.ctx, cols, in.Query, in.TopK)
	if err != nil {
		return "error: search the user's documents: " + err.Error(), nil
	}
	return knowledgeResult(in.Query, found, numberFrom)
}

// runSources are the passages the run's searches gave the model so far
// (kept on their tool results, so also after a restart), in their numbering.
func (l *runLoop) runSources() []chat.Source {
	if l.rt.opt.Knowledge == nil || len(l.collections()) == 0 {
		return l.promptSources // no search this run: no history to read
	}
	history, err := l.history()
	if err != nil {
		return nil
	}
	var out []chat.Source
	for _, m := range history {
		if m.RunID == l.run.ID && m.Role == chat.RoleTool && m.ToolName == ToolSearchKnowledge {
			out = append(out, m.Sources...)
		}
	}
	return append(out, l.promptSources...)
}

// nextSourceNumber numbers a new search's passages after the run's others,
// so that every [n] of a reply means one passage.
func (l *runLoop) nextSourceNumber() int {
	n := 1
	for _, s := range l.runSources() {
		n = max(n, s.N+1)
	}
	return n
}

// knowledgePrompt searches the collections with the user's message when
// tool calling is off, once a run, and returns the passages as a part of
// the system prompt ("" when there are none).
func (l *runLoop) knowledgePrompt(history []chat.Message) string {
	if l.promptSearched {
		return l.promptText
	}
	l.promptSearched = true
	cols := l.collections()
	if len(cols) == 0 {
		return ""
	}
	query := ""
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == chat.RoleUser {
			query = history[i].Content
			break
		}
	}
	if strings.TrimSpace(query) == "" {
		return ""
	}
	found, err := l.rt.opt.Knowledge.Search(l.ctx, cols, query, knowledgePromptPassages)
	if err != nil {
		l.rt.log.Warn("search the collections for the prompt", "conversation", l.run.ConversationID, "err", err)
		return ""
	}
	if len(found) == 0 {
		return ""
	}
	text, numbered := FormatPassages(found, 1)
	l.promptSources = numbered
	l.promptText = "Passages from the user's documents that may help with the last message, numbered. " +
		"Cite the ones you use as [n]. When passages from different files disagree, or several files could be meant, " +
		"ask the user which one applies instead of choosing.\n\n" + text
	return l.promptText
}
