package crash

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // integrity check of the crashed database (a copy)

	"github.com/stretchr/testify/assert"

	"github.com/parley-app/parley/backend/modelserver"
)

// ---------------------------------------------------------------------------
// The harness.

type harness struct {
	t         *testing.T
	seed      uint64
	dataDir   string
	logDir    string
	artifacts string
	rec       *recorder
	ready     []string // conversations known idle after the last verification
	// answered holds the cards this test answered in the current round's
	// verification, so that their question:ask events, still queued on
	// the stream, are not answered twice.
	answered map[string]bool
	// agentToken is the agent token made in round 1; agentCards are the
	// cards filed with it, oldest first.
	agentToken string
	agentCards []*agentCard

	mu         sync.Mutex
	reported   map[string]bool
	kinds      map[string]int // problems reported per kind
	roundFails []string       // new failures of the current round
}

// fail reports a problem once per key (so a lost message is not reported
// again every later round) and marks the round as failed. Of each kind of
// problem (the key up to its first '-') the first few are reported in full,
// the rest are counted and summed up at the end.
func (h *harness) fail(round int, key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	kind, _, _ := strings.Cut(key, "-")
	h.mu.Lock()
	if h.reported[key] {
		h.mu.Unlock()
		return
	}
	h.reported[key] = true
	h.roundFails = append(h.roundFails, msg)
	h.kinds[kind]++
	n := h.kinds[kind]
	h.mu.Unlock()
	switch {
	case n <= maxReportsPerKind:
		assert.Failf(h.t, "crash recovery problem", "round %d (seed %d): %s", round, h.seed, msg)
	case n == maxReportsPerKind+1:
		assert.Failf(h.t, "crash recovery problem", "round %d (seed %d): %s\n(further %q problems are only counted)", round, h.seed, msg, kind)
	default:
		h.t.Logf("round %d: again (%s #%d): %s", round, kind, n, clip(msg))
	}
}

const maxReportsPerKind = 2

func (h *harness) artifactsDir() string {
	if h.artifacts != "" {
		return h.artifacts
	}
	dir := os.Getenv("PARLEY_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Logf("artifacts dir %s: %v", dir, err)
	}
	h.artifacts = dir
	return dir
}

// saveArtifacts keeps the child logs and a summary of a failing round.
func (h *harness) saveArtifacts(round int, summary string, logs ...string) {
	dir := h.artifactsDir()
	var saved []string
	for _, p := range logs {
		if p == "" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		dst := filepath.Join(dir, "crash-"+filepath.Base(p))
		if os.WriteFile(dst, b, 0o644) == nil {
			saved = append(saved, dst)
		}
	}
	sum := filepath.Join(dir, fmt.Sprintf("crash-round-%02d-summary.txt", round))
	if os.WriteFile(sum, []byte(summary), 0o644) == nil {
		saved = append(saved, sum)
	}
	h.t.Logf("round %d: saved %s", round, strings.Join(saved, ", "))
}

// killPlan says when the crashing child is killed.
type killPlan struct {
	kind  string // delta, ask, answered, message, timer, rest
	n     int
	after time.Duration
}

func (p killPlan) String() string {
	switch p.kind {
	case "delta":
		return fmt.Sprintf("at message:delta #%d (while streaming)", p.n)
	case "ask":
		return fmt.Sprintf("at question:ask #%d (card pending)", p.n)
	case "answered":
		return fmt.Sprintf("right after answer #%d", p.n)
	case "message":
		return fmt.Sprintf("at message:done #%d", p.n)
	case "timer":
		return fmt.Sprintf("after %s", p.after)
	}
	return "at rest"
}

func pickPlan(rng *rand.Rand) killPlan {
	switch x := rng.IntN(100); {
	case x < 25:
		return killPlan{kind: "delta", n: 1 + rng.IntN(250)}
	case x < 45:
		return killPlan{kind: "ask", n: 1 + rng.IntN(3)}
	case x < 70:
		return killPlan{kind: "answered", n: 1 + rng.IntN(3)}
	case x < 80:
		return killPlan{kind: "message", n: 1 + rng.IntN(8)}
	case x < 95:
		return killPlan{kind: "timer", after: time.Duration(rng.IntN(400)) * time.Millisecond}
	}
	return killPlan{kind: "rest"}
}

func pickKind(rng *rand.Rand) string {
	switch x := rng.IntN(100); {
	case x < 25:
		return kindPlain
	case x < 60:
		return kindCard
	case x < 80:
		return kindTwo
	}
	return kindTwoCards
}

// dconv is a conversation driven in the crash phase.
type dconv struct {
	id     string
	turns  []string
	next   int
	run    string
	parked bool // a card is left pending on purpose
	done   bool
}

// round runs one crash round; false means the test cannot go on.
func (h *harness) round(r int) bool {
	t := h.t
	began := time.Now()
	h.mu.Lock()
	h.roundFails = nil
	h.mu.Unlock()
	rng := rand.New(rand.NewPCG(h.seed, uint64(r)))
	ms := modelserver.New(crashScript())
	defer ms.Close()

	crashLog := filepath.Join(h.logDir, fmt.Sprintf("round-%02d-crashed.log", r))
	restartLog := filepath.Join(h.logDir, fmt.Sprintf("round-%02d-restarted.log", r))
	plan := pickPlan(rng)
	var killedAt, afterRestart string
	finish := func(ok bool) bool {
		h.mu.Lock()
		fails := slices.Clone(h.roundFails)
		h.mu.Unlock()
		if len(fails) > 0 || !ok {
			summary := fmt.Sprintf("round %d, seed %d (PARLEY_CRASH_SEED=%d)\nplan: kill %s\nkilled: %s\nafter restart: %s\n\nfailures:\n- %s\n",
				r, h.seed, h.seed, plan, killedAt, afterRestart, strings.Join(fails, "\n- "))
			h.saveArtifacts(r, summary, crashLog, restartLog)
		}
		return ok
	}

	// Phase 1: drive conversations and kill the child.
	a, err := startChild(fmt.Sprintf("round %d child", r), h.dataDir, ms.URL(), crashLog)
	if err != nil {
		h.fail(r, "start", "start parley serve: %v", err)
		return finish(false)
	}
	defer a.kill()
	api := newAPI(a.url)
	st, err := openStream(api, h.rec, r)
	if err != nil {
		h.fail(r, "stream", "%v", err)
		return finish(false)
	}
	if r == 1 {
		// One card per 5 s per conversation is the default; the script asks faster.
		var settings map[string]any
		if err := api.expect(http.MethodPut, "/api/v1/settings", map[string]any{"rate_limit_seconds": 0}, http.StatusOK, &settings); err != nil {
			h.fail(r, "settings", "%v", err)
			return finish(false)
		}
	}
	if err := h.fileAgentCard(r, api); err != nil {
		h.fail(r, "agentask", "%v", err)
		return finish(false)
	}
	convs, err := h.pickConversations(r, rng, api)
	if err != nil {
		h.fail(r, "create", "%v", err)
		return finish(false)
	}
	killedAt, err = h.drive(r, rng, plan, a, api, st, convs)
	if err != nil {
		h.fail(r, "drive-"+strconv.Itoa(r), "%v (kill plan: %s)", err, plan)
	}
	if a.running() {
		a.kill()
	}
	if a.running() {
		h.fail(r, "kill", "the child survived SIGKILL")
		return finish(false)
	}
	select {
	case <-st.done: // the stream ends with the process; every event it carried is recorded
	case <-time.After(exitTimeout):
		h.fail(r, "stream-end", "the event stream did not end after the kill")
	}
	st.close()

	// The database files as the kill left them must open and be intact.
	if err := checkIntegrity(h.dataDir, t.TempDir()); err != nil {
		h.fail(r, "integrity-"+strconv.Itoa(r), "database after the kill: %v", err)
	}

	// Phase 2: restart on the same data folder and check.
	b, err := startChild(fmt.Sprintf("round %d restarted child", r), h.dataDir, ms.URL(), restartLog)
	if err != nil {
		h.fail(r, "restart", "restart after the kill: %v", err)
		return finish(false)
	}
	defer b.kill()
	api = newAPI(b.url)
	st, err = openStream(api, h.rec, r)
	if err != nil {
		h.fail(r, "stream", "after restart: %v", err)
		return finish(false)
	}
	afterRestart, err = h.verify(r, api, st)
	st.close()
	if err != nil {
		h.fail(r, "verify-"+strconv.Itoa(r), "%v", err)
		return finish(false)
	}
	if err := b.terminate(); err != nil {
		h.fail(r, "sigterm", "%v", err)
		return finish(false)
	}
	t.Logf("round %2d: %d conv(s), kill %s -> killed %s; after restart: %s [%.1fs]",
		r, len(convs), plan, killedAt, afterRestart, time.Since(began).Seconds())
	return finish(true)
}

// pickConversations creates one or two conversations and may reuse an old one.
func (h *harness) pickConversations(r int, rng *rand.Rand, api *apiClient) ([]*dconv, error) {
	var out []*dconv
	turns := func() []string {
		k := make([]string, 1+rng.IntN(4))
		for i := range k {
			k[i] = pickKind(rng)
		}
		return k
	}
	fresh := 1 + rng.IntN(2)
	if r == 1 {
		fresh = 2
	}
	for i := 0; i < fresh; i++ {
		body := map[string]any{}
		if rng.IntN(2) == 0 {
			body["title"] = fmt.Sprintf("crash round %d #%d", r, i+1)
		}
		var c struct {
			ID string `json:"id"`
		}
		if err := api.expect(http.MethodPost, "/api/v1/conversations", body, http.StatusCreated, &c); err != nil {
			return nil, err
		}
		h.rec.addConversation(c.ID, r)
		out = append(out, &dconv{id: c.ID, turns: turns()})
	}
	if len(h.ready) > 0 && rng.IntN(3) > 0 {
		out = append(out, &dconv{id: h.ready[rng.IntN(len(h.ready))], turns: turns()})
	}
	return out, nil
}

// send starts the conversation's next turn.
func (h *harness) send(r int, rng *rand.Rand, api *apiClient, c *dconv) error {
	kind := c.turns[c.next]
	c.next++
	var resp struct {
		RunID string `json:"run_id"`
	}
	body := map[string]any{"content": fmt.Sprintf("[%s] round %d turn %d: please help with item %d", kind, r, c.next, rng.IntN(1000))}
	if err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.id+"/messages", body, http.StatusAccepted, &resp); err != nil {
		return err
	}
	c.run = resp.RunID
	return nil
}

// drive runs the conversations' turns, answering (or leaving) cards, and
// kills the child at the planned moment. It returns what the kill hit.
func (h *harness) drive(r int, rng *rand.Rand, plan killPlan, ch *child, api *apiClient, st *sseStream, convs []*dconv) (string, error) {
	var (
		killOnce sync.Once
		killed   atomic.Bool
		killedCh = make(chan struct{})
		what     atomic.Value
		deltas   int
		asks     int
		answers  int
		dones    int
		pending  = map[string]string{} // card id -> conversation, asked and not resolved
	)
	what.Store("")
	kill := func(desc string) {
		killOnce.Do(func() {
			what.Store(desc)
			killed.Store(true)
			_ = ch.cmd.Process.Signal(syscall.SIGKILL)
			close(killedCh)
		})
	}
	byID := map[string]*dconv{}
	for _, c := range convs {
		byID[c.id] = c
	}
	status := func() string {
		active := 0
		for _, c := range convs {
			if !c.done && !c.parked {
				active++
			}
		}
		return fmt.Sprintf("%d deltas, %d asks, %d answers, %d messages seen; %d run(s) active, %d card(s) pending", deltas, asks, answers, dones, active, len(pending))
	}
	for _, c := range convs {
		if err := h.send(r, rng, api, c); err != nil {
			return "", fmt.Errorf("send first message to %s: %w", c.id, err)
		}
	}
	if plan.kind == "timer" {
		tm := time.AfterFunc(plan.after, func() { kill(fmt.Sprintf("by timer after %s", plan.after)) })
		defer tm.Stop()
	}
	deadline := time.NewTimer(driveTimeout)
	defer deadline.Stop()
	for !killed.Load() {
		if !slices.ContainsFunc(convs, func(c *dconv) bool { return !c.done && !c.parked }) {
			kill("at rest (" + status() + ")")
			break
		}
		var ev sseEvent
		var ok bool
		select {
		case ev, ok = <-st.C:
		case <-killedCh:
			continue
		case <-deadline.C:
			kill("after the drive timeout")
			return what.Load().(string), fmt.Errorf("conversations did not progress within %s (%s)", driveTimeout, status())
		}
		if !ok {
			if killed.Load() {
				break
			}
			return "", fmt.Errorf("event stream ended while the server ran: %v (%s)", st.err, status())
		}
		c := byID[ev.Conv]
		switch ev.Name {
		case "message:delta":
			deltas++
			if plan.kind == "delta" && deltas == plan.n {
				kill(fmt.Sprintf("while streaming (%s)", status()))
			}
		case "message:done":
			dones++
			if plan.kind == "message" && dones == plan.n {
				kill(fmt.Sprintf("at message:done (%s)", status()))
			}
		case "question:resolved":
			var card apiCard
			_ = json.Unmarshal(ev.Data, &card)
			delete(pending, card.ID)
		case "question:ask":
			if c == nil {
				break // the agent's card (fileAgentCard): pending at the kill
			}
			asks++
			var card apiCard
			if err := json.Unmarshal(ev.Data, &card); err != nil {
				return "", fmt.Errorf("question:ask: %w", err)
			}
			pending[card.ID] = card.ConversationID
			if plan.kind == "ask" && asks == plan.n {
				kill(fmt.Sprintf("while card %s is pending (%s)", card.ID, status()))
				break
			}
			x := rng.IntN(100)
			if x < 12 {
				c.parked = true // left pending: the restarted app must still take it
				break
			}
			body := answerFor(&card)
			action := "submit"
			switch {
			case x < 22:
				action = "decline"
			case x < 27:
				action = "cancel"
			}
			if action != "submit" {
				body = map[string]any{"question_id": card.ID, "action": action}
			}
			var got apiCard
			err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.id+"/respond", body, http.StatusOK, &got)
			if err != nil {
				if killed.Load() {
					break
				}
				return what.Load().(string), fmt.Errorf("answer card %s: %w", card.ID, err)
			}
			h.rec.card(r, &got, "respond "+action)
			answers++
			if plan.kind == "answered" && answers == plan.n {
				kill(fmt.Sprintf("right after %s of card %s (%s)", action, card.ID, status()))
			}
		case "conversation:state":
			var s apiState
			_ = json.Unmarshal(ev.Data, &s)
			if c == nil || s.RunID != c.run {
				break
			}
			switch s.State {
			case "error":
				return what.Load().(string), fmt.Errorf("run %s in %s failed: %s", s.RunID, c.id, s.Error)
			case "idle":
				if c.next < len(c.turns) {
					if err := h.send(r, rng, api, c); err != nil {
						if killed.Load() {
							break
						}
						return what.Load().(string), fmt.Errorf("send to %s: %w", c.id, err)
					}
				} else {
					c.done = true
				}
			}
		}
	}
	return what.Load().(string), nil
}

// checkIntegrity copies the database as the kill left it (with its WAL) and
// runs SQLite's integrity check on the copy, so the app still recovers the
// original itself.
func checkIntegrity(dataDir, tmp string) error {
	for _, name := range []string{"parley.db", "parley.db-wal"} {
		b, err := os.ReadFile(filepath.Join(dataDir, name))
		if errors.Is(err, os.ErrNotExist) && name != "parley.db" {
			continue
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o600); err != nil {
			return err
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(tmp, "parley.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("integrity_check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity_check: %s", strings.Join(problems, "; "))
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM messages").Scan(&n); err != nil {
		return fmt.Errorf("count messages: %w", err)
	}
	return nil
}
