package knowledge

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/cpuclock"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/yield"
)

// Benchmarks of SPEC §11's figures (make bench; bench/summary.mjs reads
// them): indexing throughput with and without an embedding server, search
// over 100,000 passages with 768-dimension vectors beside a brute-force
// scan, the index's size per passage, and peak memory while indexing
// 20,000 files.

var benchWords = strings.Fields(`install configure server client network storage backup restore invoice payment refund
	customer account password security update release version feature error warning log request response latency
	database index search query result document folder file page section heading chapter paragraph table column
	schedule meeting deadline project budget report summary policy vacation salary contract manager team office`)

// benchParagraph is a paragraph of about n words from a fixed vocabulary.
func benchParagraph(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(ws, " ") + "."
}

// writeMarkdownCorpus writes files Markdown files of about size bytes each,
// with headings and paragraphs; it returns the bytes written.
func writeMarkdownCorpus(b *testing.B, dir string, files, size int) int64 {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	var total int64
	for i := range files {
		var sb strings.Builder
		fmt.Fprintf(&sb, "# Document %d\n\n", i)
		for sec := 0; sb.Len() < size; sec++ {
			fmt.Fprintf(&sb, "## Section %d\n\n", sec)
			for p := 0; p < 3 && sb.Len() < size; p++ {
				sb.WriteString(benchParagraph(r, 40))
				sb.WriteString("\n\n")
			}
		}
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i%50))
		require.NoError(b, os.MkdirAll(sub, 0o755))
		require.NoError(b, os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.md", i)), []byte(sb.String()), 0o644))
		total += int64(sb.Len())
	}
	return total
}

// indexOnce opens a fresh store, indexes dir and waits until it is done
// (vectors too when embed is set); it returns the passages indexed.
func indexOnce(b *testing.B, dir string, embed EmbedConfig, batch int) int {
	b.Helper()
	st, err := store.OpenWith(filepath.Join(b.TempDir(), "parley.db"), store.Options{Logger: quietLogger()})
	require.NoError(b, err)
	defer st.Close()
	m := New(Options{Store: st, Logger: quietLogger(), NoWatch: true, EmbedBatch: batch, Embed: func() EmbedConfig { return embed }})
	require.NoError(b, m.Start(context.Background()))
	defer m.Close()
	c, err := m.Create(context.Background(), "bench", []string{dir})
	require.NoError(b, err)
	require.NoError(b, m.WaitIdle(context.Background()))
	for embed.Model != "" {
		info, err := m.Info(context.Background(), c.ID)
		require.NoError(b, err)
		if info.EmbeddedChunks == info.Chunks {
			break
		}
		require.Empty(b, info.EmbeddingError)
		time.Sleep(20 * time.Millisecond) // a poll interval: the loop waits for the condition
	}
	info, err := m.Info(context.Background(), c.ID)
	require.NoError(b, err)
	return info.Chunks
}

// BenchmarkIndexMarkdown: 1,000 Markdown files (~20 MB), keyword index
// only (MB/s), and with a scripted embedding server (passages/s, by batch).
func BenchmarkIndexMarkdown(b *testing.B) {
	dir := b.TempDir()
	total := writeMarkdownCorpus(b, dir, 1000, 20_000)
	b.Run("keyword", func(b *testing.B) {
		start, cpu0 := time.Now(), cpuclock.Process()
		chunks := 0
		for range b.N {
			chunks = indexOnce(b, dir, EmbedConfig{}, 0)
		}
		secs := time.Since(start).Seconds() / float64(b.N)
		b.ReportMetric(float64(total)/1e6/secs, "MB/s")
		// MB a second of CPU (both cores'): what a busy machine does not skew.
		b.ReportMetric(float64(total)/1e6/((cpuclock.Process()-cpu0).Seconds()/float64(b.N)), "MB/cpu-s")
		b.ReportMetric(float64(chunks), "passages")
	})
	for _, batch := range []int{32} {
		b.Run(fmt.Sprintf("embeddings-batch-%d", batch), func(b *testing.B) {
			srv := modelserver.New(modelserver.Turns(), modelserver.WithEmbeddingModels("nomic-embed-text"))
			defer srv.Close()
			start := time.Now()
			chunks := 0
			for range b.N {
				chunks = indexOnce(b, dir, EmbedConfig{BaseURL: srv.URL(), Model: "nomic-embed-text"}, batch)
			}
			secs := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(float64(chunks)/secs, "passages/s")
			b.ReportMetric(float64(batch), "batch")
		})
	}
}

// searchFixture is a store of 100,000 passages with 768-dimension vectors
// (clustered like real embeddings: each passage near one of 1,000 topics).
type searchFixture struct {
	m       *Manager
	id      string
	dbPath  string
	queries []string
	exact   [][]float32 // every passage's vector, dequantized (the brute-force baseline)
	seqs    []int64
	srv     *modelserver.Server
}

var (
	fixtureOnce sync.Once
	fixture     *searchFixture
)

const (
	benchPassages = 100_000
	benchDims     = modelserver.EmbeddingDims
	benchTopics   = 1000
	benchQueries  = 200 // queries timed in each run of BenchmarkSearch100k
	bruteQueries  = 40  // of them, also timed brute force (and checked for recall)
)

// TestMain removes the search fixture's database (150 MB) when the
// benchmarks that shared it are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if fixture != nil {
		fixture.srv.Close()
		os.RemoveAll(filepath.Dir(fixture.dbPath))
	}
	os.Exit(code)
}

func loadSearchFixture(b *testing.B) *searchFixture {
	fixtureOnce.Do(func() { fixture = buildSearchFixture(b) })
	require.NotNil(b, fixture, "fixture failed")
	return fixture
}

func buildSearchFixture(b *testing.B) *searchFixture {
	dir, err := os.MkdirTemp("", "parley-kbench-")
	require.NoError(b, err)
	f := &searchFixture{dbPath: filepath.Join(dir, "parley.db")}
	st, err := store.OpenWith(f.dbPath, store.Options{Logger: quietLogger()})
	require.NoError(b, err)
	// The query vectors come from the scripted server: queries are topic
	// words, each topic's passages lie near the topic word's vector.
	f.srv = modelserver.New(modelserver.Turns(), modelserver.WithEmbeddingModels("nomic-embed-text"))
	cfg := EmbedConfig{BaseURL: f.srv.URL(), Model: "nomic-embed-text"}
	f.m = New(Options{Store: st, Logger: quietLogger(), NoWatch: true, Embed: func() EmbedConfig { return cfg }})
	c, err := st.CreateCollection(context.Background(), "bench", []string{dir})
	require.NoError(b, err)
	f.id = c.ID
	r := rand.New(rand.NewPCG(3, 4))
	topics := make([][]float32, benchTopics)
	for i := range topics {
		topics[i] = modelserver.Embed("topic"+strconv.Itoa(i), benchDims)
	}
	const perFile = 100
	for file := 0; file < benchPassages/perFile; file++ {
		ps := make([]store.Passage, perFile)
		for i := range ps {
			n := file*perFile + i
			ps[i] = store.Passage{Locator: fmt.Sprintf("lines %d–%d", i*10+1, i*10+10),
				Text: fmt.Sprintf("topic%d %s", n%benchTopics, benchParagraph(r, 30))}
		}
		require.NoError(b, st.SaveIndexedFiles(context.Background(), c.ID, []store.IndexedFile{{Path: fmt.Sprintf("%s/f%04d.md", dir, file), Hash: "x", Passages: ps}}))
	}
	for after := int64(0); ; {
		todo, err := st.ChunksToEmbed(context.Background(), cfg.Model, after, 2000)
		require.NoError(b, err)
		if len(todo) == 0 {
			break
		}
		es := make([]store.Embedding, len(todo))
		for i, t := range todo {
			topic, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(t.Text)[0], "topic"))
			v := make([]float32, benchDims)
			for d := range v {
				v[d] = topics[topic][d] + float32(r.NormFloat64())*0.02
			}
			q, bits := quantize(v)
			es[i] = store.Embedding{Seq: t.Seq, Vector: q, Bits: bits}
			f.seqs = append(f.seqs, t.Seq)
			f.exact = append(f.exact, dequantize(q))
		}
		require.NoError(b, st.SaveEmbeddings(context.Background(), cfg.Model, es))
		after = todo[len(todo)-1].Seq
	}
	// Varied queries: a topic and a word, a topic and three words, three
	// common words (each in about a quarter of the passages: the costliest
	// keyword searches), a word no passage has.
	for i := range benchQueries {
		word := func() string { return benchWords[r.IntN(len(benchWords))] }
		var q string
		switch i % 4 {
		case 0:
			q = fmt.Sprintf("topic%d %s", r.IntN(benchTopics), word())
		case 1:
			q = fmt.Sprintf("how do I %s the %s topic%d %s", word(), word(), r.IntN(benchTopics), word())
		case 2:
			q = fmt.Sprintf("%s %s %s", word(), word(), word())
		default:
			q = fmt.Sprintf("what about zebra%d", i)
		}
		f.queries = append(f.queries, q)
	}
	return f
}

func dequantize(stored []byte) []float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(stored))
	out := make([]float32, len(stored)-4)
	for i := range out {
		out[i] = float32(int8(stored[4+i])) * scale
	}
	return out
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkSearch100k: hybrid search (keyword + vector + fusion, the
// query embedded by the scripted server) over 100,000 passages with
// 768-dimension vectors. One op is benchQueries varied queries, each timed:
// p50/p95 of the whole search and of its parts (keyword ranking, vector
// ranking with the query's embedding, passages read); beside it, in the
// same run, a brute-force baseline (every vector scored exactly, in
// memory, plus the same keyword search and fusion), the recall of the fast
// vector ranking against the exact one, and the index's bytes per passage.
func BenchmarkSearch100k(b *testing.B) {
	f := loadSearchFixture(b)
	ctx := context.Background()
	cfg := f.m.opt.Embed()
	_, err := f.m.Search(ctx, []string{f.id}, "warm up", 8) // loads the vectors
	require.NoError(b, err)
	var fast, keywordT, vectorT, brute []time.Duration
	recall, checked := 0.0, 0
	b.ResetTimer()
	cpu0 := cpuclock.Process()
	for range b.N {
		for _, q := range f.queries {
			t0 := time.Now()
			_, _, err := f.m.SearchWithStats(ctx, []string{f.id}, q, 8)
			require.NoError(b, err)
			fast = append(fast, time.Since(t0))
		}
	}
	cpu := cpuclock.Process() - cpu0
	b.StopTimer()
	for i, q := range f.queries { // the parts, and the baseline
		t0 := time.Now()
		keyword, err := f.m.keywordSearch(ctx, []string{f.id}, q, 8, 50)
		require.NoError(b, err)
		keywordT = append(keywordT, time.Since(t0))
		t0 = time.Now()
		got, err := f.m.vectorSearch(ctx, cfg, []string{f.id}, q, 50)
		require.NoError(b, err)
		vectorT = append(vectorT, time.Since(t0))
		if i >= bruteQueries {
			continue
		}
		if !strings.Contains(q, "topic") {
			continue // recall only where a passage is near: among ties it means little
		}
		t0 = time.Now()
		vs, err := f.m.embedderFor(cfg).Embed(ctx, []string{q})
		require.NoError(b, err)
		exact := bruteForce(f, normalize(vs[0]), 50)
		keyword, err = f.m.keywordSearch(ctx, []string{f.id}, q, 8, 50)
		require.NoError(b, err)
		fuse([][]int64{keyword, exact}, 8)
		brute = append(brute, time.Since(t0))
		want := map[int64]bool{} // recall@10 of the two-pass vector ranking
		for _, s := range exact[:10] {
			want[s] = true
		}
		hit := 0
		for _, s := range got[:min(10, len(got))] {
			if want[s] {
				hit++
			}
		}
		recall += float64(hit) / 10
		checked++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(float64(len(f.queries)), "queries/op")
	b.ReportMetric(ms(percentile(fast, 0.5)), "p50-ms")
	b.ReportMetric(ms(percentile(fast, 0.95)), "p95-ms")
	b.ReportMetric(ms(cpu)/float64(len(fast)), "cpu-ms/query") // both cores' time, the scripted server's too
	b.ReportMetric(ms(percentile(keywordT, 0.95)), "keyword-p95-ms")
	b.ReportMetric(ms(percentile(vectorT, 0.95)), "vector-p95-ms")
	b.ReportMetric(ms(percentile(brute, 0.5)), "brute-p50-ms")
	b.ReportMetric(ms(percentile(brute, 0.95)), "brute-p95-ms")
	b.ReportMetric(recall/float64(checked), "recall@10")
	if info, err := os.Stat(f.dbPath); err == nil {
		wal, _ := os.Stat(f.dbPath + "-wal")
		size := info.Size()
		if wal != nil {
			size += wal.Size()
		}
		b.ReportMetric(float64(size)/benchPassages, "bytes/passage")
	}
}

// bruteForce scores every vector exactly and returns the n best passages.
func bruteForce(f *searchFixture, q []float32, n int) []int64 {
	return exactNearest(f.exact, f.seqs, q, n)
}

// BenchmarkIndex20kFilesPeakRSS: the peak resident memory of the process
// while it indexes a folder of 20,000 files (files are read one at a time
// and stored in batches, so it stays bounded), from Linux's VmHWM after
// resetting it (/proc/self/clear_refs).
func BenchmarkIndex20kFilesPeakRSS(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc/self")
	}
	dir := b.TempDir()
	total := writeMarkdownCorpus(b, dir, 20_000, 2_000)
	runtime.GC()
	before := procStatusKB(b, "VmRSS")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		indexOnce(b, dir, EmbedConfig{}, 0)
	}
	b.StopTimer()
	peak := procStatusKB(b, "VmHWM")
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(peak-before)/1024, "peak-growth-MB")
	b.ReportMetric(float64(total)/1e6/(time.Since(start).Seconds()/float64(b.N)), "MB/s")
}

func procStatusKB(b *testing.B, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	require.NoError(b, err)
	for _, ln := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(ln, field+":") {
			n, _ := strconv.ParseInt(strings.Fields(ln)[1], 10, 64)
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// BenchmarkKeywordOnly100k times the keyword part alone (where the time goes).
func BenchmarkKeywordOnly100k(b *testing.B) {
	f := loadSearchFixture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := f.m.keywordSearch(context.Background(), []string{f.id}, f.queries[i%len(f.queries)], 8, 50)
		require.NoError(b, err)
	}
}

// chatWriteEvery paces the chat's writes in BenchmarkChatWriteWhileIndexing20k
// (a busy conversation; the pacing is what is benchmarked, not a wait for a
// condition).
const chatWriteEvery = 20 * time.Millisecond

// chatWrites stores a user message every chatWriteEvery through the store's
// real API until stop is closed (or n messages when n > 0), and returns how
// long each write took.
func chatWrites(b *testing.B, st *store.Store, convID string, n int, stop <-chan struct{}) []time.Duration {
	b.Helper()
	var out []time.Duration
	tick := time.NewTicker(chatWriteEvery)
	defer tick.Stop()
	for i := 0; n <= 0 || i < n; i++ {
		select {
		case <-stop:
			return out
		case <-tick.C:
		}
		t0 := time.Now()
		require.NoError(b, st.AppendMessage(context.Background(),
			&chat.Message{ConversationID: convID, Role: chat.RoleUser, Content: fmt.Sprintf("message %d while the folder indexes", i)}))
		out = append(out, time.Since(t0))
	}
	return out
}

// BenchmarkChatWriteWhileIndexing20k: how long the chat waits to store a
// message (the store's AppendMessage, one every 20 ms) while a folder of
// 20,000 Markdown files indexes, beside the same writes with no indexing in
// the same run (SQLite has one writer: a message waits for the index's
// transaction that holds it). p95-ratio is the p95 while indexing over the
// idle p95: the figure a busy machine does not skew much.
func BenchmarkChatWriteWhileIndexing20k(b *testing.B) {
	dir := b.TempDir()
	writeMarkdownCorpus(b, dir, 20_000, 2_000)
	var idle, busy []time.Duration
	files := 0
	b.ResetTimer()
	for range b.N {
		st, err := store.OpenWith(filepath.Join(b.TempDir(), "parley.db"), store.Options{Logger: quietLogger()})
		require.NoError(b, err)
		conv, err := st.CreateConversation(context.Background(), "bench", "default")
		require.NoError(b, err)
		idle = append(idle, chatWrites(b, st, conv.ID, 200, nil)...)

		m := New(Options{Store: st, Logger: quietLogger(), NoWatch: true})
		require.NoError(b, m.Start(context.Background()))
		c, err := m.Create(context.Background(), "bench", []string{dir})
		require.NoError(b, err)
		stop := make(chan struct{})
		got := make(chan []time.Duration)
		go func() { got <- chatWrites(b, st, conv.ID, 0, stop) }()
		require.NoError(b, m.WaitIdle(context.Background()))
		close(stop)
		busy = append(busy, <-got...)
		info, err := m.Info(context.Background(), c.ID)
		require.NoError(b, err)
		files += info.IndexedFiles
		m.Close()
		require.NoError(b, st.Close())
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(percentile(idle, 0.5)), "idle-p50-ms")
	b.ReportMetric(ms(percentile(idle, 0.95)), "idle-p95-ms")
	b.ReportMetric(ms(percentile(busy, 0.5)), "indexing-p50-ms")
	b.ReportMetric(ms(percentile(busy, 0.95)), "indexing-p95-ms")
	b.ReportMetric(ms(percentile(busy, 1)), "indexing-max-ms")
	b.ReportMetric(ms(percentile(busy, 0.95))/ms(percentile(idle, 0.95)), "p95-ratio")
	b.ReportMetric(float64(len(busy))/float64(b.N), "writes-while-indexing")
	b.ReportMetric(float64(files)/float64(b.N), "files-indexed")
}

// BenchmarkIndexIdleGate: indexing throughput while the user does nothing
// (issue #42: unchanged by the gate), 1,000 Markdown files of 4 KB indexed
// by the indexer as it was (no gate, normal priority) and as it is wired
// now (an open gate, files walked and read on the lower-priority lane),
// alternating, in the same run. ratio is the wired time over the plain one.
func BenchmarkIndexIdleGate(b *testing.B) {
	dir := b.TempDir()
	writeMarkdownCorpus(b, dir, 1000, 4000)
	index := func(plain bool) time.Duration {
		st, err := store.OpenWith(filepath.Join(b.TempDir(), "parley.db"), store.Options{Logger: quietLogger()})
		require.NoError(b, err)
		defer st.Close()
		opt := Options{Store: st, Logger: quietLogger(), NoWatch: true, normalPriority: plain}
		if !plain {
			opt.Gate = yield.New(yield.Options{})
		}
		m := New(opt)
		require.NoError(b, m.Start(context.Background()))
		defer m.Close()
		start := time.Now()
		c, err := m.Create(context.Background(), "bench", []string{dir})
		require.NoError(b, err)
		require.NoError(b, m.WaitIdle(context.Background()))
		took := time.Since(start)
		info, err := m.Info(context.Background(), c.ID)
		require.NoError(b, err)
		require.Equal(b, 1000, info.IndexedFiles)
		return took
	}
	var plain, gated time.Duration
	var pairs []float64 // each pair's gated time over its plain time
	pair := func() {
		// Alternate the order so neither side always runs second.
		var p, g time.Duration
		if len(pairs)%2 == 0 {
			p = index(true)
			g = index(false)
		} else {
			g = index(false)
			p = index(true)
		}
		plain += p
		gated += g
		pairs = append(pairs, float64(g)/float64(p))
	}
	for b.Loop() {
		pair()
	}
	// At least minGatePairs pairs, whatever -benchtime allows: one pair
	// (~1.4 s) varies by ±10 % on a shared two-core machine; the ratio of
	// the sums of three moved from 1.05 to 1.09 from run to run, and the
	// median of nine from 0.89 to 1.05: as much as the target leaves.
	for len(pairs) < minGatePairs {
		pair()
	}
	n := float64(len(pairs))
	b.ReportMetric(float64(plain.Milliseconds())/n, "plain-ms")
	b.ReportMetric(float64(gated.Milliseconds())/n, "gated-ms")
	b.ReportMetric(float64(gated)/float64(plain), "sum-ratio")
	// The median of the pairs' ratios: a burst of other work lands on one
	// side of one pair, and would sway a ratio of sums.
	slices.Sort(pairs)
	ratio := pairs[len(pairs)/2]
	b.ReportMetric(ratio, "ratio")
	verdict := "met"
	if ratio > 1.05 {
		verdict = "MISSED"
	}
	b.Logf("target: idle indexing gated/plain time %.3f× <= 1.05× %s (median of %d pairs; ratio of sums %.3f×)", ratio, verdict, len(pairs), float64(gated)/float64(plain))
}

// minGatePairs is how many plain/gated pairs BenchmarkIndexIdleGate's ratio is the median of, at least.
const minGatePairs = 15
