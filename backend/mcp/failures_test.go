package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/parley-app/parley/backend/api"
)

func TestCrashMidCallIsAToolErrorAndTheServerRestarts(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	h := newTestHost(t, map[string]ServerConfig{"flaky": testServer("-starts", starts)})
	h.waitStatus(t, "flaky", api.MCPConnected)

	res := call(h.Host, "flaky", "crash", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `the MCP server "flaky" stopped while running "crash"`)

	// Restarted after a backoff, and usable again.
	waitFor(t, "a second start", func() bool {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "\n") >= 2
	})
	h.waitStatus(t, "flaky", api.MCPConnected)
	assert.Equal(t, "Echo: back", call(h.Host, "flaky", "echo", `{"message":"back"}`).Text)

	// The crash was shown as an error state with the server's last words.
	var sawError bool
	for _, e := range h.rec.Events() {
		if s := e.Payload.(api.MCPServer); s.Status == api.MCPError {
			sawError = true
			assert.Contains(t, s.Error, "the crash tool was called")
		}
	}
	assert.True(t, sawError, "no error state announced")
}

func TestRestartBackoffGrowsWhileTheServerKeepsFailing(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	h := newTestHost(t, map[string]ServerConfig{"broken": testServer("-startup", "crash", "-starts", starts)},
		func(o *Options) { o.MinBackoff, o.MaxBackoff = 50*time.Millisecond, 400*time.Millisecond })
	s := h.waitStatus(t, "broken", api.MCPError)
	assert.Contains(t, s.Error, "cannot log in")
	waitFor(t, "five starts", func() bool {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "\n") >= 5
	})
	// The backoff doubled between attempts: the logged waits grow.
	logs := h.logs.String()
	for _, d := range []string{"retry_in=50ms", "retry_in=100ms", "retry_in=200ms", "retry_in=400ms"} {
		assert.Contains(t, logs, d)
	}
	assert.NotContains(t, logs, "retry_in=800ms", "backoff above its maximum")
}

func TestHangingCallTimesOutAndIsCancelledOnTheServer(t *testing.T) {
	marker := t.TempDir()
	h := newTestHost(t, map[string]ServerConfig{"slow": testServer("-marker", marker)},
		func(o *Options) { o.CallTimeout = 300 * time.Millisecond })
	h.waitStatus(t, "slow", api.MCPConnected)
	res := call(h.Host, "slow", "hang", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "did not answer within 300ms")
	waitFor(t, "the server to see the cancellation", func() bool {
		_, err := os.Stat(filepath.Join(marker, "cancelled"))
		return err == nil
	})
	// The server is still fine.
	assert.Equal(t, "Echo: ok", call(h.Host, "slow", "echo", `{"message":"ok"}`).Text)
}

func TestStopCancelsARunningCallThroughTheSDK(t *testing.T) {
	marker := t.TempDir()
	h := newTestHost(t, map[string]ServerConfig{"slow": testServer("-marker", marker)})
	h.waitStatus(t, "slow", api.MCPConnected)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- h.Call(ctx, Call{Server: "slow", Tool: "hang"}) }()
	waitFor(t, "the call to be in flight", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.servers["slow"].calls) == 1
	})
	cancel()
	res := <-done
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "cancelled")
	waitFor(t, "the server to see the cancellation", func() bool {
		_, err := os.Stat(filepath.Join(marker, "cancelled"))
		return err == nil
	})
}

func TestGarbageOnStdout(t *testing.T) {
	t.Run("at startup: an error state, retried", func(t *testing.T) {
		starts := filepath.Join(t.TempDir(), "starts")
		h := newTestHost(t, map[string]ServerConfig{"noisy": testServer("-startup", "garbage", "-starts", starts)})
		s := h.waitStatus(t, "noisy", api.MCPError)
		assert.Contains(t, s.Error, "connect")
		waitFor(t, "a retry", func() bool {
			b, _ := os.ReadFile(starts)
			return strings.Count(string(b), "\n") >= 2
		})
	})
	t.Run("during a call: a tool error, then a restart", func(t *testing.T) {
		h := newTestHost(t, map[string]ServerConfig{"noisy": testServer()})
		h.waitStatus(t, "noisy", api.MCPConnected)
		res := call(h.Host, "noisy", "garbage", `{}`)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text, `the MCP server "noisy" stopped while running "garbage"`)
		h.waitStatus(t, "noisy", api.MCPError)
		h.waitStatus(t, "noisy", api.MCPConnected)
		assert.Equal(t, "Echo: again", call(h.Host, "noisy", "echo", `{"message":"again"}`).Text)
	})
}

func TestHugeResultIsCutWithANote(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"big": testServer()})
	h.waitStatus(t, "big", api.MCPConnected)
	res := call(h.Host, "big", "huge", `{"bytes":5000000}`)
	require.False(t, res.IsError, res.Text[:min(200, len(res.Text))])
	assert.Less(t, len(res.Text), MaxResultBytes+200)
	assert.True(t, strings.HasPrefix(res.Text, strings.Repeat("x", MaxResultBytes)))
	assert.Contains(t, res.Text, "[Parley cut this tool result at 32 KB; the full result was 5000000 bytes.]")
	// A small one is untouched.
	assert.Equal(t, strings.Repeat("x", 100), call(h.Host, "big", "huge", `{"bytes":100}`).Text)
}

func TestImagesBecomeAttachmentsAndErrorsAreToolErrors(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"pics": testServer()})
	h.waitStatus(t, "pics", api.MCPConnected)
	res := call(h.Host, "pics", "image", `{}`)
	require.False(t, res.IsError, res.Text)
	require.Len(t, res.Attachments, 1)
	a := res.Attachments[0]
	assert.Equal(t, "image/png", a.MIMEType)
	assert.Equal(t, "image-image-1.png", a.Name)
	assert.Equal(t, "\x89PNG", string(a.Data[:4]))
	assert.Equal(t, int64(len(a.Data)), a.Size)
	assert.Contains(t, res.Text, "A tiny image")
	assert.Contains(t, res.Text, "shown to the user")

	res = call(h.Host, "pics", "fail", `{}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "error: disk quota exceeded", res.Text)

	res = call(h.Host, "pics", "nope", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `refused the call of "nope"`)
	res = call(h.Host, "nowhere", "echo", `{}`)
	assert.Contains(t, res.Text, `the MCP server "nowhere" is not configured`)
}

func TestToolNameCollisionsAfterSanitizing(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"srv": testServer()})
	s := h.waitStatus(t, "srv", api.MCPConnected)
	got := map[string]string{}
	for _, tool := range s.Tools {
		got[tool.Name] = tool.ModelName
	}
	// Ordered bytewise by the tool's own name: "get x" < "get.x" < "get_x".
	assert.Equal(t, "srv__get_x", got["get x"])
	assert.Equal(t, "srv__get_x_2", got["get.x"])
	assert.Equal(t, "srv__get_x_3", got["get_x"])
	// Each model name calls its own tool.
	for _, mt := range h.ModelTools() {
		if strings.HasPrefix(mt.ModelName, "srv__get_x") {
			assert.Equal(t, "I am "+mt.Name, call(h.Host, "srv", mt.Name, `{}`).Text)
		}
	}
}

func TestRemovingAServerLeavesNoGoroutineOrProcess(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	h := newTestHost(t, map[string]ServerConfig{"a": testServer(), "b": testServer()})
	h.waitStatus(t, "a", api.MCPConnected)
	h.waitStatus(t, "b", api.MCPConnected)
	require.NoError(t, h.DeleteServer("a"))
	require.NoError(t, h.DeleteServer("b"))
	goleak.VerifyNone(t, leaks)
	_, err := h.Server("a")
	assert.ErrorIs(t, err, ErrNotFound)
	data, err := os.ReadFile(filepath.Join(h.dir, ConfigFile))
	require.NoError(t, err)
	var file map[string]map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &file))
	assert.Empty(t, file["mcpServers"])
}
