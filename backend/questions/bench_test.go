package questions

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchConfig lifts the cap and the rate limit, which would otherwise stop
// a benchmark after a few cards.
func benchConfig() Config {
	cfg := DefaultConfig()
	cfg.RateInterval = 0
	cfg.MaxPending = 0
	cfg.Logger = quietLogger()
	return cfg
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkCreateAnswerRoundTrip: one card created (with a real 5m timer),
// answered and its Wait returned.
func BenchmarkCreateAnswerRoundTrip(b *testing.B) {
	m := NewManager(benchConfig(), nil, nil)
	defer m.Close()
	ctx := context.Background()
	qs := sampleQuestions()
	b.ReportAllocs()
	for b.Loop() {
		c, err := m.Create(ctx, AskRequest{ConversationID: "conv", Questions: qs})
		require.NoError(b, err)
		_, err = m.Respond(ctx, "conv", submit(c.ID, "SQLite"))
		require.NoError(b, err)
		// Checks in this loop must not allocate: the benchmark reports allocs/op.
		out, err := m.Wait(ctx, c.ID)
		require.NoError(b, err, "Wait")
		require.True(b, out.Status == StatusAnswered, "Wait did not answer")
	}
}

// BenchmarkTenThousandPending holds 10,000 cards pending at once (real
// timers, 100 conversations) and then resolves them all: the manager
// alone, without a store or event listeners (each answer's SQLite write
// is measured by the store's and the service's benchmarks).
func BenchmarkTenThousandPending(b *testing.B) {
	const cards = 10_000
	ctx := context.Background()
	qs := sampleQuestions()
	b.ReportAllocs()
	var bytesPerCard float64
	var resolve []time.Duration
	for b.Loop() {
		cfg := benchConfig()
		cfg.RetainResolved = cards
		m := NewManager(cfg, nil, nil)
		before := heapAlloc()
		ids := make([]string, cards)
		convs := make([]string, cards)
		for i := range cards {
			convs[i] = fmt.Sprintf("conv-%d", i%100)
			c, err := m.Create(ctx, AskRequest{ConversationID: convs[i], Questions: qs})
			require.NoError(b, err)
			ids[i] = c.ID
		}
		bytesPerCard = float64(int64(heapAlloc())-int64(before)) / cards
		require.Len(b, m.Pending(""), cards, "pending")
		start := time.Now()
		for i, id := range ids {
			_, err := m.Respond(ctx, convs[i], submit(id, "Postgres"))
			require.NoError(b, err)
		}
		resolve = append(resolve, time.Since(start))
		m.Close()
	}
	// The median over the iterations: one iteration's figure alone swings
	// with a garbage collection or another process on a shared machine.
	slices.Sort(resolve)
	b.ReportMetric(bytesPerCard, "bytes/card")
	b.ReportMetric(float64(resolve[len(resolve)/2].Nanoseconds()), "ns-to-resolve-all")
}

// BenchmarkCreateTimeoutCycles runs 10,000 create→timeout cycles, each with
// a goroutine blocked in Wait, and checks that goroutines and heap return to
// the baseline: only the bounded history (RetainResolved) stays, and it is
// released when the conversation is forgotten.
func BenchmarkCreateTimeoutCycles(b *testing.B) {
	const cycles = 10_000
	qs := sampleQuestions()
	b.ReportAllocs()
	var goroutineDelta, heapDelta, retainedHeap float64
	for b.Loop() {
		clock := newFakeClock()
		cfg := benchConfig()
		cfg.Clock = clock
		m := NewManager(cfg, nil, nil)
		baseGoroutines := runtime.NumGoroutine()
		baseHeap := heapAlloc()
		for range cycles {
			c, err := m.Create(context.Background(), AskRequest{ConversationID: "conv", Questions: qs})
			require.NoError(b, err)
			waiting := waitAsync(context.Background(), m, c.ID)
			clock.Advance(cfg.Timeout)
			r := <-waiting // checked without allocating: the benchmark reports allocs/op
			require.True(b, r.out.Status == StatusTimedOut, "outcome is not timed out")
		}
		require.Zero(b, clock.Active(), "timers left")
		retainedHeap = float64(int64(heapAlloc()) - int64(baseHeap))
		m.ForgetConversation("conv")
		heapDelta = float64(int64(heapAlloc()) - int64(baseHeap))
		goroutineDelta = float64(runtime.NumGoroutine() - baseGoroutines)
		m.Close()
	}
	b.ReportMetric(goroutineDelta, "goroutine-delta")
	b.ReportMetric(heapDelta, "heap-delta-bytes")
	b.ReportMetric(retainedHeap, "retained-history-bytes")
}
