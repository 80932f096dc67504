package httpapi

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateChanging returns the method and a concrete path of every registered
// route that changes state (POST, PUT, PATCH, DELETE), path parameters
// filled in: a route added later is covered without touching this test.
func stateChanging(t *testing.T, s *Server) [][2]string {
	t.Helper()
	param := regexp.MustCompile(`\{[^}]+\}`)
	var out [][2]string
	for _, p := range s.patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			continue // any method: the catch-all routes
		}
		switch method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			out = append(out, [2]string{method, param.ReplaceAllString(path, "x")})
		}
	}
	require.GreaterOrEqual(t, len(out), 20, "state-changing routes found: %v", out)
	return out
}

// The second wall (issue 23): with the login cookie and no Origin header, a
// body a form or a no-cors fetch can send (text/plain, form-urlencoded,
// multipart, or none declared) is refused with 415 by every state-changing
// endpoint, and a request a browser marks cross-site with 403; the same
// request as JSON gets past both.
func TestEveryStateChangingEndpointRefusesForgeableRequests(t *testing.T) {
	s, ts, _ := newTestServer(t, &fakeBackend{})
	assertForgeryWall(t, s, ts, map[string]string{"Authorization": "", "Cookie": CookieName + "=" + testToken})
}

// assertForgeryWall checks every state-changing route of s, the requests
// carrying the auth headers.
func assertForgeryWall(t *testing.T, s *Server, ts *httptest.Server, auth map[string]string) {
	t.Helper()
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range auth {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	for _, route := range stateChanging(t, s) {
		method, path := route[0], route[1]
		t.Run(method+" "+path, func(t *testing.T) {
			for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/jsonx"} {
				code, body := do(t, ts, method, path, `{"a":"b"}`, with(map[string]string{"Content-Type": ct}))
				assert.Equal(t, http.StatusUnsupportedMediaType, code, "Content-Type %q: %s", ct, body)
				assert.Contains(t, body, "must be JSON", "Content-Type %q", ct)
			}
			for _, site := range []string{"cross-site"} {
				code, body := do(t, ts, method, path, `{}`, with(map[string]string{"Sec-Fetch-Site": site}))
				assert.Equal(t, http.StatusForbidden, code, "Sec-Fetch-Site %s: %s", site, body)
				assert.Contains(t, body, "cross-site request refused")
			}
			for _, site := range []string{"same-origin", "none", ""} {
				code, body := do(t, ts, method, path, `{}`, with(map[string]string{"Sec-Fetch-Site": site, "Content-Type": "application/json; charset=utf-8"}))
				assert.NotContains(t, []int{http.StatusUnsupportedMediaType, http.StatusForbidden, http.StatusUnauthorized}, code,
					"a JSON request (Sec-Fetch-Site %q) must get past the wall: %d %s", site, code, body)
			}
		})
	}
}

// Reading requests are refused only when marked cross-site.
func TestCrossSiteReadsAreRefused(t *testing.T) {
	_, ts, _ := newTestServer(t, &fakeBackend{})
	for _, path := range []string{"/api/v1/health", "/api/v1/conversations", "/", "/login?code=x"} {
		code, body := do(t, ts, "GET", path, "", map[string]string{"Sec-Fetch-Site": "cross-site"})
		assert.Equal(t, http.StatusForbidden, code, "%s: %s", path, body)
		code, _ = do(t, ts, "GET", path, "", map[string]string{"Sec-Fetch-Site": "same-origin", "Content-Type": "text/plain"})
		assert.NotEqual(t, http.StatusForbidden, code, path)
		assert.NotEqual(t, http.StatusUnsupportedMediaType, code, path)
	}
}
