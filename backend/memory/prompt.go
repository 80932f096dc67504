package memory

import (
	"math"
	"slices"
	"strings"
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
// rarer words counting more), and the rest of the budget to the newest
// used. It returns "" when there is nothing to list, and the ids of the
// memories listed, in the order listed.
func Prompt(ms []Memory, userMessage string, budget int) (string, []string) {
	if len(ms) == 0 || budget <= 0 {
		return "", nil
	}
	order := recencyOrder(ms)

	cost := make([]int, len(ms))
	total := Tokens(PromptIntro)
	for i, m := range ms {
		cost[i] = Tokens(m.Text) + 1 // "- " and the line's end
		total += cost[i]
	}
	left := budget - Tokens(PromptIntro)
	if left <= 0 {
		return "", nil
	}
	chosen := make([]bool, len(ms))
	if total > budget {
		near := nearest(ms, userMessage)
		half := left / 2
		for _, i := range near {
			if cost[i] <= half {
				chosen[i] = true
				half -= cost[i]
				left -= cost[i]
			}
		}
	}
	for _, i := range order {
		if chosen[i] {
			continue
		}
		if cost[i] > left {
			break // newest used first: an older one never takes the place of a newer one
		}
		chosen[i] = true
		left -= cost[i]
	}
	var b strings.Builder
	b.WriteString(PromptIntro)
	ids := make([]string, 0, len(ms))
	for _, i := range order {
		if chosen[i] {
			b.WriteString("\n- ")
			b.WriteString(oneLine(ms[i].Text))
			ids = append(ids, ms[i].ID)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	return b.String(), ids
}

// recencyOrder returns the indexes of ms newest used first (see
// compareRecency), comparing precomputed times.
func recencyOrder(ms []Memory) []int {
	type key struct {
		touched, created int64
		i                int
	}
	keys := make([]key, len(ms))
	for i, m := range ms {
		keys[i] = key{lastTouched(m).UnixNano(), m.CreatedAt.UnixNano(), i}
	}
	slices.SortFunc(keys, func(a, b key) int {
		switch {
		case a.touched != b.touched:
			return cmpDesc(a.touched, b.touched)
		case a.created != b.created:
			return cmpDesc(a.created, b.created)
		}
		return strings.Compare(ms[a.i].ID, ms[b.i].ID)
	})
	order := make([]int, len(ms))
	for j, k := range keys {
		order[j] = k.i
	}
	return order
}

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	return 1
}

// compareRecency orders memories newest used first; one never used counts
// from when it was made; ties go to the newer, then by id.
func compareRecency(a, b Memory) int {
	ta, tb := lastTouched(a), lastTouched(b)
	if c := tb.Compare(ta); c != 0 {
		return c
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
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

// nearest returns the indexes of the memories sharing a keyword with the
// message, best first (ties: newest used first). A word counts by how rare
// it is among the memories (inverse document frequency).
func nearest(ms []Memory, message string) []int {
	words := keywords(message)
	if len(words) == 0 {
		return nil
	}
	want := make(map[string]int, len(words)) // word -> index into df
	for _, w := range words {
		if _, ok := want[w]; !ok {
			want[w] = len(want)
		}
	}
	df := make([]int, len(want))
	hits := make([][]int, len(ms)) // per memory: the message words it has
	cur := -1
	collect := func(w []byte) {
		if k, ok := want[string(w)]; ok && !slices.Contains(hits[cur], k) {
			df[k]++
			hits[cur] = append(hits[cur], k)
		}
	}
	for i, m := range ms {
		cur = i
		eachKeyword(m.Text, collect)
	}
	n := float64(len(ms))
	score := make([]float64, len(ms))
	var out []int
	for i, hs := range hits {
		for _, k := range hs {
			score[i] += math.Log(1 + n/float64(df[k]))
		}
		if len(hs) > 0 {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return compareRecency(ms[a], ms[b])
	})
	return out
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
	tz.word = tz.buf[:0]
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
