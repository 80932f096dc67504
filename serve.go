package main

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

// apiServer is the local HTTP API (and UI) on loopback, used by
// `parley serve` and, when the setting is on, by the desktop app.
type apiServer struct {
	api        *httpapi.Server
	srv        *http.Server
	ln         net.Listener
	endStreams context.CancelFunc
	done       chan error
}

// startAPI listens on addr (loopback only) and serves in the background.
func startAPI(c *core, cfg config.Config, ui fs.FS) (*apiServer, error) {
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
	api := httpapi.New(httpapi.Options{Backend: c.svc, Broker: c.broker, Token: token, Version: version, UI: ui})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	// Cancelling the base context ends the SSE streams at shutdown.
	baseCtx, endStreams := context.WithCancel(context.Background())
	s := &apiServer{api: api, ln: ln, endStreams: endStreams, done: make(chan error, 1),
		srv: &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second,
			BaseContext: func(net.Listener) context.Context { return baseCtx }}}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

func (s *apiServer) url() string { return "http://" + s.ln.Addr().String() }

// stop ends the streams and shuts the server down.
func (s *apiServer) stop() {
	s.endStreams()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		slog.Warn("shutdown API server", "err", err)
	}
	_ = s.srv.Close()
}

// runServe is `parley serve`: the HTTP API and the UI for a browser, until
// SIGINT/SIGTERM. Pending cards stay pending in storage across a restart.
func runServe(cfg config.Config, ui fs.FS) error {
	c, err := openCore(cfg)
	if err != nil {
		return err
	}
	defer c.close()
	s, err := startAPI(c, cfg, ui)
	if err != nil {
		return err
	}
	defer s.stop()

	fmt.Printf("Parley %s is serving on %s\n", version, s.url())
	fmt.Printf("Open this link to log in (works once): %s/login?code=%s\n", s.url(), s.api.LoginCode())
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
