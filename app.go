package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	goruntime "runtime"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/trace"
)

// App holds the window's lifecycle; domain services are bound beside it.
type App struct {
	ctx context.Context
	cfg config.Config
}

// AppInfo is what the About box and settings show.
type AppInfo = api.AppInfo

// Info returns the version and data folder.
func (a *App) Info() AppInfo {
	return AppInfo{Version: version, DataDir: a.cfg.DataDir}
}

// Health says the backend is up, with its version (and whether the card
// trace is on).
func (a *App) Health() api.Health {
	return api.Health{Status: "ok", Version: version, Trace: trace.Enabled()}
}

// runDesktop opens the Parley window and blocks until it closes. Wails turns
// SIGINT/SIGTERM into a normal quit, so shutdown hooks run and it exits 0.
func runDesktop(cfg config.Config, ui fs.FS) error {
	emitter := &wailsEmitter{}
	api := &desktopAPI{cfg: cfg, ui: ui}
	core, err := openCoreWith(cfg, api.apply, emitter)
	if err != nil {
		return err
	}
	defer core.close()
	api.mu.Lock()
	api.core = core
	api.mu.Unlock()
	api.apply(core.svc.GetSettings())
	defer api.close()
	win := loadWindowState(core)

	limitWebviewHeap(goruntime.GOOS, os.Getenv, os.Setenv)
	app := &App{cfg: cfg}
	bound := newBindings(core.svc)
	desktop := newDesktopService()
	err = wails.Run(&options.App{
		Title:            "Parley",
		Width:            win.Width,
		Height:           win.Height,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: ui},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		Menu: appMenu(func(event string, data ...any) {
			if app.ctx != nil {
				runtime.EventsEmit(app.ctx, event, data...)
			}
		}),
		OnStartup: func(ctx context.Context) {
			app.ctx = ctx
			bound.startup(ctx)
			desktop.ctx = ctx
			emitter.ctx.Store(&ctx)
		},
		OnDomReady: func(ctx context.Context) {
			if win.Positioned {
				runtime.WindowSetPosition(ctx, win.X, win.Y)
			}
		},
		OnBeforeClose: func(ctx context.Context) bool {
			saveWindowState(ctx, core)
			return false
		},
		OnShutdown: func(context.Context) {
			slog.Info("window closed, shutting down")
			api.close()
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
		Linux: &linux.Options{ProgramName: "parley", WebviewGpuPolicy: webviewGPUPolicy(os.Getenv(webviewGPUEnv))},
		Bind:  append([]any{app, desktop, &DebugService{}}, bound.all()...),
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

// windowState is the window's size and position, remembered across launches.
type windowState struct {
	Width, Height int
	X, Y          int
	Positioned    bool
}

const windowStateKey = "window"

func loadWindowState(c *core) windowState {
	st := windowState{Width: 1100, Height: 760}
	var saved windowState
	if ok, err := c.store.GetSetting(context.Background(), windowStateKey, &saved); err == nil && ok &&
		saved.Width >= 720 && saved.Height >= 480 && saved.Width <= 10000 && saved.Height <= 10000 {
		st = saved
	}
	return st
}

func saveWindowState(ctx context.Context, c *core) {
	if runtime.WindowIsMaximised(ctx) || runtime.WindowIsFullscreen(ctx) {
		return
	}
	var st windowState
	st.Width, st.Height = runtime.WindowGetSize(ctx)
	st.X, st.Y = runtime.WindowGetPosition(ctx)
	st.Positioned = true
	if err := c.store.SetSetting(context.Background(), windowStateKey, st); err != nil {
		slog.Warn("remember window size", "err", err)
	}
}
