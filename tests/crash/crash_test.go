// Package crash is Parley's crash test: it runs the real `parley serve`
// binary against a scripted model server, drives conversations through the
// HTTP API, SIGKILLs the process at a random moment (while a reply streams,
// while a card is pending, right after an answer, ...), restarts it on the
// same data folder and checks that everything the server announced on its
// event stream is still there, that pending cards can be answered and their
// runs finish, and that the app exits cleanly on SIGTERM. Every round an
// agent also files a card through POST /api/v1/asks (SPEC §10) that is
// pending at the kill: after the restart it is still pending for the agent
// and in the inbox; a round later the user answers it and the agent gets
// exactly the §1 result, which every later restart keeps.
//
// The data folder is shared by all rounds, so history accumulates and every
// round re-checks what earlier rounds announced.
//
// Environment: PARLEY_CRASH_SEED (reproduce a run's choices; timings still
// vary), PARLEY_CRASH_ROUNDS (default 40; 12 with -short), PARLEY_ARTIFACTS
// (where the child logs of a failing round go; default ../../test-artifacts).
package crash

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // integrity check of the crashed database (a copy)

	"github.com/parley-app/parley/backend/modelserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	apiToken  = "crash-test-token-0123456789abcdef0123456789"
	modelName = "crash-model"

	// Budgets. Nothing waits a fixed time for synchronisation: these only
	// bound how long an expected event may take before the test fails, so
	// a passing run never waits for them. They are generous because CI runs
	// this test beside the other packages' race tests on two cores (a round
	// takes well under 3 s there; the drive and the settling under 1 s).
	startTimeout  = 60 * time.Second
	driveTimeout  = 60 * time.Second
	settleTimeout = 60 * time.Second
	exitTimeout   = 30 * time.Second
	httpTimeout   = 60 * time.Second

	// userCancelled is the tool result of a card the user cancelled
	// (questions.CancelledResult): the run stops there, legitimately idle.
	userCancelled = "User cancelled the question"
)

var parleyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "parley-crash-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash test:", err)
		os.Exit(1)
	}
	parleyBin = filepath.Join(dir, "parley")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	// The child gets the test's build tags, so it runs with the SQLite
	// driver the app ships (scripts/test.sh passes its tags).
	args := []string{"build", "-o", parleyBin}
	if tags := buildTags(); tags != "" {
		args = append(args, "-tags", tags)
	}
	build := exec.Command(goTool, append(args, "github.com/parley-app/parley")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "crash test: build parley:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildTags returns the -tags this test binary was built with.
func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			if st.Key == "-tags" {
				return st.Value
			}
		}
	}
	return ""
}

// ---------------------------------------------------------------------------
// The scripted model.

// Turn kinds; the user message carries its kind as a tag, so the script
// answers the same way after a restart or a retry.
const (
	kindPlain     = "plain"    // a long reply in many small deltas
	kindCard      = "card"     // some text and one ask_user_question call
	kindTwo       = "two"      // ask_user_question and calculator in one message
	kindTwoCards  = "twocards" // two ask_user_question calls in one message
	colourCard    = `{"questions":[{"question":"Which colour?","header":"Colour","options":["Red","Blue","Green"]}]}`
	sizeCard      = `{"questions":[{"question":"Which size?","header":"Size","options":[{"label":"S"},{"label":"M"},{"label":"L"}]},{"question":"Anything else?","options":[]}]}`
	calculatorArg = `{"expression":"(6*7)+sqrt(16)"}`
)

// callSeq makes tool-call ids unique across the whole test, so a card asked
// again for the same (saved) tool call is recognisable by its tool_call_id.
var callSeq atomic.Int64

func nextCallID() string { return fmt.Sprintf("call_crash_%d", callSeq.Add(1)) }

// prose is n words of text, streamed by the model server one word per delta.
func prose(lead string, n, salt int) string {
	words := []string{"parley", "keeps", "every", "word", "it", "shows", "**safe**", "on", "disk", "before", "the", "user", "sees", "it,", "even", "when", "killed"}
	var b strings.Builder
	b.WriteString(lead)
	for i := 0; i < n; i++ {
		b.WriteByte(' ')
		b.WriteString(words[(i*7+salt)%len(words)])
		if i%23 == 22 {
			b.WriteString(".\n\n-")
		}
	}
	b.WriteByte('.')
	return b.String()
}

func crashScript() modelserver.Script {
	return func(req modelserver.ChatRequest) modelserver.Turn {
		n := len(req.Messages)
		delay := time.Duration(2+n%9) * time.Millisecond
		last := req.LastMessage()
		if last.Role == "tool" {
			return modelserver.Turn{Text: prose("Thanks, that settles it:", 50+n%40, n), FirstTokenDelay: delay}
		}
		ask := func(args string) modelserver.ToolCall {
			return modelserver.ToolCall{ID: nextCallID(), Name: "ask_user_question", Arguments: args}
		}
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "["+kindTwoCards+"]"):
			return modelserver.Turn{Text: prose("Two quick questions first.", 20, n), FirstTokenDelay: delay,
				ToolCalls: []modelserver.ToolCall{ask(colourCard), ask(sizeCard)}}
		case last.Role == "user" && strings.Contains(last.Content, "["+kindTwo+"]"):
			return modelserver.Turn{Text: prose("Let me ask and compute.", 25, n), FirstTokenDelay: delay,
				ToolCalls: []modelserver.ToolCall{ask(colourCard), {ID: nextCallID(), Name: "calculator", Arguments: calculatorArg}}}
		case last.Role == "user" && strings.Contains(last.Content, "["+kindCard+"]"):
			return modelserver.Turn{Text: prose("Before I start, one question.", 30, n), FirstTokenDelay: delay,
				ToolCalls: []modelserver.ToolCall{ask(colourCard)}}
		}
		return modelserver.Turn{Text: prose("Here is a long answer:", 120+n%60, n), FirstTokenDelay: delay}
	}
}

// ---------------------------------------------------------------------------
// The child process.

var servingRE = regexp.MustCompile(`Parley \S+ is serving on (http://127\.0\.0\.1:\d+)`)

type child struct {
	name    string
	cmd     *exec.Cmd
	url     string
	logPath string
	exited  chan struct{}
	state   *os.ProcessState
	waitErr error
}

// cleanEnv is the test's environment without PARLEY_* settings, so only
// the flags configure the child.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PARLEY_") {
			env = append(env, kv)
		}
	}
	return env
}

// startChild runs `parley serve` and waits until it prints its URL.
func startChild(name, dataDir, modelURL, logPath string) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd := exec.Command(parleyBin, "serve", "--data-dir", dataDir, "--addr", "127.0.0.1:0",
		"--token", apiToken, "--base-url", modelURL, "--model", modelName)
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = pw, logFile
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	pw.Close()
	c := &child{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	urlCh := make(chan string, 1)
	stdoutDone := make(chan struct{})
	go func() {
		defer close(stdoutDone)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if m := servingRE.FindStringSubmatch(line); m != nil {
				select {
				case urlCh <- m[1]:
				default:
				}
			}
		}
		pr.Close()
	}()
	go func() {
		c.waitErr = cmd.Wait()
		c.state = cmd.ProcessState
		<-stdoutDone
		logFile.Close()
		close(c.exited)
	}()
	select {
	case c.url = <-urlCh:
		return c, nil
	case <-c.exited:
		return nil, fmt.Errorf("%s exited before serving (%v); log %s:\n%s", name, c.waitErr, logPath, tail(logPath))
	case <-time.After(startTimeout):
		c.kill()
		return nil, fmt.Errorf("%s did not print its URL within %s; log %s:\n%s", name, startTimeout, logPath, tail(logPath))
	}
}

func (c *child) running() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// kill SIGKILLs the child and waits until it is gone.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
	case <-time.After(exitTimeout):
	}
}

// terminate sends SIGTERM and returns an error unless the child exits with
// code 0 in time.
func (c *child) terminate() error {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("SIGTERM %s: %w", c.name, err)
	}
	select {
	case <-c.exited:
	case <-time.After(exitTimeout):
		c.kill()
		return fmt.Errorf("%s still running %s after SIGTERM", c.name, exitTimeout)
	}
	if c.state == nil || !c.state.Success() {
		return fmt.Errorf("%s did not exit cleanly on SIGTERM: %v (exit code %d)", c.name, c.waitErr, c.state.ExitCode())
	}
	return nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// The HTTP API.

type apiClient struct {
	base  string
	token string
	hc    *http.Client
}

func newAPI(base string) *apiClient {
	return &apiClient{base: base, token: apiToken, hc: &http.Client{Timeout: httpTimeout}}
}

// as is the same API with another bearer token (an agent token).
func (a *apiClient) as(token string) *apiClient {
	return &apiClient{base: a.base, token: token, hc: a.hc}
}

// call sends a JSON request with the bearer token and returns the status and body.
func (a *apiClient) call(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// get expects 200 and decodes the body into out.
func (a *apiClient) get(path string, out any) error {
	status, b, err := a.call(http.MethodGet, path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %s", path, status, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("GET %s: decode: %w (%s)", path, err, b)
	}
	return nil
}

// expect sends a request, expects the status and decodes the body into out (if not nil).
func (a *apiClient) expect(method, path string, body any, want int, out any) error {
	status, b, err := a.call(method, path, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if status != want {
		return fmt.Errorf("%s %s: status %d, want %d: %s", method, path, status, want, strings.TrimSpace(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w (%s)", method, path, err, b)
		}
	}
	return nil
}

type apiToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type apiMessage struct {
	ID             string        `json:"id"`
	ConversationID string        `json:"conversationId"`
	RunID          string        `json:"run_id"`
	Role           string        `json:"role"`
	Content        string        `json:"content"`
	ToolCalls      []apiToolCall `json:"tool_calls"`
	ToolCallID     string        `json:"tool_call_id"`
}

type apiQuestion struct {
	Question    string `json:"question"`
	MultiSelect bool   `json:"multiSelect"`
	AllowCustom bool   `json:"allowCustom"`
	Options     []struct {
		Label string `json:"label"`
	} `json:"options"`
}

type apiCard struct {
	ID             string            `json:"question_id"`
	ConversationID string            `json:"conversationId"`
	RunID          string            `json:"run_id"`
	ToolCallID     string            `json:"tool_call_id"`
	Status         string            `json:"status"`
	Questions      []apiQuestion     `json:"questions"`
	Answers        map[string]string `json:"answers"`
}

type apiConversation struct {
	ID              string       `json:"id"`
	Title           string       `json:"title"`
	State           string       `json:"state"`
	Error           string       `json:"error"`
	Messages        []apiMessage `json:"messages"`
	PendingQuestion *apiCard     `json:"pending_question"`
}

type apiState struct {
	ConversationID string `json:"conversationId"`
	RunID          string `json:"runId"`
	State          string `json:"state"`
	Error          string `json:"error"`
}

// answerFor is a valid submit for a card: the first option of every
// question, or free text where there are no options.
func answerFor(c *apiCard) map[string]any {
	answers := map[string]any{}
	for _, q := range c.Questions {
		if len(q.Options) == 0 {
			answers[q.Question] = map[string]any{"selected": []string{}, "custom": "nothing else, thanks"}
			continue
		}
		answers[q.Question] = map[string]any{"selected": []string{q.Options[0].Label}}
	}
	return map[string]any{"question_id": c.ID, "action": "submit", "answers": answers}
}

// ---------------------------------------------------------------------------
// What the server announced.

type annMsg struct {
	id, conv, role, content string
	toolCalls               []string
	round                   int
}

type annCard struct {
	id, conv, status, toolCallID string
	round                        int
	via                          string
}

// statusRank orders card statuses: pending, then timed_out, then the final ones.
func statusRank(s string) int {
	switch s {
	case "pending":
		return 0
	case "timed_out":
		return 1
	}
	return 2
}

// recorder keeps everything the server announced, across all rounds.
type recorder struct {
	mu        sync.Mutex
	convs     map[string]int // conversation id -> round it was created in
	convOrder []string
	msgs      map[string]*annMsg
	cards     map[string]*annCard
	anomalies []string // contradictions inside what was announced
}

func newRecorder() *recorder {
	return &recorder{convs: map[string]int{}, msgs: map[string]*annMsg{}, cards: map[string]*annCard{}}
}

func (r *recorder) addConversation(id string, round int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.convs[id]; !ok {
		r.convs[id] = round
		r.convOrder = append(r.convOrder, id)
	}
}

func (r *recorder) conversations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.convOrder)
}

// observe records one SSE event.
func (r *recorder) observe(round int, ev sseEvent) {
	switch ev.Name {
	case "message:done":
		var p struct {
			ConversationID string     `json:"conversationId"`
			Message        apiMessage `json:"message"`
		}
		if json.Unmarshal(ev.Data, &p) != nil || p.Message.ID == "" {
			r.anomaly("round %d: unreadable message:done %s", round, ev.Data)
			return
		}
		conv := p.Message.ConversationID
		if conv == "" {
			conv = p.ConversationID
		}
		m := &annMsg{id: p.Message.ID, conv: conv, role: p.Message.Role, content: p.Message.Content, round: round}
		for _, tc := range p.Message.ToolCalls {
			m.toolCalls = append(m.toolCalls, tc.ID)
		}
		r.mu.Lock()
		if old, ok := r.msgs[m.id]; ok && (old.content != m.content || old.role != m.role) {
			r.anomalies = append(r.anomalies, fmt.Sprintf("round %d: message %s announced twice with different content", round, m.id))
		}
		r.msgs[m.id] = m
		r.mu.Unlock()
	case "question:ask", "question:resolved":
		var c apiCard
		if json.Unmarshal(ev.Data, &c) != nil || c.ID == "" {
			r.anomaly("round %d: unreadable %s %s", round, ev.Name, ev.Data)
			return
		}
		r.card(round, &c, ev.Name)
	}
}

// card records an announced card state (from an event or a /respond reply).
func (r *recorder) card(round int, c *apiCard, via string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.cards[c.ID]
	if !ok {
		r.cards[c.ID] = &annCard{id: c.ID, conv: c.ConversationID, status: c.Status, toolCallID: c.ToolCallID, round: round, via: via}
		return
	}
	switch {
	case statusRank(c.Status) > statusRank(old.status):
		old.status, old.round, old.via = c.Status, round, via
	case statusRank(c.Status) == 2 && statusRank(old.status) == 2 && c.Status != old.status:
		r.anomalies = append(r.anomalies, fmt.Sprintf("round %d: card %s announced as %s (%s) and as %s (%s): two answers won",
			round, c.ID, old.status, old.via, c.Status, via))
	}
}

func (r *recorder) anomaly(format string, args ...any) {
	r.mu.Lock()
	r.anomalies = append(r.anomalies, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) snapshot() (map[string]annMsg, map[string]annCard) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msgs := make(map[string]annMsg, len(r.msgs))
	for k, v := range r.msgs {
		msgs[k] = *v
	}
	cards := make(map[string]annCard, len(r.cards))
	for k, v := range r.cards {
		cards[k] = *v
	}
	return msgs, cards
}

// ---------------------------------------------------------------------------
// The event stream.

type sseEvent struct {
	Name string
	Data []byte
	Conv string
}

type sseStream struct {
	C      chan sseEvent // closed when the stream ends
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// openStream subscribes to /api/v1/events and returns once the server has
// registered the subscription (its ": connected" comment arrived). Every
// event is recorded before it is handed on.
func openStream(a *apiClient, rec *recorder, round int) (*sseStream, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/v1/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("subscribe to events: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("subscribe to events: status %d: %s", resp.StatusCode, b)
	}
	s := &sseStream{C: make(chan sseEvent, 1<<16), done: make(chan struct{}), cancel: cancel}
	connected := make(chan struct{})
	go func() {
		defer close(s.done)
		defer close(s.C)
		defer resp.Body.Close()
		br := bufio.NewReaderSize(resp.Body, 64<<10)
		var name string
		var data []byte
		once := sync.Once{}
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				// A partial event (cut by the kill) was never announced: dropped.
				s.err = err
				once.Do(func() { close(connected) })
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if name != "" {
					ev := sseEvent{Name: name, Data: data}
					var head struct {
						ConversationID string `json:"conversationId"`
					}
					_ = json.Unmarshal(data, &head)
					ev.Conv = head.ConversationID
					rec.observe(round, ev)
					s.C <- ev
				}
				name, data = "", nil
			case strings.HasPrefix(line, ":"):
				if strings.Contains(line, "connected") {
					once.Do(func() { close(connected) })
				}
			case strings.HasPrefix(line, "event:"):
				name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
			}
		}
	}()
	select {
	case <-connected:
	case <-time.After(startTimeout):
		cancel()
		return nil, errors.New("event stream sent no ': connected' line")
	}
	select {
	case <-s.done:
		return nil, fmt.Errorf("event stream ended at once: %v", s.err)
	default:
	}
	return s, nil
}

func (s *sseStream) close() {
	s.cancel()
	go func() {
		for range s.C {
		}
	}()
	<-s.done
}

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

func TestCrashRecovery(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PARLEY_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "PARLEY_CRASH_SEED=%q", s)
		seed = v
	}
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	if s := os.Getenv("PARLEY_CRASH_ROUNDS"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err, "PARLEY_CRASH_ROUNDS=%q: want a positive number", s)
		require.GreaterOrEqual(t, v, 1, "PARLEY_CRASH_ROUNDS=%q: want a positive number", s)
		rounds = v
	}
	t.Logf("seed %d, %d rounds (reproduce the choices with PARLEY_CRASH_SEED=%d); parley built with tags %q", seed, rounds, seed, buildTags())

	h := &harness{t: t, seed: seed, dataDir: t.TempDir(), logDir: t.TempDir(), rec: newRecorder(), reported: map[string]bool{}, kinds: map[string]int{}}
	start := time.Now()
	for r := 1; r <= rounds; r++ {
		require.True(t, h.round(r), "round %d (seed %d): cannot go on", r, seed)
	}
	h.finale(rounds + 1)
	h.mu.Lock()
	if len(h.kinds) > 0 {
		kinds := make([]string, 0, len(h.kinds))
		for k, n := range h.kinds {
			kinds = append(kinds, fmt.Sprintf("%s x%d", k, n))
		}
		sort.Strings(kinds)
		assert.Failf(t, "problems found", "problems found (seed %d): %s", seed, strings.Join(kinds, ", "))
	}
	h.mu.Unlock()
	msgs, cards := h.rec.snapshot()
	t.Logf("done: %d rounds in %.1fs; %d conversations, %d messages and %d cards announced and found again",
		rounds, time.Since(start).Seconds(), len(h.rec.conversations()), len(msgs), len(cards))
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

// listAll pages through the conversation list.
func listAll(api *apiClient) ([]string, error) {
	var ids []string
	cursor := ""
	for page := 0; page < 1000; page++ {
		q := url.Values{"limit": {"7"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var p struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			NextCursor string `json:"next_cursor"`
		}
		if err := api.get("/api/v1/conversations?"+q.Encode(), &p); err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			ids = append(ids, it.ID)
		}
		if p.NextCursor == "" {
			return ids, nil
		}
		cursor = p.NextCursor
	}
	return nil, errors.New("conversation list did not end after 1000 pages")
}

// verify checks the restarted app against everything announced so far, then
// answers the pending cards and retries interrupted runs until every
// conversation is idle again. It returns a one-line summary.
func (h *harness) verify(r int, api *apiClient, st *sseStream) (string, error) {
	h.answered = map[string]bool{}
	var health struct {
		Status string `json:"status"`
	}
	if err := api.get("/api/v1/health", &health); err != nil || health.Status != "ok" {
		return "", fmt.Errorf("health after restart: %+v %v", health, err)
	}
	var settings struct {
		RateLimit float64 `json:"rate_limit_seconds"`
	}
	if err := api.get("/api/v1/settings", &settings); err != nil {
		return "", err
	}
	if settings.RateLimit != 0 {
		h.fail(r, "settings-lost", "saved setting rate_limit_seconds=0 came back as %v", settings.RateLimit)
	}

	known := h.rec.conversations()
	listed, err := listAll(api)
	if err != nil {
		return "", fmt.Errorf("list conversations after restart: %w", err)
	}
	seen := map[string]int{}
	for _, id := range listed {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			h.fail(r, "dup-"+id, "conversation %s listed %d times when paging", id, n)
		}
	}
	for _, id := range known {
		if seen[id] == 0 {
			h.fail(r, "list-"+id, "conversation %s (created in round %d) is missing from the conversation list", id, h.rec.convs[id])
		}
	}

	msgs, cards := h.rec.snapshot()
	msgsByConv := map[string][]annMsg{}
	for _, m := range msgs {
		msgsByConv[m.conv] = append(msgsByConv[m.conv], m)
	}
	cardsByConv := map[string][]annCard{}
	for _, c := range cards {
		cardsByConv[c.conv] = append(cardsByConv[c.conv], c)
	}

	details := map[string]*apiConversation{}
	storedCards := map[string][]apiCard{}
	states := map[string]int{}
	var pendingCards []apiCard
	var errored []string
	var continuing []string       // conversations whose run went on by itself after the restart
	silent := map[string]string{} // resolved card -> why its idle conversation is unfinished
	stopped := map[string]bool{}  // conversations whose run the user cancelled: nothing to continue or retry
	checkedMsgs, checkedCards := 0, 0
	for _, id := range known {
		var d apiConversation
		if err := api.get("/api/v1/conversations/"+id, &d); err != nil {
			h.fail(r, "get-"+id, "conversation %s after restart: %v", id, err)
			continue
		}
		details[id] = &d
		states[d.State]++
		stored := map[string]apiMessage{}
		for _, m := range d.Messages {
			if _, dup := stored[m.ID]; dup {
				h.fail(r, "dupmsg-"+m.ID, "conversation %s holds message %s twice", id, m.ID)
			}
			stored[m.ID] = m
		}
		for _, m := range msgsByConv[id] {
			checkedMsgs++
			got, ok := stored[m.id]
			switch {
			case !ok:
				h.fail(r, "msg-"+m.id, "announced %s message %s (message:done in round %d) is missing from conversation %s after the restart; content %q",
					m.role, m.id, m.round, id, clip(m.content))
			case got.Role != m.role || got.Content != m.content:
				h.fail(r, "msgdiff-"+m.id, "message %s in %s differs from its announcement (round %d): stored %s %q, announced %s %q",
					m.id, id, m.round, got.Role, clip(got.Content), m.role, clip(m.content))
			case !slices.Equal(toolCallIDs(got.ToolCalls), m.toolCalls):
				h.fail(r, "msgtc-"+m.id, "message %s in %s: stored tool calls %v, announced %v", m.id, id, toolCallIDs(got.ToolCalls), m.toolCalls)
			}
		}

		var list []apiCard
		if err := api.get("/api/v1/conversations/"+id+"/questions", &list); err != nil {
			h.fail(r, "cards-"+id, "cards of %s after restart: %v", id, err)
			continue
		}
		storedCards[id] = list
		byID := map[string]apiCard{}
		for _, c := range list {
			byID[c.ID] = c
			if c.Status == "pending" {
				pendingCards = append(pendingCards, c)
			}
		}
		for _, c := range cardsByConv[id] {
			checkedCards++
			got, ok := byID[c.id]
			switch {
			case !ok:
				h.fail(r, "card-"+c.id, "announced card %s (%s via %s in round %d) is missing from conversation %s after the restart", c.id, c.status, c.via, c.round, id)
			case !atLeast(got.Status, c.status):
				h.fail(r, "cardstatus-"+c.id+got.Status, "card %s in %s was announced %s (via %s in round %d) but is %s after the restart",
					c.id, id, c.status, c.via, c.round, got.Status)
			}
		}

		// A run the user stopped by cancelling one of its cards stays stopped
		// (SPEC §1): after the restart it is neither an error offering a
		// retry nor a run that goes on.
		if c := cancelledLast(d.Messages, list); c != nil && d.State != "idle" {
			h.fail(r, "cancelnotidle-"+c.ID, "conversation %s is %s (%q) after the restart, although the user had cancelled card %s of its last run, "+
				"which must stop it and leave the conversation idle. %s The card's run %s is %s in storage.",
				id, d.State, d.Error, c.ID, h.announcedAs(c.ID), c.RunID, runStatus(api, id, c.RunID))
			stopped[id] = true
		}

		// The state the user sees must tell the truth about the history.
		switch d.State {
		case "awaiting_user_response":
			if d.PendingQuestion == nil {
				h.fail(r, "awaitnocard-"+id, "conversation %s is awaiting_user_response without a pending card", id)
			}
		case "error":
			if d.Error == "" {
				h.fail(r, "errnomsg-"+id, "conversation %s is in state error without an error message", id)
			}
			errored = append(errored, id)
		case "idle":
			if d.PendingQuestion != nil {
				h.fail(r, "idlecard-"+id, "conversation %s is idle but has pending card %s", id, d.PendingQuestion.ID)
			} else if why, open := unfinished(d.Messages); why != "" {
				if c := resolvedCardFor(list, open); c != nil {
					silent[c.ID] = why // reported by the answer check below, with the run's state
				} else {
					h.fail(r, "silentidle-"+id, "conversation %s shows idle after the restart, with no error and nothing to answer, but the assistant never finished: %s. %s",
						id, why, h.cardContext(list))
				}
			}
		case "requesting", "streaming", "tool_executing":
			// A run that was awaiting an answer the user gave just before
			// the kill goes on by itself with that answer. Its history may
			// already be finished here (the state is read before the
			// messages); settle checks that the run ends idle.
			continuing = append(continuing, id)
		default:
			h.fail(r, "state-"+id, "conversation %s is %q right after the restart", id, d.State)
		}
	}

	var inbox []apiCard
	if err := api.get("/api/v1/questions?status=pending", &inbox); err != nil {
		return "", err
	}
	inboxIDs := map[string]bool{}
	for _, c := range inbox {
		inboxIDs[c.ID] = true
	}
	pendingIDs := map[string]bool{}
	for _, c := range pendingCards {
		pendingIDs[c.ID] = true
		if !inboxIDs[c.ID] {
			h.fail(r, "inbox-"+c.ID, "pending card %s of %s is not in /questions?status=pending", c.ID, c.ConversationID)
		}
		if d := details[c.ConversationID]; d != nil && d.PendingQuestion == nil {
			// The conversation was read before its card list: a run that
			// went on by itself may have asked the card in between. Nobody
			// answers it meanwhile, so the conversation must show it now.
			var again apiConversation
			if err := api.get("/api/v1/conversations/"+c.ConversationID, &again); err != nil || again.PendingQuestion == nil {
				h.fail(r, "nopq-"+c.ID, "conversation %s has pending card %s but shows no pending_question (state %s, then %s %v)",
					c.ConversationID, c.ID, d.State, again.State, err)
			}
		}
	}
	for _, c := range inbox {
		if pendingIDs[c.ID] {
			continue
		}
		// Asked after its conversation was looked at (by a run that went
		// on by itself): it must be a pending card of that conversation.
		var list []apiCard
		if err := api.get("/api/v1/conversations/"+c.ConversationID+"/questions", &list); err != nil {
			h.fail(r, "inboxconv-"+c.ID, "cards of %s: %v", c.ConversationID, err)
			continue
		}
		if !slices.ContainsFunc(list, func(x apiCard) bool { return x.ID == c.ID && x.Status == "pending" }) {
			h.fail(r, "inboxextra-"+c.ID, "card %s in /questions?status=pending is not a pending card of its conversation %s", c.ID, c.ConversationID)
		}
	}

	// Continue: answer every pending card (its run must go on and finish)
	// and retry every interrupted run.
	targets := map[string]string{} // conversation -> what was done
	for _, c := range pendingCards {
		var p struct {
			Has bool   `json:"has_pending_question"`
			ID  string `json:"question_id"`
		}
		if err := api.get("/api/v1/conversations/"+c.ConversationID+"/pending-question", &p); err != nil || !p.Has {
			h.fail(r, "pq-"+c.ID, "pending-question of %s: %+v %v", c.ConversationID, p, err)
		}
		var got apiCard
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.ConversationID+"/respond", answerFor(&c), http.StatusOK, &got); err != nil {
			h.fail(r, "respond-"+c.ID, "answering card %s (pending across the restart) in %s: %v", c.ID, c.ConversationID, err)
			continue
		}
		h.rec.card(r, &got, "respond after restart")
		h.answered[c.ID] = true
		if got.Status != "answered" {
			h.fail(r, "respondstatus-"+c.ID, "card %s answered after the restart has status %s", c.ID, got.Status)
		}
		targets[c.ConversationID] = "answered restored card " + c.ID
	}
	for _, id := range continuing {
		if _, ok := targets[id]; !ok && !stopped[id] {
			targets[id] = continued
		}
	}
	for _, id := range errored {
		if _, ok := targets[id]; ok || stopped[id] {
			continue
		}
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+id+"/retry", nil, http.StatusAccepted, nil); err != nil {
			h.fail(r, "retry-"+id, "retry of interrupted conversation %s: %v", id, err)
			continue
		}
		targets[id] = "retried"
	}
	if err := h.settle(r, api, st, targets, storedCards); err != nil {
		h.fail(r, "settle-"+strconv.Itoa(r), "%v", err)
	}

	// Every card the user answered, skipped or cancelled must have reached
	// the model as a tool result: the answer is the user's data.
	ready := []string{}
	for _, id := range known {
		var d apiConversation
		if err := api.get("/api/v1/conversations/"+id, &d); err != nil {
			h.fail(r, "get2-"+id, "%v", err)
			continue
		}
		var list []apiCard
		if err := api.get("/api/v1/conversations/"+id+"/questions", &list); err != nil {
			h.fail(r, "cards2-"+id, "%v", err)
			continue
		}
		results := map[string]int{}
		for _, m := range d.Messages {
			if m.Role == "tool" {
				results[m.ToolCallID]++
			}
		}
		for _, c := range list {
			switch c.Status {
			case "answered", "declined", "cancelled":
				if results[c.ToolCallID] != 0 {
					break
				}
				if why, ok := silent[c.ID]; ok {
					h.fail(r, "lost-"+c.ID, "card %s in conversation %s is %s, but after the restart the conversation shows idle with no error and nothing to answer, "+
						"so the answer never reaches the assistant and nothing offers a retry: %s. %s The card's run %s is %s in storage.",
						c.ID, id, c.Status, why, h.announcedAs(c.ID), c.RunID, runStatus(api, id, c.RunID))
				} else {
					h.fail(r, "lost-"+c.ID, "card %s in conversation %s is %s, but its answer never reached the assistant: no tool result for call %s (conversation state %s). %s The card's run %s is %s in storage.",
						c.ID, id, c.Status, c.ToolCallID, d.State, h.announcedAs(c.ID), c.RunID, runStatus(api, id, c.RunID))
				}
			}
		}
		var runs map[string]string // run id -> stored status, loaded when needed
		for _, c := range list {
			if c.Status != "cancelled" {
				continue
			}
			if runs == nil {
				if runs, err = runStatuses(api, id); err != nil {
					h.fail(r, "runs-"+id, "runs of %s: %v", id, err)
					break
				}
			}
			if st := runs[c.RunID]; st != "cancelled" {
				h.fail(r, "cancelrun-"+c.ID, "card %s in conversation %s is cancelled, but its run %s is %q in storage, want \"cancelled\" (the cancel stops the run). %s",
					c.ID, id, c.RunID, st, h.announcedAs(c.ID))
			}
		}
		for call, n := range results {
			if n > 1 {
				h.fail(r, "dupresult-"+id+call, "conversation %s has %d tool results for call %s", id, n, call)
			}
		}
		if d.State == "idle" {
			ready = append(ready, id)
		} else {
			h.fail(r, "notidle-"+id, "conversation %s is %s (%s) after answering and retrying, want idle", id, d.State, d.Error)
		}
	}
	h.ready = ready
	agents := h.checkAgentCards(r, api)

	h.rec.mu.Lock()
	anomalies := slices.Clone(h.rec.anomalies)
	h.rec.mu.Unlock()
	for _, a := range anomalies {
		h.fail(r, "anomaly-"+a, "%s", a)
	}

	stateNames := make([]string, 0, len(states))
	for s, n := range states {
		stateNames = append(stateNames, fmt.Sprintf("%s=%d", s, n))
	}
	sort.Strings(stateNames)
	return fmt.Sprintf("%d msgs + %d cards found, states %s; %d card(s) answered, %d run(s) retried; agent cards: %s",
		checkedMsgs, checkedCards, strings.Join(stateNames, " "), len(pendingCards), len(targets)-len(pendingCards), agents), nil
}

// settle drives the target conversations until each is idle with a new
// assistant message, answering every card they ask.
func (h *harness) settle(r int, api *apiClient, st *sseStream, targets map[string]string, before map[string][]apiCard) error {
	type progress struct{ idle, replied bool }
	prog := map[string]*progress{}
	for id := range targets {
		prog[id] = &progress{}
	}
	deadline := time.NewTimer(settleTimeout)
	defer deadline.Stop()
	// A run that continued by itself may have ended before the event stream
	// was opened: those conversations are also polled.
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		finished := true
		for _, p := range prog {
			finished = finished && p.idle && p.replied
		}
		if finished {
			return nil
		}
		var ev sseEvent
		var ok bool
		select {
		case ev, ok = <-st.C:
		case <-poll.C:
			for id, p := range prog {
				if targets[id] != continued || p.idle && p.replied {
					continue
				}
				var d apiConversation
				if err := api.get("/api/v1/conversations/"+id, &d); err != nil {
					return fmt.Errorf("poll conversation %s: %w", id, err)
				}
				if why, _ := unfinished(d.Messages); d.State == "idle" && why == "" {
					p.idle, p.replied = true, true
				}
			}
			continue
		case <-deadline.C:
			var stuck []string
			for id, p := range prog {
				if !p.idle || !p.replied {
					stuck = append(stuck, fmt.Sprintf("%s (%s: idle=%v, new assistant message=%v)", id, targets[id], p.idle, p.replied))
				}
			}
			sort.Strings(stuck)
			return fmt.Errorf("runs did not finish within %s after the restart: %s", settleTimeout, strings.Join(stuck, "; "))
		}
		if !ok {
			return fmt.Errorf("event stream of the restarted app ended: %v", st.err)
		}
		p := prog[ev.Conv]
		if p == nil {
			continue
		}
		switch ev.Name {
		case "message:done":
			var m struct {
				Message apiMessage `json:"message"`
			}
			_ = json.Unmarshal(ev.Data, &m)
			if m.Message.Role == "assistant" {
				p.replied = true
			}
		case "question:ask":
			var card apiCard
			if err := json.Unmarshal(ev.Data, &card); err != nil {
				return err
			}
			for _, old := range before[card.ConversationID] {
				if old.ToolCallID == card.ToolCallID && old.ID != card.ID && old.Status != "pending" {
					h.fail(r, "reask-"+old.ID, "after the restart (%s) the assistant asked card %s again as %s for the same tool call %s, although the user had already %s it. %s",
						targets[ev.Conv], old.ID, card.ID, card.ToolCallID, old.Status, h.announcedAs(old.ID))
				}
			}
			if h.answered[card.ID] {
				continue
			}
			h.answered[card.ID] = true
			var got apiCard
			if err := api.expect(http.MethodPost, "/api/v1/conversations/"+card.ConversationID+"/respond", answerFor(&card), http.StatusOK, &got); err != nil {
				return fmt.Errorf("answer card %s after the restart: %w", card.ID, err)
			}
			h.rec.card(r, &got, "respond after restart")
		case "conversation:state":
			var s apiState
			_ = json.Unmarshal(ev.Data, &s)
			switch s.State {
			case "idle":
				p.idle = true
			case "error":
				return fmt.Errorf("conversation %s (%s) failed after the restart: %s", ev.Conv, targets[ev.Conv], s.Error)
			default:
				p.idle = false
			}
		}
	}
}

// continued marks a target conversation whose run went on by itself after
// the restart (see verify).
const continued = "continued after the restart"

// unfinished explains why a history is not a finished exchange ("" when it
// is): the last turn must be the assistant's final answer, or a run the user
// stopped by cancelling a card. open lists the tool calls left without a result.
func unfinished(msgs []apiMessage) (why string, open []string) {
	if len(msgs) == 0 {
		return "", nil
	}
	last := msgs[len(msgs)-1]
	switch {
	case last.Role == "assistant" && len(last.ToolCalls) == 0:
		return "", nil
	case last.Role == "user":
		return fmt.Sprintf("the last message is the user's %s %q, with no reply", last.ID, clip(last.Content)), nil
	}
	// Tool calls and results at the end: fine only if the user cancelled.
	answered := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == "tool" {
			if m.Content == userCancelled {
				return "", nil
			}
			answered[m.ToolCallID] = true
			continue
		}
		if m.Role == "assistant" {
			var names []string
			for _, tc := range m.ToolCalls {
				if !answered[tc.ID] {
					open = append(open, tc.ID)
					names = append(names, tc.Name+" "+tc.ID)
				}
			}
			if len(open) > 0 {
				return fmt.Sprintf("assistant message %s ends the history with tool call(s) %v that have no result", m.ID, names), open
			}
			return fmt.Sprintf("the history ends with tool results of assistant message %s, and the model was never called with them", m.ID), nil
		}
		break
	}
	return fmt.Sprintf("the last message is a %s message %s", last.Role, last.ID), nil
}

// resolvedCardFor returns the answered, declined or cancelled card of one of
// the open tool calls, if any.
func resolvedCardFor(list []apiCard, open []string) *apiCard {
	for i := range list {
		switch list[i].Status {
		case "answered", "declined", "cancelled":
			if slices.Contains(open, list[i].ToolCallID) {
				return &list[i]
			}
		}
	}
	return nil
}

// runStatus is a run's stored status, read from the conversation's JSON export.
func runStatus(api *apiClient, conv, runID string) string {
	runs, err := runStatuses(api, conv)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if st, ok := runs[runID]; ok {
		return strconv.Quote(st)
	}
	return "missing"
}

// runStatuses maps the conversation's runs to their stored statuses, read
// from its JSON export.
func runStatuses(api *apiClient, conv string) (map[string]string, error) {
	status, b, err := api.call(http.MethodGet, "/api/v1/conversations/"+conv+"/export?format=json", nil)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("export: %d %v", status, err)
	}
	var doc struct {
		Runs []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	runs := map[string]string{}
	for _, run := range doc.Runs {
		runs[run.ID] = run.Status
	}
	return runs, nil
}

// cancelledLast returns the cancelled card of one of the tool calls of the
// history's last assistant message (after the last user turn), if any: the
// user stopped that run.
func cancelledLast(msgs []apiMessage, list []apiCard) *apiCard {
	var calls []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
		if msgs[i].Role == "assistant" {
			calls = toolCallIDs(msgs[i].ToolCalls)
			break
		}
	}
	for i := range list {
		if list[i].Status == "cancelled" && slices.Contains(calls, list[i].ToolCallID) {
			return &list[i]
		}
	}
	return nil
}

// cardContext describes the conversation's newest card for a failure message.
func (h *harness) cardContext(list []apiCard) string {
	if len(list) == 0 {
		return "It has no cards."
	}
	last := list[len(list)-1]
	return fmt.Sprintf("Its newest card %s (tool call %s) is %s; %s", last.ID, last.ToolCallID, last.Status, h.announcedAs(last.ID))
}

func (h *harness) announcedAs(cardID string) string {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if c, ok := h.rec.cards[cardID]; ok {
		return fmt.Sprintf("Before the kill the server announced it %s (via %s, round %d).", c.status, c.via, c.round)
	}
	return "It was never announced."
}

func atLeast(got, announced string) bool {
	switch {
	case got == announced:
		return true
	case statusRank(announced) == 2:
		return false // a final status never changes
	case announced == "timed_out":
		return got == "answered_late" || got == "superseded"
	}
	return statusRank(got) >= statusRank(announced)
}

func toolCallIDs(tcs []apiToolCall) []string {
	var ids []string
	for _, tc := range tcs {
		ids = append(ids, tc.ID)
	}
	return ids
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

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

// ---------------------------------------------------------------------------
// An agent's cards (SPEC §10).

const agentName = "crash-agent"

// agentCard is a card an agent filed through POST /api/v1/asks.
type agentCard struct {
	id, conv, question string
	round              int
	result             string // the §1 result the agent got ("" while pending)
}

// fileAgentCard files this round's agent card (it is pending at the kill),
// making the agent token in round 1 (it must survive every kill too).
func (h *harness) fileAgentCard(r int, api *apiClient) error {
	if h.agentToken == "" {
		var tok struct {
			Token string `json:"token"`
		}
		if err := api.expect(http.MethodPost, "/api/v1/agent-tokens", map[string]any{"name": agentName}, http.StatusCreated, &tok); err != nil {
			return fmt.Errorf("make the agent token: %w", err)
		}
		h.agentToken = tok.Token
	}
	q := fmt.Sprintf("Deploy the build of round %d?", r)
	var filed struct {
		ID     string `json:"question_id"`
		Conv   string `json:"conversationId"`
		Status string `json:"status"`
	}
	body := map[string]any{"questions": []any{map[string]any{"question": q, "options": []string{"Yes", "No"}}},
		"context": fmt.Sprintf("Round %d is built.", r), "timeout_seconds": 0}
	if err := api.as(h.agentToken).expect(http.MethodPost, "/api/v1/asks", body, http.StatusCreated, &filed); err != nil {
		return fmt.Errorf("an agent's card: %w", err)
	}
	if filed.Status != "pending" || filed.ID == "" || filed.Conv == "" {
		return fmt.Errorf("an agent's card was filed as %+v, want a pending card with its conversation", filed)
	}
	h.agentCards = append(h.agentCards, &agentCard{id: filed.ID, conv: filed.Conv, question: q, round: r})
	return nil
}

// agentAsk is GET /api/v1/asks/{id}.
type agentAsk struct {
	ID     string `json:"question_id"`
	Status string `json:"status"`
	Result string `json:"result"`
}

// checkAgentCards checks every agent card after a restart: the agent still
// reaches it with its token; a pending one is in the inbox; an answered one
// keeps its result. Then the user answers those filed before this round
// (each stayed pending across at least two kills) and the agent must get
// exactly the §1 result; no model runs in the agent's conversation. It
// returns a summary.
func (h *harness) checkAgentCards(r int, api *apiClient) string {
	agent := api.as(h.agentToken)
	var inbox []apiCard
	if err := api.get("/api/v1/questions?status=pending", &inbox); err != nil {
		h.fail(r, "agentinbox-"+strconv.Itoa(r), "inbox: %v", err)
	}
	inInbox := map[string]bool{}
	for _, c := range inbox {
		inInbox[c.ID] = true
	}
	pending, answered := 0, 0
	for _, c := range h.agentCards {
		var got agentAsk
		if err := agent.get("/api/v1/asks/"+c.id, &got); err != nil {
			h.fail(r, "agentget-"+c.id, "the agent's card %s of round %d after the restart: %v", c.id, c.round, err)
			continue
		}
		if c.result != "" {
			if got.Status != "answered" || got.Result != c.result {
				h.fail(r, "agentkept-"+c.id, "the agent's card %s of round %d was answered with %s, after the restart it reads %+v", c.id, c.round, c.result, got)
			}
			continue
		}
		if got.Status != "pending" || got.Result != "" {
			h.fail(r, "agentpending-"+c.id, "the agent's card %s of round %d was left pending, after the restart it reads %+v", c.id, c.round, got)
			continue
		}
		if !inInbox[c.id] {
			h.fail(r, "agentinbox-"+c.id, "the agent's pending card %s of round %d is not in /questions?status=pending after the restart", c.id, c.round)
		}
		if c.round == r {
			pending++ // left pending across the next kill
			continue
		}
		answer := map[string]any{"question_id": c.id, "action": "submit", "answers": map[string]any{c.question: map[string]any{"selected": []string{"Yes"}}}}
		if err := api.expect(http.MethodPost, "/api/v1/conversations/"+c.conv+"/respond", answer, http.StatusOK, nil); err != nil {
			h.fail(r, "agentrespond-"+c.id, "answering the agent's card %s of round %d after the restart: %v", c.id, c.round, err)
			continue
		}
		want, _ := json.Marshal(map[string]any{"answers": map[string]string{c.question: "Yes"}})
		if err := agent.get("/api/v1/asks/"+c.id+"?wait=30", &got); err != nil || got.Status != "answered" || got.Result != string(want) {
			h.fail(r, "agentresult-"+c.id, "the agent's card %s of round %d, answered: the agent got %+v (%v), want status answered and result %s", c.id, c.round, got, err, want)
			continue
		}
		c.result = got.Result
		answered++
	}
	if len(h.agentCards) > 0 {
		var conv apiConversation
		conv0 := h.agentCards[0].conv
		if err := api.get("/api/v1/conversations/"+conv0, &conv); err != nil {
			h.fail(r, "agentconv-"+strconv.Itoa(r), "the agent's conversation %s: %v", conv0, err)
		} else {
			for _, m := range conv.Messages {
				if m.Role == "tool" || m.Role == "user" {
					h.fail(r, "agentrun-"+m.ID, "the agent's conversation %s holds a %s message %q: no model runs there", conv0, m.Role, clip(m.Content))
				}
			}
			if conv.State != "idle" && conv.State != "awaiting_user_response" {
				h.fail(r, "agentstate-"+strconv.Itoa(r), "the agent's conversation %s is %s", conv0, conv.State)
			}
		}
		for _, c := range h.agentCards {
			if c.conv != conv0 {
				h.fail(r, "agentconvs-"+c.id, "the agent's cards are in two conversations: %s and %s", conv0, c.conv)
			}
		}
	}
	return fmt.Sprintf("%d pending across the kill, %d answered now, %d filed", pending, answered, len(h.agentCards))
}
