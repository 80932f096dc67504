package httpapi

import (
	"net/http"

	"github.com/parley-app/parley/backend/api"
)

// Knowledge collections (SPEC §11).

func (s *Server) collections(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.opts.Backend.Collections(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cs)
	return nil
}

func (s *Server) createCollection(w http.ResponseWriter, r *http.Request) error {
	var req api.CollectionRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := s.opts.Backend.CreateCollection(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

func (s *Server) getCollection(w http.ResponseWriter, r *http.Request) error {
	c, err := s.opts.Backend.Collection(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func (s *Server) patchCollection(w http.ResponseWriter, r *http.Request) error {
	var req api.CollectionRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := s.opts.Backend.UpdateCollection(r.Context(), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func (s *Server) reindexCollection(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.ReindexCollection(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]bool{"reindexing": true})
	return nil
}

func (s *Server) cancelCollection(w http.ResponseWriter, r *http.Request) error {
	c, err := s.opts.Backend.CancelCollection(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request) error {
	if err := s.opts.Backend.DeleteCollection(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"deleted": true})
	return nil
}

func (s *Server) searchCollection(w http.ResponseWriter, r *http.Request) error {
	var req api.KnowledgeSearchRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	res, err := s.opts.Backend.SearchCollection(r.Context(), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
