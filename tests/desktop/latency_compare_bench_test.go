//go:build desktop && bench

// Before and after a change, in one run on the same machine (issue 39): the
// window's card figures of two builds of the app, measured in turns.
package desktop

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// TestWindowCardLatencyBeforeAfter measures the rounds of
// TestWindowCardLatency with two builds: PARLEY_BENCH_BEFORE (the app before
// a change) and PARLEY_BIN (after it). They take turns in blocks of
// BENCH_WINDOW_BLOCK (10) rounds, each block in a freshly started app after
// BENCH_WINDOW_WARMUP (3) rounds, in the order before, after, after, before,
// before, … (a machine growing busier or quieter weighs on both alike),
// until each has BENCH_WINDOW_ROUNDS (30). Prints p50 and p95 of both and
// after/before, and records the p95 ratios in bench-figures.jsonl.
func TestWindowCardLatencyBeforeAfter(t *testing.T) {
	before, after := os.Getenv("PARLEY_BENCH_BEFORE"), os.Getenv("PARLEY_BIN")
	require.True(t, before != "" && after != "" && os.Getenv("DISPLAY") != "", "PARLEY_BENCH_BEFORE, PARLEY_BIN and DISPLAY must be set (run bench/desktop-latency.sh)")
	warmup := envInt(t, "BENCH_WINDOW_WARMUP", 3)
	rounds := envInt(t, "BENCH_WINDOW_ROUNDS", 30)
	block := envInt(t, "BENCH_WINDOW_BLOCK", 10)
	require.Positive(t, block, "BENCH_WINDOW_BLOCK")
	model := &windowModel{written: map[string]float64{}, answered: map[string]float64{}}
	srv := modelserver.New(model.script)
	defer srv.Close()

	type side struct {
		name, bin string
		records   []traceRecord
	}
	sides := [2]*side{{name: "before", bin: before}, {name: "after", bin: after}}
	next := 1 // the number of the next round (the model's call ids go on across apps)
	for turn := 0; len(sides[0].records) < rounds; turn++ {
		order := sides
		if turn%2 == 1 {
			order = [2]*side{sides[1], sides[0]}
		}
		n := min(block, rounds-len(sides[0].records))
		for _, s := range order {
			t.Logf("turn %d: %d rounds of %s (%s)", turn, n, s.name, s.bin)
			name := fmt.Sprintf("desktop-compare-%d-%s", turn, s.name)
			s.records = append(s.records, windowRounds(t, s.bin, model, srv.URL(), name, next, warmup, n)...)
			next += warmup + n
		}
	}

	var b, a [3][]float64
	b[0], b[1], b[2] = windowTimes(sides[0].records)
	a[0], a[1], a[2] = windowTimes(sides[1].records)
	fmt.Printf("\nThe desktop window before and after: %d rounds each, in turns of %d (WebKitGTK under Xvfb)\n  before: %s\n  after:  %s\n", rounds, block, before, after)
	fmt.Printf("%-40s %9s %9s %9s %9s %8s %8s\n", "measure", "before50", "before95", "after50", "after95", "a/b p50", "a/b p95")
	var figures []memFigure
	for i, m := range []struct{ id, label string }{
		{"card.dom", "tool-call chunk -> card in the DOM"},
		{"card.paint", "tool-call chunk -> card painted"},
		{"submit.next", "Submit (Enter) -> next model request"},
	} {
		b50, b95, a50, a95 := quantile(b[i], 0.5), quantile(b[i], 0.95), quantile(a[i], 0.5), quantile(a[i], 0.95)
		fmt.Printf("%-40s %6.1f ms %6.1f ms %6.1f ms %6.1f ms %7.2fx %7.2fx\n", m.label, b50, b95, a50, a95, a50/b50, a95/b95)
		figures = append(figures, memFigure{
			ID: "window.compare." + m.id + ".ratio", Label: "Wails window, after/before a change: " + m.label + ", p95",
			Value: a95 / b95, Unit: "×", Note: fmt.Sprintf("p95 %.1f ms after, %.1f ms before; n=%d each", a95, b95, rounds),
		})
	}
	for _, f := range figures {
		recordMemFigure(t, f)
	}
}
