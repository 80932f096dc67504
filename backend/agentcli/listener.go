// Package agentcli is the command line of agents on the machine (SPEC §10):
// `parley ask`, which files a card through the running Parley and waits,
// and `parley mcp`, the MCP tools over stdio forwarding to it. Both find the
// running Parley through the data folder, where its listener writes where it
// listens.
package agentcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ListenerFile, in the data folder, says where the running Parley listens
// for agents; it is removed when the listener stops (a crash leaves it, and
// the clients then find nobody there).
const ListenerFile = "agents-listener.json"

// AgentTokenFile keeps the agent token `parley mcp` made on first use.
const AgentTokenFile = "mcp-agent-token"

// APITokenFile is the API token (httpapi.TokenFile).
const APITokenFile = "api-token"

type listenerInfo struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
}

// WriteListener records the listener's base URL (http://127.0.0.1:PORT).
func WriteListener(dataDir, url string) error {
	b, _ := json.Marshal(listenerInfo{URL: url, PID: os.Getpid()})
	path := filepath.Join(dataDir, ListenerFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RemoveListener removes the file if it still names this url (another
// Parley may have taken over since).
func RemoveListener(dataDir, url string) {
	path := filepath.Join(dataDir, ListenerFile)
	if got, err := ReadListener(dataDir); err == nil && got == url {
		_ = os.Remove(path)
	}
}

// ErrNotRunning: no Parley listens for agents on this data folder.
var ErrNotRunning = errors.New("Parley is not running: open it and ask again")

// ReadListener returns the running Parley's base URL.
func ReadListener(dataDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, ListenerFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", ErrNotRunning
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", ListenerFile, err)
	}
	var info listenerInfo
	if err := json.Unmarshal(b, &info); err != nil || !strings.HasPrefix(info.URL, "http://") {
		return "", fmt.Errorf("%s in %s is damaged: %w", ListenerFile, dataDir, ErrNotRunning)
	}
	return info.URL, nil
}

// readToken reads a token file of the data folder ("" when missing).
func readToken(dataDir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}
