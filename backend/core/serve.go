package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/parley-app/parley/backend/agentcli"
	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/httpapi"
)

// APIServer is the local HTTP API (and UI) on loopback, used by
// `parley serve` and, when the setting is on, by the desktop app.
type APIServer struct {
	api        *httpapi.Server
	srv        *http.Server
	ln         net.Listener
	endStreams context.CancelFunc
	done       chan error
	dataDir    string
}

// StartAPI listens on addr (loopback only) and serves in the background:
// the whole API, or while full returns false only the agents' paths
// (SPEC §10; nil = the whole API).
func StartAPI(c *Core, addr string, cfg config.Config, ui fs.FS, full func() bool) (*APIServer, error) {
	if err := config.CheckLoopbackAddr(addr); err != nil {
		return nil, fmt.Errorf("refusing to listen on %s: %w", addr, err)
	}
	var err error
	token := cfg.Token
	if token == "" {
		if token, err = httpapi.LoadOrCreateToken(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	// `parley ask` and `parley mcp` get an agent token of their own (from the
	// listener file), whatever the API token: valid while this listener runs.
	agentToken, err := agentinbox.NewSecret()
	if err != nil {
		return nil, err
	}
	api := httpapi.New(httpapi.Options{Backend: c.Service, Broker: c.Broker, Token: token, Version: c.Version, UI: ui,
		Agents: c.Service.Agents(), FullAPI: full, LocalAgentToken: agentToken})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	// Cancelling the base context ends the SSE streams at shutdown.
	baseCtx, endStreams := context.WithCancel(context.Background())
	s := &APIServer{api: api, ln: ln, endStreams: endStreams, done: make(chan error, 1),
		srv: &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second,
			BaseContext: func(net.Listener) context.Context { return baseCtx }}}
	go func() { s.done <- s.srv.Serve(ln) }()
	// `parley ask` and `parley mcp` find the running Parley here (SPEC §10).
	s.dataDir = cfg.DataDir
	if err := agentcli.WriteListener(cfg.DataDir, s.URL(), agentToken); err != nil {
		slog.Warn("agents' commands will not find this Parley", "err", err)
	}
	return s, nil
}

// URL is where the server listens.
func (s *APIServer) URL() string { return "http://" + s.ln.Addr().String() }

// Stop ends the streams and shuts the server down.
func (s *APIServer) Stop() {
	agentcli.RemoveListener(s.dataDir, s.URL())
	s.endStreams()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		slog.Warn("shutdown API server", "err", err)
	}
	_ = s.srv.Close()
}

// Serve is `parley serve`: the HTTP API and the UI for a browser, until
// SIGINT/SIGTERM. Pending cards stay pending in storage across a restart.
// After an update was applied it stops (the answers under way are
// finished, the database closed) and returns a *Restart.
func Serve(cfg config.Config, ui fs.FS, version string) error {
	c, err := Open(Options{Config: cfg, Version: version})
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := StartAPI(c, cfg.Addr, cfg, ui, nil)
	if err != nil {
		return err
	}
	defer s.Stop()

	fmt.Printf("Parley %s is serving on %s\n", version, s.URL())
	fmt.Printf("Open this link to log in (works once): %s/login?code=%s\n", s.URL(), s.api.LoginCode())
	if cfg.Token == "" {
		fmt.Printf("API token (Authorization: Bearer ...) is in %s\n", cfg.DataDir+string(os.PathSeparator)+httpapi.TokenFile)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-s.done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	case a := <-c.Restarts():
		slog.Info("update installed: shutting down to restart", "version", a.Version)
		return &Restart{a}
	}
	slog.Info("shutting down")
	return nil
}
