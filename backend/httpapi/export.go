package httpapi

import (
	"io"
	"net/http"
)

// export downloads a conversation as Markdown (default) or JSON.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	out, err := s.opts.Backend.ExportConversation(r.Context(), r.PathValue("id"), format)
	if err != nil {
		return err
	}
	ext, ctype := "md", "text/markdown; charset=utf-8"
	if format == "json" {
		ext, ctype = "json", "application/json"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="parley-conversation.`+ext+`"`)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, out)
	return nil
}

func (s *Server) importConversation(w http.ResponseWriter, r *http.Request) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	c, err := s.opts.Backend.ImportConversation(r.Context(), data)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}
