package main

import (
	"io/fs"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/desktop"
)

// App is window.go.main.App: the window's own methods. The window itself,
// and the services bound per area, live in package desktop.
type App struct {
	cfg config.Config
}

// Info returns the version and data folder.
func (a *App) Info() api.AppInfo {
	return api.AppInfo{Version: version, DataDir: a.cfg.DataDir}
}

// runDesktop opens the Parley window and blocks until it closes.
func runDesktop(cfg config.Config, ui fs.FS) error {
	return desktop.Run(desktop.Options{Config: cfg, UI: ui, Version: version, Bind: []any{&App{cfg: cfg}}})
}
