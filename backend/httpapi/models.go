package httpapi

import (
	"net/http"
)

func (s *Server) models(w http.ResponseWriter, r *http.Request) error {
	models, err := s.opts.Backend.ListModels(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, models)
	return nil
}

func (s *Server) modelStatus(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.opts.Backend.CheckModelServer(r.Context()))
	return nil
}

func (s *Server) pullModel(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Model string `json:"model"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.opts.Backend.PullModel(r.Context(), req.Model); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "success"})
	return nil
}

// modelStats lists how well each model asks.
func (s *Server) modelStats(w http.ResponseWriter, r *http.Request) error {
	stats, err := s.opts.Backend.ModelStats(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stats)
	return nil
}

// resetModelStats forgets every model's statistics.
func (s *Server) resetModelStats(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.ResetModelStats(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"reset": true})
	return nil
}
