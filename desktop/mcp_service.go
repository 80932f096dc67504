package desktop

import "github.com/parley-app/parley/backend/api"

// MCPService is window.go.desktop.MCPService: the MCP servers (SPEC §6).
type MCPService struct{ binding }

// Servers lists the configured MCP servers with their state and tools.
func (m *MCPService) Servers() ([]api.MCPServer, error) { return api.NonNil(m.svc.MCPServers()), nil }

// PutServer adds or replaces a server; it connects in the background.
func (m *MCPService) PutServer(name string, cfg api.MCPServerConfig) (api.MCPServer, error) {
	return wire(m.svc.PutMCPServer(name, cfg))
}

// DeleteServer stops and removes a server.
func (m *MCPService) DeleteServer(name string) error { return m.svc.DeleteMCPServer(name) }

// SetToolPolicy sets a tool's policy: allow, ask or block.
func (m *MCPService) SetToolPolicy(server, tool, policy string) (api.MCPTool, error) {
	return wire(m.svc.SetMCPToolPolicy(server, tool, policy))
}

// ImportConfig adds the servers of another host's configuration file (its content).
func (m *MCPService) ImportConfig(content string) (api.MCPImportResult, error) {
	return wire(m.svc.ImportMCPConfig([]byte(content)))
}
