// Command windowfloor is the floor of the desktop window's card latency
// (issue 23): the smallest Wails v2 app, a bare page that appends one element
// per Wails event emitted from Go, measured exactly as Parley's window card
// is (tests/desktop/latency_bench_test.go): the event emitted -> the element
// in the DOM (seen by a MutationObserver) -> painted (the next frame and a
// task after it, as the page's card trace marks page_paint). Run beside
// Parley in the same bench, on the same display, it tells what any Wails
// window costs on this machine, now; Parley's figures are printed as a ratio
// to it (bench/summary.mjs).
//
// bench/desktop-latency.sh builds it (go build -tags desktop,production and
// the WebKitGTK tag Parley is built with) and TestWindowCardLatency runs it.
// Environment: FLOOR_OUT (required: the JSON file of the results),
// FLOOR_ROUNDS (30), FLOOR_WARMUP (3). It quits when done; a round whose
// element is not reported within 30 s ends it with an error.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// page is the whole UI. Wails injects its runtime (window.runtime, and the
// bound methods under window.go) into the HTML it serves.
const page = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head>
<body><main id="list"></main><script>
const now = () => performance.timeOrigin + performance.now()
const list = document.getElementById('list')
new MutationObserver(() => {
  for (const el of list.querySelectorAll('[data-i]:not([data-seen])')) {
    el.dataset.seen = ''
    const i = Number(el.dataset.i)
    const dom = now()
    requestAnimationFrame(() => setTimeout(() => window.go.main.Floor.Report(i, dom, now()), 0))
  }
}).observe(list, { childList: true })
function start() {
  if (!window.runtime || !window.go) return setTimeout(start, 10)
  window.runtime.EventsOn('floor', (p) => {
    const el = document.createElement('div')
    el.dataset.i = String(p.i)
    el.textContent = p.text
    list.append(el)
  })
  window.go.main.Floor.Ready()
}
start()
</script></body></html>`

// Result is what FLOOR_OUT receives: per measured round, milliseconds from
// the event emitted to the element in the DOM and to it painted.
type Result struct {
	Rounds int       `json:"rounds"`
	Warmup int       `json:"warmup"`
	DOM    []float64 `json:"dom"`
	Paint  []float64 `json:"paint"`
}

type report struct {
	i          int
	dom, paint float64
}

// Floor is bound to the page (window.go.main.Floor).
type Floor struct {
	ctx     context.Context
	ready   chan struct{}
	reports chan report
}

// Ready: the page listens to the events.
func (f *Floor) Ready() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// Report: element i was in the DOM at dom and painted at paint (epoch ms).
func (f *Floor) Report(i int, dom, paint float64) {
	f.reports <- report{i, dom, paint}
}

func epochMs() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

// measure emits one event at a time, the next once the last was painted and
// a short pause let the page go idle (as bench/floor.mjs does).
func (f *Floor) measure(rounds, warmup int) (Result, error) {
	res := Result{Rounds: rounds, Warmup: warmup}
	select {
	case <-f.ready:
	case <-time.After(60 * time.Second):
		return res, fmt.Errorf("the page did not start listening within 60 s")
	}
	for i := 0; i < warmup+rounds; i++ {
		at := epochMs()
		runtime.EventsEmit(f.ctx, "floor", map[string]any{"i": i, "text": fmt.Sprintf("Round %d: which one?", i)})
		var r report
		for r.i != i || r.paint == 0 {
			select {
			case r = <-f.reports:
			case <-time.After(30 * time.Second):
				return res, fmt.Errorf("event %d: no element reported within 30 s", i)
			}
		}
		if i >= warmup {
			res.DOM = append(res.DOM, r.dom-at)
			res.Paint = append(res.Paint, r.paint-at)
		}
		time.Sleep(50 * time.Millisecond) // pacing between rounds, not a wait for a result
	}
	return res, nil
}

func main() {
	out := os.Getenv("FLOOR_OUT")
	if out == "" {
		log.Fatal("windowfloor: FLOOR_OUT (the results file) must be set")
	}
	rounds, warmup := envInt("FLOOR_ROUNDS", 30), envInt("FLOOR_WARMUP", 3)
	floor := &Floor{ready: make(chan struct{}, 1), reports: make(chan report, 16)}
	var runErr error
	err := wails.Run(&options.App{
		Title:  "windowfloor",
		Width:  1100, // Parley's first window size (desktop/window.go)
		Height: 760,
		AssetServer: &assetserver.Options{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(page))
		})},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		OnStartup: func(ctx context.Context) {
			floor.ctx = ctx
			go func() {
				res, err := floor.measure(rounds, warmup)
				if err == nil {
					var data []byte
					if data, err = json.Marshal(res); err == nil {
						err = os.WriteFile(out, data, 0o644)
					}
				}
				runErr = err
				runtime.Quit(ctx)
			}()
		},
		// As Parley's window (desktop/webview_gpu.go): hardware acceleration off.
		Linux: &linux.Options{ProgramName: "windowfloor", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
		Bind:  []any{floor},
	})
	if err == nil {
		err = runErr
	}
	if err != nil {
		log.Fatalf("windowfloor: %v", err)
	}
}
