package agentcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/mcpserver"
)

// MCPTokenName names the agent token `parley mcp` makes on first use.
const MCPTokenName = "parley mcp"

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
	agent   string
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
		cs, err := f.connect(ctx, agent, req.Session)
		if err != nil {
			return toolError(err), nil
		}
		res, err := cs.CallTool(ctx, params)
		if err == nil {
			return res, nil
		}
		lastErr = err
		f.log.Info("forwarded call failed; connecting again", "tool", req.Params.Name, "err", err)
		f.drop(cs)
		if ctx.Err() != nil {
			break
		}
	}
	return toolError(fmt.Errorf("%w (%v)", ErrNotRunning, lastErr)), nil
}

func toolError(err error) *sdk.CallToolResult {
	msg := err.Error()
	if errors.Is(err, ErrNotRunning) {
		msg = ErrNotRunning.Error() // one sentence, as the agent shows it
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// connect returns the session to Parley, making it under the agent's name.
func (f *forwarder) connect(ctx context.Context, agent string, caller *sdk.ServerSession) (*sdk.ClientSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.caller = caller
	if f.session != nil && f.agent == agent {
		return f.session, nil
	}
	if f.session != nil {
		_ = f.session.Close()
		f.session = nil
	}
	base, err := ReadListener(f.dataDir)
	if err != nil {
		return nil, err
	}
	token, err := f.agentToken(ctx, base)
	if err != nil {
		return nil, err
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
	hc := &http.Client{Transport: bearerTransport{token: token}}
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotRunning, err)
	}
	f.session, f.agent = cs, agent
	return cs, nil
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

// agentToken is the token `parley mcp` made on first use (kept in the data
// folder, 0600), made now with the API token when there is none.
func (f *forwarder) agentToken(ctx context.Context, base string) (string, error) {
	tok, err := readToken(f.dataDir, AgentTokenFile)
	if err != nil || tok != "" {
		return tok, err
	}
	c, err := newClient(f.dataDir, "")
	if err != nil {
		return "", err
	}
	c.base = base
	var made api.NewAgentToken
	status, msg, err := c.do(ctx, http.MethodPost, "/api/v1/agent-tokens", api.AgentTokenRequest{Name: MCPTokenName}, &made)
	if err != nil {
		return "", err
	}
	if status != http.StatusCreated {
		return "", fmt.Errorf("make an agent token: Parley answered %d: %s", status, msg)
	}
	if err := os.WriteFile(filepath.Join(f.dataDir, AgentTokenFile), []byte(made.Token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep the agent token: %w", err)
	}
	return made.Token, nil
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
