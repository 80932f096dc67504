package desktop

import (
	"context"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
)

func TestLocalAPIFollowsTheSetting(t *testing.T) {
	cfg := config.Config{DataDir: t.TempDir(), BaseURL: config.DefaultBaseURL, Addr: "127.0.0.1:0",
		Token: "desktop-test-token-0123456789abcdef", Set: map[string]bool{}}
	api := &localAPI{cfg: cfg, ui: fstest.MapFS{"index.html": {Data: []byte("ok")}}}
	c, err := core.Open(core.Options{Config: cfg, Version: "test", OnSettings: api.apply})
	require.NoError(t, err)
	defer c.Close()
	api.core = c
	api.apply(c.Service.GetSettings())
	require.Nil(t, api.srv, "the API is on by default")
	st := c.Service.GetSettings()
	st.APIEnabled = true
	_, err = c.Service.SaveSettings(context.Background(), st)
	require.NoError(t, err)
	require.NotNil(t, api.srv, "saving api_enabled did not start the API")
	url := api.srv.URL()
	req, _ := http.NewRequest("GET", url+"/api/v1/health", nil)
	req.Header.Set("Authorization", "Bearer "+cfg.Token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, "health")
	st.APIEnabled = false
	_, err = c.Service.SaveSettings(context.Background(), st)
	require.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err, "the API still answers after it was turned off")
}
