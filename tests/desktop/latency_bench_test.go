//go:build desktop && bench

// The card latency of the real desktop window (issue 17): the figures
// bench/ui-latency.mjs measures in Chromium, here in WebKitGTK under Xvfb.
// bench/desktop-latency.sh runs it (the tag bench keeps it out of the
// desktop test run); it asserts that it got its samples, never timings.
package desktop

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/questions"
)

const windowCardArgs = `{"questions":[{"question":"Which colour should the chart use?","options":["Blue","Green","Orange"]}]}`

// epochMs is the wall clock in epoch milliseconds, the clock of the app's
// trace marks (Go's and the page's).
func epochMs() float64 { return float64(time.Now().UnixNano()) / 1e6 }

// windowModel scripts a card per user message (call ids call_win_1, 2, …)
// and a short reply to each answer, and notes when it wrote each call's
// first chunk and when the answer's request arrived.
type windowModel struct {
	mu       sync.Mutex
	asked    int
	written  map[string]float64 // call id -> first tool-call chunk written
	answered map[string]float64 // call id -> the request carrying its result arrived
	other    int                // requests that were neither
}

func (m *windowModel) script(req modelserver.ChatRequest) modelserver.Turn {
	at := epochMs()
	last := req.LastMessage()
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case last.Role == "tool":
		m.answered[last.ToolCallID] = at
		return modelserver.Turn{Text: "Noted, thanks."}
	case last.Role == "user" && req.Stream && len(req.Tools) > 0:
		m.asked++
		id := fmt.Sprintf("call_win_%d", m.asked)
		return modelserver.Turn{
			ToolCalls: []modelserver.ToolCall{{ID: id, Name: questions.ToolName, Arguments: windowCardArgs}},
			OnToolCallSent: func() {
				m.mu.Lock()
				m.written[id] = epochMs()
				m.mu.Unlock()
			},
		}
	}
	m.other++
	return modelserver.Turn{Text: "Fine."}
}

func (m *windowModel) times(id string) (written, answered float64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w, okW := m.written[id]
	a, okA := m.answered[id]
	return w, a, okW && okA
}

func (m *windowModel) askedCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.asked
}

// send types round n's message in the composer and waits for its model
// request. While the last run is still ending (slow under load) the
// composer is disabled and drops what is typed: type it again (over what
// got through) every 10 s until the request comes. Not sooner: a message
// typed again after one that did get through (its request only slow, on a
// busy machine) stays in the composer, and the card then does not take the
// focus from the text there, so its answer keys went to the composer.
func send(t *testing.T, m *windowModel, n int, composer func()) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for try := 0; ; try++ {
		if try > 0 {
			t.Logf("round %d: no model request yet, typing the message again", n)
		}
		composer()
		xdotool(t, "key", "ctrl+a")
		xdotool(t, "type", "--delay", "5", fmt.Sprintf("Chart round %d", n))
		xdotool(t, "key", "Return")
		retry := time.Now().Add(10 * time.Second)
		for m.askedCount() < n && time.Now().Before(retry) {
			time.Sleep(10 * time.Millisecond)
		}
		if m.askedCount() >= n {
			return
		}
		if time.Now().After(deadline) {
			shot := shoot(t, "desktop-latency-unsent.png")
			require.FailNow(t, fmt.Sprintf("round %d: the message did not reach the model within 60 s; see %s", n, shot))
		}
	}
}

// answer picks the card's first option and submits it with Enter, again
// every 3 s until the answer reaches the model (under load the card may
// take its focus after the keys were sent). The caller waited for the
// window to be at rest with the card.
func answer(t *testing.T, m *windowModel, n int, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for try := 0; ; try++ {
		if try > 0 {
			t.Logf("round %d: no answer at the model yet, answering again", n)
		}
		xdotool(t, "key", "1", "Return") // in order: Return submits the option 1 picked
		retry := time.Now().Add(3 * time.Second)
		for !m.wasAnswered(id) && time.Now().Before(retry) {
			time.Sleep(10 * time.Millisecond)
		}
		if m.wasAnswered(id) {
			return
		}
		if time.Now().After(deadline) {
			shot := shoot(t, "desktop-latency-unanswered.png")
			require.FailNow(t, fmt.Sprintf("round %d: the answer did not reach the model within 30 s; see %s", n, shot))
		}
	}
}

func (m *windowModel) wasAnswered(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.answered[id]
	return ok
}

type traceRecord struct {
	Keys  []string           `json:"keys"`
	Marks map[string]float64 `json:"marks"`
}

// readTrace returns the record known by key in the app's trace file (nil
// while there is none: the app rewrites the file 50 ms after each mark).
func readTrace(path, key string) *traceRecord {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var recs []traceRecord
	if json.Unmarshal(data, &recs) != nil {
		return nil
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if slices.Contains(recs[i].Keys, key) {
			return &recs[i]
		}
	}
	return nil
}

// waitTrace waits until key's record has every hop, and returns it.
func waitTrace(t *testing.T, path, key, what string, hops ...string) traceRecord {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := readTrace(path, key)
		if r != nil && hasAll(r.Marks, hops) {
			return *r
		}
		if time.Now().After(deadline) {
			require.FailNow(t, what, "no trace record of %s with %v in %s within 30 s; last seen %+v", key, hops, path, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hasAll(marks map[string]float64, hops []string) bool {
	for _, h := range hops {
		if _, ok := marks[h]; !ok {
			return false
		}
	}
	return true
}

// quantile is the nearest-rank quantile (as bench/stats.mjs).
func quantile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(len(s)-1, max(0, i))]
}

// windowFloor runs the bare Wails app (bench/windowfloor) on the same
// display for warmup + rounds events and returns the measured rounds'
// milliseconds from the event emitted in Go to the element in the DOM and
// to it painted.
func windowFloor(t *testing.T, bin string, rounds, warmup int) (dom, paint []float64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "floor.json")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FLOOR_OUT="+out, fmt.Sprintf("FLOOR_ROUNDS=%d", rounds), fmt.Sprintf("FLOOR_WARMUP=%d", warmup))
	exited, stop := startLogged(t, cmd, "desktop-latency-floor.log")
	select {
	case err := <-exited:
		stop = func() {}
		require.NoError(t, err, "the floor app failed; see desktop-latency-floor.log")
	case <-time.After(10 * time.Minute):
		stop()
		require.FailNow(t, "the floor app did not finish within 10 minutes; see desktop-latency-floor.log")
	}
	res := floorResult(t, out, rounds, "floor")
	return res.DOM, res.Paint
}

// floorRun is what bench/windowfloor measured, per measured round in
// milliseconds: the element in the DOM and painted; the chat mode's Enter to
// Go receiving its call too.
type floorRun struct{ DOM, Paint, Call []float64 }

// floorResult reads the results bench/windowfloor wrote to out (FLOOR_OUT).
func floorResult(t *testing.T, out string, rounds int, what string) floorRun {
	t.Helper()
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res floorRun
	require.NoError(t, json.Unmarshal(data, &res))
	require.Len(t, res.DOM, rounds, what+" rounds in the DOM")
	require.Len(t, res.Paint, rounds, what+" rounds painted")
	return res
}

// windowChatFloor runs the bare Wails app as a bare chat page (bench/windowfloor,
// FLOOR_MODE=chat: the window's second bound, issue #42) on the same display:
// warmup + rounds times it types a message and Enter in its box, the app
// emits the round's event afterEnter[i] ms after that Enter (cycled) and
// reports it painted. It returns the measured rounds' milliseconds from the
// event emitted to the element in the DOM and to it painted, and from the
// Enter to Go receiving the page's call.
func windowChatFloor(t *testing.T, bin string, rounds, warmup int, afterEnter []float64) floorRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "chatfloor.json")
	delays := make([]string, len(afterEnter))
	for i, d := range afterEnter {
		delays[i] = strconv.FormatFloat(d, 'f', 2, 64)
	}
	const logName = "desktop-latency-chatfloor.log"
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FLOOR_OUT="+out, fmt.Sprintf("FLOOR_ROUNDS=%d", rounds), fmt.Sprintf("FLOOR_WARMUP=%d", warmup),
		"FLOOR_MODE=chat", "FLOOR_AFTER_ENTER="+strings.Join(delays, ","))
	exited, stop := startWatched(t, cmd, logName)
	defer func() { stop() }()
	// waitLine waits for a line the app prints (it prints one per round).
	waitLine := func(line, what string) {
		t.Helper()
		printedLine(t, line, 60*time.Second, what, func() string { return shoot(t, "desktop-latency-chatfloor.png") })
	}
	win := waitForWindow(t, "windowfloor", restDeadline)
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run() // no window manager under Xvfb: focus directly
	x, y, w, h := parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))
	click(t, x+w/2, y+h-35) // the message box
	waitLine("ready", "the chat floor page did not start")
	for i := 0; i < warmup+rounds; i++ {
		xdotool(t, "type", "--delay", "5", fmt.Sprintf("Chart round %d", i))
		xdotool(t, "key", "Return")
		waitLine(fmt.Sprintf("painted %d", i), fmt.Sprintf("chat floor round %d was not painted", i))
	}
	select {
	case err := <-exited:
		stop = func() {}
		require.NoError(t, err, "the chat floor app failed; see %s", logName)
	case <-time.After(time.Minute):
		require.FailNow(t, "the chat floor app did not finish", "see %s", logName)
	}
	res := floorResult(t, out, rounds, "chat floor")
	require.Len(t, res.Call, rounds, "chat floor rounds' calls")
	return res
}

// sendToEvent returns, per record that has both, the milliseconds from the
// page's send of the user's message (page_send) to the card's event handed
// to the window (wails_sent).
func sendToEvent(records []traceRecord) []float64 {
	var out []float64
	for _, r := range records {
		send, okS := r.Marks["page_send"]
		sent, okW := r.Marks["wails_sent"]
		if okS && okW && sent >= send {
			out = append(out, sent-send)
		}
	}
	return out
}

// windowRounds launches bin (its log and screenshots named after name, in
// the artifacts) and runs warmup + rounds rounds in its window, numbered
// from first on (the model's call ids call_win_<n>): type a message, the
// model's card is painted (the page's page_paint mark in
// PARLEY_TRACE_FILE), answer it with 1 and Enter, the answer reaches the
// model. It stops the app and returns the trace records of the rounds after
// the warm-up, with the model server's times as server_write and
// server_request.
func windowRounds(t *testing.T, bin string, model *windowModel, baseURL, name string, first, warmup, rounds int) []traceRecord {
	t.Helper()
	tracePath := filepath.Join(t.TempDir(), "trace.json")
	stopApp := sync.OnceFunc(launchApp(t, bin, baseURL, name+".log", "PARLEY_TRACE=1", "PARLEY_TRACE_FILE="+tracePath))
	defer stopApp()
	win, x, y, w, h := startWindow(t, name+"-0-start.png")

	var records []traceRecord
	for i := first; i < first+warmup+rounds; i++ {
		id := fmt.Sprintf("call_win_%d", i)
		start := time.Now()
		send(t, model, i, func() { click(t, x+w*3/5, y+h-65) })
		waitTrace(t, tracePath, id, fmt.Sprintf("round %d: the card painted", i), "page_paint")
		waitRest(t, win, fmt.Sprintf("round %d: the card takes focus", i))
		answer(t, model, i, id)
		rec := waitTrace(t, tracePath, id, fmt.Sprintf("round %d: the answer sent on", i),
			"chunk", "page_dom", "page_paint", "page_submit", "next_request")
		written, answered, ok := model.times(id)
		deadline := time.Now().Add(10 * time.Second)
		for !ok && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			written, answered, ok = model.times(id)
		}
		require.True(t, ok, "round %d: the model server saw no card or no answer for %s", i, id)
		t.Logf("round %d: card and answer in %s", i, time.Since(start).Round(time.Millisecond))
		waitRest(t, win, fmt.Sprintf("round %d: the reply streams and the run ends", i))
		if i >= first+warmup {
			rec.Marks["server_write"] = written
			rec.Marks["server_request"] = answered
			records = append(records, rec)
		}
	}
	shoot(t, name+"-1-end.png")
	require.Len(t, records, rounds, "measured rounds")
	return records
}

// windowTimes returns the milliseconds of each record from the model
// server's write of the tool call to the card in the DOM and to it painted,
// and from the Submit in the page to the next model request.
func windowTimes(records []traceRecord) (dom, paint, submit []float64) {
	for _, r := range records {
		dom = append(dom, r.Marks["page_dom"]-r.Marks["server_write"])
		paint = append(paint, r.Marks["page_paint"]-r.Marks["server_write"])
		submit = append(submit, r.Marks["server_request"]-r.Marks["page_submit"])
	}
	return dom, paint, submit
}

// TestWindowCardLatency: BENCH_WINDOW_WARMUP (3) + BENCH_WINDOW_ROUNDS (30)
// rounds of: type a message in the window, the model's card is painted (the
// page's page_paint mark in PARLEY_TRACE_FILE), answer it with 1 and Enter,
// the answer reaches the model. Prints p50/p95 of model chunk -> card in the
// DOM / painted and Submit -> next model request, records them in
// bench-figures.jsonl and writes the measured rounds' trace records (with
// the model server's times as server_write and server_request) to
// bench-window-trace.json for bench/window-trace-table.mjs. Then, Parley
// closed, the floor on the same display (WINDOW_FLOOR_BIN, bench/windowfloor:
// a bare Wails page appending one element per event emitted from Go), the
// same number of rounds, and the same app as a bare chat page (its second
// bound, issue #42: each round typed in, its event as long after the Enter
// as Parley's card came after the send): bench/summary.mjs prints Parley's
// card figures as ratios to them.
func TestWindowCardLatency(t *testing.T) {
	bin, floorBin := os.Getenv("PARLEY_BIN"), os.Getenv("WINDOW_FLOOR_BIN")
	require.True(t, bin != "" && floorBin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN, WINDOW_FLOOR_BIN and DISPLAY must be set (run bench/desktop-latency.sh)")
	warmup := envInt(t, "BENCH_WINDOW_WARMUP", 3)
	rounds := envInt(t, "BENCH_WINDOW_ROUNDS", 30)
	model := &windowModel{written: map[string]float64{}, answered: map[string]float64{}}
	srv := modelserver.New(model.script)
	defer srv.Close()

	records := windowRounds(t, bin, model, srv.URL(), "desktop-latency", 1, warmup, rounds)
	floorDOM, floorPaint := windowFloor(t, floorBin, rounds, warmup)
	// The second bound: the bare chat page, its event as long after its
	// Enter as each of Parley's cards came after its send.
	afterEnter := sendToEvent(records)
	require.NotEmpty(t, afterEnter, "no round has page_send and wails_sent marks (is PARLEY_BIN older than the page_send mark?)")
	chat := windowChatFloor(t, floorBin, rounds, warmup, afterEnter)

	dom, paint, submit := windowTimes(records)
	// The floors' every round too: bench/window-trace-table.mjs adds each to
	// each round's Go path for the best the page could reach (issue #42).
	data, err := json.MarshalIndent(map[string]any{"rounds": rounds, "warmup": warmup, "records": records,
		"floor":     map[string][]float64{"dom": floorDOM, "paint": floorPaint},
		"chatFloor": map[string][]float64{"dom": chat.DOM, "paint": chat.Paint, "call": chat.Call, "afterEnter": afterEnter}}, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(artifactsDir(t), "bench-window-trace.json"), data, 0o644))

	figures := []struct {
		id, label string
		xs        []float64
		target    float64
	}{
		// The card's figures are judged as ratios to the floor (bench/summary.mjs).
		{"window.card.dom.p95", "tool-call chunk -> card in the DOM, p95 (desktop window)", dom, 0},
		{"window.card.dom.floor.p95", "floor: Wails event -> element in the DOM, p95 (bare Wails window)", floorDOM, 0},
		{"window.card.paint.p95", "tool-call chunk -> card painted, p95 (desktop window)", paint, 0},
		{"window.card.paint.floor.p95", "floor: Wails event -> element painted, p95 (bare Wails window)", floorPaint, 0},
		{"window.submit.next.p95", "Submit (Enter) -> next model request, p95 (desktop window)", submit, 10},
	}
	fmt.Printf("\nParley card latency in the desktop window (WebKitGTK under Xvfb, software rendering), scripted model server\n")
	fmt.Printf("%-66s %5s %9s %9s %9s %9s\n", "measure", "n", "p50", "p95", "max", "target")
	out, err := os.OpenFile(filepath.Join(artifactsDir(t), "bench-figures.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer out.Close()
	for _, f := range figures {
		p50, p95 := quantile(f.xs, 0.5), quantile(f.xs, 0.95)
		target := "-"
		fig := map[string]any{
			"id": f.id, "label": f.label, "value": math.Round(p95*100) / 100, "unit": "ms", "at": time.Now().UTC().Format(time.RFC3339Nano),
			"note": fmt.Sprintf("p50 %.1f ms, n=%d; WebKitGTK under Xvfb, software rendering", p50, len(f.xs)),
		}
		if f.target > 0 {
			target = fmt.Sprintf("%.0f ms", f.target)
			fig["target"], fig["cmp"] = f.target, "<="
		}
		fmt.Printf("%-66s %5d %6.1f ms %6.1f ms %6.1f ms %9s\n", f.label, len(f.xs), p50, p95, slices.Max(f.xs), target)
		line, err := json.Marshal(fig)
		require.NoError(t, err)
		_, err = out.Write(append(line, '\n'))
		require.NoError(t, err)
	}
	fmt.Printf("p95 ratios to the floor (bench/summary.mjs judges them, target <= 2x): card in the DOM %.2fx, painted %.2fx\n",
		quantile(dom, 0.95)/quantile(floorDOM, 0.95), quantile(paint, 0.95)/quantile(floorPaint, 0.95))
	model.mu.Lock()
	defer model.mu.Unlock()
	if model.other > 0 {
		fmt.Printf("(the model server also answered %d other requests)\n", model.other)
	}
}
