package agentcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/mcpserver"
)

// MCPOptions configure RunMCP.
type MCPOptions struct {
	Args    []string
	Getenv  func(string) string
	Version string
	Logger  *slog.Logger
}

// RunMCP is `parley mcp`: the MCP tools over stdio, each call forwarded to
// the running Parley's /mcp with the calling agent's clientInfo.name. When
// no Parley runs, each call is a tool error that says so in one sentence.
// It returns when the client closes stdin or ctx ends.
func RunMCP(ctx context.Context, opt MCPOptions, transport sdk.Transport) error {
	fs := flag.NewFlagSet("parley mcp", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "Parley's data folder (env PARLEY_DATA_DIR; default: the OS user config dir)")
	if err := fs.Parse(opt.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	dir := *dataDir
	if dir == "" && opt.Getenv != nil {
		dir = opt.Getenv("PARLEY_DATA_DIR")
	}
	if dir == "" {
		d, err := config.DefaultDataDir()
		if err != nil {
			return err
		}
		dir = d
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	f := &forwarder{dataDir: dir, version: opt.Version, log: opt.Logger}
	defer f.close()
	srv := sdk.NewServer(&sdk.Implementation{Name: "parley", Title: "Parley", Version: opt.Version},
		&sdk.ServerOptions{Logger: opt.Logger, Instructions: mcpserver.Instructions})
	for _, t := range mcpserver.Tools() {
		srv.AddTool(t, f.call)
	}
	return srv.Run(ctx, transport)
}

// forwarder holds one client session to the running Parley, made on the
// first call (and again after Parley restarted).
type forwarder struct {
	dataDir, version string
	log              *slog.Logger

	mu      sync.Mutex
	session *sdk.ClientSession
	// tr carries the session's requests: it tells why one failed.
	tr    *bearerTransport
	agent string
	// caller is the stdio session progress notifications go back to.
	caller *sdk.ServerSession
}

func (f *forwarder) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	agent := mcpserver.AgentName(req)
	params := &sdk.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments}
	if tok := req.Params.GetProgressToken(); tok != nil {
		params.SetProgressToken(tok)
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		cs, tr, err := f.connect(ctx, agent, req.Session)
		if err != nil {
			return toolError(err), nil
		}
		res, err := cs.CallTool(ctx, params)
		if err == nil {
			return res, nil
		}
		// Parley may have restarted (a new session, URL or token): connect again.
		lastErr = tr.explain(err)
		f.log.Info("forwarded call failed; connecting again", "tool", req.Params.Name, "err", err)
		f.drop(cs)
		if ctx.Err() != nil {
			break
		}
	}
	return toolError(lastErr), nil
}

func toolError(err error) *sdk.CallToolResult {
	msg := err.Error()
	if errors.Is(err, ErrNotRunning) {
		msg = ErrNotRunning.Error() // one sentence, as the agent shows it
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// connect returns the session to Parley, making it under the agent's name
// with the agent token the running Parley keeps for its commands.
func (f *forwarder) connect(ctx context.Context, agent string, caller *sdk.ServerSession) (*sdk.ClientSession, *bearerTransport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.caller = caller
	if f.session != nil && f.agent == agent {
		return f.session, f.tr, nil
	}
	if f.session != nil {
		_ = f.session.Close()
		f.session = nil
	}
	l, err := ReadListener(f.dataDir)
	if err != nil {
		return nil, nil, err
	}
	if l.Token == "" {
		return nil, nil, errNoToken(l)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: agent, Version: f.version}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, r *sdk.ProgressNotificationClientRequest) {
			f.mu.Lock()
			to := f.caller
			f.mu.Unlock()
			if to != nil {
				_ = to.NotifyProgress(ctx, r.Params)
			}
		},
	})
	tr := &bearerTransport{base: l.URL, token: l.Token}
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: l.URL + "/mcp", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		return nil, nil, tr.explain(err)
	}
	f.session, f.tr, f.agent = cs, tr, agent
	return cs, tr, nil
}

func (f *forwarder) drop(cs *sdk.ClientSession) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.session == cs {
		_ = cs.Close()
		f.session = nil
	}
}

func (f *forwarder) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.session != nil {
		_ = f.session.Close()
		f.session = nil
	}
}

// bearerTransport sends the token, and remembers how the last request to
// Parley ended (the MCP client's errors do not keep the cause).
type bearerTransport struct {
	base, token string

	mu                    sync.Mutex
	refused, unauthorized bool
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	res, err := http.DefaultTransport.RoundTrip(r)
	b.mu.Lock()
	b.refused = connRefused(err)
	b.unauthorized = err == nil && res.StatusCode == http.StatusUnauthorized
	b.mu.Unlock()
	return res, err
}

// explain says why a call to Parley failed: nobody listens, the token was
// refused, or err.
func (b *bearerTransport) explain(err error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.refused || connRefused(err):
		return fmt.Errorf("%w (nothing listens at %s)", ErrNotRunning, b.base)
	case b.unauthorized:
		return errTokenRefused(b.base, false)
	}
	return fmt.Errorf("reach Parley at %s: %w", b.base, err)
}
