package httpapi

import (
	"net/http"

	"github.com/parley-app/parley/backend/trace"
)

// The card trace (backend/trace) for the latency bench: GET returns the
// records, POST takes the page's marks. Both are 404 while tracing is off.

func (s *Server) getTrace(w http.ResponseWriter, _ *http.Request) error {
	if !trace.Enabled() {
		return httpError{http.StatusNotFound, "no such endpoint"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": trace.Snapshot()})
	return nil
}

func (s *Server) postTrace(w http.ResponseWriter, r *http.Request) error {
	if !trace.Enabled() {
		return httpError{http.StatusNotFound, "no such endpoint"}
	}
	var marks []trace.PageMark
	if err := decode(r, &marks); err != nil {
		return err
	}
	if err := trace.Report(marks); err != nil {
		return httpError{http.StatusBadRequest, err.Error()}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
