package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/config"
)

// App holds the window's lifecycle; domain services are bound beside it.
type App struct {
	ctx context.Context
	cfg config.Config
}

// AppInfo is what the About box and settings show.
type AppInfo struct {
	Version string `json:"version"`
	DataDir string `json:"dataDir"`
}

// Info returns the version and data folder.
func (a *App) Info() AppInfo {
	return AppInfo{Version: version, DataDir: a.cfg.DataDir}
}

// runDesktop opens the Parley window and blocks until it closes. Wails turns
// SIGINT/SIGTERM into a normal quit, so shutdown hooks run and it exits 0.
func runDesktop(cfg config.Config, ui fs.FS) error {
	emitter := &wailsEmitter{}
	core, err := openCore(cfg, emitter)
	if err != nil {
		return err
	}
	defer core.close()

	app := &App{cfg: cfg}
	chatService := &ChatService{svc: core.svc, ctx: context.Background()}
	err = wails.Run(&options.App{
		Title:            "Parley",
		Width:            1100,
		Height:           760,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: ui},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		OnStartup: func(ctx context.Context) {
			app.ctx = ctx
			chatService.ctx = ctx
			emitter.ctx.Store(&ctx)
		},
		OnShutdown: func(context.Context) {
			slog.Info("window closed, shutting down")
			core.close()
		},
		// One window per data folder: a second launch focuses the first.
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: "parley-" + shortHash(cfg.DataDir),
			OnSecondInstanceLaunch: func(options.SecondInstanceData) {
				if app.ctx != nil {
					runtime.WindowUnminimise(app.ctx)
					runtime.Show(app.ctx)
				}
			},
		},
		Linux: &linux.Options{ProgramName: "parley"},
		Bind:  []any{app, chatService},
	})
	if err != nil {
		return fmt.Errorf("run window: %w", err)
	}
	return nil
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}
