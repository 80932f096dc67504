//go:build desktop && bench

package desktop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// TestSoak drives the real window for BENCH_SOAK_MINUTES (default 30) as a
// user would, with the keyboard: new chats with long Markdown replies
// streamed in, question cards answered, older conversations opened again
// through search (Ctrl+K) and continued, and Settings opened and closed
// (Ctrl+comma, Escape). Between actions, once a minute, it samples RSS and
// PSS of the app and all its processes (WebKit's web and network
// processes). It prints the table and records the figures (growth after
// warm-up, target ≤ 10 %). It asserts only that it got its samples and that
// the actions reached the model, never memory.
func TestSoak(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run bench/soak.sh)")
	minutes := envInt(t, "BENCH_SOAK_MINUTES", 30)
	require.GreaterOrEqual(t, minutes, 2, "BENCH_SOAK_MINUTES")
	warm := envInt(t, "BENCH_SOAK_WARMUP", 5)
	if warm >= minutes {
		warm = max(1, minutes/3)
	}

	model := newSoakModel()
	srv := httptest.NewServer(model)
	defer srv.Close()

	logPath := filepath.Join(artifactsDir(t), "soak.log")
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--base-url", srv.URL+"/v1", "--model", "scripted")
	if dir := os.Getenv("BENCH_SOAK_HEAP_DIR"); dir != "" {
		cmd.Env = append(os.Environ(), "PARLEY_HEAP_PROFILE_DIR="+dir)
	}
	exited, stop := startLogged(t, cmd, filepath.Base(logPath))
	defer stop()

	waitForWindow(t, "Parley", 60*time.Second)
	waitForUI(t, "soak-0-start.png")
	win := waitForWindow(t, "Parley", 10*time.Second)
	xdotool(t, "windowsize", "--sync", win, "1100", "800")
	time.Sleep(5 * time.Second) // first data loaded, laid out, idle
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run()
	x, y, w, h := parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))

	d := &soakDriver{t: t, model: model, pid: cmd.Process.Pid,
		// No --sync: it waits (about 15 s) when the pointer is already there.
		composer: func() {
			xdotool(t, "mousemove", itoa(x+w*3/5), itoa(y+h-65))
			time.Sleep(50 * time.Millisecond)
			xdotool(t, "click", "1")
		}}
	startup := d.sample()

	start := time.Now()
	end := start.Add(time.Duration(minutes) * time.Minute)
	for round := 1; time.Now().Before(end); round++ {
		d.round(round, start, end)
	}
	time.Sleep(5 * time.Second) // the last reply settles
	final := d.sample()
	shoot(t, "soak-end.png")
	select {
	case err := <-exited:
		require.FailNow(t, "the app exited during the soak", "%v (log: %s)", err, logPath)
	default:
	}

	require.GreaterOrEqual(t, len(d.samples), minutes-1, "a sample each minute")
	require.Greater(t, d.count.replies, 0, "replies streamed")
	require.Greater(t, d.count.cards, 0, "cards answered")
	require.Greater(t, d.count.reopened, 0, "older conversations opened again")
	require.Greater(t, d.count.settings, 0, "Settings opened")

	warmed := d.samples[min(warm, len(d.samples))-1]
	t.Logf("soak: %d minutes, %d chats, %d replies, %d cards answered (%d missed), %d older conversations reopened (%d missed), Settings opened %d times",
		minutes, d.count.chats, d.count.replies, d.count.cards, d.count.cardsMissed, d.count.reopened, d.count.reopenMissed, d.count.settings)
	report := soakTable(startup, d.samples, final, warm)
	t.Log("\n" + report)
	require.NoError(t, os.WriteFile(filepath.Join(artifactsDir(t), "soak-table.txt"), []byte(report), 0o644))

	sr, sp := startup.total()
	wr, wp := warmed.total()
	er, ep := final.total()
	note := fmt.Sprintf("%d min of use under Xvfb; warmed up = minute %d; all processes (parley + WebKit web/network)", minutes, warm)
	recordMemFigure(t, memFigure{ID: "soak.growth.rss", Label: "desktop soak: RSS growth after warm-up", Value: growthPct(wr, er), Unit: "%", Target: ptr(10.0), Cmp: "<=", Note: note})
	recordMemFigure(t, memFigure{ID: "soak.growth.pss", Label: "desktop soak: PSS growth after warm-up", Value: growthPct(wp, ep), Unit: "%", Target: ptr(10.0), Cmp: "<=", Note: note})
	recordMemFigure(t, memFigure{ID: "soak.growth.anon", Label: "desktop soak: anonymous PSS growth after warm-up", Value: growthPct(warmed.anon(""), final.anon("")),
		Unit: "%", Note: note + "; heaps, JIT and layers only: unlike PSS it does not move when other apps map the same libraries"})
	recordMemFigure(t, memFigure{ID: "soak.startup.rss", Label: "desktop soak: RSS at start (idle window)", Value: round1(mb(sr)), Unit: "MB", Note: "all processes"})
	recordMemFigure(t, memFigure{ID: "soak.startup.pss", Label: "desktop soak: PSS at start (idle window)", Value: round1(mb(sp)), Unit: "MB", Note: "all processes"})
	recordMemFigure(t, memFigure{ID: "soak.end.rss", Label: "desktop soak: RSS at the end", Value: round1(mb(er)), Unit: "MB", Note: note})
	recordMemFigure(t, memFigure{ID: "soak.end.pss", Label: "desktop soak: PSS at the end", Value: round1(mb(ep)), Unit: "MB", Note: note})
}

// soakDriver plays the user.
type soakDriver struct {
	t        *testing.T
	model    *soakModel
	pid      int
	composer func()
	samples  []treeMem
	stepTime time.Duration // time in actions (the rest: samples)
	tokens   []string      // one per conversation, in its first message
	count    struct {
		chats, replies, cards, cardsMissed, reopened, reopenMissed, settings int
	}
}

func (d *soakDriver) sample() treeMem {
	s, err := sampleTree(d.pid)
	require.NoError(d.t, err, "sample the app's memory")
	// Without its web process the window is blank and the figures would
	// read as a drop in memory: say what happened instead (once, the
	// WebKit compositor crashed in Mesa's software rasteriser under Xvfb).
	web := false
	for _, p := range s.Procs {
		web = web || strings.HasPrefix(p.Name, "WebKitWebProc")
	}
	if !web {
		shoot(d.t, "soak-web-process-gone.png")
		require.FailNow(d.t, "the window's WebKit web process is gone (crashed? see dmesg)", "after %d samples", len(d.samples))
	}
	return s
}

// maybeSample takes the minute's sample once a minute has passed since the
// last one, between actions (the window settles for a moment first).
func (d *soakDriver) maybeSample(start time.Time) {
	if time.Since(start) < time.Duration(len(d.samples)+1)*time.Minute {
		return
	}
	time.Sleep(2 * time.Second)
	s := d.sample()
	d.samples = append(d.samples, s)
	r, p := s.total()
	d.t.Logf("minute %2d: RSS %.0f MB, PSS %.0f MB (%d replies, %d cards, %d reopened; %.0f s in actions)",
		len(d.samples), mb(r), mb(p), d.count.replies, d.count.cards, d.count.reopened, d.stepTime.Seconds())
}

func (d *soakDriver) keys(ks ...string) {
	for _, k := range ks {
		xdotool(d.t, "key", k)
		time.Sleep(300 * time.Millisecond)
	}
}

func (d *soakDriver) typeText(s string) {
	xdotool(d.t, "type", "--delay", "8", s)
}

// send types a message in the composer and waits until the model answered
// it (the whole stream written) and the page had a moment to render it.
func (d *soakDriver) send(text string) (modelserver.ChatRequest, bool) {
	before := d.model.done()
	d.composer()
	d.typeText(text)
	xdotool(d.t, "key", "Return")
	req, ok := d.model.waitDone(before+1, 30*time.Second)
	time.Sleep(1500 * time.Millisecond)
	return req, ok
}

// round is one stretch of use: a new chat with a reply, a card answered
// with the keyboard and the reply after it, Settings, and an older
// conversation opened again and continued. It samples between steps.
func (d *soakDriver) round(n int, start, end time.Time) {
	step := func(f func()) {
		if time.Now().Before(end) {
			began := time.Now()
			f()
			d.stepTime += time.Since(began)
			d.maybeSample(start)
		}
	}
	token := fmt.Sprintf("kx%04dq%s", n, strconv.FormatInt(rand.Int64N(1<<30), 36))
	step(func() {
		d.keys("ctrl+n")
		if _, ok := d.send("Write notes about " + token + " with examples"); ok {
			d.count.replies++
			d.count.chats++
			d.tokens = append(d.tokens, token)
		}
	})
	step(func() {
		before := d.model.done()
		if _, ok := d.send("Please ask me what matters for " + token); !ok {
			return
		}
		time.Sleep(time.Second) // the card takes focus
		// Question 1: option 1, Next; question 2: option 1, Review; Submit.
		d.keys("1", "Return", "1", "Return", "Return")
		if req, ok := d.model.waitDone(before+2, 20*time.Second); ok && req.LastMessage().Role == "tool" {
			d.count.cards++
			d.count.replies++
			time.Sleep(1500 * time.Millisecond)
		} else {
			d.count.cardsMissed++
			d.keys("Escape")
		}
	})
	step(func() {
		d.keys("ctrl+comma")
		time.Sleep(1500 * time.Millisecond)
		d.keys("Escape")
		d.count.settings++
	})
	step(func() {
		if len(d.tokens) < 2 {
			return
		}
		older := d.tokens[rand.IntN(len(d.tokens)-1)]
		d.keys("ctrl+k")
		d.typeText(older)
		time.Sleep(1200 * time.Millisecond) // the search runs (250 ms debounce)
		d.keys("Tab", "Return")
		time.Sleep(1500 * time.Millisecond) // the conversation opens
		// Clear the search so the list shows every conversation again.
		d.keys("ctrl+k", "ctrl+a", "BackSpace")
		time.Sleep(600 * time.Millisecond)
		req, ok := d.send("And more about " + older + " please")
		if ok && len(req.Messages) > 2 && strings.Contains(firstUser(req), older) {
			d.count.reopened++
			d.count.replies++
		} else {
			d.count.reopenMissed++
		}
	})
}

func firstUser(req modelserver.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// soakModel is the scripted model of the soak: long Markdown replies,
// streamed a word every few milliseconds, and a question card when asked
// ("ask me"). It counts the answers it finished writing.
type soakModel struct {
	http.Handler
	mu       sync.Mutex
	finished int
	last     modelserver.ChatRequest
	changed  chan struct{}
	replyN   int
}

// BENCH_SOAK_REPLIES=short answers in a few words instead (to see how much
// of the growth streaming and rendering Markdown brings).
func newSoakModel() *soakModel {
	short := os.Getenv("BENCH_SOAK_REPLIES") == "short"
	m := &soakModel{changed: make(chan struct{})}
	m.Handler = modelserver.NewHandler(func(req modelserver.ChatRequest) modelserver.Turn {
		m.mu.Lock()
		m.last = req
		m.replyN++
		n := m.replyN
		m.mu.Unlock()
		last := req.LastMessage()
		if last.Role == "user" && strings.Contains(last.Content, "ask me") {
			return modelserver.Turn{Text: "Two things first.", ToolCalls: []modelserver.ToolCall{{
				ID: fmt.Sprintf("call_soak_%d", n), Name: "ask_user_question",
				Arguments: `{"questions":[{"question":"Which tone?","options":["Friendly","Formal"]},{"question":"What should it include?","options":["Examples","Numbers"]}]}`,
			}}}
		}
		if short {
			return modelserver.Turn{Text: fmt.Sprintf("Noted (%d).", n)}
		}
		return modelserver.Turn{Text: soakReply(n)}
	})
	return m
}

func (m *soakModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		m.Handler.ServeHTTP(w, r)
		return
	}
	m.Handler.ServeHTTP(slowFlusher{w}, r)
	m.mu.Lock()
	m.finished++
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

func (m *soakModel) done() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.finished
}

// waitDone waits until n answers were written; it returns the last request.
func (m *soakModel) waitDone(n int, timeout time.Duration) (modelserver.ChatRequest, bool) {
	deadline := time.After(timeout)
	for {
		m.mu.Lock()
		finished, last, changed := m.finished, m.last, m.changed
		m.mu.Unlock()
		if finished >= n {
			return last, true
		}
		select {
		case <-changed:
		case <-deadline:
			return last, false
		}
	}
}

// slowFlusher paces a stream like a model (a few ms per delta).
type slowFlusher struct{ http.ResponseWriter }

func (s slowFlusher) Flush() {
	s.ResponseWriter.(http.Flusher).Flush()
	time.Sleep(4 * time.Millisecond)
}

// soakReply is a long-ish Markdown reply (headings, lists, a table, code),
// different each time.
func soakReply(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Notes, part %d\n\nHere is an overview with **bold**, *italics*, `inline code` and a [link](https://example.com/%d).\n\n", n, n)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "%d. Point %d.%d: keep the plan simple, check the numbers, and write down what changed.\n", i, n, i)
	}
	b.WriteString("\n| step | owner | days |\n|---|---|---|\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "| step %d | team %c | %d |\n", i, 'A'+rune(i), n%7+i)
	}
	fmt.Fprintf(&b, "\n```go\nfunc total%d(xs []int) int {\n\tsum := 0\n\tfor _, x := range xs {\n\t\tsum += x * %d\n\t}\n\treturn sum\n}\n```\n\n", n, n)
	b.WriteString("> A quote to finish the section, with a second sentence for length.\n\n")
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "- A bullet about item %d of reply %d, long enough to wrap on a narrow window.\n", i, n)
	}
	return b.String()
}

func soakTable(startup treeMem, samples []treeMem, final treeMem, warm int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %7s %7s %7s | %7s %7s | %7s %7s %7s | %7s %7s | %s\n", "minute", "RSS", "PSS", "anon",
		"app RSS", "app PSS", "web RSS", "web PSS", "web anon", "net RSS", "net PSS", "procs (MB; anon = anonymous PSS)")
	row := func(label string, s treeMem) {
		r, p := s.total()
		var ar, ap int64 // the app: the root of the tree, whatever its binary is called
		if len(s.Procs) > 0 {
			ar, ap = s.Procs[0].RSS, s.Procs[0].PSS
		}
		wr, wp := s.byKind("WebKitWebProces")
		nr, np := s.byKind("WebKitNetworkPr")
		fmt.Fprintf(&b, "%-9s %7.1f %7.1f %7.1f | %7.1f %7.1f | %7.1f %7.1f %7.1f | %7.1f %7.1f | %d\n", label, mb(r), mb(p), mb(s.anon("")),
			mb(ar), mb(ap), mb(wr), mb(wp), mb(s.anon("WebKitWebProces")), mb(nr), mb(np), len(s.Procs))
	}
	row("start", startup)
	for i, s := range samples {
		label := strconv.Itoa(i + 1)
		if i+1 == warm {
			label += " warm"
		}
		row(label, s)
	}
	row("end", final)
	warmed := samples[min(warm, len(samples))-1]
	sr, sp := startup.total()
	wr, wp := warmed.total()
	er, ep := final.total()
	fmt.Fprintf(&b, "\nstartup      RSS %.1f MB, PSS %.1f MB, anon %.1f MB\n", mb(sr), mb(sp), mb(startup.anon("")))
	fmt.Fprintf(&b, "warm (min %d) RSS %.1f MB, PSS %.1f MB, anon %.1f MB\n", warm, mb(wr), mb(wp), mb(warmed.anon("")))
	fmt.Fprintf(&b, "end          RSS %.1f MB, PSS %.1f MB, anon %.1f MB\n", mb(er), mb(ep), mb(final.anon("")))
	fmt.Fprintf(&b, "growth after warm-up: RSS %+.1f %%, PSS %+.1f %%, anon %+.1f %% (target <= 10 %%)\n",
		growthPct(wr, er), growthPct(wp, ep), growthPct(warmed.anon(""), final.anon("")))
	return b.String()
}

func growthPct(from, to int64) float64 {
	if from == 0 {
		return 0
	}
	return round1(float64(to-from) / float64(from) * 100)
}

func round1(v float64) float64 { return float64(int64(v*10+0.5*sign(v))) / 10 }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

func ptr[T any](v T) *T { return &v }

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "%s=%q", name, s)
	return n
}

// memFigure is one line of $PARLEY_ARTIFACTS/bench-figures.jsonl (the
// format of bench/figures.mjs).
type memFigure struct {
	ID     string   `json:"id"`
	Label  string   `json:"label"`
	Value  float64  `json:"value"`
	Unit   string   `json:"unit"`
	Target *float64 `json:"target,omitempty"`
	Cmp    string   `json:"cmp,omitempty"`
	Note   string   `json:"note,omitempty"`
	At     string   `json:"at"`
}

func recordMemFigure(t *testing.T, f memFigure) {
	t.Helper()
	f.At = time.Now().UTC().Format(time.RFC3339Nano)
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false) // "<=" as written, as bench/figures.mjs writes it
	require.NoError(t, enc.Encode(f))
	file, err := os.OpenFile(filepath.Join(artifactsDir(t), "bench-figures.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer file.Close()
	_, err = file.Write(line.Bytes())
	require.NoError(t, err)
	t.Logf("figure %s = %v %s", f.ID, f.Value, f.Unit)
}
