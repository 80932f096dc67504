package hubtest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/hubtest"
)

func get(t *testing.T, method, url, rng string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func TestServesLikeTheHub(t *testing.T) {
	hub := hubtest.New()
	defer hub.Close()
	content := []byte("GGUF and then some bytes of a model")
	sum := sha256.Sum256(content)
	sha := hub.Add("acme/tiny-GGUF", "tiny-Q4_K_M.gguf", content, hubtest.Mode{})
	assert.Equal(t, hex.EncodeToString(sum[:]), sha)
	url := hub.URL() + "/acme/tiny-GGUF/resolve/main/tiny-Q4_K_M.gguf"

	resp, body, err := get(t, http.MethodHead, url, "")
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Empty(t, body)
	assert.Equal(t, `"`+sha+`"`, resp.Header.Get("X-Linked-Etag"))
	assert.Equal(t, "35", resp.Header.Get("X-Linked-Size"))
	assert.Equal(t, hubtest.Commit("acme/tiny-GGUF"), resp.Header.Get("X-Repo-Commit"))

	resp, body, err = get(t, http.MethodGet, url, "bytes=5-")
	require.NoError(t, err)
	assert.Equal(t, 206, resp.StatusCode)
	assert.Equal(t, content[5:], body)
	assert.Equal(t, "bytes 5-34/35", resp.Header.Get("Content-Range"))
	resp, _, _ = get(t, http.MethodGet, url, "bytes=35-")
	assert.Equal(t, 416, resp.StatusCode)

	resp, _, _ = get(t, http.MethodGet, hub.URL()+"/acme/tiny-GGUF/resolve/"+hubtest.Commit("acme/tiny-GGUF")+"/tiny-Q4_K_M.gguf", "")
	assert.Equal(t, 200, resp.StatusCode, "the commit is a revision")
	resp, _, _ = get(t, http.MethodGet, hub.URL()+"/acme/tiny-GGUF/resolve/main/other.gguf", "")
	assert.Equal(t, 404, resp.StatusCode)
	assert.Equal(t, "EntryNotFound", resp.Header.Get("X-Error-Code"))
	resp, _, _ = get(t, http.MethodGet, hub.URL()+"/acme/nothing/resolve/main/tiny-Q4_K_M.gguf", "")
	assert.Equal(t, 401, resp.StatusCode)
	assert.Equal(t, "RepoNotFound", resp.Header.Get("X-Error-Code"))

	assert.Equal(t, []string{"bytes=5-", "bytes=35-", ""}, hub.Ranges("tiny-Q4_K_M.gguf"))
}

func TestModes(t *testing.T) {
	hub := hubtest.New()
	defer hub.Close()
	content := make([]byte, 100_000)
	for i := range content {
		content[i] = byte(i * 7)
	}
	sha := hub.Add("acme/m", "m.gguf", content, hubtest.Mode{Redirect: true})
	url := hub.URL() + "/acme/m/resolve/main/m.gguf"

	// Redirect: the 302 carries the X-Linked headers; the body comes from the CDN path.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Head(url)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, `"`+sha+`"`, resp.Header.Get("X-Linked-Etag"))
	assert.Equal(t, "/cdn/"+sha, resp.Header.Get("Location"))
	_, body, err := get(t, http.MethodGet, url, "")
	require.NoError(t, err)
	assert.Equal(t, content, body)

	// Wrong hash: same size, different bytes, same advertised sha256.
	hub.SetMode("acme/m", "m.gguf", hubtest.Mode{WrongHash: true})
	resp, body, err = get(t, http.MethodGet, url, "")
	require.NoError(t, err)
	assert.Equal(t, `"`+sha+`"`, resp.Header.Get("X-Linked-Etag"))
	require.Len(t, body, len(content))
	assert.NotEqual(t, content, body)

	// Drop: the first GET ends early, the next one is whole.
	hub.SetMode("acme/m", "m.gguf", hubtest.Mode{Drops: 1, DropAfter: 40_000})
	_, body, err = get(t, http.MethodGet, url, "")
	require.Error(t, err, "the connection dropped mid body")
	assert.Less(t, len(body), len(content))
	_, body, err = get(t, http.MethodGet, url, "")
	require.NoError(t, err)
	assert.Equal(t, content, body)

	// No X-Linked headers: ETag and Content-Length only.
	hub.SetMode("acme/m", "m.gguf", hubtest.Mode{NoLinked: true})
	resp, _, err = get(t, http.MethodHead, url, "")
	require.NoError(t, err)
	assert.Empty(t, resp.Header.Get("X-Linked-Etag"))
	assert.Equal(t, `"`+sha+`"`, resp.Header.Get("ETag"))
	assert.Equal(t, "100000", resp.Header.Get("Content-Length"))
}
