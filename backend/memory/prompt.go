package memory

import (
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// PromptBudget is about how many tokens the memories of a run's system
// prompt may take (SPEC §14: about 2,000).
const PromptBudget = 2000

// PromptIntro opens the memory block of the system prompt. Texts sent to
// the model stay in English.
const PromptIntro = "What you remember about the user from earlier conversations (the user asked you to, or answered your questions with it). " +
	"Use it where it helps without asking again; the user's newest messages win when they differ:"

// Tokens estimates the tokens of a text as the reply figures do: about
// four characters a token.
func Tokens(text string) int { return (utf8.RuneCountInString(text) + 3) / 4 }

// Prompt builds the memory block of a run's system prompt from the
// memories in scope: all of them, newest used first (a memory never used
// counts from when it was made), while they fit in budget tokens. When they
// do not all fit, up to half the budget goes first to those nearest the
// user's message (by keyword: the message's words found in the memory,
// rarer words counting more; and by meaning when byMeaning is given: the
// indexes of ms nearest the message by their vectors, best first, asked
// for only then), and the rest of the budget to the newest used. It
// returns "" when there is nothing to list, and the ids of the memories
// listed, in the order listed.
//
// It prepares ms as an Index each call; runs use the Index the store keeps
// (Index.Prompt gives the same for the memories of a scope).
func Prompt(ms []Memory, userMessage string, budget int, byMeaning func() []int) (string, []string) {
	x := newIndex(ms, func(Memory) partKey { return partKey{kind: partGlobal} })
	var meaning func([]Memory) []int
	if byMeaning != nil {
		meaning = func([]Memory) []int { return byMeaning() }
	}
	return x.Prompt(Scope{}, userMessage, budget, meaning)
}

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	return 1
}

func lastTouched(m Memory) time.Time {
	if m.UsedAt != nil {
		return *m.UsedAt
	}
	return m.CreatedAt
}

// oneLine keeps a memory on its list line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// keywordCache keeps each memory text's keywords between runs: a run's
// prompt compares the user's message with every memory in scope, and
// reading 10,000 texts again each run was most of its cost.
var keywordCache struct {
	sync.Mutex
	byText map[string][]string
}

// cachedKeywordsLocked are keywords(text), read once per text (the cache
// is emptied when it holds far more texts than any scope would); the
// caller holds keywordCache.
func cachedKeywordsLocked(text string) []string {
	if ws, ok := keywordCache.byText[text]; ok {
		return ws
	}
	if keywordCache.byText == nil || len(keywordCache.byText) > 100_000 {
		keywordCache.byText = map[string][]string{}
	}
	ws := keywords(text)
	keywordCache.byText[text] = ws
	return ws
}

// keywords are a text's words as nearest compares them.
func keywords(text string) []string {
	var out []string
	eachKeyword(text, func(w []byte) { out = append(out, string(w)) })
	return out
}

// eachKeyword calls f with each keyword of text: lower-cased words of
// letters and digits, at least three characters long, not among the most
// common English words, with a plural s dropped; text in scripts written
// without spaces (Chinese, Japanese) gives its pairs of characters. f gets
// a buffer it must not keep.
func eachKeyword(text string, f func(w []byte)) {
	var tz tokenizer
	tz.keywords(text, f)
}

// keywords is eachKeyword with a tokenizer kept between texts (one
// allocation for many memories instead of one each).
func (tz *tokenizer) keywords(text string, f func(w []byte)) {
	tz.word, tz.runes, tz.cjk = tz.buf[:0], 0, tz.cjk[:0]
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				tz.flushCJK(f)
				tz.word = append(tz.word, byte(r))
				tz.runes++
				continue
			}
			tz.flushWord(f)
			tz.flushCJK(f)
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			tz.flushWord(f)
			tz.cjk = append(tz.cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			tz.flushCJK(f)
			tz.word = utf8.AppendRune(tz.word, unicode.ToLower(r))
			tz.runes++
		default:
			tz.flushWord(f)
			tz.flushCJK(f)
		}
	}
	tz.flushWord(f)
	tz.flushCJK(f)
}

// tokenizer is eachKeyword's state: the word being read and the run of
// characters of scripts written without spaces.
type tokenizer struct {
	buf   [64]byte
	word  []byte
	runes int
	cjk   []rune
	pair  [8]byte
}

func (tz *tokenizer) flushWord(f func([]byte)) {
	if tz.runes >= 3 && !stopWords[string(tz.word)] {
		w := tz.word
		if tz.runes > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' {
			w = w[:len(w)-1]
		}
		f(w)
	}
	tz.word, tz.runes = tz.word[:0], 0
}

func (tz *tokenizer) flushCJK(f func([]byte)) {
	if len(tz.cjk) == 0 {
		return
	}
	if len(tz.cjk) == 1 {
		f(utf8.AppendRune(tz.pair[:0], tz.cjk[0]))
	}
	for i := 0; i+1 < len(tz.cjk); i++ {
		f(utf8.AppendRune(utf8.AppendRune(tz.pair[:0], tz.cjk[i]), tz.cjk[i+1]))
	}
	tz.cjk = tz.cjk[:0]
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you your yours all any can had has have her his him how its our out
		was were what when where which who whom why will with would could should this that these those there their them they
		then than from into onto about also just like some such very more most much many other only own same too use used
		does did doing done been being get got let may might must shall yes please thanks thank want need know make made`) {
		m[w] = true
	}
	return m
}()
