package httpapi

import (
	"io"
	"net/http"
	"time"

	"github.com/parley-app/parley/backend/trace"
)

// events streams SPEC §3 events as SSE; ?conversationId= narrows it.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	flusher, ok := w.(http.Flusher)
	if !ok || s.opts.Broker == nil {
		return httpError{http.StatusInternalServerError, "event stream unavailable"}
	}
	only := r.URL.Query().Get("conversationId")
	sub := s.opts.Broker.Subscribe()
	defer sub.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, ": connected\n\n")
	flusher.Flush()
	tick := time.NewTicker(s.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-tick.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
		case m, ok := <-sub.C:
			if !ok {
				return nil // dropped as too slow; the client reconnects
			}
			if only != "" && m.ConversationID != only {
				continue
			}
			if _, err := io.WriteString(w, "event: "+m.Name+"\ndata: "+string(m.Data)+"\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
			if m.TraceKey != "" {
				trace.Mark(m.TraceKey, trace.HopSSEWritten)
			}
		}
	}
}
