package assistant

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/llm"
)

// IsImage tells the attachments sent to a vision model as pictures; every
// other attachment is a text file, sent as text.
func IsImage(a chat.Attachment) bool { return strings.HasPrefix(a.MIMEType, "image/") }

// withAttachments adds a user message's files to what the model gets: the
// text files after the message's text, each with its name, and the images
// as image parts (SPEC §7).
func withAttachments(lm llm.Message, atts []chat.Attachment) llm.Message {
	var b strings.Builder
	b.WriteString(lm.Content)
	for _, a := range atts {
		if IsImage(a) {
			lm.Images = append(lm.Images, llm.Image{MIMEType: a.MIMEType, Data: a.Data})
			continue
		}
		b.WriteString(AttachedFileText(a))
	}
	lm.Content = b.String()
	return lm
}

// AttachedFileText is how a text file reaches the model: its name, then its
// content between markers that name it again.
func AttachedFileText(a chat.Attachment) string {
	text := strings.ToValidUTF8(string(a.Data), "\uFFFD")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return "\n\n<file name=\"" + a.Name + "\">\n" + text + "</file>"
}

// replyClock measures one model call for the reply's figures.
type replyClock struct {
	start, first time.Time
	// The first and last piece of thinking (zero when none came).
	firstThought, lastThought time.Time
}

func (c *replyClock) token() {
	if c.first.IsZero() {
		c.first = time.Now()
	}
}

// answerMillis is how long the answer took after the last thinking (0 for a
// reply that did not think), at least 1 ms: on a busy machine the last
// thinking and the whole answer can be read from the stream in one burst,
// and a reply that thought still says it answered.
func (c *replyClock) answerMillis(end time.Time) int64 {
	if c.lastThought.IsZero() {
		return 0
	}
	return max(1, end.Sub(c.lastThought).Milliseconds())
}

// stats are the figures of a call that answered resp; tokens the server did
// not count are estimated from the text (about four characters a token).
func (c *replyClock) stats(ctx context.Context, rt *Runtime, model llm.Model, msgs []llm.Message, resp llm.Response) *chat.MessageStats {
	end := time.Now()
	st := &chat.MessageStats{DurationMs: end.Sub(c.start).Milliseconds()}
	if named, ok := model.(interface{ Name() string }); ok {
		st.Model = named.Name()
	}
	if !c.first.IsZero() {
		st.TimeToFirstTokenMs = c.first.Sub(c.start).Milliseconds()
	}
	if resp.Usage != nil {
		st.PromptTokens, st.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	} else {
		st.Estimated = true
		in := 0
		for _, m := range msgs {
			in += utf8.RuneCountInString(m.Content)
		}
		out := utf8.RuneCountInString(resp.Text) + utf8.RuneCountInString(resp.Reasoning)
		for _, tc := range resp.ToolCalls {
			out += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
		}
		st.PromptTokens, st.CompletionTokens = estimateTokens(in), estimateTokens(out)
	}
	st.AnswerMs = c.answerMillis(end)
	if gen := end.Sub(c.first).Seconds(); !c.first.IsZero() && gen > 0 && st.CompletionTokens > 0 {
		st.TokensPerSecond = float64(st.CompletionTokens) / gen
	}
	if rt.opt.ContextLength != nil && st.Model != "" {
		st.ContextLength = rt.opt.ContextLength(ctx, st.Model)
	}
	return st
}

func estimateTokens(runes int) int { return (runes + 3) / 4 }
