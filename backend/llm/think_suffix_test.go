package llm

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// partialSuffix agrees with the plain search for the longest proper start
// of the tag that ends the text (its quick answer for texts ending with
// none of the tag's bytes included).
func TestPartialSuffix(t *testing.T) {
	naive := func(text, tag string) int {
		for n := min(len(text), len(tag)-1); n > 0; n-- {
			if strings.HasSuffix(text, tag[:n]) {
				return n
			}
		}
		return 0
	}
	for text, want := range map[string]int{"": 0, "a": 0, "<": 1, "x</": 2, "x</think": 7, "x</think>": 0, "k": 0, "done.": 0, "</t": 3} {
		require.Equal(t, want, partialSuffix(text, thinkClose), "text %q", text)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "</thinkx> "
	for range 20000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		require.Equal(t, naive(string(b), thinkClose), partialSuffix(string(b), thinkClose), "text %q", b)
	}
}
