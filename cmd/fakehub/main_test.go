package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/engine/gguf"
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
