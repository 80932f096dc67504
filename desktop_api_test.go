package main

import (
	"context"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/parley-app/parley/backend/config"
)

func TestDesktopAPIFollowsTheSetting(t *testing.T) {
	cfg := config.Config{DataDir: t.TempDir(), BaseURL: config.DefaultBaseURL, Addr: "127.0.0.1:0",
		Token: "desktop-test-token-0123456789abcdef", Set: map[string]bool{}}
	api := &desktopAPI{cfg: cfg, ui: fstest.MapFS{"index.html": {Data: []byte("ok")}}}
	c, err := openCoreWith(cfg, api.apply)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	api.core = c
	api.apply(c.svc.GetSettings())
	if api.srv != nil {
		t.Fatal("the API is on by default")
	}
	st := c.svc.GetSettings()
	st.APIEnabled = true
	if _, err := c.svc.SaveSettings(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if api.srv == nil {
		t.Fatal("saving api_enabled did not start the API")
	}
	url := api.srv.url()
	req, _ := http.NewRequest("GET", url+"/api/v1/health", nil)
	req.Header.Set("Authorization", "Bearer "+cfg.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("health %d", res.StatusCode)
	}
	st.APIEnabled = false
	if _, err := c.svc.SaveSettings(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the API still answers after it was turned off")
	}
}
