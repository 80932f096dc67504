package knowledge

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"runtime"
	"sync"
)

// Vectors are stored compactly: normalized to unit length, then each value
// as one signed byte after a float32 scale (4 + d bytes instead of 4·d),
// plus one sign bit a dimension. A search first ranks every vector by the
// Hamming distance of its sign bits to the query's (a few popcounts a
// vector), then scores the best candidates exactly (cosine on the int8
// values): binary quantization with rescoring.

// quantize returns v's stored form: the int8 vector and its sign bits.
func quantize(v []float32) (vector, signs []byte) {
	unit := normalize(v)
	maxAbs := float32(0)
	for _, x := range unit {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	scale := maxAbs / 127
	vector = make([]byte, 4+len(unit))
	binary.LittleEndian.PutUint32(vector, math.Float32bits(scale))
	for i, x := range unit {
		q := int8(0)
		if scale > 0 {
			q = int8(math.Round(float64(x / scale)))
		}
		vector[4+i] = byte(q)
	}
	return vector, signBits(unit)
}

// normalize returns v scaled to unit length (a zero vector stays zero).
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// signBits packs one bit a dimension (1 = positive), low bit first.
func signBits(v []float32) []byte {
	out := make([]byte, (len(v)+7)/8)
	for i, x := range v {
		if x > 0 {
			out[i/8] |= 1 << (i % 8)
		}
	}
	return out
}

// words turns packed sign bits into 64-bit words for popcounts.
func words(b []byte, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		var w [8]byte
		copy(w[:], b[min(len(b), i*8):min(len(b), i*8+8)])
		out[i] = binary.LittleEndian.Uint64(w[:])
	}
	return out
}

// cosine scores a stored int8 vector against a unit query vector.
func cosine(query []float32, stored []byte) (float32, error) {
	if len(stored) != 4+len(query) {
		return 0, errors.New("vector of another size")
	}
	scale := math.Float32frombits(binary.LittleEndian.Uint32(stored))
	var sum float32
	for i, q := range query {
		sum += q * float32(int8(stored[4+i]))
	}
	return sum * scale, nil
}

// codeIndex holds the sign bits of a collection's vectors in memory, for
// the first pass of a vector search.
type codeIndex struct {
	dim   int // dimensions (bits a vector)
	words int // 64-bit words a vector
	seqs  []int64
	codes []uint64 // len(seqs) * words
}

func (ix *codeIndex) add(seq int64, packed []byte) {
	if ix.words == 0 {
		ix.words = (len(packed) + 7) / 8
		ix.dim = len(packed) * 8
	}
	if (len(packed)+7)/8 != ix.words {
		return // made by another model size: not comparable
	}
	ix.seqs = append(ix.seqs, seq)
	ix.codes = append(ix.codes, words(packed, ix.words)...)
}

// candidate is a vector and its distance to the query.
type candidate struct {
	seq  int64
	dist int
}

// maxHeap keeps the nearest candidates (the farthest on top, to be replaced).
type maxHeap []candidate

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i].dist > h[j].dist }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(candidate)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// nearest returns the n vectors whose sign bits are nearest the query's,
// scanning in parallel on the machine's cores.
func (ix *codeIndex) nearest(query []uint64, n int) []int64 {
	total := len(ix.seqs)
	if total == 0 || len(query) != ix.words {
		return nil
	}
	parts := min(runtime.GOMAXPROCS(0), max(1, total/8192))
	results := make([]maxHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := total*p/parts, total*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := make(maxHeap, 0, n+1)
			w := ix.words
			for i := lo; i < hi; i++ {
				code := ix.codes[i*w : i*w+w]
				d := 0
				for j, q := range query {
					d += bits.OnesCount64(q ^ code[j])
				}
				if len(h) < n {
					heap.Push(&h, candidate{ix.seqs[i], d})
				} else if d < h[0].dist {
					h[0] = candidate{ix.seqs[i], d}
					heap.Fix(&h, 0)
				}
			}
			results[p] = h
		}()
	}
	wg.Wait()
	var all maxHeap
	for _, h := range results {
		all = append(all, h...)
	}
	heap.Init(&all)
	for len(all) > n {
		heap.Pop(&all)
	}
	out := make([]int64, len(all))
	for i, c := range all {
		out[i] = c.seq
	}
	return out
}
