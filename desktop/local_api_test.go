package desktop

import (
	"context"
	"net"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentcli"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
)

func getStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// openLocalAPI opens a core on a fresh data folder with the desktop's
// listener at addr, applying the saved settings as the app does at start.
func openLocalAPI(t *testing.T, addr string) (*localAPI, *core.Core, config.Config) {
	t.Helper()
	cfg := config.Config{DataDir: t.TempDir(), BaseURL: config.DefaultBaseURL, Addr: addr,
		Token: "desktop-test-token-0123456789abcdef", Set: map[string]bool{"addr": true}}
	api := &localAPI{cfg: cfg, ui: fstest.MapFS{"index.html": {Data: []byte("ok")}}}
	c, err := core.Open(core.Options{Config: cfg, Version: "test", OnSettings: api.apply})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	api.core = c
	api.apply(c.Service.GetSettings())
	return api, c, cfg
}

func TestLocalListenerFollowsTheSettings(t *testing.T) {
	api, c, cfg := openLocalAPI(t, "127.0.0.1:0")

	// Agents are on by default: only their paths (and health) answer.
	require.NotNil(t, api.srv, "the listener for agents is on by default")
	url := api.srv.URL()
	assert.Equal(t, 200, getStatus(t, url+"/api/v1/health", cfg.Token))
	assert.Equal(t, 403, getStatus(t, url+"/api/v1/conversations", cfg.Token), "the local API is off by default")
	assert.Equal(t, 404, getStatus(t, url+"/api/v1/asks/unknown", cfg.Token))
	found, err := agentcli.ReadListener(cfg.DataDir)
	require.NoError(t, err)
	assert.Equal(t, url, found.URL, "parley ask finds the listener through the data folder")
	assert.NotEmpty(t, found.Token, "with the agent token of this listener")
	assert.True(t, api.status().Running)

	// The local API setting opens the rest, on the same listener.
	st := c.Service.GetSettings()
	st.APIEnabled = true
	_, err = c.Service.SaveSettings(context.Background(), st)
	require.NoError(t, err)
	assert.Equal(t, 200, getStatus(t, url+"/api/v1/conversations", cfg.Token))

	// Both off: nothing listens.
	st.APIEnabled, st.AgentsEnabled = false, false
	_, err = c.Service.SaveSettings(context.Background(), st)
	require.NoError(t, err)
	_, err = http.Get(url + "/api/v1/health")
	require.Error(t, err, "the listener still answers after it was turned off")
	_, err = agentcli.ReadListener(cfg.DataDir)
	require.ErrorIs(t, err, agentcli.ErrNotRunning)
}

func TestLocalListenerOnATakenPortSaysWhy(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	api, _, _ := openLocalAPI(t, taken.Addr().String())
	require.Nil(t, api.srv)
	st := api.status()
	assert.False(t, st.Running)
	assert.Contains(t, st.Error, "is taken: another Parley or `parley serve` may be running there")
	assert.Contains(t, st.Error, "choose another address")
}
