package memory

import (
	"encoding/binary"
	"math"
	"slices"
)

// Memories' vectors (SPEC §14: "vectors when an embedding model is set"):
// when an embedding model is set each memory gets its vector, and a run's
// prompt, when its memories do not all fit, takes those nearest the user's
// message by meaning as well as by keyword. Memories are few (thousands,
// not the passages of knowledge collections), so their vectors are kept
// whole and compared exactly.

// MaxNearbyByMeaning bounds how many memories the vector pass offers.
const MaxNearbyByMeaning = 64

// Normalize returns v scaled to unit length (nil for a zero vector), so
// that a dot product is the cosine.
func Normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// EncodeVector is a vector's stored form: float32s, little-endian.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads EncodeVector's form (a trailing partial value is
// dropped).
func DecodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// NearestByMeaning returns the indexes of the memories whose vectors are
// nearest the query (all unit length), best first, at most n, leaving out
// those with no vector, one of another size, or pointing away from the
// query (cosine ≤ 0: nothing in common).
func NearestByMeaning(ms []Memory, vectors map[string][]float32, query []float32, n int) []int {
	type hit struct {
		i   int
		cos float32
	}
	var hits []hit
	for i, m := range ms {
		v := vectors[m.ID]
		if len(v) == 0 || len(v) != len(query) {
			continue
		}
		var dot float32
		for d, x := range query {
			dot += x * v[d]
		}
		if dot > 0 {
			hits = append(hits, hit{i, dot})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.cos > b.cos:
			return -1
		case a.cos < b.cos:
			return 1
		}
		return a.i - b.i
	})
	out := make([]int, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, h.i)
	}
	return out
}
