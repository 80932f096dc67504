package llm

import (
	"bytes"
	"strings"
)

// Thinking a server leaves in the content (SPEC §9): llama.cpp's
// llama-server with --reasoning-format none (and builds before mid-2025)
// streams a thinking model's `<think>…</think>` as ordinary text; when the
// chat template opened the tag itself (qwen3's "add_generation_prompt"
// does), the content has no `<think>` but does contain `</think>`.
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// Where the thinking of an answer came from: the field the server sent it
// in, or tags in the content. It decides the field the thinking goes back
// in (ReasoningField).
const (
	ReasoningFromField        = "reasoning"         // Ollama's /v1, vLLM ≥ 0.11, LM Studio's gpt-oss
	ReasoningFromContentField = "reasoning_content" // llama.cpp, vLLM ≤ 0.10, DeepSeek's API
	ReasoningFromTags         = "think_tags"        // `<think>…</think>` left in the content
)

// ReasoningField is the request field an assistant message's thinking goes
// back in, for thinking that came from source: the field the server sent
// it in; `reasoning_content` (which llama.cpp's server reads back into its
// templates, common/chat.cpp common_chat_msgs_parse_oaicompat) for
// thinking that came in tags.
func ReasoningField(source string) string {
	if source == ReasoningFromField {
		return ReasoningFromField
	}
	return ReasoningFromContentField
}

// thinkSplitter moves thinking left in streamed content out of the reply:
// a `<think>` at the start (after blank space) opens it, `</think>` closes
// it; a `</think>` in a reply that had no `<think>` (the template opened
// the tag) turns everything before it into thinking, the moment it
// arrives. Tags may be cut anywhere between chunks: at the start and in
// the thinking, a chunk's end that could start a tag is held back until
// the next chunk (or Close) tells; the reply is never held back.
type thinkSplitter struct {
	state   int
	pending string // held back: could be the start of a tag
	reply   strings.Builder
	// closable: a bare `</think>` still moves the reply into the thinking
	// (no thinking came by any other way, and none was moved yet).
	closable bool
	// onThinking and onReply receive the pieces in order; moved says the
	// thinking was handed on as reply text until now.
	onThinking func(text string, moved bool)
	onReply    func(text string)
	found      bool // tags were found
}

const (
	splitLead     = iota // only blank space so far: a `<think>` may come
	splitThinking        // inside <think>
	splitAfter           // after </think>: blank space before the reply is dropped
	splitReply           // the reply
)

func newThinkSplitter(onThinking func(string, bool), onReply func(string)) *thinkSplitter {
	return &thinkSplitter{closable: true, onThinking: onThinking, onReply: onReply}
}

// noBareClose stops a later bare `</think>` from moving the reply (thinking
// came in a reasoning field: the server separates it itself).
func (s *thinkSplitter) noBareClose() { s.closable = false }

// Write takes the next piece of content.
func (s *thinkSplitter) Write(chunk string) {
	text := chunk
	if s.pending != "" {
		text = s.pending + chunk
		s.pending = ""
	}
	for text != "" {
		switch s.state {
		case splitLead:
			trimmed := strings.TrimLeft(text, " \t\r\n")
			switch {
			case trimmed == "":
				s.pending = text // blank so far: keep it, the reply may start later
				return
			case strings.HasPrefix(trimmed, thinkOpen):
				s.found = true
				s.state = splitThinking
				text = trimmed[len(thinkOpen):]
			case strings.HasPrefix(thinkOpen, trimmed):
				s.pending = text // "<thi": wait for more
				return
			case s.closable && strings.HasPrefix(thinkClose, trimmed):
				// "</thi": the template may have opened the tag and the
				// thinking be empty; once handed on as the reply, a tag
				// completed at the reply's very start would move nothing
				// and stay shown.
				s.pending = text
				return
			default:
				s.state = splitReply
			}
		case splitThinking:
			i := strings.Index(text, thinkClose)
			if i < 0 {
				keep := partialSuffix(text, thinkClose)
				s.emitThinking(text[:len(text)-keep], false)
				s.pending = text[len(text)-keep:]
				return
			}
			s.emitThinking(text[:i], false)
			s.state = splitAfter
			s.closable = false
			text = text[i+len(thinkClose):]
		case splitAfter:
			text = strings.TrimLeft(text, " \t\r\n")
			if text == "" {
				return
			}
			s.state = splitReply
		case splitReply:
			if !s.closable {
				s.emitReply(text)
				return
			}
			// The reply is handed on as it comes (no piece held back): a
			// `</think>` may have begun in the text already handed on.
			shown := s.reply.String()
			at := -1
			if k := partialSuffix(shown, thinkClose); k > 0 && strings.HasPrefix(text, thinkClose[k:]) {
				at = len(shown) - k
			} else if i := strings.Index(text, thinkClose); i >= 0 {
				at = len(shown) + i
			}
			if at < 0 {
				s.emitReply(text)
				return
			}
			// The template opened the tag: what was shown as the reply
			// until now, and the text before the tag, were thinking.
			s.found = true
			s.closable = false
			whole := shown + text
			s.reply.Reset()
			if at > 0 {
				s.onThinking(whole[:at], true)
			}
			s.state = splitAfter
			text = whole[at+len(thinkClose):]
		}
	}
}

// WriteBytes is Write for a chunk in a buffer the caller reuses. A piece
// of the reply in which no tag can end (most pieces) is copied once, into
// the reply, and handed on as that copy's text: no string of its own for
// every chunk.
func (s *thinkSplitter) WriteBytes(chunk []byte) {
	if len(chunk) > 0 && s.state == splitReply && s.pending == "" && bytes.IndexByte(chunk, '<') < 0 &&
		(!s.closable || partialSuffix(s.reply.String(), thinkClose) == 0) {
		if s.reply.Cap() == 0 {
			s.reply.Grow(replyStart) // a reply grows by a few bytes a chunk
		}
		n := s.reply.Len()
		s.reply.Write(chunk)
		// What a Builder has written is never changed: the substring
		// stays valid while the reply grows.
		s.onReply(s.reply.String()[n:])
		return
	}
	s.Write(string(chunk))
}

// replyStart is the room first made for the reply.
const replyStart = 2048

// Close hands on what was held back at the end of the content.
func (s *thinkSplitter) Close() {
	text := s.pending
	s.pending = ""
	switch s.state {
	case splitThinking:
		s.emitThinking(text, false) // thinking never closed: still thinking
	case splitLead:
		if strings.TrimSpace(text) != "" {
			s.emitReply(text)
		}
	case splitReply:
		s.emitReply(text)
	}
}

// Reply is the reply text handed on (without the thinking).
func (s *thinkSplitter) Reply() string { return s.reply.String() }

func (s *thinkSplitter) emitThinking(text string, moved bool) {
	if text != "" {
		s.onThinking(text, moved)
	}
}

func (s *thinkSplitter) emitReply(text string) {
	if text == "" {
		return
	}
	s.reply.WriteString(text)
	s.onReply(text)
}

// partialSuffix is the length of the longest end of text that is a
// proper start of tag ("</thi" for "</think>").
func partialSuffix(text, tag string) int {
	// A start of tag ends with one of the tag's bytes: most texts end with
	// none of them (checked on every chunk of a reply, issue #42).
	if text == "" || strings.IndexByte(tag[:len(tag)-1], text[len(text)-1]) < 0 {
		return 0
	}
	for n := min(len(text), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(text, tag[:n]) {
			return n
		}
	}
	return 0
}

// splitThinkTags splits whole content as the streaming splitter would:
// the thinking left in it and the reply; found tells whether there were
// tags at all.
func splitThinkTags(content string, closable bool) (thinking, reply string, found bool) {
	var b strings.Builder
	s := newThinkSplitter(func(t string, _ bool) { b.WriteString(t) }, func(string) {})
	if !closable {
		s.noBareClose()
	}
	s.Write(content)
	s.Close()
	return b.String(), s.Reply(), s.found
}
