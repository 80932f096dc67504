//go:build desktop

package desktop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

func xdotool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("xdotool", args...).CombinedOutput()
	require.NoError(t, err, "xdotool %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// click clicks at (x, y) on the screen. The pointer first leaves for the
// corner: mousemove --sync to where the pointer already is waits for a move
// that never comes (about 17 s) before it clicks.
func click(t *testing.T, x, y int) {
	t.Helper()
	xdotool(t, "mousemove", "0", "0", "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
}

func shoot(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(artifactsDir(t), name)
	err := exec.Command("import", "-display", os.Getenv("DISPLAY"), "-window", "root", path).Run()
	require.NoError(t, err, "screenshot")
	return path
}

func waitRequests(t *testing.T, srv *modelserver.Server, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(restDeadline)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			require.FailNow(t, what+": the model did not get enough requests", "got %d, want %d", len(srv.Requests()), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sendMessage types text in the composer and sends it with Enter, and
// returns once the model got request n and the run stopped (it waits for
// a card, or ended). While the last run is still ending the composer keeps
// the text and refuses Enter, and on a busy machine a click can land before
// the composer takes focus: Enter is pressed again after 5 s, and while no
// request comes after that, the composer is clicked again, its text
// selected and typed over before Enter (a message sent this late would be
// seen as one request too many by the tests that check the history).
func sendMessage(t *testing.T, win string, srv *modelserver.Server, n int, text string, composer func()) {
	t.Helper()
	composer()
	xdotool(t, "type", "--delay", "20", text)
	before := waitRest(t, win, "the message is typed")
	deadline := time.Now().Add(restDeadline)
	for attempt := 0; len(srv.Requests()) < n; attempt++ {
		if attempt > 1 {
			t.Logf("no request %d after Enter: typing %q again", n, text)
			composer()
			xdotool(t, "key", "ctrl+a")
			xdotool(t, "type", "--delay", "20", text)
		}
		xdotool(t, "key", "Return")
		for retry := time.Now().Add(5 * time.Second); len(srv.Requests()) < n && time.Now().Before(retry); {
			time.Sleep(100 * time.Millisecond)
		}
		if len(srv.Requests()) < n && time.Now().After(deadline) {
			require.FailNow(t, "the model did not get "+text, "got %d requests, want %d; see %s", len(srv.Requests()), n, shoot(t, "desktop-unsent.png"))
		}
	}
	// At rest once the run waits for a card or ended: the run status pulses until then.
	waitChange(t, win, before, "the run after "+text+" stops")
}

// TestDesktopQuestionFlow drives the real window with the keyboard: send a
// message, see the card, answer it with number keys and Enter, and check the
// answer reached the (scripted) model.
func TestDesktopQuestionFlow(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.NotEmpty(t, bin, "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	require.NotEmpty(t, os.Getenv("DISPLAY"), "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	srv := modelserver.New(modelserver.Demo())
	defer srv.Close()

	defer launchApp(t, bin, srv.URL(), "desktop-flow.log")()

	win, x, y, w, h := startWindow(t, "desktop-flow-0-start.png")
	// The composer sits at the bottom of the chat column, right of the sidebar.
	sendMessage(t, win, srv, 1, "Plan a team lunch", func() { click(t, x+w*3/5, y+h-65) })
	card := shoot(t, "desktop-flow-2-card.png")
	require.GreaterOrEqual(t, distinctColours(t, card), 50, "card screenshot looks blank (colours)")
	// Question 1: option 1 (Friendly), Next; question 2: option 1 (Examples), Review; Submit.
	for i, key := range []string{"1", "Return", "1", "Return", "Return"} {
		keyAndWait(t, win, key, fmt.Sprintf("key %d (%s) on the card", i+1, key))
	}
	waitRequests(t, srv, 2, "after answering")
	shoot(t, "desktop-flow-3-answered.png")

	req := srv.Requests()[1]
	last := req.LastMessage()
	var got struct {
		Answers map[string]string `json:"answers"`
	}
	require.Equal(t, "tool", last.Role, "second request ends with %+v, want the card's tool result", last)
	require.NoError(t, json.Unmarshal([]byte(last.Content), &got), "second request ends with %+v, want the card's tool result", last)
	require.Equal(t, "Friendly", got.Answers["What tone should the answer have?"], "answers %v", got.Answers)
	require.Equal(t, "Examples", got.Answers["What should it include?"], "answers %v", got.Answers)
}

// launchApp starts the built app on a fresh data folder against the model
// server at baseURL, its output in the artifacts' logName, with env added
// to the environment ("KEY=value"). The returned stop sends SIGTERM and
// waits for the exit (killing it after restDeadline).
func launchApp(t *testing.T, bin, baseURL, logName string, env ...string) (stop func()) {
	t.Helper()
	// No question timeout: a card's countdown ("3:25 left") ticks every
	// second, and on a busy machine two captures of the window are more than
	// a second apart, so the window would never be at rest.
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--base-url", baseURL, "--model", "scripted", "--question-timeout", "0")
	// No blinking caret: the tests wait for the window to be at rest.
	cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+noBlinkConfig(t)), env...)
	_, stop = startLogged(t, cmd, logName)
	return stop
}

// startLogged starts cmd with its output in the artifacts folder (logName).
// exited reports its end; stop ends it with SIGTERM (killed after restDeadline).
// The process is recorded for t, so that waitForWindow fails at once, with
// the app's last lines, when it exits before showing a window.
func startLogged(t *testing.T, cmd *exec.Cmd, logName string) (exited <-chan error, stop func()) {
	t.Helper()
	return startApp(t, cmd, logName, false)
}

// startWatched is startLogged with the app's output also split into lines
// the test can wait for (printedLine). Only for an app that starts no
// process of its own: the output then goes through a pipe, which a child
// (Parley restarting into an update) would hold open, and the app's exit
// would not be seen until the child's.
func startWatched(t *testing.T, cmd *exec.Cmd, logName string) (exited <-chan error, stop func()) {
	t.Helper()
	return startApp(t, cmd, logName, true)
}

func startApp(t *testing.T, cmd *exec.Cmd, logName string, watch bool) (exited <-chan error, stop func()) {
	t.Helper()
	logPath := filepath.Join(artifactsDir(t), logName)
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	run := &appRun{done: make(chan struct{}), logPath: logPath}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if watch {
		run.out = &outputLines{file: logFile}
		cmd.Stdout, cmd.Stderr = run.out, run.out
	}
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() {
		run.err = cmd.Wait()
		close(run.done)
		done <- run.err
	}()
	launched.Store(t, run)
	t.Cleanup(func() { launched.Delete(t) })
	return done, func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-run.done:
		case <-time.After(restDeadline):
			_ = cmd.Process.Kill()
			<-run.done
		}
		logFile.Close()
	}
}

// launched holds the app process each test started (*testing.T -> *appRun).
var launched sync.Map

type appRun struct {
	done    chan struct{} // closed when the process has exited
	err     error         // its exit, once done is closed
	logPath string
	out     *outputLines // its output's lines (startWatched only)
}

// outputLines is the app's output: written to its log file, and split into
// lines a test can wait for (printedLine), without reading the file again
// and again.
type outputLines struct {
	mu      sync.Mutex
	file    *os.File
	partial []byte                   // the output after its last newline
	seen    map[string]bool          // every whole line so far
	waiting map[string]chan struct{} // closed when their line comes
}

func (o *outputLines) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.file.Write(p)
	o.partial = append(o.partial, p...)
	for {
		i := bytes.IndexByte(o.partial, '\n')
		if i < 0 {
			break
		}
		line := string(o.partial[:i])
		o.partial = o.partial[i+1:]
		if o.seen == nil {
			o.seen = map[string]bool{}
		}
		o.seen[line] = true
		if c, ok := o.waiting[line]; ok {
			close(c)
			delete(o.waiting, line)
		}
	}
	return n, err
}

// line returns a channel closed once the output has had line as a whole line.
func (o *outputLines) line(line string) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := make(chan struct{})
	if o.seen[line] {
		close(c)
		return c
	}
	if c0, ok := o.waiting[line]; ok {
		return c0
	}
	if o.waiting == nil {
		o.waiting = map[string]chan struct{}{}
	}
	o.waiting[line] = c
	return c
}

// printedLine waits until the app t launched (startWatched) prints line as a
// whole line; it fails the test if the app exits first or within deadline
// it has not (what says what did not happen; shot, if set, takes a screenshot).
func printedLine(t *testing.T, line string, deadline time.Duration, what string, shot func() string) {
	t.Helper()
	v, ok := launched.Load(t)
	require.True(t, ok, "printedLine: no app launched by this test")
	run := v.(*appRun)
	require.NotNil(t, run.out, "printedLine: the app was not started with startWatched")
	timeout := time.NewTimer(deadline)
	defer timeout.Stop()
	select {
	case <-run.out.line(line):
	case <-run.done:
		failIfAppExited(t)
	case <-timeout.C:
		detail := "see " + run.logPath
		if shot != nil {
			detail += " and " + shot()
		}
		require.FailNow(t, fmt.Sprintf("%s within %s", what, deadline), detail)
	}
}

// failIfAppExited ends the test when the app it launched has already
// exited: no window will come, and the app's log says why.
func failIfAppExited(t *testing.T) {
	t.Helper()
	v, ok := launched.Load(t)
	if !ok {
		return
	}
	run := v.(*appRun)
	select {
	case <-run.done:
		out, _ := os.ReadFile(run.logPath)
		// The last 20 lines, or from a panic on: a Go stack ends the log.
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		from := max(0, len(lines)-20)
		for i, line := range lines {
			if strings.HasPrefix(line, "panic: ") {
				from = max(0, i-5)
			}
		}
		lines = lines[from:min(len(lines), from+20)]
		require.FailNow(t, "the app exited before its window showed",
			"exit: %v; its log (%s) ends:\n%s", run.err, run.logPath, strings.Join(lines, "\n"))
	default:
	}
}
