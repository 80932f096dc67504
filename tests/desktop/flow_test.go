//go:build desktop

package desktop

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			require.FailNow(t, what+": the model did not get enough requests", "got %d, want %d", len(srv.Requests()), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
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

	win := waitForWindow(t, "Parley", 60*time.Second)
	time.Sleep(2 * time.Second)                                     // let the page load its first data
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run() // no window manager under Xvfb: focus directly
	geo := xdotool(t, "getwindowgeometry", "--shell", win)
	var x, y, w, h int
	for _, line := range strings.Split(geo, "\n") {
		fmt.Sscanf(line, "X=%d", &x)
		fmt.Sscanf(line, "Y=%d", &y)
		fmt.Sscanf(line, "WIDTH=%d", &w)
		fmt.Sscanf(line, "HEIGHT=%d", &h)
	}
	require.NotZero(t, w, "window geometry %q", geo)
	require.NotZero(t, h, "window geometry %q", geo)
	// The composer sits at the bottom of the chat column, right of the sidebar.
	click(t, x+w*3/5, y+h-65)
	xdotool(t, "type", "--delay", "20", "Plan a team lunch")
	shoot(t, "desktop-flow-1-typed.png")
	xdotool(t, "key", "Return")

	waitRequests(t, srv, 1, "after sending")
	time.Sleep(2 * time.Second) // the card renders and takes focus
	before := shoot(t, "desktop-flow-2-card.png")
	require.GreaterOrEqual(t, distinctColours(t, before), 50, "card screenshot looks blank (colours)")
	// Question 1: option 1 (Friendly), Next; question 2: option 1 (Examples), Review; Submit.
	for _, key := range []string{"1", "Return", "1", "Return", "Return"} {
		xdotool(t, "key", key)
		time.Sleep(400 * time.Millisecond)
	}
	waitRequests(t, srv, 2, "after answering")
	time.Sleep(1500 * time.Millisecond)
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
// waits for the exit (killing it after 10 s).
func launchApp(t *testing.T, bin, baseURL, logName string, env ...string) (stop func()) {
	t.Helper()
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--base-url", baseURL, "--model", "scripted")
	// No blinking caret: the tests wait for the window to be at rest.
	cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+noBlinkConfig(t)), env...)
	_, stop = startLogged(t, cmd, logName)
	return stop
}

// startLogged starts cmd with its output in the artifacts folder (logName).
// exited reports its end; stop ends it with SIGTERM (killed after 10 s).
func startLogged(t *testing.T, cmd *exec.Cmd, logName string) (exited <-chan error, stop func()) {
	t.Helper()
	logFile, err := os.Create(filepath.Join(artifactsDir(t), logName))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done, func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logFile.Close()
	}
}
