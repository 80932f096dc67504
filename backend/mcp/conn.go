package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
)

// supervise keeps one server connected until ctx ends: it connects, lists
// the tools, waits for the session to end, and reconnects after a backoff
// that doubles on each failure in a row.
func (h *Host) supervise(ctx context.Context, s *server, done chan struct{}) {
	defer h.wg.Done()
	defer close(done)
	backoff := h.opt.MinBackoff
	for {
		h.mu.Lock()
		h.setStateLocked(s, api.MCPConnecting, "")
		h.mu.Unlock()

		session, proc, release, err := h.connect(ctx, s)
		if ctx.Err() != nil {
			if session != nil {
				_ = session.Close()
			}
			release()
			h.ended(s)
			return
		}
		if err != nil {
			release()
			msg := h.describe(s, proc, err)
			h.log.Warn("MCP server failed to start", "server", s.name, "err", msg, "retry_in", backoff)
			h.mu.Lock()
			h.setStateLocked(s, api.MCPError, i18n.T("mcp.startFailed", msg))
			h.mu.Unlock()
			if !sleep(ctx, backoff) {
				h.ended(s)
				return
			}
			backoff = min(2*backoff, h.opt.MaxBackoff)
			continue
		}
		connectedAt := time.Now()
		h.log.Info("MCP server connected", "server", s.name)

		waitErr := make(chan error, 1)
		go func() { waitErr <- session.Wait() }()
		select {
		case <-ctx.Done():
			_ = session.Close()
			<-waitErr
			release()
			h.ended(s)
			return
		case err := <-waitErr:
			_ = session.Close()
			release()
			if err == nil {
				err = errors.New("the connection closed")
			}
			msg := h.describe(s, proc, err)
			h.log.Warn("MCP server stopped; restarting", "server", s.name, "err", msg, "retry_in", backoff)
			h.mu.Lock()
			s.session = nil
			h.setStateLocked(s, api.MCPError, i18n.T("mcp.stopped", msg))
			h.mu.Unlock()
		}
		if time.Since(connectedAt) > h.opt.MaxBackoff {
			backoff = h.opt.MinBackoff // it ran well for a while: restart quickly
		}
		if !sleep(ctx, backoff) {
			h.ended(s)
			return
		}
		backoff = min(2*backoff, h.opt.MaxBackoff)
	}
}

// ended records that the server's supervisor stopped (removed, disabled,
// or the host stopped).
func (h *Host) ended(s *server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.session = nil
	s.stop = nil
	if h.stopped || h.servers[s.name] != s {
		// Closing, or replaced or removed (the new entry is announced
		// itself): only wake whoever waits on this one.
		s.status = api.MCPDisabled
		close(s.changed)
		s.changed = make(chan struct{})
		return
	}
	h.setStateLocked(s, api.MCPDisabled, "")
}

// describe is an error message for the user: the error, how the process
// ended and the last line of its stderr, with secrets masked.
func (h *Host) describe(s *server, proc *process, err error) string {
	msg := err.Error()
	if proc != nil {
		if exit := proc.exitError(); exit != nil && !strings.Contains(msg, exit.Error()) {
			msg += " (process " + exit.Error() + ")"
		}
	}
	if line := s.stderr.lastLine(); line != "" {
		msg += ": " + line
	}
	h.mu.Lock()
	secrets := s.cfg.secrets()
	h.mu.Unlock()
	return redact(msg, secrets)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// connect starts the transport, runs the MCP handshake and lists the tools.
// release frees what the transport holds beyond the session (an HTTP
// server's idle connections); call it once the session has ended.
func (h *Host) connect(ctx context.Context, s *server) (_ *sdk.ClientSession, _ *process, release func(), _ error) {
	h.mu.Lock()
	cfg := s.cfg.clone()
	h.mu.Unlock()

	release = func() {}
	var transport sdk.Transport
	var proc *process
	if cfg.Transport() == api.TransportHTTP {
		base := http.DefaultTransport.(*http.Transport).Clone()
		release = base.CloseIdleConnections
		transport = &sdk.StreamableClientTransport{
			Endpoint:   cfg.URL,
			HTTPClient: &http.Client{Transport: headerTransport{headers: cfg.Headers, base: base}},
			// The standalone SSE stream (GET) stays on: a server may send its
			// elicitation/create there rather than on the call's stream (the
			// TypeScript SDK does for Server.request without a related
			// request id, as in the conformance suite's
			// elicitation-sep1034-client-defaults), and tools/list_changed
			// comes that way too. A server without it answers 405, which the
			// SDK takes as "none".
		}
	} else {
		st := &stdioTransport{cfg: cfg, terminate: h.opt.Terminate, stderr: s.stderr}
		t, p, err := st.start()
		if err != nil {
			return nil, nil, release, err
		}
		transport, proc = t, p
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "parley", Title: "Parley", Version: h.opt.Version}, &sdk.ClientOptions{
		// Elicitation in both modes; no roots (Capabilities without RootsV2).
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{
			Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return h.elicit(ctx, s, req)
		},
		ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) {
			h.bg.Add(1)
			go func() {
				defer h.bg.Done()
				h.refreshTools(s, req.Session)
			}()
		},
	})
	cctx, cancel := context.WithTimeout(ctx, h.opt.ConnectTimeout)
	defer cancel()
	session, err := client.Connect(cctx, transport, nil)
	if err != nil {
		if proc != nil {
			_ = proc.Close()
		}
		return nil, proc, release, fmt.Errorf("connect: %w", err)
	}
	tools, err := listTools(cctx, session)
	if err != nil {
		_ = session.Close()
		return nil, proc, release, fmt.Errorf("list tools: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s.session = session
	s.tools = tools
	h.renameToolsLocked()
	h.setStateLocked(s, api.MCPConnected, "")
	return session, proc, release, nil
}

func listTools(ctx context.Context, session *sdk.ClientSession) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// refreshTools lists the tools again after the server said they changed.
func (h *Host) refreshTools(s *server, session *sdk.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), h.opt.ConnectTimeout)
	defer cancel()
	tools, err := listTools(ctx, session)
	if err != nil {
		h.log.Warn("MCP tools not listed again", "server", s.name, "err", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.session != session {
		return
	}
	s.tools = tools
	h.renameToolsLocked()
	h.emitLocked(s)
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}
