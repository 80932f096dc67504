//go:build desktop

package desktop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// The window started with LANG=de_DE.UTF-8 shows German: WebKitGTK gives the
// page the C library's locale (navigator.languages), and with no language
// saved in Settings the interface follows it. WebKitGTK needs the locale
// to exist (else it is "C", English); a machine that has only C gets
// de_DE.UTF-8 compiled into a folder of the test's (localedef, from the
// locales package; LOCPATH), nothing installed. The page cannot be read from outside
// the window; what it says leaves it in the native notification of a card
// (its title comes from the page's catalogue, the body is the model's
// question), recorded by a notify-send on PATH. The model holds the card
// back until the window is hidden, so no step waits for a fixed time. A
// screenshot of the German window is kept too.
func TestDesktopFollowsLANG(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	want := catalogueString(t, "de", "questions", "notification", "title")
	english := catalogueString(t, "en", "questions", "notification", "title")
	require.NotEqual(t, english, want)

	hidden := make(chan struct{})
	var release sync.Once
	unblock := func() { release.Do(func() { close(hidden) }) }
	srv := modelserver.New(modelserver.Turns(
		modelserver.Turn{Text: "Eine Frage vorab.", OnToolCallSent: func() { <-hidden }, ToolCalls: []modelserver.ToolCall{{
			ID: "call_i18n_1", Name: "ask_user_question",
			Arguments: `{"questions":[{"question":"Welche Stadt?","options":["Paris","Rom"]}]}`,
		}}},
		modelserver.Turn{Text: "Danke."},
	))
	defer srv.Close()
	defer unblock() // before Close, which waits for the held answer

	record, notifyEnv := notificationEnv(t)
	// LANG alone decides (LC_ALL, LC_MESSAGES and LANGUAGE would win over it).
	env := append([]string{"LANG=de_DE.UTF-8", "LC_ALL=", "LC_MESSAGES=", "LANGUAGE=", "LOCPATH=" + germanLocale(t)}, notifyEnv...)
	defer launchApp(t, bin, srv.URL(), "desktop-i18n.log", env...)()

	waitForWindow(t, "Parley", 60*time.Second)
	waitForUI(t, "desktop-i18n-de-start.png")
	win := waitForWindow(t, "Parley", 10*time.Second)
	waitRest(t, win, "the page loads its first data")
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run() // no window manager under Xvfb: focus directly
	x, y, w, h := parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))
	click(t, x+w*3/5, y+h-65) // the message box
	xdotool(t, "type", "--delay", "20", "Plane eine Reise")
	xdotool(t, "key", "Return")
	waitRequests(t, srv, 1, "after sending")

	// Hidden (unmapped, as when minimised: WebKit reports a hidden page),
	// then the card comes.
	xdotool(t, "windowunmap", "--sync", win)
	unblock()
	var got string
	for deadline := time.Now().Add(restDeadline); !strings.Contains(got, "--\n"); time.Sleep(200 * time.Millisecond) {
		b, _ := os.ReadFile(record)
		got = string(b)
		require.False(t, time.Now().After(deadline), "no native notification for the card; notify-send got %q (app log: desktop-i18n.log)", got)
	}
	lines := strings.Split(got, "\n")
	require.Equal(t, want, lines[0], "the notification's title is not the German one (English: %q)", english)
	require.Equal(t, "Welche Stadt?", lines[1], "notification body")

	_ = exec.Command("xdotool", "windowmap", "--sync", win).Run()
	waitRest(t, win, "the card shows")
	shoot(t, "desktop-i18n-de.png")
}

// germanLocale compiles de_DE.UTF-8 into a new folder for LOCPATH.
func germanLocale(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("localedef", "-i", "de_DE", "-f", "UTF-8", filepath.Join(dir, "de_DE.UTF-8")).CombinedOutput()
	require.NoError(t, err, "localedef de_DE.UTF-8 (Debian package locales): %s", out)
	return dir
}

// catalogueString reads one message of a frontend catalogue.
func catalogueString(t *testing.T, lang string, path ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "frontend", "src", "i18n", "locales", lang+".json"))
	require.NoError(t, err)
	var node any
	require.NoError(t, json.Unmarshal(b, &node))
	for _, p := range path {
		m, ok := node.(map[string]any)
		require.True(t, ok, "%s: %v is not an object", lang, path)
		node = m[p]
	}
	s, ok := node.(string)
	require.True(t, ok, "%s: no message at %v", lang, path)
	return s
}
