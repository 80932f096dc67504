package update

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(u *Updater, stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := RunCLI(context.Background(), u, args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCLIExitCodes(t *testing.T) {
	t.Run("up to date", func(t *testing.T) {
		e := newEnv(t)
		e.publish("1.0.0", nil)
		code, out, _ := runCLI(e.updater(), "", "--check")
		assert.Equal(t, ExitOK, code)
		assert.Contains(t, out, "up to date")
	})
	t.Run("check reports an update and installs nothing", func(t *testing.T) {
		e := newEnv(t)
		e.publish("1.1.0", nil)
		code, out, _ := runCLI(e.updater(), "", "--check")
		assert.Equal(t, ExitOK, code)
		assert.Contains(t, out, "1.1.0 is available")
		assert.Zero(t, e.artifacts.Load())
	})
	t.Run("unreachable", func(t *testing.T) {
		e := newEnv(t)
		e.srv.Close()
		code, _, errOut := runCLI(e.updater(), "", "--check")
		assert.Equal(t, ExitUnreachable, code)
		assert.Contains(t, errOut, "cannot reach")
	})
	t.Run("refused", func(t *testing.T) {
		e := newEnv(t)
		e.publish("1.1.0", nil)
		require.NoError(t, os.Remove(filepath.Join(e.feedDir, SignatureFile)))
		code, _, errOut := runCLI(e.updater(), "", "--check")
		assert.Equal(t, ExitRefused, code)
		assert.Contains(t, errOut, "refused: the feed is not signed")
	})
	t.Run("declined", func(t *testing.T) {
		e := newEnv(t)
		e.publish("1.1.0", nil)
		code, out, _ := runCLI(e.updater(), "n\n")
		assert.Equal(t, ExitOK, code)
		assert.Contains(t, out, "Not installed")
		got, _ := os.ReadFile(e.bin)
		assert.Equal(t, "old binary 1.0.0", string(got))
	})
	t.Run("yes updates", func(t *testing.T) {
		e := newEnv(t)
		e.publish("1.1.0", nil)
		code, out, _ := runCLI(e.updater(), "", "--yes")
		assert.Equal(t, ExitOK, code)
		assert.Contains(t, out, "Updated to 1.1.0")
		got, _ := os.ReadFile(e.bin)
		assert.True(t, strings.HasPrefix(string(got), "new binary 1.1.0"))
	})
	t.Run("tampered artifact refused", func(t *testing.T) {
		e := newEnv(t)
		f := e.publish("1.1.0", nil)
		p := filepath.Join(e.feedDir, f.Artifacts[0].URL)
		b, _ := os.ReadFile(p)
		b[10] ^= 1
		require.NoError(t, os.WriteFile(p, b, 0o644))
		code, _, errOut := runCLI(e.updater(), "", "--yes")
		assert.Equal(t, ExitRefused, code)
		assert.Contains(t, errOut, "sha256")
	})
	t.Run("no install kind", func(t *testing.T) {
		e := newEnv(t)
		code, _, errOut := runCLI(e.updater(func(c *Config) { c.Kind = "" }), "", "--check")
		assert.Equal(t, ExitRefused, code)
		assert.Contains(t, errOut, "does not update itself")
	})
}
