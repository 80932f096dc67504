package httpapi

import (
	"io"
	"net/http"

	"github.com/parley-app/parley/backend/api"
)

func (s *Server) mcpServers(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, s.opts.Backend.MCPServers())
	return nil
}

func (s *Server) putMCPServer(w http.ResponseWriter, r *http.Request) error {
	var cfg api.MCPServerConfig
	if err := decode(r, &cfg); err != nil {
		return err
	}
	srv, err := s.opts.Backend.PutMCPServer(r.PathValue("name"), cfg)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, srv)
	return nil
}

func (s *Server) deleteMCPServer(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.DeleteMCPServer(r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	return nil
}

func (s *Server) setMCPToolPolicy(w http.ResponseWriter, r *http.Request) error {
	var p api.MCPToolPolicy
	if err := decode(r, &p); err != nil {
		return err
	}
	tool, err := s.opts.Backend.SetMCPToolPolicy(r.PathValue("name"), r.PathValue("tool"), p.Policy)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, tool)
	return nil
}

// importMCPConfig takes another host's configuration file, as it is, as the body.
func (s *Server) importMCPConfig(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	res, err := s.opts.Backend.ImportMCPConfig(body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
