// Package engine supervises the built-in engine (SPEC §12): the process
// `parley engine` (backend/engine/sidecar) that runs models on llama.cpp's
// libraries, so that a llama.cpp abort or an out-of-memory kill never
// takes the window down.
//
// The Supervisor starts the engine on first need, on a loopback port with
// a secret made for that start, and waits until it answers; it starts it
// again on the next request after it died; it stops it when it has been
// idle for IdleTimeout (10 minutes), which frees the model's memory. Parley
// speaks to it through Transport, an http.RoundTripper for BaseURL that
// does all of this per request, so the llm client needs no special case; a
// reply in progress when the engine dies fails with one sentence saying
// so. It imports neither Wails nor llama.cpp.
package engine

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/engine/libs"
	"github.com/parley-app/parley/backend/engine/ram"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// States of the engine.
const (
	StateStopped  = "stopped"
	StateStarting = "starting"
	StateReady    = "ready"
	StateError    = "error"
)

// Status is GET /api/v1/engine.
type Status struct {
	State     string  `json:"state"`
	Model     *string `json:"model"`
	Error     string  `json:"error,omitempty"`
	Backend   string  `json:"backend"`
	ModelsDir string  `json:"models_dir"`
	// ModelsDirByFlag: the folder is --models-dir / PARLEY_MODELS_DIR,
	// which wins over the setting (the service fills it in).
	ModelsDirByFlag bool `json:"models_dir_by_flag"`
	// Memory is the machine's (total 0: unknown), against which the
	// model library marks the models too big to run (the service fills
	// it in).
	Memory ram.Machine `json:"memory"`
}

// Model is one model the engine may load.
type Model struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// BaseURL is the base URL Transport serves: the llm client is pointed at
// it (the engine's real address changes at each start).
const BaseURL = "http://parley-engine/v1"

// Codes of the engine's failures (fault.Error's Code).
const (
	CodeStopped     = "engine_stopped"
	CodeStartFailed = "engine_start_failed"
)

// Config configures a Supervisor.
type Config struct {
	// Command runs the engine; the supervisor adds its flags. Default:
	// parley-engine in the engine folder beside this executable when an
	// installer put it there (cmd/parley-engine: no window libraries, ~60
	// MB less memory), else this executable with the argument "engine".
	Command []string
	// Env is added to the engine's environment.
	Env []string
	// LibDir holds the llama.cpp libraries ("" = libs.Dir).
	LibDir string
	// StateDir holds the models file ("" = a temporary folder).
	StateDir string
	// ModelsDir is reported in Status.
	ModelsDir string
	// IdleTimeout stops an engine that has served nothing for this long
	// (0 = 10 minutes).
	IdleTimeout time.Duration
	// StartTimeout bounds a start (0 = 2 minutes).
	StartTimeout time.Duration
	// Context and Threads go to the engine (0 = its defaults: 8192
	// tokens at most, one thread per core).
	Context, Threads int
	// OnState, when set, hears every change of Status (the engine:state
	// event), one at a time, from the goroutine that made the change: it
	// must not block.
	OnState func(Status)
	Logger  *slog.Logger
}

// Supervisor runs the engine process.
type Supervisor struct {
	cfg        Config
	log        *slog.Logger
	modelsFile string
	ownState   bool // StateDir is a temporary folder of its own

	startMu  sync.Mutex // one start at a time
	notifyMu sync.Mutex // OnState is told one change at a time

	mu       sync.Mutex
	proc     *process
	status   Status
	inFlight int
	lastUse  time.Time
	closed   bool
	quit     chan struct{} // closed by Close
	stops    int           // engines stopped for idleness (tests read it)
}

// process is one run of the engine.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	addr   string
	secret string
	done   chan struct{} // closed when it has exited
	err    error         // how it exited (set before done closes)
	asked  bool          // the supervisor stopped it
	client *http.Client
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func defaultCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the engine's executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	name := "parley-engine"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, d := range []string{filepath.Join(filepath.Dir(exe), "engine"), filepath.Join(filepath.Dir(exe), "..", "lib", "parley", "engine")} {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			return []string{filepath.Join(d, name)}, nil
		}
	}
	return []string{exe, "engine"}, nil
}

// New returns a Supervisor; nothing starts until a request needs it.
func New(cfg Config) (*Supervisor, error) {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 10 * time.Minute
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 2 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(cfg.Command) == 0 {
		cmd, err := defaultCommand()
		if err != nil {
			return nil, err
		}
		cfg.Command = cmd
	}
	s := &Supervisor{cfg: cfg, log: cfg.Logger.With("component", "engine"), quit: make(chan struct{})}
	if cfg.StateDir == "" {
		dir, err := os.MkdirTemp("", "parley-engine-")
		if err != nil {
			return nil, err
		}
		s.cfg.StateDir, s.ownState = dir, true
	}
	s.modelsFile = filepath.Join(s.cfg.StateDir, "engine-models.json")
	s.status = Status{State: StateStopped, ModelsDir: cfg.ModelsDir}
	if _, err := os.Stat(s.modelsFile); errors.Is(err, os.ErrNotExist) {
		if err := s.SetModels(nil); err != nil {
			return nil, err
		}
	}
	go s.watchIdle()
	return s, nil
}

// SetModels sets the models the engine may load (it reads the list again
// when asked for a model it has not loaded).
func (s *Supervisor) SetModels(models []Model) error {
	if models == nil {
		models = []Model{}
	}
	b, err := json.Marshal(models)
	if err != nil {
		return err
	}
	tmp := s.modelsFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.modelsFile)
}

// Status is the engine's state now.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// IdleStops is how many times the engine was stopped for idleness.
func (s *Supervisor) IdleStops() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stops
}

// Addr is the running engine's address ("" when none runs).
func (s *Supervisor) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.exited() {
		return ""
	}
	return s.proc.addr
}

// PID is the running engine's process id (0 when none runs).
func (s *Supervisor) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.exited() {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// setStatus changes the status under s.mu and tells OnState.
// The changes reach OnState one at a time, in order.
func (s *Supervisor) setStatus(change func(*Status)) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	s.mu.Lock()
	change(&s.status)
	st := s.status
	s.mu.Unlock()
	if s.cfg.OnState != nil {
		s.cfg.OnState(st)
	}
}

// Close stops the engine and forgets it.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.quit)
	p := s.proc
	s.mu.Unlock()
	if p != nil {
		s.stop(p)
	}
	if s.ownState {
		_ = os.RemoveAll(s.cfg.StateDir)
	}
	return nil
}

// stop asks p to stop (its standard input closes), then kills it if it
// has not exited within 5 seconds.
func (s *Supervisor) stop(p *process) {
	s.mu.Lock()
	p.asked = true
	s.mu.Unlock()
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// running returns the engine, started if it is not running.
func (s *Supervisor) running() (*process, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the engine's supervisor is closed")
	}
	if p := s.proc; p != nil && !p.exited() {
		s.mu.Unlock()
		return p, nil
	}
	s.mu.Unlock()

	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	if p := s.proc; p != nil && !p.exited() { // another request started it
		s.mu.Unlock()
		return p, nil
	}
	s.mu.Unlock()
	p, backend, err := s.start()
	if err != nil {
		s.log.Error("the engine did not start", "err", err)
		s.setStatus(func(st *Status) { st.State, st.Error, st.Model = StateError, err.Error(), nil })
		return nil, &fault.Error{Kind: fault.Internal, Code: CodeStartFailed, Text: i18n.M("engine.startFailed", err.Error()), Err: err}
	}
	s.mu.Lock()
	s.proc = p
	s.lastUse = time.Now()
	s.mu.Unlock()
	s.setStatus(func(st *Status) { st.State, st.Error, st.Backend, st.Model = StateReady, "", backend, nil })
	return p, nil
}

// start runs the engine and waits for its ready line.
func (s *Supervisor) start() (*process, string, error) {
	s.setStatus(func(st *Status) { st.State, st.Error = StateStarting, "" })
	libDir := s.cfg.LibDir
	if libDir == "" {
		d, err := libs.Dir(os.Getenv)
		if err != nil {
			return nil, "", err
		}
		libDir = d
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", err
	}
	args := append([]string{}, s.cfg.Command[1:]...)
	args = append(args, "--lib-dir", libDir, "--models-file", s.modelsFile, "--listen", "127.0.0.1:0",
		"--context", strconv.Itoa(s.cfg.Context), "--threads", strconv.Itoa(s.cfg.Threads))
	cmd := exec.Command(s.cfg.Command[0], args...)
	cmd.Env = append(os.Environ(), s.cfg.Env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	cmd.Stderr = &logWriter{log: s.log}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("run %s: %w", s.cfg.Command[0], err)
	}
	// Its own connections: those to an engine that died are never reused
	// for the next one.
	p := &process{cmd: cmd, stdin: stdin, secret: hex.EncodeToString(secret), done: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second}}}
	if _, err := io.WriteString(stdin, p.secret+"\n"); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, "", fmt.Errorf("give the engine its secret: %w", err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		p.err = err
		s.mu.Unlock()
		close(p.done)
		s.exited(p)
	}()
	var line string
	select {
	case line = <-ready:
	case <-time.After(s.cfg.StartTimeout):
		_ = cmd.Process.Kill()
		<-p.done
		return nil, "", fmt.Errorf("the engine did not answer within %s", s.cfg.StartTimeout)
	}
	var r struct {
		Addr    string `json:"addr"`
		Backend string `json:"backend"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Addr == "" {
		_ = cmd.Process.Kill()
		<-p.done
		return nil, "", fmt.Errorf("the engine stopped before it was ready (%v)%s", p.err, lastLines(cmd.Stderr))
	}
	p.addr = r.Addr
	s.log.Info("engine started", "pid", cmd.Process.Pid, "addr", r.Addr, "backend", r.Backend)
	return p, r.Backend, nil
}

// exited records that p ended.
func (s *Supervisor) exited(p *process) {
	s.mu.Lock()
	current := s.proc == p
	asked, err := p.asked, p.err
	s.mu.Unlock()
	p.client.CloseIdleConnections()
	if !current {
		return
	}
	if asked {
		s.log.Info("engine stopped", "pid", p.cmd.Process.Pid)
		s.setStatus(func(st *Status) { st.State, st.Error, st.Model = StateStopped, "", nil })
		return
	}
	s.log.Error("the engine stopped unexpectedly", "pid", p.cmd.Process.Pid, "err", err)
	s.setStatus(func(st *Status) {
		st.State, st.Model = StateError, nil
		st.Error = i18n.M("engine.stopped").String()
	})
}

// watchIdle stops the engine once it has served nothing for IdleTimeout.
func (s *Supervisor) watchIdle() {
	every := min(max(s.cfg.IdleTimeout/5, 5*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		s.mu.Lock()
		p := s.proc
		idle := p != nil && !p.exited() && s.inFlight == 0 && time.Since(s.lastUse) >= s.cfg.IdleTimeout
		if idle {
			s.stops++
		}
		s.mu.Unlock()
		if idle {
			s.log.Info("engine idle: stopping it", "idle", s.cfg.IdleTimeout)
			s.stop(p)
		}
	}
}

// logWriter passes the engine's log lines to the supervisor's log and
// keeps the last ones (said when a start fails).
type logWriter struct {
	log  *slog.Logger
	mu   sync.Mutex
	last []string
	buf  bytes.Buffer
}

func (w *logWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			break
		}
		line = strings.TrimRight(line, "\n")
		w.log.Info("engine: " + line)
		w.last = append(w.last, line)
		if len(w.last) > 5 {
			w.last = w.last[1:]
		}
	}
	return len(b), nil
}

func lastLines(w io.Writer) string {
	lw, ok := w.(*logWriter)
	if !ok {
		return ""
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(lw.last) == 0 {
		return ""
	}
	return ": " + strings.Join(lw.last, "; ")
}
