package httpapi

import (
	"net/http"

	"github.com/parley-app/parley/backend/service"
)

func (s *Server) getSettings(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, s.opts.Backend.GetSettings())
	return nil
}

func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) error {
	st := s.opts.Backend.GetSettings()
	if err := decode(r, &st); err != nil {
		return err
	}
	saved, err := s.opts.Backend.SaveSettings(r.Context(), st)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, saved)
	return nil
}

func (s *Server) profiles(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.opts.Backend.Profiles(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ps)
	return nil
}

func (s *Server) saveProfile(w http.ResponseWriter, r *http.Request) error {
	var p service.Profile
	if err := decode(r, &p); err != nil {
		return err
	}
	p.Name = r.PathValue("name")
	saved, err := s.opts.Backend.SaveProfile(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, saved)
	return nil
}

func (s *Server) deleteProfile(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.DeleteProfile(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	return nil
}

func (s *Server) tools(w http.ResponseWriter, r *http.Request) error {
	tools := s.opts.Backend.AvailableTools()
	lang := s.language(r)
	for i := range tools {
		if tools[i].Text.Key != "" {
			tools[i].Description = tools[i].Text.In(lang)
		}
	}
	writeJSON(w, http.StatusOK, tools)
	return nil
}

// exportSettings downloads the settings, profiles and model statistics
// (without the API key) as a JSON file.
func (s *Server) exportSettings(w http.ResponseWriter, r *http.Request) error {
	out, err := s.opts.Backend.ExportSettings(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="parley-settings.json"`)
	writeJSON(w, http.StatusOK, out)
	return nil
}
