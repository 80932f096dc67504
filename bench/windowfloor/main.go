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
// With FLOOR_MODE=chat it is the window's second bound (issue #42), the
// bare chat page bench/floor.mjs measures in Chromium: a message box whose
// Enter draws the user's message and tells Go (as a send would), and Go
// emits the round's event FLOOR_AFTER_ENTER milliseconds after that Enter
// (a comma-separated list, one per round, cycled: how long after its send
// each of Parley's cards came), so that the event finds the page just after
// it drew the user's message, as Parley's card does. The rounds' Enters
// come from outside (the bench types them); the app prints "painted <i>"
// when round i is painted.
//
// bench/desktop-latency.sh builds it (go build -tags desktop,production and
// the WebKitGTK tag Parley is built with) and TestWindowCardLatency runs it.
// Environment: FLOOR_OUT (required: the JSON file of the results),
// FLOOR_ROUNDS (30), FLOOR_WARMUP (3), FLOOR_MODE, FLOOR_AFTER_ENTER. It
// quits when done; a round whose element is not reported within 30 s (or,
// chat, whose Enter does not come within 60 s) ends it with an error.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// reporter, in both pages, tells Go when each round's element (#list >
// [data-i]) is in the DOM and, a frame and a task later, painted.
const reporter = `const now = () => performance.timeOrigin + performance.now()
const list = document.getElementById('list')
new MutationObserver(() => {
  for (const el of list.querySelectorAll('[data-i]:not([data-seen])')) {
    el.dataset.seen = ''
    const i = Number(el.dataset.i)
    const dom = now()
    requestAnimationFrame(() => setTimeout(() => window.go.main.Floor.Report(i, dom, now()), 0))
  }
}).observe(list, { childList: true })
`

// page is the whole UI. Wails injects its runtime (window.runtime, and the
// bound methods under window.go) into the HTML it serves.
const page = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head>
<body><main id="list"></main><script>
` + reporter + `function start() {
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

// chatPage is the bare chat page (FLOOR_MODE=chat): bench/floor.mjs's
// CHAT_PAGE, with the send a call to Go instead of a POST and the event a
// Wails event instead of SSE.
const chatPage = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title>
<style>html,body{margin:0;height:100%}body{display:flex;flex-direction:column;font:15px sans-serif}
#list{flex:1;overflow-y:auto;padding:24px}#list>div{margin:0 0 14px}.user{text-align:right}
textarea{margin:12px;height:3em}</style></head>
<body><main id="list"></main><textarea id="box" aria-label="Message" autofocus></textarea><script>
` + reporter + `const box = document.getElementById('box')
function append(el) {
  list.append(el)
  list.scrollTop = list.scrollHeight
}
box.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return
  e.preventDefault()
  const enter = now()
  const el = document.createElement('div')
  el.className = 'user'
  el.textContent = box.value
  box.value = ''
  append(el)
  window.go.main.Floor.Send(enter)
})
function start() {
  if (!window.runtime || !window.go) return setTimeout(start, 10)
  window.runtime.EventsOn('floor', (p) => {
    const el = document.createElement('div')
    el.dataset.i = String(p.i)
    el.textContent = p.text
    append(el)
  })
  box.focus()
  window.go.main.Floor.Ready()
}
start()
</script></body></html>`

// Result is what FLOOR_OUT receives: per measured round, milliseconds from
// the event emitted to the element in the DOM and to it painted; in the chat
// mode also from the page's Enter to Go receiving its call (Floor.Send):
// what a bare window's call to Go costs, the page's part of the window's
// Submit bound (issue #42; in Chromium a bare page's POST).
type Result struct {
	Rounds int       `json:"rounds"`
	Warmup int       `json:"warmup"`
	DOM    []float64 `json:"dom"`
	Paint  []float64 `json:"paint"`
	Call   []float64 `json:"call,omitempty"`
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
	sends   chan send // chat: each Enter
}

// send is the chat page's Enter (epoch ms, the page's clock) and when Go
// received its call (epoch ms, Go's clock).
type send struct{ enter, received float64 }

// Ready: the page listens to the events.
func (f *Floor) Ready() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// Send: the chat page's Enter at enter (epoch ms). A send the bench does
// not wait for (typed twice) is dropped.
func (f *Floor) Send(enter float64) {
	select {
	case f.sends <- send{enter: enter, received: epochMs()}:
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

// waitReady waits for the page to listen to the events.
func (f *Floor) waitReady() error {
	select {
	case <-f.ready:
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("the page did not start listening within 60 s")
	}
}

// round emits event i, waits for its element painted and, past the
// warm-up, adds its times since the emit to res.
func (f *Floor) round(i, warmup int, res *Result) error {
	at := epochMs()
	runtime.EventsEmit(f.ctx, "floor", map[string]any{"i": i, "text": fmt.Sprintf("Round %d: which one?", i)})
	var r report
	for r.i != i || r.paint == 0 {
		select {
		case r = <-f.reports:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("event %d: no element reported within 30 s", i)
		}
	}
	if i >= warmup {
		res.DOM = append(res.DOM, r.dom-at)
		res.Paint = append(res.Paint, r.paint-at)
	}
	return nil
}

// measure emits one event at a time, the next once the last was painted and
// a short pause let the page go idle (as bench/floor.mjs does).
func (f *Floor) measure(rounds, warmup int) (Result, error) {
	res := Result{Rounds: rounds, Warmup: warmup}
	if err := f.waitReady(); err != nil {
		return res, err
	}
	for i := 0; i < warmup+rounds; i++ {
		if err := f.round(i, warmup, &res); err != nil {
			return res, err
		}
		time.Sleep(50 * time.Millisecond) // pacing between rounds, not a wait for a result
	}
	return res, nil
}

// measureChat waits for each round's Enter, emits the round's event
// afterEnter[i] ms after it (at once if that time has passed) and waits for
// it painted; "painted <i>" on stdout tells the bench to type the next.
func (f *Floor) measureChat(rounds, warmup int, afterEnter []float64) (Result, error) {
	res := Result{Rounds: rounds, Warmup: warmup}
	if err := f.waitReady(); err != nil {
		return res, err
	}
	fmt.Println("ready")
	for i := 0; i < warmup+rounds; i++ {
		var s send
		select {
		case s = <-f.sends:
		case <-time.After(60 * time.Second):
			return res, fmt.Errorf("round %d: no Enter in the message box within 60 s", i)
		}
		if i >= warmup {
			res.Call = append(res.Call, s.received-s.enter)
		}
		if wait := s.enter + afterEnter[i%len(afterEnter)] - epochMs(); wait > 0 {
			time.Sleep(time.Duration(wait * float64(time.Millisecond)))
		}
		if err := f.round(i, warmup, &res); err != nil {
			return res, err
		}
		fmt.Printf("painted %d\n", i)
	}
	return res, nil
}

// parseAfterEnter reads FLOOR_AFTER_ENTER: milliseconds, comma-separated.
func parseAfterEnter(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 || v > 10_000 {
			return nil, fmt.Errorf("FLOOR_AFTER_ENTER: %q is not a delay in milliseconds (0 to 10000)", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func main() {
	out := os.Getenv("FLOOR_OUT")
	if out == "" {
		log.Fatal("windowfloor: FLOOR_OUT (the results file) must be set")
	}
	rounds, warmup := envInt("FLOOR_ROUNDS", 30), envInt("FLOOR_WARMUP", 3)
	floor := &Floor{ready: make(chan struct{}, 1), reports: make(chan report, 16), sends: make(chan send, 1)}
	html, measure := page, func() (Result, error) { return floor.measure(rounds, warmup) }
	if os.Getenv("FLOOR_MODE") == "chat" {
		afterEnter, err := parseAfterEnter(os.Getenv("FLOOR_AFTER_ENTER"))
		if err != nil {
			log.Fatalf("windowfloor: %v", err)
		}
		html, measure = chatPage, func() (Result, error) { return floor.measureChat(rounds, warmup, afterEnter) }
	}
	var runErr error
	err := wails.Run(&options.App{
		Title:  "windowfloor",
		Width:  1100, // Parley's first window size (desktop/window.go)
		Height: 760,
		AssetServer: &assetserver.Options{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(html))
		})},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		OnStartup: func(ctx context.Context) {
			floor.ctx = ctx
			go func() {
				res, err := measure()
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
