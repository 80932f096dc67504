package knowledge

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The in-memory two-pass vector search (sign bits, then int8 cosine) finds
// the passages an exact scan of every stored vector finds: the first pass
// loses (almost) none of them.
func TestVectorIndexMatchesBruteForce(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		r := rand.New(rand.NewPCG(seed, 7))
		const dims, n, topics = 96, 3000, 40
		centers := make([][]float32, topics)
		for i := range centers {
			centers[i] = randomVector(r, dims, 1)
		}
		ix := &vectorIndex{}
		exact := make([][]float32, n)
		seqs := make([]int64, n)
		for i := range exact {
			v := randomVector(r, dims, 0.15)
			for d := range v {
				v[d] += centers[i%topics][d]
			}
			stored, bits := quantize(v)
			exact[i], seqs[i] = dequantize(stored), int64(1000+i)
			ix.add(seqs[i], stored, bits)
		}
		ix.add(99, make([]byte, 4+dims/2), make([]byte, dims/16)) // another model's size: left out
		require.Len(t, ix.seqs, n)

		hits, checked := 0, 0
		for qi := range 30 {
			q := randomVector(r, dims, 0.3)
			for d := range q {
				q[d] += centers[qi%topics][d]
			}
			q = normalize(q)
			got := ix.search(q, 256)
			sort.Slice(got, func(i, j int) bool { return got[i].score > got[j].score })
			want := map[int64]bool{}
			for _, s := range exactNearest(exact, seqs, q, 10) {
				want[s] = true
			}
			for _, s := range got[:10] {
				if want[s.seq] {
					hits++
				}
			}
			checked += 10
			// Scores are cosines (unit vectors): the best is near 1.
			assert.InDelta(t, 1, got[0].score, 0.2)
		}
		assert.GreaterOrEqual(t, float64(hits)/float64(checked), 0.97, "recall@10 against brute force, seed %d", seed)
	}
}

func randomVector(r *rand.Rand, dims int, sd float64) []float32 {
	v := make([]float32, dims)
	for d := range v {
		v[d] = float32(r.NormFloat64() * sd)
	}
	return v
}

// exactNearest scores every vector exactly against q and returns the seqs
// of the n best (the brute-force baseline of tests and benchmarks).
func exactNearest(vectors [][]float32, seqs []int64, q []float32, n int) []int64 {
	type hit struct {
		seq   int64
		score float32
	}
	hits := make([]hit, len(vectors))
	for i, v := range vectors {
		var s float32
		for d, x := range v {
			s += x * q[d]
		}
		hits[i] = hit{seqs[i], s}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]int64, min(n, len(hits)))
	for i := range out {
		out[i] = hits[i].seq
	}
	return out
}

// An OR of the query's words takes them rarest first within the bound on
// the passages ranked; the rarest always, words matching nothing too.
func TestRarestTermsBoundTheKeywordCandidates(t *testing.T) {
	terms := []string{`"common"`, `"rare"`, `"none"`, `"middle"`}
	assert.Equal(t, `"none" OR "rare" OR "middle"`, rarestTerms(terms, []int{9000, 10, 0, 500}, 1000))
	assert.Equal(t, `"none" OR "rare" OR "middle" OR "common"`, rarestTerms(terms, []int{9000, 10, 0, 500}, 10_000))
	assert.Equal(t, `"none" OR "rare"`, rarestTerms(terms, []int{9000, 10, 0, 5000}, 1000))
	assert.Equal(t, `"b"`, rarestTerms([]string{`"a"`, `"b"`}, []int{30_000, 20_000}, 1000), "the rarest even when over the bound")
}
