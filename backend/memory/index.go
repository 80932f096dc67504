package memory

import (
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"
)

// Index is a set of memories prepared for runs' prompts, built once per
// version of the set (the store keeps it with its cache of memories and
// builds it again after a write). Prompt with 10,000 memories sorted them,
// counted their tokens and read their keywords on every run; the index
// holds all of that, so a run costs what the memories it lists and the
// memories sharing a word with the message cost, not what all of them do.
//
// An Index is never changed once handed out: Touched returns a new one
// (sharing what did not change), so runs read it without a lock.
type Index struct {
	ms      []Memory // as given (their UsedAt as built; see touched)
	lines   []string // each memory's list line
	cost    []int32  // each memory's tokens on the list
	created []int64
	touched [][]int64 // last used, else made (UnixNano), in chunks: Touched copies those it changes
	byID    map[string]int32
	part    []partKey // each memory's
	parts   map[partKey]*indexPart
	minCost int32
}

// partKey names the memories that come into a scope together: those of
// every conversation (kind partGlobal), of one project, of one conversation.
type partKey struct {
	kind uint8
	id   string
}

const (
	partGlobal uint8 = iota
	partProject
	partConversation
)

// indexPart is one part's memories.
type indexPart struct {
	n     int
	total int // their tokens on the list
	// Newest used first: front merged with base less those in front.
	// Touched puts the memories used in front (a few: it stays short) and
	// folds front into base once it is long.
	base     []int32
	front    []int32 // by recency
	frontSet []int32 // front by number, to look up
	// postings: keyword -> the part's memories having it (each once).
	postings map[string][]int32
	// lacking: for a keyword most of the part's memories have, those that
	// do not (nearest reads the shorter list).
	lacking map[string][]int32
}

func partOf(m Memory) partKey {
	switch {
	case m.ScopeConversationID != nil:
		return partKey{partConversation, *m.ScopeConversationID}
	case m.ProjectID != nil:
		return partKey{partProject, *m.ProjectID}
	}
	return partKey{kind: partGlobal}
}

// scopeParts are the parts a scope takes memories from (see InScope).
func (x *Index) scopeParts(sc Scope) []*indexPart {
	out := make([]*indexPart, 0, 3)
	for _, k := range scopeKeys(sc) {
		if p := x.parts[k]; p != nil && p.n > 0 {
			out = append(out, p)
		}
	}
	return out
}

func scopeKeys(sc Scope) []partKey {
	keys := [3]partKey{{kind: partGlobal}}
	n := 1
	if sc.Project != "" {
		keys[n] = partKey{partProject, sc.Project}
		n++
	}
	if sc.Conversation != "" {
		keys[n] = partKey{partConversation, sc.Conversation}
		n++
	}
	return keys[:n]
}

// NewIndex prepares memories for prompts. It keeps ms (the caller must not
// change it afterwards).
func NewIndex(ms []Memory) *Index { return newIndex(ms, partOf) }

// newIndex is NewIndex with the parts the memories are in.
func newIndex(ms []Memory, partOf func(Memory) partKey) *Index {
	n := len(ms)
	x := &Index{ms: ms, lines: make([]string, n), cost: make([]int32, n), created: make([]int64, n),
		touched: make([][]int64, (n+int(touchedChunk)-1)/int(touchedChunk)), byID: make(map[string]int32, n), part: make([]partKey, n),
		parts: map[partKey]*indexPart{}, minCost: math.MaxInt32}
	keywordCache.Lock()
	defer keywordCache.Unlock()
	for i, m := range ms {
		x.lines[i] = oneLine(m.Text)
		x.cost[i] = int32(Tokens(m.Text) + 1)
		x.minCost = min(x.minCost, x.cost[i])
		x.created[i] = m.CreatedAt.UnixNano()
		c, at := int32(i)/touchedChunk, int32(i)%touchedChunk
		if at == 0 {
			x.touched[c] = make([]int64, min(int(touchedChunk), n-i))
		}
		x.touched[c][at] = lastTouched(m).UnixNano()
		x.byID[m.ID] = int32(i)
		k := partOf(m)
		x.part[i] = k
		p := x.parts[k]
		if p == nil {
			p = &indexPart{postings: map[string][]int32{}}
			x.parts[k] = p
		}
		p.n++
		p.total += int(x.cost[i])
		seen := map[string]bool{}
		for _, w := range cachedKeywordsLocked(m.Text) {
			if !seen[w] {
				seen[w] = true
				p.postings[w] = append(p.postings[w], int32(i))
			}
		}
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, x.compare)
	for _, p := range x.parts {
		p.base = make([]int32, 0, p.n)
	}
	for _, i := range order {
		p := x.parts[x.part[i]]
		p.base = append(p.base, i)
	}
	has := make([]bool, n)
	for _, p := range x.parts {
		p.lacking = map[string][]int32{}
		for w, ps := range p.postings {
			if 2*len(ps) <= p.n {
				continue
			}
			for _, i := range ps {
				has[i] = true
			}
			l := make([]int32, 0, p.n-len(ps))
			for _, i := range p.base {
				if !has[i] {
					l = append(l, i)
				}
			}
			for _, i := range ps {
				has[i] = false
			}
			p.lacking[w] = l
		}
	}
	return x
}

// compare orders memories newest used first (see lastTouched), then the
// newer, then by id: recencyOrder's order.
func (x *Index) compare(a, b int32) int {
	ta, tb := x.touchedAt(a), x.touchedAt(b)
	switch {
	case ta != tb:
		return cmpDesc(ta, tb)
	case x.created[a] != x.created[b]:
		return cmpDesc(x.created[a], x.created[b])
	}
	return strings.Compare(x.ms[a].ID, x.ms[b].ID)
}

// touchedChunk is how many memories' times a chunk of touched holds (a
// variable: tests make it small).
var touchedChunk int32 = 64

func (x *Index) touchedAt(i int32) int64 { return x.touched[i/touchedChunk][i%touchedChunk] }

// maxFront is how long a part's front grows before Touched folds it into
// its base (a pass over the part: once every many runs; a variable: tests
// make it small).
var maxFront = 512

// Len is how many memories the index holds.
func (x *Index) Len() int { return len(x.ms) }

// Touched is the index after the memories were used at at (ids it does
// not hold are left out): they move up the recency order. It costs what
// it moves (the parts' order is patched, not sorted again), and leaves x
// as it was: runs holding it read on.
func (x *Index) Touched(ids []string, at time.Time) *Index {
	t := at.UnixNano()
	var moved []int32
	for _, id := range ids {
		if i, ok := x.byID[id]; ok && x.touchedAt(i) != t && !slices.Contains(moved, i) {
			moved = append(moved, i)
		}
	}
	if len(moved) == 0 {
		return x
	}
	y := *x
	y.touched = slices.Clone(x.touched)
	copied := map[int32]bool{}
	for _, i := range moved {
		c := i / touchedChunk
		if !copied[c] {
			copied[c] = true
			y.touched[c] = slices.Clone(x.touched[c])
		}
		y.touched[c][i%touchedChunk] = t
	}
	byPart := map[partKey][]int32{}
	for _, i := range moved {
		byPart[x.part[i]] = append(byPart[x.part[i]], i)
	}
	y.parts = make(map[partKey]*indexPart, len(x.parts))
	for k, p := range x.parts {
		if ms, ok := byPart[k]; ok {
			p = y.patched(p, ms)
		}
		y.parts[k] = p
	}
	return &y
}

// patched is part p with the memories moved (their times changed in y)
// in its front.
func (y *Index) patched(p *indexPart, moved []int32) *indexPart {
	q := *p
	q.front = make([]int32, 0, len(p.front)+len(moved))
	for _, i := range p.front {
		if !slices.Contains(moved, i) {
			q.front = append(q.front, i)
		}
	}
	q.front = append(q.front, moved...)
	slices.SortFunc(q.front, y.compare)
	q.frontSet = slices.Clone(q.front)
	slices.Sort(q.frontSet)
	if len(q.front) > maxFront {
		q.base = y.walk(&q).all()
		q.front, q.frontSet = nil, nil
	}
	return &q
}

// partWalk reads a part's memories newest used first.
type partWalk struct {
	x      *Index
	p      *indexPart
	fi, bi int
}

func (x *Index) walk(p *indexPart) partWalk { return partWalk{x: x, p: p} }

// peek is the next memory (-1: none left).
func (w *partWalk) peek() int32 {
	for w.bi < len(w.p.base) {
		if _, in := slices.BinarySearch(w.p.frontSet, w.p.base[w.bi]); !in {
			break
		}
		w.bi++ // in front: it comes from there
	}
	switch {
	case w.fi < len(w.p.front) && (w.bi >= len(w.p.base) || w.x.compare(w.p.front[w.fi], w.p.base[w.bi]) < 0):
		return w.p.front[w.fi]
	case w.bi < len(w.p.base):
		return w.p.base[w.bi]
	}
	return -1
}

// pop moves past the memory peek gave.
func (w *partWalk) pop() {
	if w.fi < len(w.p.front) && (w.bi >= len(w.p.base) || w.p.front[w.fi] == w.peek()) {
		w.fi++
		return
	}
	w.bi++
}

func (w partWalk) all() []int32 {
	out := make([]int32, 0, w.p.n)
	for i := w.peek(); i >= 0; i = w.peek() {
		out = append(out, i)
		w.pop()
	}
	return out
}

// Scoped are the index's memories in the scope, in the order given to
// NewIndex (as Scoped gives them), with their numbers in the index.
func (x *Index) Scoped(sc Scope) ([]Memory, []int32) {
	keys := scopeKeys(sc)
	var ms []Memory
	var at []int32
	for i, m := range x.ms {
		if slices.Contains(keys, x.part[i]) {
			ms = append(ms, m)
			at = append(at, int32(i))
		}
	}
	return ms, at
}

// Prompt is memory.Prompt(Scoped(memories, sc), …) from the index: the
// same text and ids. byMeaning, when given, is asked (only when the
// memories do not all fit) for the indexes of ms nearest the message by
// meaning, best first, ms being the memories in scope as Scoped gives them.
func (x *Index) Prompt(sc Scope, userMessage string, budget int, byMeaning func(ms []Memory) []int) (string, []string) {
	parts := x.scopeParts(sc)
	if len(parts) == 0 || budget <= 0 {
		return "", nil
	}
	total, n := Tokens(PromptIntro), 0
	for _, p := range parts {
		total += p.total
		n += p.n
	}
	left := budget - Tokens(PromptIntro)
	if left <= 0 {
		return "", nil
	}
	var chosen []int32
	fl := x.flags()
	defer fl.release()
	if total > budget {
		half := left / 2
		near := x.nearest(parts, n, userMessage)
		defer near.release()
		var meaning []int32
		if byMeaning != nil {
			ms, at := x.Scoped(sc)
			for _, i := range byMeaning(ms) {
				meaning = append(meaning, at[i])
			}
		}
		// interleave(near, meaning), taken while a memory may still fit.
		for r := 0; int32(half) >= x.minCost; r++ {
			a, aok := near.next()
			if !aok && r >= len(meaning) {
				break
			}
			for k, i := range [2]int32{a, -1} {
				if k == 1 {
					if r >= len(meaning) {
						continue
					}
					i = meaning[r]
				} else if !aok {
					continue
				}
				if fl.has(i, flagSeen) {
					continue
				}
				fl.set(i, flagSeen)
				if c := int(x.cost[i]); c <= half {
					chosen = append(chosen, i)
					fl.set(i, flagChosen)
					half -= c
					left -= c
				}
			}
		}
	}
	// The newest used, merging the parts' orders, until one does not fit.
	walks := make([]partWalk, len(parts))
	for k, p := range parts {
		walks[k] = x.walk(p)
	}
	for {
		best, i := -1, int32(-1)
		for k := range walks {
			if j := walks[k].peek(); j >= 0 && (best < 0 || x.compare(j, i) < 0) {
				best, i = k, j
			}
		}
		if best < 0 {
			break
		}
		walks[best].pop()
		if fl.has(i, flagChosen) {
			continue
		}
		if int(x.cost[i]) > left {
			break
		}
		chosen = append(chosen, i)
		fl.set(i, flagChosen)
		left -= int(x.cost[i])
	}
	if len(chosen) == 0 {
		return "", nil
	}
	slices.SortFunc(chosen, x.compare)
	size := len(PromptIntro)
	for _, i := range chosen {
		size += len("\n- ") + len(x.lines[i])
	}
	var b strings.Builder
	b.Grow(size) // one allocation for the ~8 KB block
	b.WriteString(PromptIntro)
	ids := make([]string, len(chosen))
	for k, i := range chosen {
		b.WriteString("\n- ")
		b.WriteString(x.lines[i])
		ids[k] = x.ms[i].ID
	}
	return b.String(), ids
}

// flagSet marks memories while a prompt is made (seen, chosen): maps of
// them cost more than the rest of a prompt with 10,000 memories. Pooled,
// and cleared after use (only the memories marked).
type flagSet struct {
	f      []uint8
	marked []int32
}

const (
	flagSeen uint8 = 1 << iota
	flagChosen
)

var flagPool sync.Pool

func (x *Index) flags() *flagSet {
	if fs, ok := flagPool.Get().(*flagSet); ok && len(fs.f) >= len(x.ms) {
		return fs
	}
	return &flagSet{f: make([]uint8, len(x.ms))}
}

func (fs *flagSet) has(i int32, flag uint8) bool { return fs.f[i]&flag != 0 }

func (fs *flagSet) set(i int32, flag uint8) {
	if fs.f[i] == 0 {
		fs.marked = append(fs.marked, i)
	}
	fs.f[i] |= flag
}

func (fs *flagSet) release() {
	for _, i := range fs.marked {
		fs.f[i] = 0
	}
	fs.marked = fs.marked[:0]
	flagPool.Put(fs)
}

// nearIter gives the memories sharing a keyword with the message best
// first (as nearest orders them: score, then newest used), one at a time:
// a run takes only as many as fit in half its budget.
//
// A word most of a part's memories have (dense) is read from the list of
// those lacking it, so a run never goes through every memory for a common
// word. A memory named in no list read has its part's dense words and no
// other ("plain"); the others ("listed") have their bits in sparse/lack.
// Memories come level by level (a level: the memories of one score); a
// level is the listed memories of that score, sorted, merged with the
// plain memories of the parts whose dense words give that score, read in
// their recency order.
type nearIter struct {
	x      *Index
	parts  []*indexPart
	dense  []uint64 // per part: the message's words dense there
	weight []float64
	buf    *nearScratch
	listed []int32 // memories with a bit in sparse or lack
	levels []float64
	level  int
	// the level being read
	cur   []int32    // its listed memories, newest used first
	curP  []int      // the parts whose plain memories are on it
	pos   int        // reading position in cur
	walks []partWalk // reading those parts
}

type nearScratch struct{ sparse, lack []uint64 }

// nearPool holds nearest's per-memory bitsets (cleared after use).
var nearPool sync.Pool

// nearest is nearest(Scoped memories, message, rank) from the postings of
// the message's words in the scope's parts.
func (x *Index) nearest(parts []*indexPart, n int, message string) *nearIter {
	it := &nearIter{x: x, parts: parts, level: -1}
	words := keywords(message)
	if len(words) == 0 {
		return it
	}
	var want []string // bit k: want[k]
	for _, w := range words {
		if !slices.Contains(want, w) && len(want) < 64 {
			want = append(want, w)
		}
	}
	if v, ok := nearPool.Get().(*nearScratch); ok && len(v.sparse) >= len(x.ms) {
		it.buf = v
	} else {
		it.buf = &nearScratch{sparse: make([]uint64, len(x.ms)), lack: make([]uint64, len(x.ms))}
	}
	sparse, lack := it.buf.sparse, it.buf.lack
	mark := func(i int32) {
		if sparse[i] == 0 && lack[i] == 0 {
			it.listed = append(it.listed, i)
		}
	}
	it.dense = make([]uint64, len(parts))
	it.weight = make([]float64, len(want))
	for k, w := range want {
		df := 0
		for pi, p := range parts {
			ps := p.postings[w]
			df += len(ps)
			if l, ok := p.lacking[w]; ok {
				it.dense[pi] |= 1 << k
				for _, i := range l {
					mark(i)
					lack[i] |= 1 << k
				}
				continue
			}
			for _, i := range ps {
				mark(i)
				sparse[i] |= 1 << k
			}
		}
		if df > 0 {
			it.weight[k] = math.Log(1 + float64(n)/float64(df))
		}
	}
	// The levels: the scores of the listed memories and of the parts' plain ones.
	plain := make([]int, len(parts))
	for pi, p := range parts {
		plain[pi] = p.n
	}
	partIndex := func(i int32) int {
		for pi, p := range parts {
			if p == x.partOfMemory(i) {
				return pi
			}
		}
		return -1
	}
	for _, i := range it.listed {
		pi := partIndex(i)
		plain[pi]--
		if b := sparse[i] | it.dense[pi]&^lack[i]; b != 0 {
			it.levels = append(it.levels, it.score(b))
		}
	}
	for pi := range parts {
		if plain[pi] > 0 && it.dense[pi] != 0 {
			it.levels = append(it.levels, it.score(it.dense[pi]))
		}
	}
	slices.Sort(it.levels)
	it.levels = slices.Compact(it.levels)
	slices.Reverse(it.levels)
	return it
}

func (x *Index) partOfMemory(i int32) *indexPart { return x.parts[x.part[i]] }

// score is a set of the message's words' weight, added in the order of
// the message's words as nearest adds them (the same float).
func (it *nearIter) score(b uint64) float64 {
	var s float64
	for ; b != 0; b &= b - 1 {
		s += it.weight[bits.TrailingZeros64(b)]
	}
	return s
}

// bitsOf is memory i's words of the message (i in part pi).
func (it *nearIter) bitsOf(i int32, pi int) uint64 {
	return it.buf.sparse[i] | it.dense[pi]&^it.buf.lack[i]
}

// startLevel gathers level l's listed memories and the parts read for it.
func (it *nearIter) startLevel(l int) {
	it.level, it.cur, it.curP = l, it.cur[:0], it.curP[:0]
	score := it.levels[l]
	for _, i := range it.listed {
		for pi, p := range it.parts {
			if p == it.x.partOfMemory(i) {
				if b := it.bitsOf(i, pi); b != 0 && it.score(b) == score {
					it.cur = append(it.cur, i)
				}
				break
			}
		}
	}
	slices.SortFunc(it.cur, it.x.compare)
	for pi := range it.parts {
		if it.dense[pi] != 0 && it.score(it.dense[pi]) == score {
			it.curP = append(it.curP, pi)
		}
	}
	it.pos = 0
	it.walks = it.walks[:0]
	for _, pi := range it.curP {
		it.walks = append(it.walks, it.x.walk(it.parts[pi]))
	}
}

func (it *nearIter) next() (int32, bool) {
	if it.buf == nil {
		return -1, false
	}
	x := it.x
	for {
		if it.level < 0 {
			if len(it.levels) == 0 {
				return -1, false
			}
			it.startLevel(0)
		}
		// The newest used of: the level's next listed memory, and each
		// part's next plain one.
		best, from := int32(-1), -1
		if it.pos < len(it.cur) {
			best = it.cur[it.pos]
		}
		for k := range it.walks {
			w := &it.walks[k]
			i := w.peek()
			for i >= 0 && (it.buf.sparse[i] != 0 || it.buf.lack[i] != 0) {
				w.pop() // listed: it comes through cur
				i = w.peek()
			}
			if i >= 0 && (best < 0 || x.compare(i, best) < 0) {
				best, from = i, k
			}
		}
		if best >= 0 {
			if from < 0 {
				it.pos++
			} else {
				it.walks[from].pop()
			}
			return best, true
		}
		if it.level+1 >= len(it.levels) {
			return -1, false
		}
		it.startLevel(it.level + 1)
	}
}

// release clears the bitsets used and gives them back.
func (it *nearIter) release() {
	if it.buf == nil {
		return
	}
	for _, i := range it.listed {
		it.buf.sparse[i], it.buf.lack[i] = 0, 0
	}
	nearPool.Put(it.buf)
	it.buf = nil
}
