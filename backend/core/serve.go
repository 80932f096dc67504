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
}

// StartAPI listens on cfg.Addr (loopback only) and serves in the background.
func StartAPI(c *Core, cfg config.Config, ui fs.FS) (*APIServer, error) {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("invalid --addr %q: %w", cfg.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("refusing to listen on %s: Parley's API is for this computer only; use 127.0.0.1", cfg.Addr)
	}
	token := cfg.Token
	if token == "" {
		if token, err = httpapi.LoadOrCreateToken(cfg.DataDir); err != nil {
			return nil, err
		}
	}
	api := httpapi.New(httpapi.Options{Backend: c.Service, Broker: c.Broker, Token: token, Version: c.Version, UI: ui})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	// Cancelling the base context ends the SSE streams at shutdown.
	baseCtx, endStreams := context.WithCancel(context.Background())
	s := &APIServer{api: api, ln: ln, endStreams: endStreams, done: make(chan error, 1),
		srv: &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second,
			BaseContext: func(net.Listener) context.Context { return baseCtx }}}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// URL is where the server listens.
func (s *APIServer) URL() string { return "http://" + s.ln.Addr().String() }

// Stop ends the streams and shuts the server down.
func (s *APIServer) Stop() {
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
func Serve(cfg config.Config, ui fs.FS, version string) error {
	c, err := Open(Options{Config: cfg, Version: version})
	if err != nil {
		return err
	}
	defer c.Close()
	s, err := StartAPI(c, cfg, ui)
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
	}
	slog.Info("shutting down")
	return nil
}
