package sidecar

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/parley-app/parley/backend/engine/runner"
)

// Ready is the line the engine writes on its standard output once it
// answers: the supervisor reads it to learn the address.
type Ready struct {
	Addr    string `json:"addr"`
	Backend string `json:"backend"`
	PID     int    `json:"pid"`
}

// Main runs the engine process (`parley engine ...`) and returns its exit
// code. The first line of standard input is the secret; the engine stops
// when standard input ends (Parley went away), on SIGTERM or SIGINT.
//
//	--lib-dir DIR        the llama.cpp libraries
//	--models-file FILE   the models it may load (a JSON list of {id, path})
//	--listen ADDR        a loopback address (default 127.0.0.1:0)
//	--context N          context size in tokens (0: 8192, at most the model's)
//	--threads N          0: one per core
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parley engine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	libDir := fs.String("lib-dir", "", "the folder of the llama.cpp libraries")
	modelsFile := fs.String("models-file", "", "a JSON list of {id, path}")
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to listen on")
	nctx := fs.Int("context", 0, "context size in tokens")
	threads := fs.Int("threads", 0, "threads (0: auto)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})).With("engine", os.Getpid())
	fail := func(err error) int {
		fmt.Fprintln(stderr, "parley engine:", err)
		return 1
	}

	in := bufio.NewReader(stdin)
	secret, err := in.ReadString('\n')
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return fail(fmt.Errorf("no secret on standard input: %v", err))
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fail(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fail(fmt.Errorf("the engine listens on loopback only, not %s", *listen))
	}
	backend, err := runner.Load(*libDir)
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(err)
	}
	srv := New(Config{Secret: secret, ModelsFile: *modelsFile, Backend: backend, Context: *nctx, Threads: *threads, Logger: log})
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, in) // until Parley closes it or goes away
		log.Info("standard input closed: stopping")
		stop()
	}()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	b, _ := json.Marshal(Ready{Addr: ln.Addr().String(), Backend: backend, PID: os.Getpid()})
	if _, err := fmt.Fprintf(stdout, "%s\n", b); err != nil {
		return fail(err)
	}
	log.Info("engine ready", "addr", ln.Addr().String(), "backend", backend)

	select {
	case <-ctx.Done():
	case err := <-served:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fail(err)
		}
	}
	// Close, not Shutdown: closing the connections cancels the requests,
	// which stops a generation at its next token.
	_ = hs.Close()
	srv.Close()
	return 0
}
