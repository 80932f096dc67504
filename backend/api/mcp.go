package api

// MCP host wire types (SPEC §6). The domain logic is in backend/mcp.

// MCP tool policies.
const (
	PolicyAllow = "allow"
	PolicyAsk   = "ask"
	PolicyBlock = "block"
)

// MCPSecretMask stands for a secret env or header value in a PUT body: the
// API never returns secret values (only their names), so a client that
// edits a server sends the mask for a value it leaves unchanged.
const MCPSecretMask = "********"

// MCP server transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// MCP server states.
const (
	MCPConnecting = "connecting"
	MCPConnected  = "connected"
	MCPError      = "error"
	MCPDisabled   = "disabled"
)

// MCPTool is one tool of a server, as listed in the API and Settings.
type MCPTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Policy      string `json:"policy"`
	// ModelName is the name the model sees: <server>__<tool>, sanitized.
	ModelName string `json:"model_name"`
}

// MCPServer is one configured server with its state (GET /api/v1/mcp/servers
// and the mcp:server event). Secret values of Env and Headers are masked:
// only their names leave Go.
type MCPServer struct {
	Name       string    `json:"name"`
	Transport  string    `json:"transport"`
	Command    string    `json:"command,omitempty"`
	Args       []string  `json:"args"`
	URL        string    `json:"url,omitempty"`
	EnvKeys    []string  `json:"env_keys"`
	HeaderKeys []string  `json:"header_keys"`
	Enabled    bool      `json:"enabled"`
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Tools      []MCPTool `json:"tools"`
}

// MCPServerConfig is the body of PUT /api/v1/mcp/servers/{name}: stdio
// (command, args, env) or streamable HTTP (url, headers). A masked value
// sent back unchanged keeps the stored secret.
type MCPServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Enabled *bool             `json:"enabled,omitempty"`
}

// MCPToolPolicy is the body of PUT /api/v1/mcp/servers/{name}/tools/{tool}.
type MCPToolPolicy struct {
	Policy string `json:"policy"`
}

// MCPImportResult answers an import of another host's mcp.json: the
// servers added, and those skipped with why.
type MCPImportResult struct {
	Added   []string          `json:"added"`
	Skipped map[string]string `json:"skipped"`
}
