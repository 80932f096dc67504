package textcalls

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// streamTokens is a 30 s reply at 500 tokens/s: 15,000 token-sized pieces
// of prose, lists and code, with a call at the end.
func streamTokens() []string {
	words := strings.Fields("The quick brown fox jumps over the lazy dog while a < b and `code` runs; " +
		"here is a list:\n- one\n- two\n```go\nfmt.Println(x)\n```\nand **bold** text, then more prose follows.")
	out := make([]string, 0, 15000)
	for i := 0; len(out) < 15000-20; i++ {
		w := words[i%len(words)]
		if i%17 == 0 {
			w += "\n"
		}
		out = append(out, " "+w)
	}
	call := "\n<tool_call>\n{\"name\": \"ask_user_question\", \"arguments\": " + askArgs + "}\n</tool_call>"
	for len(call) > 0 {
		n := min(4, len(call))
		out, call = append(out, call[:n]), call[n:]
	}
	return out
}

// BenchmarkRecognizerOverhead streams the 30 s reply through the
// recognizer and, for comparison, straight to the same sink (plain
// streaming), and reports the ratio, the recognizer's share of the 30 s,
// and its first-token delay: how long the first visible token is held.
func BenchmarkRecognizerOverhead(b *testing.B) {
	tokens := streamTokens()
	var sink strings.Builder
	emit := func(s string) { sink.WriteString(s) }
	var plain, recognized, firstDelay time.Duration
	for b.Loop() {
		sink.Reset()
		start := time.Now()
		for _, t := range tokens {
			emit(t)
		}
		plain += time.Since(start)

		sink.Reset()
		var first time.Time
		r := NewRecognizer([]string{"ask_user_question", "calculator"}, func(s string) {
			if first.IsZero() {
				first = time.Now()
			}
			sink.WriteString(s)
		})
		start = time.Now()
		for _, t := range tokens {
			r.Write(t)
		}
		r.Close()
		recognized += time.Since(start)
		firstDelay += first.Sub(start)
		require.Len(b, r.Calls(), 1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(recognized)/float64(plain), "x-plain")
	b.ReportMetric(float64(recognized)/n/float64(30*time.Second)*100, "%-of-30s")
	b.ReportMetric(float64(recognized)/n/float64(len(tokens)), "ns/token")
	b.ReportMetric(float64(firstDelay)/n, "first-token-ns")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRecognizerHeldBack measures the most text held back at once
// while prose streams (the ambiguous suffix only), in bytes.
func BenchmarkRecognizerHeldBack(b *testing.B) {
	tokens := streamTokens()
	maxHeld := 0
	for b.Loop() {
		fed, shown := 0, 0
		r := NewRecognizer([]string{"ask_user_question"}, func(s string) { shown += len(s) })
		for _, t := range tokens[:len(tokens)-40] { // prose and code, before the call
			r.Write(t)
			fed += len(t)
			maxHeld = max(maxHeld, fed-shown)
		}
	}
	b.ReportMetric(float64(maxHeld), "max-held-bytes")
}

// BenchmarkRecognizerLongHeldBlock feeds a 100 KB call and a 100 KB json
// block in 4-byte pieces: a held block is not searched again from its
// start for every piece.
func BenchmarkRecognizerLongHeldBlock(b *testing.B) {
	body := strings.Repeat(`{"k":"some long value"},`, 4000)
	inputs := []string{
		"<tool_call>{\"name\":\"calculator\",\"arguments\":{\"expression\":\"1\",\"pad\":[" + body + "{}]}}</tool_call>",
		"```json\n{\"name\":\"calculator\",\"arguments\":{\"pad\":[\n" + strings.ReplaceAll(body, ",", ",\n") + "{}]}}\n```\n",
	}
	for b.Loop() {
		for _, in := range inputs {
			r := NewRecognizer([]string{"calculator"}, nil)
			for i := 0; i < len(in); i += 4 {
				r.Write(in[i:min(i+4, len(in))])
			}
			r.Close()
			require.Len(b, r.Calls(), 1)
		}
	}
}
