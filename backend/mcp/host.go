package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// Errors of the Host (*fault.Error). A bad server name, configuration or
// policy is of kind fault.Input (HTTP 400): its text is a catalogue message
// (Settings → Tools shows it), said again in an HTTP client's language by
// i18n.Localize.
var (
	// ErrNotFound: no such server, or no such tool of the server (HTTP 404).
	ErrNotFound error = fault.Newf(fault.NotFound, "not found")
	// ErrStopped: the host has stopped (the app is closing).
	ErrStopped = errors.New("the MCP host has stopped")
)

func inputErr(key string, args ...any) *fault.Error {
	return fault.New(fault.Input, i18n.M(key, args...))
}

// notFound is ErrNotFound said for one server or tool.
func notFound(text i18n.Message) error { return fault.Wrap(fault.NotFound, text, ErrNotFound) }

func serverNotFound(name string) error { return notFound(i18n.M("mcp.serverNotFound", name)) }

// Defaults of Options.
const (
	DefaultCallTimeout    = 60 * time.Second
	DefaultConnectTimeout = 30 * time.Second
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultTerminate      = 2 * time.Second
)

// Options configure a Host.
type Options struct {
	// Path is mcp.json; "" keeps the configuration in memory only.
	Path   string
	Events events.Emitter
	Logger *slog.Logger
	// CallTimeout bounds one tool call (time spent on an elicitation card
	// does not count); a server's "timeout" in mcp.json overrides it.
	CallTimeout    time.Duration
	ConnectTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before restarting a server
	// that died or failed to start; it doubles on each failure in a row.
	MinBackoff, MaxBackoff time.Duration
	// Terminate is how long a stdio server gets to exit after its stdin is
	// closed (and again after SIGTERM) before it is killed.
	Terminate time.Duration
	Version   string
}

// Host runs the configured MCP servers. It is safe for concurrent use.
type Host struct {
	opt Options
	log *slog.Logger

	mu       sync.Mutex
	file     fileConfig
	loadErr  error // mcp.json could not be read: it is never overwritten then
	servers  map[string]*server
	names    map[toolKey]string // model names of every listed tool
	started  bool
	stopped  bool
	wg       sync.WaitGroup // supervisors
	bg       sync.WaitGroup // tool list refreshes
	callSeq  uint64
	saveLock sync.Mutex // one writer of mcp.json at a time
}

// server is one configured server and its connection state.
type server struct {
	name    string
	cfg     ServerConfig
	status  string
	err     string
	tools   []*sdk.Tool // as last listed; kept while disconnected
	session *sdk.ClientSession
	stderr  *tailBuffer
	stop    context.CancelFunc // the supervisor's; nil when none runs
	done    chan struct{}      // closed when the supervisor has returned
	changed chan struct{}      // closed and replaced at every state change
	calls   map[uint64]*activeCall
}

// New reads the configuration. A file that cannot be read does not stop
// Parley: the host starts without servers, reports the problem in
// LoadError and refuses changes, so the user's file is never overwritten.
func New(opt Options) *Host {
	if opt.Events == nil {
		opt.Events = events.Discard
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	opt.CallTimeout = cmp.Or(opt.CallTimeout, DefaultCallTimeout)
	opt.ConnectTimeout = cmp.Or(opt.ConnectTimeout, DefaultConnectTimeout)
	opt.MinBackoff = cmp.Or(opt.MinBackoff, DefaultMinBackoff)
	opt.MaxBackoff = max(cmp.Or(opt.MaxBackoff, DefaultMaxBackoff), opt.MinBackoff)
	opt.Terminate = cmp.Or(opt.Terminate, DefaultTerminate)
	h := &Host{opt: opt, log: opt.Logger.With("component", "mcp"), servers: map[string]*server{}}
	h.file = fileConfig{Servers: map[string]ServerConfig{}, other: map[string]json.RawMessage{}}
	if opt.Path != "" {
		fc, err := loadFile(opt.Path)
		if err != nil {
			h.loadErr = err
			h.log.Error("MCP servers not loaded; fix the file and restart Parley", "err", err)
		} else {
			h.file = fc
		}
	}
	for name, cfg := range h.file.Servers {
		if !ValidName(name) {
			h.log.Warn("MCP server skipped: invalid name (1-32 letters, digits, _ or -)", "server", name)
			continue
		}
		s := newServer(name, cfg)
		if err := cfg.Validate(); err != nil {
			s.status, s.err = api.MCPError, err.Error() // in the language of the interface
		}
		h.servers[name] = s
	}
	return h
}

func newServer(name string, cfg ServerConfig) *server {
	s := &server{name: name, cfg: cfg, status: api.MCPDisabled, changed: make(chan struct{}), calls: map[uint64]*activeCall{},
		stderr: newTailBuffer(4 << 10)}
	if !cfg.Disabled {
		s.status = api.MCPConnecting
	}
	return s
}

// LoadError is why mcp.json could not be read, or nil.
func (h *Host) LoadError() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loadErr
}

// Start connects every enabled server in the background; it returns at once.
func (h *Host) Start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.started || h.stopped {
		return
	}
	h.started = true
	for _, name := range slices.Sorted(maps.Keys(h.servers)) {
		h.startLocked(h.servers[name])
	}
}

// Stop disconnects every server (running calls are cancelled) and waits
// until their processes and goroutines have ended.
func (h *Host) Stop() {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return
	}
	h.stopped = true
	for _, s := range h.servers {
		if s.stop != nil {
			s.stop()
		}
	}
	h.mu.Unlock()
	h.wg.Wait()
	h.bg.Wait() // every session is closed: no refresh starts any more
}

// startLocked starts the server's supervisor if it should run.
func (h *Host) startLocked(s *server) {
	if !h.started || h.stopped || s.cfg.Disabled || s.stop != nil || s.cfg.Validate() != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.done = make(chan struct{})
	h.wg.Add(1)
	go h.supervise(ctx, s, s.done)
}

// stopServer stops the server's supervisor and waits for it. Called
// without h.mu.
func (h *Host) stopServer(s *server) {
	h.mu.Lock()
	stop, done := s.stop, s.done
	h.mu.Unlock()
	if stop == nil {
		return
	}
	stop()
	<-done
}

// Servers lists the configured servers, by name.
func (h *Host) Servers() []api.MCPServer {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]api.MCPServer, 0, len(h.servers))
	for _, name := range slices.Sorted(maps.Keys(h.servers)) {
		out = append(out, h.viewLocked(h.servers[name]))
	}
	return out
}

// Server returns one server.
func (h *Host) Server(name string) (api.MCPServer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.servers[name]
	if !ok {
		return api.MCPServer{}, serverNotFound(name)
	}
	return h.viewLocked(s), nil
}

// viewLocked is the server as the API shows it: secret values never leave.
func (h *Host) viewLocked(s *server) api.MCPServer {
	v := api.MCPServer{
		Name:       s.name,
		Transport:  s.cfg.Transport(),
		Command:    s.cfg.Command,
		Args:       slices.Clone(s.cfg.Args),
		URL:        s.cfg.URL,
		EnvKeys:    sortedKeys(s.cfg.Env),
		HeaderKeys: sortedKeys(s.cfg.Headers),
		Enabled:    !s.cfg.Disabled,
		Status:     s.status,
		Error:      redact(s.err, s.cfg.secrets()),
	}
	for _, t := range s.tools {
		v.Tools = append(v.Tools, api.MCPTool{Name: t.Name, Description: t.Description,
			Policy: s.cfg.policy(t.Name), ModelName: h.names[toolKey{s.name, t.Name}]})
	}
	return v
}

// policy is a tool's policy (ask unless set).
func (c ServerConfig) policy(tool string) string {
	if p, ok := c.ToolPolicies[tool]; ok && validPolicy(p) {
		return p
	}
	return api.PolicyAsk
}

// emitLocked announces the server's state.
func (h *Host) emitLocked(s *server) {
	h.opt.Events.Emit(events.MCPServer, h.viewLocked(s))
}

// setStateLocked changes the server's state, wakes waiters and announces it.
func (h *Host) setStateLocked(s *server, status, errText string) {
	s.status, s.err = status, errText
	close(s.changed)
	s.changed = make(chan struct{})
	h.emitLocked(s)
}

// renameToolsLocked recomputes the model names after a tool list changed.
func (h *Host) renameToolsLocked() {
	var keys []toolKey
	for _, s := range h.servers {
		for _, t := range s.tools {
			keys = append(keys, toolKey{s.name, t.Name})
		}
	}
	h.names = assignModelNames(keys)
}

// PutServer adds or replaces a server's configuration (policies and
// timeout are kept) and (re)connects it when enabled.
func (h *Host) PutServer(name string, in api.MCPServerConfig) (api.MCPServer, error) {
	if !ValidName(name) {
		return api.MCPServer{}, inputErr("mcp.badName", name)
	}
	h.saveLock.Lock()
	defer h.saveLock.Unlock()
	h.mu.Lock()
	if err := h.writableLocked(); err != nil {
		h.mu.Unlock()
		return api.MCPServer{}, err
	}
	var prev *ServerConfig
	old := h.servers[name]
	if old != nil {
		p := old.cfg.clone()
		prev = &p
	}
	cfg := fromAPI(in, prev)
	if err := cfg.validate(); err != nil {
		h.mu.Unlock()
		return api.MCPServer{}, inputErr("mcp.serverInvalid", name, err.Text)
	}
	if prev != nil {
		cfg.Type = prev.Type
	}
	if err := h.saveLocked(func(fc *fileConfig) { fc.Servers[name] = cfg }); err != nil {
		h.mu.Unlock()
		return api.MCPServer{}, err
	}
	h.mu.Unlock()

	// A changed server reconnects with its new configuration.
	if old != nil {
		h.stopServer(old)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := newServer(name, cfg)
	if old != nil {
		s.tools = old.tools
		s.stderr = old.stderr
	}
	h.servers[name] = s
	h.renameToolsLocked()
	h.startLocked(s)
	h.emitLocked(s)
	h.log.Info("MCP server saved", "server", name, "transport", cfg.Transport(), "enabled", !cfg.Disabled)
	return h.viewLocked(s), nil
}

// DeleteServer stops and removes a server.
func (h *Host) DeleteServer(name string) error {
	h.saveLock.Lock()
	defer h.saveLock.Unlock()
	h.mu.Lock()
	if err := h.writableLocked(); err != nil {
		h.mu.Unlock()
		return err
	}
	s, ok := h.servers[name]
	if !ok {
		h.mu.Unlock()
		return serverNotFound(name)
	}
	if err := h.saveLocked(func(fc *fileConfig) { delete(fc.Servers, name) }); err != nil {
		h.mu.Unlock()
		return err
	}
	delete(h.servers, name)
	h.renameToolsLocked()
	h.mu.Unlock()
	h.stopServer(s)
	h.log.Info("MCP server removed", "server", name)
	return nil
}

// SetToolPolicy sets a listed tool's policy: allow, ask or block.
func (h *Host) SetToolPolicy(serverName, tool, policy string) (api.MCPTool, error) {
	if !validPolicy(policy) {
		return api.MCPTool{}, inputErr("mcp.badPolicy", policy)
	}
	h.saveLock.Lock()
	defer h.saveLock.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.writableLocked(); err != nil {
		return api.MCPTool{}, err
	}
	s, ok := h.servers[serverName]
	if !ok {
		return api.MCPTool{}, serverNotFound(serverName)
	}
	i := slices.IndexFunc(s.tools, func(t *sdk.Tool) bool { return t.Name == tool })
	if i < 0 {
		return api.MCPTool{}, notFound(i18n.M("mcp.toolNotFound", tool, serverName))
	}
	cfg := s.cfg.clone()
	if cfg.ToolPolicies == nil {
		cfg.ToolPolicies = map[string]string{}
	}
	cfg.ToolPolicies[tool] = policy
	if err := h.saveLocked(func(fc *fileConfig) { fc.Servers[serverName] = cfg }); err != nil {
		return api.MCPTool{}, err
	}
	s.cfg = cfg
	h.emitLocked(s)
	h.log.Info("MCP tool policy set", "server", serverName, "tool", tool, "policy", policy)
	t := s.tools[i]
	return api.MCPTool{Name: t.Name, Description: t.Description, Policy: policy, ModelName: h.names[toolKey{serverName, t.Name}]}, nil
}

// Import adds the servers of another host's configuration file (its
// content): {"mcpServers":{...}} (or VS Code's {"servers":{...}}). Servers
// whose name is taken or invalid, or whose configuration is not valid, are
// skipped with the reason; the others are added and started.
func (h *Host) Import(content []byte) (api.MCPImportResult, error) {
	res := api.MCPImportResult{Added: []string{}, Skipped: map[string]string{}}
	fc, err := parseFile(content)
	if err != nil {
		return res, inputErr("mcp.importNotConfig", err.Error())
	}
	if len(fc.Servers) == 0 {
		return res, inputErr("mcp.importNoServers")
	}
	h.saveLock.Lock()
	defer h.saveLock.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.writableLocked(); err != nil {
		return res, err
	}
	added := map[string]ServerConfig{}
	for _, name := range slices.Sorted(maps.Keys(fc.Servers)) {
		cfg := fc.Servers[name]
		switch {
		case !ValidName(name):
			res.Skipped[name] = i18n.T("mcp.importBadName")
		case h.servers[name] != nil:
			res.Skipped[name] = i18n.T("mcp.importNameTaken")
		default:
			if err := cfg.Validate(); err != nil {
				res.Skipped[name] = err.Error()
				continue
			}
			added[name] = cfg
			res.Added = append(res.Added, name)
		}
	}
	if len(added) == 0 {
		return res, nil
	}
	if err := h.saveLocked(func(f *fileConfig) { maps.Copy(f.Servers, added) }); err != nil {
		return api.MCPImportResult{}, err
	}
	for _, name := range res.Added {
		s := newServer(name, added[name])
		h.servers[name] = s
		h.startLocked(s)
		h.emitLocked(s)
	}
	h.log.Info("MCP servers imported", "added", len(res.Added), "skipped", len(res.Skipped))
	return res, nil
}

func (h *Host) writableLocked() error {
	if h.stopped {
		return ErrStopped
	}
	if h.loadErr != nil {
		// A change refused because mcp.json could not be read.
		return fault.Wrap(fault.Internal, i18n.M("mcp.unreadable", ConfigFile, h.loadErr.Error()), h.loadErr)
	}
	return nil
}

// saveLocked applies a change to a copy of the file and writes it; the
// host's copy changes only when the write succeeded.
func (h *Host) saveLocked(change func(*fileConfig)) error {
	next := fileConfig{Servers: maps.Clone(h.file.Servers), other: h.file.other}
	if next.Servers == nil {
		next.Servers = map[string]ServerConfig{}
	}
	change(&next)
	if h.opt.Path != "" {
		if err := saveFile(h.opt.Path, next); err != nil {
			return err
		}
	}
	h.file = next
	return nil
}

// ModelTool is a tool offered to the model.
type ModelTool struct {
	ModelName   string
	Server      string
	Name        string // the MCP tool's own name
	Description string
	InputSchema json.RawMessage
	Policy      string
}

// ModelTools lists the tools of the connected, enabled servers that are
// not blocked, by model name.
func (h *Host) ModelTools() []ModelTool {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []ModelTool
	for _, s := range h.servers {
		if s.cfg.Disabled || s.status != api.MCPConnected {
			continue
		}
		for _, t := range s.tools {
			p := s.cfg.policy(t.Name)
			if p == api.PolicyBlock {
				continue
			}
			out = append(out, ModelTool{ModelName: h.names[toolKey{s.name, t.Name}], Server: s.name, Name: t.Name,
				Description: t.Description, InputSchema: rawSchema(t.Meta, t.InputSchema), Policy: p})
		}
	}
	slices.SortFunc(out, func(a, b ModelTool) int { return cmp.Compare(a.ModelName, b.ModelName) })
	return out
}

// Tool finds a server's tool as last listed (also while disconnected).
func (h *Host) Tool(serverName, tool string) (ModelTool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.servers[serverName]
	if !ok {
		return ModelTool{}, false
	}
	for _, t := range s.tools {
		if t.Name == tool {
			return ModelTool{ModelName: h.names[toolKey{s.name, t.Name}], Server: s.name, Name: t.Name,
				Description: t.Description, InputSchema: rawSchema(t.Meta, t.InputSchema), Policy: s.cfg.policy(t.Name)}, true
		}
	}
	return ModelTool{}, false
}
