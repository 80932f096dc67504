package httpapi

import (
	"io"
	"net/http"
	"time"

	"github.com/parley-app/parley/backend/events"
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
			// What is already queued goes out with it, in one write to the
			// client (at most a bounded burst): a run's events come in
			// bursts (its stored message, its state, its card), and each
			// flush is a piece the page reads in a task of its own, and a
			// write per client of the fan-out (issue #42).
			var traced []string
			wrote := false
			write := func(m events.Message) bool {
				if only != "" && m.ConversationID != only {
					return true
				}
				if _, err := io.WriteString(w, "event: "+m.Name+"\ndata: "+string(m.Data)+"\n\n"); err != nil {
					return false
				}
				wrote = true
				if m.TraceKey != "" {
					traced = append(traced, m.TraceKey)
				}
				return true
			}
			if !write(m) {
				return nil
			}
		drain:
			for i := 0; i < 64; i++ {
				select {
				case more, ok := <-sub.C:
					if !ok {
						break drain
					}
					if !write(more) {
						return nil
					}
				default:
					break drain
				}
			}
			if !wrote {
				continue // all for other conversations
			}
			flusher.Flush()
			for _, k := range traced {
				trace.Mark(k, trace.HopSSEWritten)
			}
		}
	}
}
