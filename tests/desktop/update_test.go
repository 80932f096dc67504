//go:build desktop

package desktop

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aead.dev/minisign"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentcli"
	"github.com/parley-app/parley/backend/httpapi"
	"github.com/parley-app/parley/backend/update"
)

// TestDesktopRestartsIntoAnUpdate: the window of Parley 1.0.0, installed
// from its tarball with a test key built in and pointed at a signed feed of
// 1.0.1 on 127.0.0.1, checks, downloads and applies the update through the
// calls its "Restart to update" makes (here over its local API); the window
// quits, everything closed, and 1.0.1 opens its own window on the same
// data, with the conversations 1.0.0 made (SPEC §13).
func TestDesktopRestartsIntoAnUpdate(t *testing.T) {
	bin := os.Getenv("PARLEY_BIN")
	require.True(t, bin != "" && os.Getenv("DISPLAY") != "", "PARLEY_BIN and DISPLAY must be set (run scripts/test.sh)")
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	installed := filepath.Join(dir, "parley_1.0.0_linux_amd64", "parley")
	next := filepath.Join(dir, "next", "parley")
	relink(t, installed, "1.0.0", pub.String())
	relink(t, next, "1.0.1", pub.String())

	feedDir := t.TempDir()
	tarball := filepath.Join(feedDir, "parley_1.0.1_linux_amd64.tar.gz")
	writeTarball(t, tarball, "parley_1.0.1_linux_amd64/parley", next)
	feed, err := update.MakeFeed("1.0.1", time.Now().Add(-time.Minute), time.Hour, map[string]string{"en": "Faster answers."},
		[]update.ReleaseArtifact{{Path: tarball, OS: "linux", Arch: "amd64", Kind: update.KindTar}})
	require.NoError(t, err)
	require.NoError(t, update.WriteSignedFeed(feedDir, feed, &priv))
	srv := httptest.NewServer(http.FileServer(http.Dir(feedDir)))
	defer srv.Close()

	// 1.0.0 makes two conversations and turns its local API on (the
	// desktop's listener then serves the whole API, with the data
	// folder's token).
	data := t.TempDir()
	serve := exec.Command(installed, "serve", "--data-dir", data, "--addr", "127.0.0.1:0")
	serve.Env = append(os.Environ(), "PARLEY_UPDATE_URL=http://127.0.0.1:9")
	_, stopServe := startLogged(t, serve, "desktop-update-serve.log")
	api := waitListener(t, data, 0)
	settings := map[string]any{}
	api.call(t, "GET", "/api/v1/settings", nil, &settings)
	settings["api_enabled"], settings["onboarded"] = true, true
	api.call(t, "PUT", "/api/v1/settings", settings, nil)
	for _, title := range []string{"Trip to Lisbon", "Taxes 2026"} {
		api.call(t, "POST", "/api/v1/conversations", map[string]any{"title": title}, nil)
	}
	before := api.titles(t)
	stopServe()

	// The window, in a process group of its own: the version it restarts
	// into is another process of that group.
	app := exec.Command(installed, "--addr", "127.0.0.1:0", "--data-dir", data, "--base-url", "http://127.0.0.1:9/v1")
	app.Env = append(os.Environ(), "PARLEY_UPDATE_URL="+srv.URL, "XDG_CONFIG_HOME="+noBlinkConfig(t))
	app.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	exited, stop := startLogged(t, app, "desktop-update.log")
	defer stop()
	defer func() { _ = syscall.Kill(-app.Process.Pid, syscall.SIGTERM) }()
	waitForWindow(t, "Parley", restDeadline)
	api = waitListener(t, data, app.Process.Pid)
	var status update.Status
	api.call(t, "POST", "/api/v1/update/check", nil, &status)
	require.Equal(t, "1.0.0", status.Current)
	require.NotNil(t, status.Available, "the feed offers 1.0.1: %+v", status)
	for deadline := time.Now().Add(60 * time.Second); status.State != update.StateReady; time.Sleep(100 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the update is not ready: %+v", status)
		api.call(t, "GET", "/api/v1/update", nil, &status)
	}
	api.call(t, "POST", "/api/v1/update/apply", nil, nil)

	// 1.0.0 quits cleanly; 1.0.1 opens its window on the same data.
	select {
	case err := <-exited:
		require.NoError(t, err, "1.0.0 quits cleanly after applying the update (desktop-update.log)")
	case <-time.After(restDeadline):
		require.FailNow(t, "1.0.0 is still running after applying the update (desktop-update.log)")
	}
	launched.Delete(t) // its exit was the point: the windows to come are 1.0.1's
	restarted := waitListener(t, data, -app.Process.Pid)
	defer func() { _ = syscall.Kill(restarted.pid, syscall.SIGTERM); waitGone(restarted.pid) }()
	waitForWindow(t, "Parley", restDeadline)
	// The page painted (the menu bar alone has ~90 colours, the UI ~1,700).
	for deadline := time.Now().Add(restDeadline); distinctColours(t, shoot(t, "desktop-update-restarted.png")) < 500; time.Sleep(250 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "1.0.1's window shows no UI (desktop-update-restarted.png)")
	}
	var health struct{ Version string }
	restarted.call(t, "GET", "/api/v1/health", nil, &health)
	assert.Equal(t, "1.0.1", health.Version)
	assert.Equal(t, before, restarted.titles(t), "every conversation")
	out, err := exec.Command(installed, "version").Output()
	require.NoError(t, err)
	assert.Equal(t, "parley 1.0.1", strings.TrimSpace(string(out)))
	out, err = exec.Command(installed+".old", "version").Output()
	require.NoError(t, err)
	assert.Equal(t, "parley 1.0.0", strings.TrimSpace(string(out)))
	_, err = os.Stat(filepath.Join(data, "parley.db.pre-1.0.1"))
	assert.NoError(t, err, "the database copied before 1.0.1 opened it")
}

// relink builds the app as scripts/test.sh's build (its packages from the
// build cache: only the link runs) as a tarball install of version with
// the test key.
func relink(t *testing.T, out, version, key string) {
	t.Helper()
	ldflags := "-X main.version=" + version + " -X main.installKind=tar -X main.updateKeys=" + key
	cmd := exec.Command("bash", "-c", `source scripts/lib.sh && relink_app "$1" "$BUILD_TAGS" "$2"`, "relink", out, ldflags)
	cmd.Dir = filepath.Join("..", "..")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "relink %s: %s", version, b)
}

func writeTarball(t *testing.T, path, name, file string) {
	t.Helper()
	body, err := os.ReadFile(file)
	require.NoError(t, err)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(body))}))
	_, err = tw.Write(body)
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// localAPI is a running Parley's API, found through its listener file.
type localAPI struct {
	url, token string
	pid        int
}

// waitListener waits for the listener file of a Parley on data: of the
// process pid (> 0), of another one than -pid (< 0), or of any (0).
func waitListener(t *testing.T, data string, pid int) localAPI {
	t.Helper()
	for deadline := time.Now().Add(restDeadline); ; time.Sleep(100 * time.Millisecond) {
		failIfAppExited(t)
		var l agentcli.Listener
		b, err := os.ReadFile(filepath.Join(data, agentcli.ListenerFile))
		token, terr := os.ReadFile(filepath.Join(data, httpapi.TokenFile))
		if err == nil && terr == nil && json.Unmarshal(b, &l) == nil &&
			(pid == 0 || (pid > 0 && l.PID == pid) || (pid < 0 && l.PID != -pid)) {
			a := localAPI{url: l.URL, token: strings.TrimSpace(string(token)), pid: l.PID}
			if _, err := a.do("GET", "/api/v1/health", nil, nil); err == nil {
				return a
			}
		}
		require.True(t, time.Now().Before(deadline), "no Parley listening for %s (pid %d)", data, pid)
	}
}

func (a localAPI) do(method, path string, body, into any) (int, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.url+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return resp.StatusCode, errors.New(method + " " + path + ": " + resp.Status + " " + string(b))
	}
	if into != nil {
		return resp.StatusCode, json.Unmarshal(b, into)
	}
	return resp.StatusCode, nil
}

func (a localAPI) call(t *testing.T, method, path string, body, into any) {
	t.Helper()
	_, err := a.do(method, path, body, into)
	require.NoError(t, err)
}

func (a localAPI) titles(t *testing.T) []string {
	var page struct{ Items []struct{ Title string } }
	a.call(t, "GET", "/api/v1/conversations?limit=100", nil, &page)
	var out []string
	for _, c := range page.Items {
		out = append(out, c.Title)
	}
	return out
}

// waitGone waits (at most restDeadline) until no process pid runs.
func waitGone(pid int) {
	for deadline := time.Now().Add(restDeadline); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
