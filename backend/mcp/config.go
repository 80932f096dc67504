// Package mcp is Parley's Model Context Protocol host (SPEC §6): the
// servers' configuration (mcp.json in the data folder), their connections
// (stdio and streamable HTTP, through the official Go SDK) with restarts,
// the tools they offer the model and the calls to them. It never imports
// the Wails runtime; events go through the emitter it is given.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/fault"
)

// ConfigFile is the name of the servers' file in the data folder.
const ConfigFile = "mcp.json"

// SecretMask stands for a secret value (an env or header value) the client
// does not know: sending it back in a PUT keeps the stored value.
const SecretMask = api.MCPSecretMask

// serverNameRE is the rule for server names (SPEC §6).
var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// ValidName reports whether name is a valid server name.
func ValidName(name string) bool { return serverNameRE.MatchString(name) }

// ServerConfig is one server in mcp.json: the shape other hosts use
// (command, args, env | url, headers) plus Parley's own keys, which other
// hosts ignore: "disabled" (as Cline and Roo write it), "toolPolicies" and
// "timeout" (seconds per call, as Cline writes it).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is what some hosts write ("stdio", "http", "streamable-http");
	// Parley infers the transport from command/url and keeps it as read.
	Type         string            `json:"type,omitempty"`
	Disabled     bool              `json:"disabled,omitempty"`
	ToolPolicies map[string]string `json:"toolPolicies,omitempty"`
	Timeout      int               `json:"timeout,omitempty"`
}

// Transport returns "stdio" or "http".
func (c ServerConfig) Transport() string {
	if c.URL != "" {
		return api.TransportHTTP
	}
	return api.TransportStdio
}

// callTimeout is the server's per-call timeout, or def.
func (c ServerConfig) callTimeout(def time.Duration) time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout) * time.Second
	}
	return def
}

// secrets lists the server's secret values (env and header values), to
// keep them out of anything shown or logged.
func (c ServerConfig) secrets() []string {
	var out []string
	for _, v := range c.Env {
		if len(v) >= 3 {
			out = append(out, v)
		}
	}
	for _, v := range c.Headers {
		if len(v) >= 3 {
			out = append(out, v)
		}
	}
	return out
}

// Validate checks one server's configuration; its error is a fault.Input
// said in the language of the interface.
func (c ServerConfig) Validate() error {
	if err := c.validate(); err != nil {
		return err
	}
	return nil
}

func (c ServerConfig) validate() *fault.Error {
	cmd, u := strings.TrimSpace(c.Command), strings.TrimSpace(c.URL)
	switch {
	case cmd != "" && u != "":
		return inputErr("mcp.commandAndURL")
	case cmd == "" && u == "":
		return inputErr("mcp.commandOrURL")
	case u != "":
		parsed, err := url.Parse(u)
		if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
			return inputErr("mcp.badURL", u)
		}
		if len(c.Args) > 0 || len(c.Env) > 0 {
			return inputErr("mcp.argsNeedCommand")
		}
	default:
		if len(c.Headers) > 0 {
			return inputErr("mcp.headersNeedURL")
		}
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return inputErr("mcp.badEnvName", k)
		}
	}
	for k := range c.Headers {
		if k == "" || strings.ContainsAny(k, ":\r\n ") {
			return inputErr("mcp.badHeaderName", k)
		}
	}
	for tool, p := range c.ToolPolicies {
		if !validPolicy(p) {
			return inputErr("mcp.badToolPolicy", p, tool)
		}
	}
	if c.Timeout < 0 {
		return inputErr("mcp.badTimeout")
	}
	return nil
}

func validPolicy(p string) bool {
	return p == api.PolicyAllow || p == api.PolicyAsk || p == api.PolicyBlock
}

// clone deep-copies a configuration.
func (c ServerConfig) clone() ServerConfig {
	c.Args = slices.Clone(c.Args)
	c.Env = maps.Clone(c.Env)
	c.Headers = maps.Clone(c.Headers)
	c.ToolPolicies = maps.Clone(c.ToolPolicies)
	return c
}

// fileConfig is mcp.json. Unknown top-level keys are kept as read.
type fileConfig struct {
	Servers map[string]ServerConfig
	other   map[string]json.RawMessage
}

// parseFile reads mcp.json's content (also another host's: Claude Desktop,
// Cursor and others write {"mcpServers":{...}}; VS Code writes
// {"servers":{...}}).
func parseFile(data []byte) (fileConfig, error) {
	fc := fileConfig{Servers: map[string]ServerConfig{}, other: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return fc, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fc, fmt.Errorf("not a JSON object: %w", err)
	}
	key := "mcpServers"
	if _, ok := top[key]; !ok {
		if _, ok := top["servers"]; ok {
			key = "servers"
		}
	}
	for k, v := range top {
		if k != key {
			fc.other[k] = v
		}
	}
	raw, ok := top[key]
	if !ok {
		return fc, nil
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return fc, fmt.Errorf(`%q must be an object of servers: %w`, key, err)
	}
	for name, v := range servers {
		var sc ServerConfig
		if err := json.Unmarshal(v, &sc); err != nil {
			return fc, fmt.Errorf("server %q: %w", name, err)
		}
		fc.Servers[name] = sc
	}
	return fc, nil
}

// encode writes mcp.json's content.
func (fc fileConfig) encode() ([]byte, error) {
	top := map[string]any{}
	for k, v := range fc.other {
		top[k] = v
	}
	servers := fc.Servers
	if servers == nil {
		servers = map[string]ServerConfig{}
	}
	top["mcpServers"] = servers
	return json.MarshalIndent(top, "", "  ")
}

// loadFile reads mcp.json; a missing file is an empty configuration.
func loadFile(path string) (fileConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileConfig{Servers: map[string]ServerConfig{}, other: map[string]json.RawMessage{}}, nil
	}
	if err != nil {
		return fileConfig{}, fmt.Errorf("read %s: %w", path, err)
	}
	fc, err := parseFile(data)
	if err != nil {
		return fileConfig{}, fmt.Errorf("read %s: %w", path, err)
	}
	return fc, nil
}

// saveFile writes mcp.json atomically, readable by the user only (it holds
// secrets).
func saveFile(path string, fc fileConfig) error {
	data, err := fc.encode()
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-*.json")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fromAPI builds a server's configuration from a PUT body, keeping the
// stored secret where the client sent the mask, and the stored policies
// and timeout.
func fromAPI(in api.MCPServerConfig, prev *ServerConfig) ServerConfig {
	sc := ServerConfig{
		Command: strings.TrimSpace(in.Command),
		Args:    slices.Clone(in.Args),
		URL:     strings.TrimSpace(in.URL),
		Env:     unmask(in.Env, prev, func(p *ServerConfig) map[string]string { return p.Env }),
		Headers: unmask(in.Headers, prev, func(p *ServerConfig) map[string]string { return p.Headers }),
	}
	if prev != nil {
		sc.ToolPolicies = maps.Clone(prev.ToolPolicies)
		sc.Timeout = prev.Timeout
		sc.Disabled = prev.Disabled
	}
	if in.Enabled != nil {
		sc.Disabled = !*in.Enabled
	}
	return sc
}

func unmask(in map[string]string, prev *ServerConfig, old func(*ServerConfig) map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		k = strings.TrimSpace(k)
		if v == SecretMask && prev != nil {
			if pv, ok := old(prev)[k]; ok {
				v = pv
			}
		}
		out[k] = v
	}
	return out
}

// sortedKeys lists a map's keys in order.
func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// redact replaces every secret in s with the mask.
func redact(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, SecretMask)
	}
	return s
}
