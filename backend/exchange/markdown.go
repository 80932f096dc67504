package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// ExportMarkdown renders the conversation as a readable transcript: each
// message with who said it and when, tool calls and results, and every
// question card with its options, status, answers and comments (shown where
// the assistant asked it).
func ExportMarkdown(ctx context.Context, s *store.Store, conversationID string) (string, error) {
	t, err := s.Transcript(ctx, conversationID)
	if err != nil {
		return "", fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	project, err := projectOf(ctx, s, t)
	if err != nil {
		return "", fmt.Errorf("export conversation %s: %w", conversationID, err)
	}
	name := ""
	if project != nil {
		name = project.Name
	}
	return renderMarkdown(t, name), nil
}

// renderMarkdown writes the transcript; project names its project ("" =
// none).
func renderMarkdown(t *store.Transcript, project string) string {
	var b strings.Builder
	title := t.Conversation.Title
	if title == "" {
		title = "Untitled conversation"
	}
	fmt.Fprintf(&b, "# %s\n\n", escapeInline(title))
	inProject := ""
	if project != "" {
		inProject = fmt.Sprintf(" Project: %s.", escapeInline(project))
	}
	fmt.Fprintf(&b, "*Exported from Parley.%s Assistant: %s. Started %s.*\n",
		inProject, escapeInline(orDefault(t.Conversation.Assistant, "default")), mdTime(t.Conversation.CreatedAt))

	// The visible path only (SPEC §7); cards asked on other branches are
	// left out with them.
	path := t.VisiblePath()
	p := placeCards(path, t.Cards)
	elsewhere := map[*questions.Card]bool{}
	for _, c := range placeCards(t.Messages, t.Cards).loose {
		elsewhere[c] = true
	}
	loose := slices.DeleteFunc(p.loose, func(c *questions.Card) bool { return !elsewhere[c] })
	for i, m := range path {
		for len(loose) > 0 && loose[0].CreatedAt.Before(m.CreatedAt) {
			writeCard(&b, loose[0])
			loose = loose[1:]
		}
		switch {
		case p.answered[i] && !p.changed[i]:
			continue // the card shown at the call tells the outcome
		case p.answered[i]:
			// The answer was changed on this branch: the card keeps its
			// first answer, the result says what the model got here.
			fmt.Fprintf(&b, "\n**Changed answer** · %s\n\n", mdTime(m.CreatedAt))
			writeFenced(&b, m.Content)
		case p.atResult[i] != nil:
			writeCard(&b, p.atResult[i])
		default:
			writeMessage(&b, m, p.atCall[i])
		}
	}
	for _, c := range loose {
		writeCard(&b, c)
	}
	return b.String()
}

// cardPlacement says where each card of a transcript goes.
type cardPlacement struct {
	atCall   map[int][]*questions.Card // message index -> the card of each of its tool calls (nil: none)
	atResult map[int]*questions.Card   // tool result shown as its card (the call was not found)
	answered map[int]bool              // tool results left out: their card is shown at the call
	changed  map[int]bool              // of those, results of a changed answer (not the card's own)
	loose    []*questions.Card         // cards of no message, oldest first
}

// placeCards puts each card right after the assistant message whose tool
// call asked it; the tool result answering that call is then redundant. A
// card belongs to the pair (run id, tool call id), as in the UI's timeline:
// models reuse call ids across turns (the demo model sends call_demo_1 each
// time), and the run tells those calls apart. Where a side has no run id
// (older data), the oldest card of that call id not placed yet is taken.
// Cards of no message go in by time.
func placeCards(messages []chat.Message, cards []*questions.Card) cardPlacement {
	p := cardPlacement{atCall: map[int][]*questions.Card{}, atResult: map[int]*questions.Card{}, answered: map[int]bool{}, changed: map[int]bool{}}
	sorted := slices.Clone(cards)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CreatedAt.Before(sorted[j].CreatedAt) })
	byCall := map[string][]*questions.Card{}
	for _, c := range sorted {
		if c.ToolCallID != "" {
			byCall[c.ToolCallID] = append(byCall[c.ToolCallID], c)
		}
	}
	placed := map[*questions.Card]bool{}
	find := func(callID, runID string) *questions.Card {
		list := byCall[callID]
		if runID != "" {
			for _, c := range list {
				if c.RunID == runID && !placed[c] {
					return c
				}
			}
		}
		for _, c := range list {
			if !placed[c] && (runID == "" || c.RunID == "") {
				return c
			}
		}
		return nil
	}
	// The card of the latest call with each id: the tool result that follows
	// answers the call made just before it.
	lastCall := map[string]*questions.Card{}
	for i, m := range messages {
		switch m.Role {
		case chat.RoleAssistant:
			var at []*questions.Card
			for j, tc := range m.ToolCalls {
				c := find(tc.ID, m.RunID)
				lastCall[tc.ID] = c
				if c == nil {
					continue
				}
				placed[c] = true
				if at == nil {
					at = make([]*questions.Card, len(m.ToolCalls))
				}
				at[j] = c
			}
			if at != nil {
				p.atCall[i] = at
			}
		case chat.RoleTool:
			if m.ToolCallID == "" {
				continue
			}
			c, called := lastCall[m.ToolCallID]
			delete(lastCall, m.ToolCallID)
			if c != nil {
				p.answered[i] = true
				// A later sibling of the first result: the answer was changed (a fork).
				p.changed[i] = m.SiblingIndex > 0
			} else if !called {
				if c = find(m.ToolCallID, m.RunID); c != nil {
					placed[c] = true
					p.atResult[i] = c
				}
			}
		}
	}
	for _, c := range sorted {
		if !placed[c] {
			p.loose = append(p.loose, c)
		}
	}
	return p
}

// writeMessage writes one message; cards[j], when set, is the card the
// message's tool call j asked, shown in place of the call.
func writeMessage(b *strings.Builder, m chat.Message, cards []*questions.Card) {
	switch m.Role {
	case chat.RoleTool:
		fmt.Fprintf(b, "\n---\n\n**Tool result** (%s) · %s\n\n", codeSpan(orDefault(m.ToolName, "tool")), mdTime(m.CreatedAt))
		writeFenced(b, m.Content)
		return
	case chat.RoleUser:
		fmt.Fprintf(b, "\n---\n\n**You** · %s\n\n", mdTime(m.CreatedAt))
	case chat.RoleAssistant:
		fmt.Fprintf(b, "\n---\n\n**Assistant** · %s\n\n", mdTime(m.CreatedAt))
	default:
		fmt.Fprintf(b, "\n---\n\n**%s** · %s\n\n", strings.ToUpper(m.Role[:1])+m.Role[1:], mdTime(m.CreatedAt))
	}
	gap := "" // blank line between blocks, not before the first
	if m.Reasoning != "" {
		writeThinking(b, m)
		gap = "\n"
		if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
			b.WriteString("\n*(No answer: the model only thought.)*\n")
		}
	}
	if strings.TrimSpace(m.Content) != "" {
		b.WriteString(gap)
		b.WriteString(strings.TrimRight(m.Content, "\n"))
		b.WriteString("\n")
		gap = "\n"
	}
	for _, a := range m.Attachments {
		fmt.Fprintf(b, "%s> Attached %s (%s, %s)\n", gap, codeSpan(a.Name), escapeInline(a.MIMEType), sizeText(a.Size))
		gap = ""
	}
	if len(m.Attachments) > 0 {
		gap = "\n"
	}
	for j, tc := range m.ToolCalls {
		if j < len(cards) && cards[j] != nil {
			writeCard(b, cards[j])
		} else {
			fmt.Fprintf(b, "%s> Called %s with %s\n", gap, codeSpan(tc.Name), codeSpan(tc.Arguments))
		}
		gap = "\n"
	}
}

// writeThinking writes a reply's thinking folded away in a <details> block
// (SPEC §9), as a code block: model text never becomes HTML, and nothing
// in it can close the block.
func writeThinking(b *strings.Builder, m chat.Message) {
	fmt.Fprintf(b, "<details>\n<summary>Thought for %s</summary>\n\n", thoughtFor(m.ReasoningMs))
	writeFenced(b, m.Reasoning)
	b.WriteString("\n</details>\n")
}

// thoughtFor is a thinking time as the chat says it: "12 s", "2 min 5 s".
func thoughtFor(ms int64) string {
	s := (ms + 500) / 1000
	switch {
	case s < 1:
		return "less than a second"
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}

func writeCard(b *strings.Builder, c *questions.Card) {
	switch c.Kind {
	case questions.KindApproval:
		writeApproval(b, c)
		return
	case questions.KindElicitation:
		writeElicitation(b, c)
		return
	}
	fmt.Fprintf(b, "\n**Questions from the assistant** (%s) · %s\n\n", cardStatusText(c.Status), mdTime(c.CreatedAt))
	for i, q := range c.Questions {
		fmt.Fprintf(b, "%d. **%s**\n", i+1, escapeInline(q.Question))
		if len(q.Options) > 0 {
			labels := make([]string, len(q.Options))
			for j, o := range q.Options {
				labels[j] = escapeInline(o.Label)
			}
			kind := "Options"
			if q.MultiSelect {
				kind = "Options (several allowed)"
			}
			fmt.Fprintf(b, "   - %s: %s\n", kind, strings.Join(labels, ", "))
		}
		if a, ok := c.Answers[q.Question]; ok {
			fmt.Fprintf(b, "   - Answer: %s\n", escapeInline(a))
		} else if len(c.Answers) > 0 {
			b.WriteString("   - Answer: (none)\n")
		}
	}
	if c.Comments != "" {
		fmt.Fprintf(b, "\nComments: %s\n", escapeInline(c.Comments))
	}
}

// writeApproval writes an approval card (SPEC §6): which tool of which
// server, with which arguments, and what the user decided.
func writeApproval(b *strings.Builder, c *questions.Card) {
	server, tool := "", ""
	if c.Tool != nil {
		server, tool = c.Tool.Server, c.Tool.Name
	}
	fmt.Fprintf(b, "\n**Tool approval**: %s of %s (%s) · %s\n", codeSpan(tool), escapeInline(server), cardStatusText(c.Status), mdTime(c.CreatedAt))
	if c.Tool != nil && len(c.Tool.Arguments) > 0 {
		b.WriteString("\nArguments:\n")
		writeFenced(b, prettyJSON(c.Tool.Arguments))
	}
	if len(c.ApprovedArguments) > 0 {
		b.WriteString("\nRan with edited arguments:\n")
		writeFenced(b, prettyJSON(c.ApprovedArguments))
	}
	if c.Reason != "" {
		fmt.Fprintf(b, "\nReason: %s\n", escapeInline(c.Reason))
	}
}

// writeElicitation writes an elicitation card (SPEC §6): the server's
// request and what the user sent back.
func writeElicitation(b *strings.Builder, c *questions.Card) {
	fmt.Fprintf(b, "\n**Request from %s** (%s) · %s\n\n%s\n", escapeInline(c.Server), cardStatusText(c.Status), mdTime(c.CreatedAt), escapeInline(c.Message))
	if c.Mode == questions.ElicitURL && c.URL != "" {
		fmt.Fprintf(b, "\nLink: %s\n", codeSpan(c.URL))
	}
	if len(c.Content) > 0 {
		b.WriteString("\nAnswer:\n")
		writeFenced(b, prettyJSON(c.Content))
	}
	if c.Reason != "" {
		fmt.Fprintf(b, "\n%s\n", escapeInline(c.Reason))
	}
}

func prettyJSON(raw []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		return string(raw)
	}
	return out.String()
}

func cardStatusText(s questions.Status) string {
	switch s {
	case questions.StatusPending:
		return "waiting for an answer"
	case questions.StatusAnswered:
		return "answered"
	case questions.StatusDeclined:
		return "skipped by the user"
	case questions.StatusCancelled:
		return "cancelled"
	case questions.StatusTimedOut:
		return "timed out without an answer"
	case questions.StatusAnsweredLate:
		return "answered after timing out"
	case questions.StatusSuperseded:
		return "superseded by newer questions"
	case questions.StatusApproved:
		return "approved"
	case questions.StatusRejected:
		return "rejected"
	case questions.StatusAccepted:
		return "accepted"
	}
	return string(s)
}

func mdTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// escapeInline shows text literally inside a Markdown line (question and
// option text are plain text by contract, never markup).
var inlineEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `#`, `\#`, `|`, `\|`, "\r\n", " ", "\n", " ")

func escapeInline(s string) string { return inlineEscaper.Replace(s) }

// codeSpan wraps s in enough backticks that none inside can close it.
func codeSpan(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// writeFenced writes s as a code block whose fence s cannot close.
func writeFenced(b *strings.Builder, s string) {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	fmt.Fprintf(b, "%s\n%s\n%s\n", fence, strings.TrimRight(s, "\n"), fence)
}

func longestRun(s string, r rune) int {
	best, cur := 0, 0
	for _, c := range s {
		if c == r {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// sizeText is a file size as people read it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
