package knowledge

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
)

// Result is one passage found, best first.
type Result struct {
	CollectionID string
	Path         string
	Locator      string
	Text         string
	Score        float64
}

// rrfK is reciprocal rank fusion's constant (Cormack et al. 2009): a
// passage scores Σ 1/(k + rank) over the rankings it appears in.
const rrfK = 60

// SearchStats says how a search went (for benchmarks and logs).
type SearchStats struct {
	Keyword int // passages the keyword search ranked
	Vector  int // passages the vector search ranked (0 without vectors)
	// VectorError: the query could not be embedded (server down...):
	// keyword results only.
	VectorError error
}

// Search finds the topK passages of the collections best matching query:
// keyword search (FTS5, BM25) always, vector search too when an embedding
// model is set and answers, fused by reciprocal rank.
func (m *Manager) Search(ctx context.Context, collections []string, query string, topK int) ([]Result, error) {
	out, _, err := m.SearchWithStats(ctx, collections, query, topK)
	return out, err
}

// SearchWithStats is Search, also saying which rankings took part.
func (m *Manager) SearchWithStats(ctx context.Context, collections []string, query string, topK int) ([]Result, SearchStats, error) {
	var stats SearchStats
	if topK <= 0 {
		topK = api.DefaultTopK
	}
	topK = min(topK, api.MaxTopK)
	collections, err := m.existing(ctx, collections)
	if err != nil {
		return nil, stats, err
	}
	depth := max(50, topK*5) // how deep each ranking goes into the fusion
	// The two rankings run at once: the keyword one in SQLite, the vector
	// one waiting on the model server and then scanning memory.
	var vec []int64
	var vecErr error
	cfg := m.opt.Embed()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if cfg.Model != "" {
			vec, vecErr = m.vectorSearch(ctx, cfg, collections, query, depth)
		}
	}()
	keyword, err := m.keywordSearch(ctx, collections, query, topK, depth)
	<-done
	if err != nil {
		return nil, stats, err
	}
	stats.Keyword = len(keyword)
	rankings := [][]int64{keyword}
	if vecErr != nil {
		stats.VectorError = vecErr
		m.log.Debug("vector search unavailable: keyword results only", "err", vecErr)
	} else if cfg.Model != "" {
		stats.Vector = len(vec)
		rankings = append(rankings, vec)
	}
	fused := fuse(rankings, topK)
	seqs := make([]int64, len(fused))
	for i, f := range fused {
		seqs[i] = f.seq
	}
	hits, err := m.st.Chunks(ctx, seqs)
	if err != nil {
		return nil, stats, err
	}
	out := make([]Result, 0, len(fused))
	for _, f := range fused {
		h, ok := hits[f.seq]
		if !ok {
			continue // deleted since the index was read
		}
		out = append(out, Result{CollectionID: h.CollectionID, Path: h.Path, Locator: h.Locator, Text: h.Text, Score: f.score})
	}
	return out, stats, nil
}

// existing keeps the collections that exist: a deleted one's passages
// wait in the index for the purge, and are never found.
func (m *Manager) existing(ctx context.Context, ids []string) ([]string, error) {
	cs, err := m.st.Collections(ctx)
	if err != nil {
		return nil, err
	}
	live := make(map[string]bool, len(cs))
	for _, c := range cs {
		live[c.ID] = true
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if live[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

type scored struct {
	seq   int64
	score float64
}

// fuse merges rankings by reciprocal rank and keeps the best n.
func fuse(rankings [][]int64, n int) []scored {
	score := map[int64]float64{}
	first := map[int64]int{} // tie-break: the earliest place in any ranking
	for _, r := range rankings {
		for i, seq := range r {
			score[seq] += 1.0 / float64(rrfK+i+1)
			if p, ok := first[seq]; !ok || i < p {
				first[seq] = i
			}
		}
	}
	out := make([]scored, 0, len(score))
	for seq, s := range score {
		out = append(out, scored{seq, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		if first[out[i].seq] != first[out[j].seq] {
			return first[out[i].seq] < first[out[j].seq]
		}
		return out[i].seq < out[j].seq
	})
	return out[:min(n, len(out))]
}

// keywordSearch ranks passages by BM25: those with every word of the query
// first; only when they are fewer than topK, those with any of them. BM25
// ranks every passage its query matches (FTS5 has no early exit), and an
// OR of common words matches most of the index: that ranking takes the
// query's words rarest first while the passages they match stay within
// keywordCandidates (a word in a large share of the passages weighs
// little in BM25, and the vector ranking still sees those passages).
func (m *Manager) keywordSearch(ctx context.Context, collections []string, query string, topK, depth int) ([]int64, error) {
	all, any, terms := keywordQueries(query)
	if len(terms) <= 1 {
		return m.st.KeywordSearch(ctx, collections, any, depth)
	}
	found, err := m.st.KeywordSearch(ctx, collections, all, depth)
	if err != nil || len(found) >= topK {
		return found, err
	}
	counts, err := m.st.KeywordMatches(ctx, terms)
	if err != nil {
		return nil, err
	}
	return m.st.KeywordSearch(ctx, collections, rarestTerms(terms, counts, keywordCandidates), depth)
}

// keywordCandidates bounds the passages an OR of the query's words ranks
// (BM25 costs about a microsecond a passage).
const keywordCandidates = 10_000

// rarestTerms is the OR of terms taken by fewest matches first while
// their matches add up to at most limit (the rarest one always, and the
// terms matching nothing cost nothing).
func rarestTerms(terms []string, counts []int, limit int) string {
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] < counts[order[b]] })
	var kept []string
	total := 0
	for _, i := range order {
		if len(kept) > 0 && total+counts[i] > limit {
			break
		}
		total += counts[i]
		kept = append(kept, terms[i])
	}
	return strings.Join(kept, " OR ")
}

// stopWords are left out of keyword queries: they match nearly every
// passage, cost the most to look up, and tell BM25 nothing.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can do does did for from has have how i if in into is it its
		me my no not of on or our so that the their them then there these they this to was we were what when where which who
		why will with you your about should would could please tell`) {
		stopWords[w] = true
	}
}

// maxQueryTerms bounds the FTS5 expression a query becomes.
const maxQueryTerms = 24

// keywordQueries turns what the model or the user asked into FTS5
// expressions: every word of it (AND), any of them (OR; BM25 ranks
// passages with more of them, and rarer ones, first), and the words; each
// word quoted so FTS5 operators in the text are inert. "" when no word is
// left.
func keywordQueries(query string) (all, any string, terms []string) {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	seen := map[string]bool{}
	for _, w := range words {
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	if len(terms) == 0 { // only stop words: search them after all
		for _, w := range words {
			if !seen[w] {
				seen[w] = true
				terms = append(terms, `"`+w+`"`)
			}
			if len(terms) == maxQueryTerms {
				break
			}
		}
	}
	return strings.Join(terms, " AND "), strings.Join(terms, " OR "), terms
}

// cachedIndex is a collection's vectors in memory, loaded at gen.
type cachedIndex struct {
	model   string
	gen     int64
	builtAt time.Time
	ix      *vectorIndex
}

// vectorsChanged marks the in-memory vector indexes stale.
func (m *Manager) vectorsChanged() {
	m.mu.Lock()
	m.vecGen++
	m.mu.Unlock()
}

// staleFor is how long a stale index may keep serving while the embedding
// pass goes on (reloading after every batch would cost more than it gives).
const staleFor = 2 * time.Second

// vectorsOf returns the collection's vectors of model in memory, loading
// them when missing or stale.
func (m *Manager) vectorsOf(ctx context.Context, id, model string) (*vectorIndex, error) {
	m.mu.Lock()
	c := m.vectors[id]
	gen, embedding := m.vecGen, m.embedding
	m.mu.Unlock()
	if c != nil && c.model == model && (c.gen == gen || embedding && time.Since(c.builtAt) < staleFor) {
		return c.ix, nil
	}
	ix := &vectorIndex{}
	if err := m.st.CollectionVectors(ctx, id, model, ix.add); err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.vectors[id] = &cachedIndex{model: model, gen: gen, builtAt: time.Now(), ix: ix}
	m.mu.Unlock()
	return ix, nil
}

// queryEmbedTimeout bounds the wait for the query's vector: a model server
// that hangs must not hold the answer (keyword results come instead).
const queryEmbedTimeout = 15 * time.Second

// vectorSearch ranks the collections' passages by cosine similarity to
// the query's vector: the nearest by sign bits first, then those scored
// on their int8 values.
func (m *Manager) vectorSearch(ctx context.Context, cfg EmbedConfig, collections []string, query string, depth int) ([]int64, error) {
	ectx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	vs, err := m.embedderFor(cfg).Embed(ectx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return nil, errors.New("no vector for the query")
	}
	q := normalize(vs[0])
	candidates := max(256, depth*8)
	var found []scored
	for _, id := range collections {
		ix, err := m.vectorsOf(ctx, id, cfg.Model)
		if err != nil {
			return nil, err
		}
		found = append(found, ix.search(q, candidates)...)
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score > found[j].score
		}
		return found[i].seq < found[j].seq
	})
	ranked := make([]int64, 0, min(depth, len(found)))
	for _, s := range found[:min(depth, len(found))] {
		ranked = append(ranked, s.seq)
	}
	return ranked, nil
}

// embedderFor returns the client for cfg (kept while cfg stays the same,
// so it remembers whether the server is Ollama).
func (m *Manager) embedderFor(cfg EmbedConfig) *Embedder {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.embedder == nil || m.embedCfg != cfg {
		m.embedder, m.embedCfg = NewEmbedder(cfg), cfg
	}
	return m.embedder
}

// embedLoop makes the missing vectors whenever woken (after indexing, a
// change of model) and retries after a failure.
func (m *Manager) embedLoop() {
	retry := (<-chan time.Time)(nil)
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.embedWake:
		case <-retry:
		}
		retry = nil
		if err := m.embedPass(); err != nil && m.ctx.Err() == nil {
			retry = time.After(m.opt.EmbedRetry)
		}
	}
}

// embedPass embeds every passage without a vector of the current model, in
// batches; a change of model restarts it.
func (m *Manager) embedPass() error {
	cfg := m.opt.Embed()
	if cfg.Model == "" {
		return nil
	}
	m.mu.Lock()
	m.embedding = true
	m.mu.Unlock()
	err := m.embedAll(cfg)
	m.mu.Lock()
	m.embedding = false
	if err != nil && m.ctx.Err() == nil {
		m.embedErr = i18n.Store(err) // said in the language chosen when it is shown
	} else if err == nil {
		m.embedErr = ""
	}
	m.mu.Unlock()
	if err != nil && m.ctx.Err() == nil {
		m.log.Warn("embedding passages failed; keyword search still works", "model", cfg.Model, "err", err)
	}
	m.vectorsChanged()
	cs, _ := m.st.Collections(context.WithoutCancel(m.ctx))
	for _, c := range cs {
		m.emitProgress(c.ID, true)
	}
	return err
}

func (m *Manager) embedAll(cfg EmbedConfig) error {
	emb := m.embedderFor(cfg)
	cs, err := m.st.Collections(m.ctx)
	if err != nil {
		return err
	}
	after := int64(0)
	w := m.opt.Gate.Worker() // the embedding server is the chat's too
	for {
		if err := w.Yield(m.ctx); err != nil {
			return err
		}
		if now := m.opt.Embed(); now != cfg {
			return m.embedAll(now) // the model changed: start over
		}
		chunks, err := m.st.ChunksToEmbed(m.ctx, cfg.Model, after, m.opt.EmbedBatch)
		if err != nil || len(chunks) == 0 {
			return err
		}
		texts := make([]string, len(chunks))
		for i, c := range chunks {
			texts[i] = EmbedText(c.Locator, c.Text)
		}
		vs, err := emb.Embed(m.ctx, texts)
		if err != nil {
			return err
		}
		es := make([]store.Embedding, len(chunks))
		for i, c := range chunks {
			v, b := quantize(vs[i])
			es[i] = store.Embedding{Seq: c.Seq, Vector: v, Bits: b}
		}
		if err := m.st.SaveEmbeddings(m.ctx, cfg.Model, es); err != nil {
			return err
		}
		after = chunks[len(chunks)-1].Seq
		m.vectorsChanged()
		for _, c := range cs {
			m.emitProgress(c.ID, false)
		}
	}
}

// EmbedText is what a passage's vector is made of: its locator (headings
// say what it is about) and its text.
func EmbedText(locator, text string) string { return locator + "\n" + text }
