package crash

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/modelserver"
)

// The final check: a clean shutdown with a card pending.

// finale checks clean shutdowns with work in flight: SIGTERM while a card
// is pending exits 0, and the card is still answerable after the restart.
func (h *harness) finale(r int) {
	h.mu.Lock()
	h.roundFails = nil
	h.mu.Unlock()
	ms := modelserver.New(crashScript())
	defer ms.Close()
	logA := filepath.Join(h.logDir, "final-sigterm.log")
	logB := filepath.Join(h.logDir, "final-restarted.log")
	ok := func() bool {
		a, err := startChild("final child", h.dataDir, ms.URL(), logA)
		if err != nil {
			h.fail(r, "final-start", "%v", err)
			return false
		}
		defer a.kill()
		api := newAPI(a.url)
		st, err := openStream(api, h.rec, r)
		if err != nil {
			h.fail(r, "final-stream", "%v", err)
			return false
		}
		var c struct {
			ID string `json:"id"`
		}
		if err := api.expect(http.MethodPost, "/api/v1/conversations", map[string]any{"title": "clean shutdown"}, http.StatusCreated, &c); err != nil {
			h.fail(r, "final-create", "%v", err)
			return false
		}
		h.rec.addConversation(c.ID, r)
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.ID+"/messages",
			map[string]any{"content": "[" + kindCard + "] final: ask me, then I quit"}, http.StatusAccepted, nil); err != nil {
			h.fail(r, "final-send", "%v", err)
			return false
		}
		var cardID string
		timeout := time.After(settleTimeout)
		for cardID == "" {
			select {
			case ev, ok := <-st.C:
				if !ok {
					h.fail(r, "final-stream-end", "event stream ended: %v", st.err)
					return false
				}
				if ev.Name == "question:ask" && ev.Conv == c.ID {
					var card apiCard
					_ = json.Unmarshal(ev.Data, &card)
					cardID = card.ID
				}
			case <-timeout:
				h.fail(r, "final-ask", "no card within %s", settleTimeout)
				return false
			}
		}
		if err := a.terminate(); err != nil {
			h.fail(r, "final-sigterm", "with a card pending: %v", err)
			return false
		}
		st.close()

		b, err := startChild("final restarted child", h.dataDir, ms.URL(), logB)
		if err != nil {
			h.fail(r, "final-restart", "%v", err)
			return false
		}
		defer b.kill()
		api = newAPI(b.url)
		var p struct {
			Has bool   `json:"has_pending_question"`
			ID  string `json:"question_id"`
		}
		if err := api.get("/api/v1/conversations/"+c.ID+"/pending-question", &p); err != nil || !p.Has || p.ID != cardID {
			h.fail(r, "final-pending", "after a clean shutdown with card %s pending, pending-question is %+v (%v)", cardID, p, err)
		}
		st, err = openStream(api, h.rec, r)
		if err != nil {
			h.fail(r, "final-stream", "%v", err)
			return false
		}
		summary, err := h.verify(r, api, st) // answers the card, waits for the run, checks all history
		st.close()
		if err != nil {
			h.fail(r, "final-verify", "%v", err)
			return false
		}
		if err := b.terminate(); err != nil {
			h.fail(r, "final-sigterm2", "%v", err)
			return false
		}
		h.t.Logf("final: SIGTERM with card pending -> exit 0; after restart: %s; SIGTERM -> exit 0", summary)
		return true
	}()
	h.mu.Lock()
	fails := slices.Clone(h.roundFails)
	h.mu.Unlock()
	if !ok || len(fails) > 0 {
		h.saveArtifacts(r, fmt.Sprintf("final clean-shutdown check, seed %d\nfailures:\n- %s\n", h.seed, strings.Join(fails, "\n- ")), logA, logB)
	}
}
