package service

import (
	"path/filepath"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/mcp"
)

// newMCPHost makes the MCP host on mcp.json in the data folder (in memory
// when there is no data folder, as in tests).
func (s *Service) newMCPHost() *mcp.Host {
	path := s.opt.MCPConfigPath
	if path == "" && s.opt.Config.DataDir != "" {
		path = filepath.Join(s.opt.Config.DataDir, mcp.ConfigFile)
	}
	opt := mcp.Options{Path: path, Events: s.ev, Logger: s.log, Version: s.opt.Version}
	if s.opt.MCPOptions != nil {
		s.opt.MCPOptions(&opt)
	}
	return mcp.New(opt)
}

// MCP returns the MCP host (for tests and wiring).
func (s *Service) MCP() *mcp.Host { return s.mcp }

// MCPServers lists the configured MCP servers with their state and tools.
func (s *Service) MCPServers() []api.MCPServer { return s.mcp.Servers() }

// MCPServer returns one MCP server with its state and tools.
func (s *Service) MCPServer(name string) (api.MCPServer, error) { return s.mcp.Server(name) }

// PutMCPServer adds or replaces an MCP server; it (re)connects in the
// background when enabled.
func (s *Service) PutMCPServer(name string, cfg api.MCPServerConfig) (api.MCPServer, error) {
	return s.mcp.PutServer(name, cfg)
}

// DeleteMCPServer stops and removes an MCP server.
func (s *Service) DeleteMCPServer(name string) error { return s.mcp.DeleteServer(name) }

// SetMCPToolPolicy sets a tool's policy: allow, ask or block.
func (s *Service) SetMCPToolPolicy(server, tool, policy string) (api.MCPTool, error) {
	return s.mcp.SetToolPolicy(server, tool, policy)
}

// ImportMCPConfig adds the servers of another host's configuration file.
func (s *Service) ImportMCPConfig(content []byte) (api.MCPImportResult, error) {
	return s.mcp.Import(content)
}
