package knowledge

import (
	"container/heap"
	"encoding/binary"
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

// vectorIndex holds a collection's vectors in memory, in two compact
// slabs loaded once (and again when the index changes): the sign bits for
// the first pass of a search and the int8 values for rescoring its
// candidates, so a search reads nothing from the database. About
// d + d/8 + 12 bytes a passage (77 MB for 100,000 passages of 768
// dimensions).
type vectorIndex struct {
	dim    int // dimensions
	words  int // 64-bit words of sign bits a vector
	seqs   []int64
	codes  []uint64  // len(seqs) * words
	values []int8    // len(seqs) * dim
	scales []float32 // len(seqs)
}

// add appends a stored vector (scale + int8 values) and its sign bits;
// vectors of another size than the first (another model) are left out.
func (ix *vectorIndex) add(seq int64, vector, packed []byte) {
	dim := len(vector) - 4
	if dim <= 0 || len(packed) != (dim+7)/8 {
		return
	}
	if ix.dim == 0 {
		ix.dim, ix.words = dim, (dim+63)/64
	}
	if dim != ix.dim {
		return
	}
	ix.seqs = append(ix.seqs, seq)
	ix.codes = append(ix.codes, words(packed, ix.words)...)
	ix.scales = append(ix.scales, math.Float32frombits(binary.LittleEndian.Uint32(vector)))
	for _, b := range vector[4:] {
		ix.values = append(ix.values, int8(b))
	}
}

// candidate is a vector (by position) and its distance to the query.
type candidate struct {
	pos  int
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

// search returns the vectors nearest the unit query q: the candidates
// nearest by sign bits, scored by cosine on their int8 values.
func (ix *vectorIndex) search(q []float32, candidates int) []scored {
	if len(q) != ix.dim {
		return nil
	}
	near := ix.nearest(words(signBits(q), ix.words), candidates)
	out := make([]scored, len(near))
	for i, pos := range near {
		vals := ix.values[pos*ix.dim : pos*ix.dim+ix.dim]
		var sum float32
		for d, x := range q {
			sum += x * float32(vals[d])
		}
		out[i] = scored{ix.seqs[pos], float64(sum * ix.scales[pos])}
	}
	return out
}

// nearest returns the positions of the n vectors whose sign bits are
// nearest the query's, scanning in parallel on the machine's cores.
func (ix *vectorIndex) nearest(query []uint64, n int) []int {
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
					heap.Push(&h, candidate{i, d})
				} else if d < h[0].dist {
					h[0] = candidate{i, d}
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
	out := make([]int, len(all))
	for i, c := range all {
		out[i] = c.pos
	}
	return out
}
