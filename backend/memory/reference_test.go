package memory

import (
	"math"
	"slices"
	"strings"
)

// The straightforward prompt assembly Index.Prompt replaced: every run
// sorts, measures and reads the keywords of every memory in scope. Kept as
// the reference Index.Prompt must agree with (index_test.go).

// referencePrompt builds the memory block of a run's system prompt from the
// memories in scope: all of them, newest used first (a memory never used
// counts from when it was made), while they fit in budget tokens. When they
// do not all fit, up to half the budget goes first to those nearest the
// user's message (by keyword: the message's words found in the memory,
// rarer words counting more; and by meaning when byMeaning is given: the
// indexes of ms nearest the message by their vectors, best first, asked
// for only then), and the rest of the budget to the newest used. It
// returns "" when there is nothing to list, and the ids of the memories
// listed, in the order listed.
func referencePrompt(ms []Memory, userMessage string, budget int, byMeaning func() []int) (string, []string) {
	if len(ms) == 0 || budget <= 0 {
		return "", nil
	}
	order := recencyOrder(ms)
	rank := make([]int, len(ms)) // position in order: newest used first
	for pos, i := range order {
		rank[i] = pos
	}

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
		near := nearest(ms, userMessage, rank)
		if byMeaning != nil {
			near = interleave(near, byMeaning())
		}
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
// lastTouched, then the newer, then by id), comparing precomputed times.
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

// nearest returns the indexes of the memories sharing a keyword with the
// message, best first (ties: newest used first). A word counts by how rare
// it is among the memories (inverse document frequency).
func nearest(ms []Memory, message string, rank []int) []int {
	words := keywords(message)
	if len(words) == 0 {
		return nil
	}
	want := make(map[string]int, len(words)) // word -> its bit
	for _, w := range words {
		if _, ok := want[w]; !ok && len(want) < 64 {
			want[w] = len(want)
		}
	}
	df := make([]int, len(want))
	hits := make([]uint64, len(ms)) // per memory: the message words it has, one bit each
	for i, m := range ms {
		for _, w := range cachedKeywords(m.Text) {
			if k, ok := want[w]; ok && hits[i]&(1<<k) == 0 {
				df[k]++
				hits[i] |= 1 << k
			}
		}
	}
	n := float64(len(ms))
	weight := make([]float64, len(want))
	for k, d := range df {
		if d > 0 {
			weight[k] = math.Log(1 + n/float64(d))
		}
	}
	score := make([]float64, len(ms))
	var out []int
	for i, hs := range hits {
		if hs == 0 {
			continue
		}
		for k := range weight {
			if hs&(1<<k) != 0 {
				score[i] += weight[k]
			}
		}
		out = append(out, i)
	}
	// Best first; ties newest used first (rank, precomputed: comparing
	// times in the sort was most of its cost with many memories).
	slices.SortFunc(out, func(a, b int) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return rank[a] - rank[b]
	})
	return out
}

// cachedKeywords are keywords(text), read once per text (the cache is
// emptied when it holds far more texts than any scope would).
func cachedKeywords(text string) []string {
	keywordCache.Lock()
	defer keywordCache.Unlock()
	return cachedKeywordsLocked(text)
}

// interleave merges two rankings best first, taking from each in turn and
// each index once: the memories nearest by keyword and by meaning share
// the place kept for the nearest.
func interleave(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	seen := make(map[int]bool, len(a)+len(b))
	for i := 0; i < len(a) || i < len(b); i++ {
		for _, list := range [2][]int{a, b} {
			if i < len(list) && !seen[list[i]] {
				seen[list[i]] = true
				out = append(out, list[i])
			}
		}
	}
	return out
}
