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

// runServe is `parley serve`: the HTTP API and the UI for a browser, until
// SIGINT/SIGTERM. Pending cards stay pending in storage across a restart.
func runServe(cfg config.Config, ui fs.FS) error {
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("invalid --addr %q: %w", cfg.Addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("refusing to listen on %s: Parley's API is for this computer only; use 127.0.0.1", cfg.Addr)
	}
	c, err := openCore(cfg)
	if err != nil {
		return err
	}
	defer c.close()
	token := cfg.Token
	if token == "" {
		if token, err = httpapi.LoadOrCreateToken(cfg.DataDir); err != nil {
			return err
		}
	}
	api := httpapi.New(httpapi.Options{Backend: c.svc, Broker: c.broker, Token: token, Version: version, UI: ui})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	// Cancelling the base context ends the SSE streams at shutdown.
	baseCtx, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return baseCtx }}

	base := "http://" + ln.Addr().String()
	fmt.Printf("Parley %s is serving on %s\n", version, base)
	fmt.Printf("Open this link to log in (works once): %s/login?code=%s\n", base, api.LoginCode())
	if cfg.Token == "" {
		fmt.Printf("API token (Authorization: Bearer ...) is in %s\n", cfg.DataDir+string(os.PathSeparator)+httpapi.TokenFile)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	slog.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	endStreams()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		slog.Warn("shutdown", "err", err)
	}
	_ = srv.Close()
	return nil
}
