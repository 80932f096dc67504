// Package agentcli is the command line of agents on the machine (SPEC §10):
// `parley ask`, which files a card through the running Parley and waits,
// and `parley mcp`, the MCP tools over stdio forwarding to it. Both find the
// running Parley through the data folder, where its listener writes where it
// listens and the agent token it made for them.
package agentcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ListenerFile, in the data folder (0600), says where the running Parley
// listens for agents and holds the agent token it made for its commands at
// start (valid until that listener stops). It is removed when the listener
// stops (a crash leaves it, and the clients then find nobody there).
const ListenerFile = "agents-listener.json"

// Listener is the content of ListenerFile.
type Listener struct {
	// URL is the listener's base URL (http://127.0.0.1:PORT).
	URL string `json:"url"`
	PID int    `json:"pid"`
	// Token is an agent token known only to that listener: it reaches only
	// /mcp and /api/v1/asks (never the user's API token).
	Token string `json:"token,omitempty"`
}

// WriteListener records the listener's base URL and its agent token,
// atomically and readable by this user only.
func WriteListener(dataDir, url, token string) error {
	b, err := json.Marshal(Listener{URL: url, PID: os.Getpid(), Token: token})
	if err != nil {
		return err
	}
	path := filepath.Join(dataDir, ListenerFile)
	// CreateTemp makes a new 0600 file: no older file's mode is kept.
	tmp, err := os.CreateTemp(dataDir, ListenerFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RemoveListener removes the file if it still names this url (another
// Parley may have taken over since).
func RemoveListener(dataDir, url string) {
	path := filepath.Join(dataDir, ListenerFile)
	if got, err := ReadListener(dataDir); err == nil && got.URL == url {
		_ = os.Remove(path)
	}
}

// ErrNotRunning: no Parley listens for agents on this data folder.
var ErrNotRunning = errors.New("Parley is not running: open it and ask again")

// ReadListener returns where the running Parley listens, with its agent
// token ("" from a Parley older than the token).
func ReadListener(dataDir string) (Listener, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, ListenerFile))
	if errors.Is(err, os.ErrNotExist) {
		return Listener{}, ErrNotRunning
	}
	if err != nil {
		return Listener{}, fmt.Errorf("read %s: %w", ListenerFile, err)
	}
	var l Listener
	if err := json.Unmarshal(b, &l); err != nil || !strings.HasPrefix(l.URL, "http://") {
		return Listener{}, fmt.Errorf("%s in %s is damaged: restart Parley and ask again", ListenerFile, dataDir)
	}
	return l, nil
}

// errNoToken: the listener file has no agent token (an older Parley).
func errNoToken(l Listener) error {
	return fmt.Errorf("the Parley listening at %s left no agent token in its %s (an older version?): restart it and ask again", l.URL, ListenerFile)
}

// errTokenRefused: the running Parley answered 401 to the token.
func errTokenRefused(base string, explicit bool) error {
	if explicit {
		return fmt.Errorf("Parley at %s refused the token given with --token", base)
	}
	return fmt.Errorf("Parley at %s refused the agent token of its %s (another program may listen there now): restart Parley and ask again", base, ListenerFile)
}

// connRefused reports whether err says nothing listens at the address.
func connRefused(err error) bool { return errors.Is(err, errConnRefused) }
