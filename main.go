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
	"path/filepath"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parley-app/parley/backend/agentcli"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
	"github.com/parley-app/parley/backend/engine/sidecar"
	"github.com/parley-app/parley/backend/heapprof"
	"github.com/parley-app/parley/backend/trace"
	"github.com/parley-app/parley/backend/update"
	"github.com/parley-app/parley/desktop"
)

//go:embed all:frontend/dist
var assets embed.FS

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

// updateKeys (comma-separated minisign public keys; two allow a rotation)
// and installKind (deb, tar, nsis, mac) are set at build time too (SPEC
// §13); a build without them never updates itself.
var (
	updateKeys  string
	installKind string
)

func main() {
	// Started by an update (or a rollback): the previous Parley exits first.
	update.WaitForPrevious(os.Getenv)
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

	core.Build.UpdateKeys, core.Build.InstallKind = updateKeys, installKind
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
	case config.CommandUpdate:
		u, err := update.ForBuild(version, updateKeys, installKind, cfg.DataDir, os.Getenv)
		if err != nil {
			slog.Warn("update keys", "err", err)
		}
		os.Exit(update.RunCLI(context.Background(), u, cfg.Args, os.Stdin, os.Stdout, os.Stderr))
	case config.CommandVersion:
		fmt.Println("parley", version)
	case config.CommandServe:
		atLaunch(cfg)
		exit(core.Serve(cfg, uiAssets(), version))
	default:
		atLaunch(cfg)
		exit(runDesktop(cfg, uiAssets()))
	}
}

// exit ends the window or serve: after an applied update (everything
// closed by then) it starts the new version, which waits for this process
// to exit (SPEC §13).
func exit(err error) {
	var restart *core.Restart
	if errors.As(err, &restart) {
		if err := restart.Start(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "parley: start the updated Parley:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parley:", err)
		os.Exit(1)
	}
}

// atLaunch rolls back an update whose new version never marked itself
// healthy (then starts the restored version and exits) and keeps a copy of
// the database before a newer version first opens it (SPEC §13).
func atLaunch(cfg config.Config) {
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return // core.Open says why
	}
	l, err := update.AtLaunch(cfg.DataDir, filepath.Join(cfg.DataDir, "parley.db"), version, time.Now())
	if err != nil {
		slog.Error("update check at launch", "err", err)
		return
	}
	if l.DatabaseCopy != "" {
		slog.Info("kept a copy of the database before this version opens it", "copy", l.DatabaseCopy)
	}
	if !l.RolledBack {
		return
	}
	fmt.Fprintf(os.Stderr, "parley: %s did not start; rolled back to %s\n", l.To, l.From)
	if err := update.StartUpdated(l.Binary, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "parley: start", l.Binary+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// uiAssets is the built frontend rooted at its index.html.
func uiAssets() fs.FS {
	sub, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder exists
	}
	return sub
}
