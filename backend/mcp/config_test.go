package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/fault"
)

const secret = "s3cr3t-value-4711"

func TestSecretsNeverLeaveTheHost(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{
		"locked": {Command: testServerBin, Args: []string{"-startup", "crash"}, Env: map[string]string{"TEST_TOKEN": secret}},
		"remote": {URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer " + secret}},
	})
	s := h.waitStatus(t, "locked", api.MCPError)
	// The server printed the secret on stderr; the error shows it masked.
	assert.Contains(t, s.Error, "cannot log in with token "+SecretMask)
	assert.Equal(t, []string{"TEST_TOKEN"}, s.EnvKeys)
	r := h.waitStatus(t, "remote", api.MCPError)
	assert.Equal(t, []string{"Authorization"}, r.HeaderKeys)

	// A PUT that sends the mask back keeps the secret, and shows keys only.
	enabled := true
	put, err := h.PutServer("locked", api.MCPServerConfig{Command: testServerBin, Args: []string{"-startup", "crash"},
		Env: map[string]string{"TEST_TOKEN": SecretMask, "OTHER": "plain"}, Enabled: &enabled})
	require.NoError(t, err)
	assert.Equal(t, []string{"OTHER", "TEST_TOKEN"}, put.EnvKeys)
	h.waitStatus(t, "locked", api.MCPError)
	data, err := os.ReadFile(filepath.Join(h.dir, ConfigFile))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"TEST_TOKEN": "`+secret+`"`, "the stored secret was lost")
	info, err := os.Stat(filepath.Join(h.dir, ConfigFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	// Nothing the API, the events or the log carry holds the secret.
	all, err := json.Marshal(h.Servers())
	require.NoError(t, err)
	assert.NotContains(t, string(all), secret)
	evs, err := json.Marshal(h.rec.Events())
	require.NoError(t, err)
	assert.NotContains(t, string(evs), secret)
	assert.Contains(t, h.logs.String(), "cannot log in with token "+SecretMask, "the log should carry the masked error")
	assert.NotContains(t, h.logs.String(), secret)
}

func TestPutServerValidatesAndPersists(t *testing.T) {
	h := newTestHost(t, nil)
	for name, cfg := range map[string]api.MCPServerConfig{
		"":                      {Command: "x"},
		"has space":             {Command: "x"},
		strings.Repeat("a", 33): {Command: "x"},
		"both":                  {Command: "x", URL: "http://h/"},
		"neither":               {},
		"ftp":                   {URL: "ftp://h/"},
		"headers-on-stdio":      {Command: "x", Headers: map[string]string{"A": "b"}},
		"env-on-http":           {URL: "http://h/", Env: map[string]string{"A": "b"}},
	} {
		_, err := h.PutServer(name, cfg)
		assert.Equal(t, fault.Input, fault.KindOf(err), "server %q", name)
	}
	assert.Empty(t, h.Servers(), "a refused PUT changed something")
	_, err := os.Stat(filepath.Join(h.dir, ConfigFile))
	assert.ErrorIs(t, err, os.ErrNotExist)

	off := false
	s, err := h.PutServer("later", api.MCPServerConfig{Command: testServerBin, Args: []string{"-x"}, Enabled: &off})
	require.NoError(t, err)
	assert.Equal(t, api.MCPDisabled, s.Status)
	assert.False(t, s.Enabled)
	assert.Equal(t, []string{"-x"}, s.Args)

	// Another host keeps reading it: Parley's keys are extra.
	data, err := os.ReadFile(filepath.Join(h.dir, ConfigFile))
	require.NoError(t, err)
	assert.JSONEq(t, `{"mcpServers":{"later":{"command":`+jsonString(testServerBin)+`,"args":["-x"],"disabled":true}}}`, string(data))

	// Enabling it connects it.
	on := true
	_, err = h.PutServer("later", api.MCPServerConfig{Command: testServerBin, Enabled: &on})
	require.NoError(t, err)
	h.waitStatus(t, "later", api.MCPConnected)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestToolPolicies(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"srv": testServer()})
	h.waitStatus(t, "srv", api.MCPConnected)
	tool, err := h.SetToolPolicy("srv", "echo", api.PolicyBlock)
	require.NoError(t, err)
	assert.Equal(t, api.MCPTool{Name: "echo", Description: "Echoes back the message", Policy: api.PolicyBlock, ModelName: "srv__echo"}, tool)
	// Blocked: listed with its policy, never offered to the model.
	s, _ := h.Server("srv")
	for _, tl := range s.Tools {
		if tl.Name == "echo" {
			assert.Equal(t, api.PolicyBlock, tl.Policy)
		}
	}
	for _, mt := range h.ModelTools() {
		assert.NotEqual(t, "echo", mt.Name)
	}
	_, err = h.SetToolPolicy("srv", "crash", api.PolicyAllow)
	require.NoError(t, err)
	for _, mt := range h.ModelTools() {
		if mt.Name == "crash" {
			assert.Equal(t, api.PolicyAllow, mt.Policy)
		}
		if mt.Name == "huge" {
			assert.Equal(t, api.PolicyAsk, mt.Policy)
			assert.JSONEq(t, `{"type":"object","properties":{"bytes":{"type":"integer"}},"required":[]}`, string(mt.InputSchema))
		}
	}

	_, err = h.SetToolPolicy("srv", "echo", "sometimes")
	assert.Equal(t, fault.Input, fault.KindOf(err))
	_, err = h.SetToolPolicy("srv", "nope", api.PolicyAllow)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = h.SetToolPolicy("nope", "echo", api.PolicyAllow)
	assert.ErrorIs(t, err, ErrNotFound)

	// Policies survive a restart of the host (they are in mcp.json).
	h.Stop()
	h2 := New(Options{Path: filepath.Join(h.dir, ConfigFile)})
	h2.Start()
	defer h2.Stop()
	waitFor(t, "reconnect", func() bool { s, _ := h2.Server("srv"); return s.Status == api.MCPConnected })
	s, _ = h2.Server("srv")
	pol := map[string]string{}
	for _, tl := range s.Tools {
		pol[tl.Name] = tl.Policy
	}
	assert.Equal(t, api.PolicyBlock, pol["echo"])
	assert.Equal(t, api.PolicyAllow, pol["crash"])
	assert.Equal(t, api.PolicyAsk, pol["huge"])
}

func TestImportAnotherHostsFile(t *testing.T) {
	h := newTestHost(t, map[string]ServerConfig{"existing": {Command: testServerBin, Disabled: true}})
	content := `{
	  "globalShortcut": "Ctrl+Space",
	  "mcpServers": {
	    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"KEY": "` + secret + `"}, "disabled": true},
	    "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}, "disabled": true},
	    "existing": {"command": "other"},
	    "bad name!": {"command": "x"},
	    "empty": {},
	    "toolong-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": {"command": "x"}
	  }
	}`
	res, err := h.Import([]byte(content))
	require.NoError(t, err)
	assert.Equal(t, []string{"fs", "web"}, res.Added)
	assert.Equal(t, "a server with this name is already configured", res.Skipped["existing"])
	assert.Contains(t, res.Skipped["bad name!"], "invalid name")
	assert.Contains(t, res.Skipped["toolong-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"], "invalid name")
	assert.Contains(t, res.Skipped["empty"], `"command" (stdio) or "url" (streamable HTTP) is required`)
	fs, err := h.Server("fs")
	require.NoError(t, err)
	assert.Equal(t, []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, fs.Args)
	assert.Equal(t, []string{"KEY"}, fs.EnvKeys)
	web, _ := h.Server("web")
	assert.Equal(t, api.TransportHTTP, web.Transport)
	ex, _ := h.Server("existing")
	assert.Equal(t, testServerBin, ex.Command, "an existing server was replaced")

	// VS Code's shape too.
	res, err = h.Import([]byte(`{"servers":{"vs":{"command":"node","args":["s.js"],"disabled":true}}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"vs"}, res.Added)

	_, err = h.Import([]byte(`not json`))
	assert.Equal(t, fault.Input, fault.KindOf(err))
	_, err = h.Import([]byte(`{"mcpServers":{}}`))
	assert.Equal(t, fault.Input, fault.KindOf(err))
	assert.Len(t, h.Servers(), 4)
}

func TestAnUnreadableFileIsNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ConfigFile)
	broken := `{"mcpServers": {"a": {"command": "x",}}}` // the user's typo
	require.NoError(t, os.WriteFile(path, []byte(broken), 0o600))
	h := New(Options{Path: path})
	h.Start()
	defer h.Stop()
	require.Error(t, h.LoadError())
	assert.Empty(t, h.Servers())
	_, err := h.PutServer("b", api.MCPServerConfig{Command: "y"})
	assert.ErrorContains(t, err, "mcp.json cannot be read")
	_, err = h.Import([]byte(`{"mcpServers":{"c":{"command":"z"}}}`))
	assert.Error(t, err)
	data, _ := os.ReadFile(path)
	assert.Equal(t, broken, string(data))
}

func TestAssignModelNamesIsDeterministic(t *testing.T) {
	long := strings.Repeat("t", 70)
	keys := []toolKey{{"s", "a.b"}, {"s", "a_b"}, {"s", "a b"}, {"s", long}, {"s", long + "x"}, {"s", "a_b_2"}, {"x", "ok"}}
	want := assignModelNames(keys)
	assert.Equal(t, "s__a_b", want[toolKey{"s", "a b"}])
	assert.Equal(t, "s__a_b_2", want[toolKey{"s", "a_b_2"}], "a tool's own name wins over a suffix")
	assert.Equal(t, "s__a_b_3", want[toolKey{"s", "a.b"}])
	assert.Equal(t, "s__a_b_4", want[toolKey{"s", "a_b"}])
	assert.Len(t, want[toolKey{"s", long}], MaxModelName)
	assert.Len(t, want[toolKey{"s", long + "x"}], MaxModelName)
	assert.True(t, strings.HasSuffix(want[toolKey{"s", long + "x"}], "_2"))
	assert.Equal(t, "x__ok", want[toolKey{"x", "ok"}])
	seen := map[string]bool{}
	for _, n := range want {
		assert.False(t, seen[n], "duplicate %s", n)
		seen[n] = true
		assert.Regexp(t, `^[A-Za-z0-9_-]{1,64}$`, n)
	}
	// Any listing order gives the same names.
	for i := range keys {
		rotated := append(append([]toolKey{}, keys[i:]...), keys[:i]...)
		assert.Equal(t, want, assignModelNames(rotated))
	}
	assert.Equal(t, "my-srv__read_file_v2_", ModelName("my-srv", "read file/v2é"[:len("read file/v2é")]))
}
