package assistant

import (
	"slices"
	"time"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
	"github.com/parley-app/parley/backend/textcalls"
)

// Thinking models (SPEC §9): what a request says about thinking, the
// thinking sent back with the history, and what a server refused.

// thinkingRequest is what a model call says about thinking for the run's
// setting: auto sends nothing (the server decides: Ollama then thinks),
// except for background calls (sub-agents: nobody sees their thinking),
// which ask not to think; off is reasoning_effort "none", and for servers
// other than Ollama (which Parley recognizes by its native API)
// chat_template_kwargs.enable_thinking false too (llama.cpp's server reads
// it: tools/server/server-common.cpp oaicompat_chat_params_parse); a level
// is reasoning_effort. A setting the server refused before is not sent.
func (l *runLoop) thinkingRequest(background bool) (req llm.Thinking, setting string) {
	setting = l.profile.Thinking
	if setting == "" || setting == chat.ThinkingAuto {
		if !background {
			return llm.Thinking{}, chat.ThinkingAuto
		}
		setting = chat.ThinkingOff
	}
	id := l.text.identity()
	if l.rt.caps.ThinkingRefused(id, setting) {
		return llm.Thinking{}, setting
	}
	switch setting {
	case chat.ThinkingOff:
		return llm.Thinking{Effort: "none", TemplateOff: !l.rt.caps.Ollama(l.ctx, id)}, setting
	case chat.ThinkingLow, chat.ThinkingMedium, chat.ThinkingHigh:
		return llm.Thinking{Effort: setting}, setting
	}
	return llm.Thinking{}, setting
}

// withThinkingOf adds the thinking of the run's own assistant turns that
// made tool calls to what goes back to the model: within a run (also one
// continued after a restart) the model gets its reasoning back between
// tool calls, which gpt-oss needs to keep calling tools well; the thinking
// of other runs' turns (finished replies, the turns before a late answer)
// stays out.
func (l *runLoop) withThinkingOf(lm llm.Message, m chat.Message) llm.Message {
	if m.Role == chat.RoleAssistant && m.RunID == l.run.ID && len(m.ToolCalls) > 0 && m.Reasoning != "" {
		lm.Reasoning, lm.ReasoningSource = m.Reasoning, m.ReasoningSource
	}
	return lm
}

// withoutThinking drops the thinking of every message (for a server that
// refused it).
func withoutThinking(msgs []llm.Message) []llm.Message {
	if !hasThinking(msgs) {
		return msgs
	}
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Reasoning, out[i].ReasoningSource = "", ""
	}
	return out
}

func hasThinking(msgs []llm.Message) bool {
	for _, m := range msgs {
		if m.Reasoning != "" {
			return true
		}
	}
	return false
}

// refuseThinking learns from a server that refused the thinking fields:
// the setting sent (or, when none was, the thinking sent back with the
// history) is remembered per server and model, and the request goes again
// without it; the reply's figures say so once (a main call's reply). It
// reports whether to ask again.
func (l *runLoop) refuseThinking(err error, req llm.Request, setting string, main bool) bool {
	if fault.CodeOf(err) != llm.KindThinkingRefused {
		return false
	}
	id := l.text.identity()
	refused := ""
	switch {
	case req.Thinking.Sends():
		refused = setting
	case hasThinking(req.Messages):
		refused = textcalls.RefusedHistory
	default:
		return false
	}
	l.rt.caps.RefuseThinking(id, refused)
	l.rt.log.Info("server refused the thinking fields; asking again without them", "refused", refused,
		"model", id.Model, "base_url", id.BaseURL, "err", fault.Coded(err).Error())
	if main {
		if refused == textcalls.RefusedHistory {
			l.thinkingNote = i18n.T("agent.thinkingHistoryRefused")
		} else {
			l.thinkingNote = i18n.T("agent.thinkingRefused", setting)
		}
	}
	return true
}

// takeThinkingNote returns the note for the reply's figures, once.
func (l *runLoop) takeThinkingNote() string {
	n := l.thinkingNote
	l.thinkingNote = ""
	return n
}

// thought notes a piece of thinking for the reply's figures.
func (c *replyClock) thought() {
	now := time.Now()
	if c.firstThought.IsZero() {
		c.firstThought = now
	}
	c.lastThought = now
}

// moved notes that the reply's text so far was thinking: it began with
// the first text.
func (c *replyClock) moved() {
	if !c.first.IsZero() && (c.firstThought.IsZero() || c.first.Before(c.firstThought)) {
		c.firstThought = c.first
	}
	c.thought()
}

// reasoningMs is from the first to the last piece of thinking.
func (c *replyClock) reasoningMs() int64 {
	if c.firstThought.IsZero() {
		return 0
	}
	return c.lastThought.Sub(c.firstThought).Milliseconds()
}
