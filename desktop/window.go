// Package desktop is the Parley window: the Wails application, the services
// bound to it (window.go.desktop.<Service>), its menu, native notifications
// and the web view's settings. It adapts the domain service for Wails and
// holds no domain logic; nothing under backend/ imports it.
package desktop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/service"
)

// GeneratingBindings is true in the binary `wails build` compiles (with the
// `bindings` tag) and runs only to write frontend/wailsjs: it must never open
// (and migrate) the user's real database.
const GeneratingBindings = generatingBindings

// Options are what the root package hands the window.
type Options struct {
	Config  config.Config
	UI      fs.FS
	Version string
	// Bind are bound beside the window's own services (the root's App).
	Bind []any
}

// Run opens the Parley window and blocks until it closes. Wails turns
// SIGINT/SIGTERM into a normal quit, so shutdown hooks run and it exits 0.
func Run(opts Options) error {
	cfg := opts.Config
	emitter := &wailsEmitter{}
	api := &localAPI{cfg: cfg, ui: opts.UI}
	var windowCtx context.Context
	emitMenu := func(event string, data ...any) {
		if windowCtx != nil {
			runtime.EventsEmit(windowCtx, event, data...)
		}
	}
	var menuMu sync.Mutex
	menuLang := i18n.Current()
	onSettings := func(s service.Settings) {
		api.apply(s)
		// The menu follows the interface's language (the service set it).
		menuMu.Lock()
		defer menuMu.Unlock()
		if lang := i18n.Current(); lang != menuLang && windowCtx != nil {
			menuLang = lang
			runtime.MenuSetApplicationMenu(windowCtx, appMenu(lang, emitMenu))
			runtime.MenuUpdateApplicationMenu(windowCtx)
		}
	}
	c, err := core.Open(core.Options{Config: cfg, Version: opts.Version, OnSettings: onSettings, Emitters: []events.Emitter{emitter}})
	if err != nil {
		return err
	}
	defer c.Close()
	api.mu.Lock()
	api.core = c
	api.mu.Unlock()
	api.apply(c.Service.GetSettings())
	defer api.close()
	win := loadWindowState(c)

	limitWebviewHeap(goruntime.GOOS, os.Getenv, os.Setenv)
	menuMu.Lock()
	menuLang = i18n.Current() // the saved language, now that the service has read it
	menuMu.Unlock()
	calls := newCalls(c.Service)
	desktop := newDesktopService(c.Service, api.status)
	// An applied update (SPEC §13) quits the window; Run then returns a
	// *core.Restart, and main starts the new version once this one exited.
	var restart atomic.Pointer[core.Restart]
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case a := <-c.Restarts():
			restart.Store(&core.Restart{Applied: a})
			if ctx := emitter.ctx.Load(); ctx != nil {
				runtime.Quit(*ctx)
			}
		case <-ended:
		}
	}()
	err = wails.Run(&options.App{
		Title:            "Parley",
		Width:            win.Width,
		Height:           win.Height,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: opts.UI},
		BackgroundColour: &options.RGBA{R: 255, G: 255, B: 255, A: 255},
		Menu:             appMenu(menuLang, emitMenu),
		// A bound method's error rejects its promise with the API's error
		// body, its kind and status (windowError).
		ErrorFormatter: windowError,
		OnStartup: func(ctx context.Context) {
			windowCtx = ctx
			calls.ctx = ctx
			desktop.ctx = ctx
			emitter.ctx.Store(&ctx)
		},
		OnDomReady: func(ctx context.Context) {
			if win.Positioned {
				runtime.WindowSetPosition(ctx, win.X, win.Y)
			}
		},
		OnBeforeClose: func(ctx context.Context) bool {
			saveWindowState(ctx, c)
			return false
		},
		OnShutdown: func(context.Context) {
			slog.Info("window closed, shutting down")
			api.close()
			c.Close()
		},
		// One window per data folder: a second launch focuses the first.
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: "parley-" + shortHash(cfg.DataDir),
			OnSecondInstanceLaunch: func(options.SecondInstanceData) {
				if windowCtx != nil {
					runtime.WindowUnminimise(windowCtx)
					runtime.Show(windowCtx)
				}
			},
		},
		Linux: &linux.Options{ProgramName: "parley", WebviewGpuPolicy: webviewGPUPolicy(os.Getenv(webviewGPUEnv))},
		Bind:  append(opts.Bind, calls, desktop),
	})
	if err != nil {
		return fmt.Errorf("run window: %w", err)
	}
	if r := restart.Load(); r != nil {
		return r
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

func loadWindowState(c *core.Core) windowState {
	st := windowState{Width: 1100, Height: 760}
	var saved windowState
	if ok, err := c.Store.GetSetting(context.Background(), windowStateKey, &saved); err == nil && ok &&
		saved.Width >= 720 && saved.Height >= 480 && saved.Width <= 10000 && saved.Height <= 10000 {
		st = saved
	}
	return st
}

func saveWindowState(ctx context.Context, c *core.Core) {
	if runtime.WindowIsMaximised(ctx) || runtime.WindowIsFullscreen(ctx) {
		return
	}
	var st windowState
	st.Width, st.Height = runtime.WindowGetSize(ctx)
	st.X, st.Y = runtime.WindowGetPosition(ctx)
	st.Positioned = true
	if err := c.Store.SetSetting(context.Background(), windowStateKey, st); err != nil {
		slog.Warn("remember window size", "err", err)
	}
}
