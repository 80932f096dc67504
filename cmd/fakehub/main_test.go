package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/gguf"
	"github.com/parley-app/parley/backend/engine/library"
)

// fakehub prints its URL, serves the fixtures like the hub, and stops
// when its standard input closes.
func TestServesTheFixturesUntilStdinCloses(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run([]string{"-fixtures", "-redirect"}, stdinR, outW) }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	var hello struct{ URL string }
	require.NoError(t, json.Unmarshal([]byte(line), &hello))
	require.NotEmpty(t, hello.URL)

	resp, err := http.Get(hello.URL + "/" + FixturesRepo + "/resolve/main/card.gguf")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	p := t.TempDir() + "/card.gguf"
	require.NoError(t, writeFile(p, body))
	info, err := gguf.Read(p)
	require.NoError(t, err, "a readable GGUF")
	assert.Equal(t, "Parley card fixture", info.Name)

	require.NoError(t, stdinW.Close())
	require.NoError(t, <-done)
}

func writeFile(p string, b []byte) error { return os.WriteFile(p, b, 0o600) }

// -catalog serves the card fixture as each chat model of the curated
// catalogue (what onboarding suggests), and no embedding model.
func TestCatalogServesTheCardFixtureAsEveryChatModel(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run([]string{"-catalog"}, stdinR, outW) }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	var hello struct{ URL string }
	require.NoError(t, json.Unmarshal([]byte(line), &hello))

	get := func(repo, file string) (int, []byte) {
		resp, err := http.Get(hello.URL + "/" + repo + "/resolve/main/" + file)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, body
	}
	chat := 0
	for _, e := range library.Catalog() {
		status, body := get(e.Repo, e.File)
		if slices.Contains(e.Capabilities, "embedding") {
			// The hub answers 401 for a repository it does not have.
			assert.Equal(t, http.StatusUnauthorized, status, "%s is not served", e.ID)
			continue
		}
		chat++
		require.Equal(t, http.StatusOK, status, e.ID)
		p := t.TempDir() + "/m.gguf"
		require.NoError(t, writeFile(p, body))
		info, err := gguf.Read(p)
		require.NoError(t, err, "%s: a readable GGUF", e.ID)
		assert.Equal(t, "Parley card fixture", info.Name, e.ID)
	}
	assert.Greater(t, chat, 3)
	status, _ := get(FixturesRepo, "card.gguf")
	assert.Equal(t, http.StatusUnauthorized, status, "the fixtures repository only with -fixtures")

	require.NoError(t, stdinW.Close())
	require.NoError(t, <-done)
}
