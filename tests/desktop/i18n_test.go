//go:build desktop

package desktop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// The window started with LANG=de_DE.UTF-8 shows German: WebKitGTK gives the
// page that language (navigator.languages), and with no language saved in
// Settings the interface follows it. The page cannot be read from outside
// the window, so the test observes it through the model's requests: the
// empty chat's last suggested prompt, chosen with the keyboard, reaches the
// model server in the words of the German catalogue (an English window
// would send the English ones). A screenshot is kept as well.
func TestDesktopFollowsLANG(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.NotEmpty(t, bin, "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	require.NotEmpty(t, os.Getenv("DISPLAY"), "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	want := catalogueString(t, "de", "prompts", "starter", "review", "prompt")
	english := catalogueString(t, "en", "prompts", "starter", "review", "prompt")
	require.NotEqual(t, english, want)

	srv := modelserver.New(modelserver.Demo())
	defer srv.Close()
	// LANG alone decides (LC_ALL, LC_MESSAGES and LANGUAGE would win over it).
	defer launchApp(t, bin, srv.URL(), "desktop-i18n.log", "LANG=de_DE.UTF-8", "LC_ALL=", "LC_MESSAGES=", "LANGUAGE=")()

	win := waitForWindow(t, "Parley", 60*time.Second)
	waitForUI(t, "desktop-i18n-de.png")
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run() // no window manager under Xvfb: focus directly


	// A new chat has the cursor in the message box; two steps back are the
	// paperclip, then the last suggested prompt.
	x, y, w, h := parseGeometry(t, xdotool(t, "getwindowgeometry", "--shell", win))
	click(t, x+w*3/5, y+h-65)
	for _, k := range []string{"shift+Tab", "shift+Tab", "Return"} {
		xdotool(t, "key", k)
		time.Sleep(300 * time.Millisecond)
	}
	waitRequests(t, srv, 1, "after choosing the suggested prompt")
	got := srv.Requests()[0].LastMessage()
	require.Equal(t, "user", got.Role)
	require.Equal(t, want, got.Content, "the window's suggested prompt is not the German one")
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
