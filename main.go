// Command parley is the Parley desktop app: a local AI assistant that asks
// before it guesses. See README.md.
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/agentcli"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
	"github.com/parley-app/parley/backend/engine/sidecar"
	"github.com/parley-app/parley/backend/heapprof"
	"github.com/parley-app/parley/backend/trace"
	"github.com/parley-app/parley/desktop"
)

//go:embed all:frontend/dist
var assets embed.FS

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	cfg, err := config.Parse(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, config.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parley:", err)
		os.Exit(2)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if desktop.GeneratingBindings {
		// wails build runs this binary only to list the bound methods: it
		// must never open (and migrate) the user's real database.
		dir, err := os.MkdirTemp("", "parley-bindings-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "parley:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		cfg.DataDir = dir
	}

	if trace.FromEnv() {
		slog.Info("card trace on", "file", os.Getenv(trace.FileEnvVar))
	}

	if dir := os.Getenv(heapprof.EnvVar); dir != "" {
		stop, err := heapprof.Start(dir, heapprof.Every)
		if err != nil {
			fmt.Fprintln(os.Stderr, "parley:", err)
			os.Exit(1)
		}
		defer stop()
	}

	switch cfg.Command {
	case config.CommandEngine:
		os.Exit(sidecar.Main(cfg.Args, os.Stdin, os.Stdout, os.Stderr))
	case config.CommandAsk:
		os.Exit(agentcli.RunAsk(context.Background(), cfg.Args, os.Getenv, os.Stdout, os.Stderr))
	case config.CommandMCP:
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := agentcli.RunMCP(ctx, agentcli.MCPOptions{Args: cfg.Args, Getenv: os.Getenv, Version: version,
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}, &sdk.StdioTransport{})
		stop()
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "parley mcp:", err)
			os.Exit(1)
		}
	case config.CommandVersion:
		fmt.Println("parley", version)
	case config.CommandServe:
		if err := core.Serve(cfg, uiAssets(), version); err != nil {
			fmt.Fprintln(os.Stderr, "parley:", err)
			os.Exit(1)
		}
	default:
		if err := runDesktop(cfg, uiAssets()); err != nil {
			fmt.Fprintln(os.Stderr, "parley:", err)
			os.Exit(1)
		}
	}
}

// uiAssets is the built frontend rooted at its index.html.
func uiAssets() fs.FS {
	sub, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder exists
	}
	return sub
}
