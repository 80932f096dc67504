// Package core opens what both the desktop window and `parley serve` run on
// (the database, the event broker and the domain service) and serves the
// local HTTP API on loopback. It never imports the Wails runtime.
package core

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/update"
)

// Core is the database, the event broker (SSE clients) and the domain
// service of one data folder.
type Core struct {
	Store   *store.Store
	Broker  *events.Broker
	Service *service.Service
	// Version is the app's version, reported by the API.
	Version string
	once    sync.Once
	restart chan update.Applied
}

// Restarts delivers an applied update (SPEC §13): whoever runs the Core
// (Serve, the window) then closes everything and returns a *Restart.
func (c *Core) Restarts() <-chan update.Applied { return c.restart }

// Restart is what Serve and the window return after an update was applied:
// everything is closed, and the caller starts the new version (Start) and
// exits, or only exits while the installer replaces Parley (NSIS).
type Restart struct{ update.Applied }

func (r *Restart) Error() string { return "Parley " + r.Version + " was installed: restarting" }

// Start starts the updated Parley with args (nothing for a kind whose
// installer starts it); it waits until this process has exited.
func (r *Restart) Start(args []string) error {
	if !r.Restart {
		return nil
	}
	return update.StartUpdated(r.Binary, args)
}

// Options say how to open a Core.
type Options struct {
	Config  config.Config
	Version string
	// OnSettings is called after the settings change (optional).
	OnSettings func(service.Settings)
	// Emitters receive every event besides the broker (the window).
	Emitters []events.Emitter
}

// Build is what main sets at build time for the updater (SPEC §13): the
// built-in minisign keys and the install kind ("" never updates itself).
var Build struct{ UpdateKeys, InstallKind string }

// newUpdater is this build's updater; an applied update is sent on
// restart (the Core's Restarts).
func newUpdater(cfg config.Config, version string, restart chan<- update.Applied) (*update.Updater, func(update.Applied)) {
	u, err := update.ForBuild(version, Build.UpdateKeys, Build.InstallKind, cfg.DataDir, os.Getenv)
	if err != nil {
		slog.Warn("update keys: this build will not update itself", "err", err)
	}
	u.SetLang(i18n.Current)
	return u, func(a update.Applied) {
		select {
		case restart <- a:
		default: // one restart is enough
		}
	}
}

// Open opens the data folder's database and starts the service.
func Open(opts Options) (*Core, error) {
	cfg := opts.Config
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return nil, err
	}
	db, err := store.Open(filepath.Join(cfg.DataDir, "parley.db"))
	if err != nil {
		return nil, err
	}
	broker := events.NewBroker(1024)
	emitters := append(events.Multi{broker}, opts.Emitters...)
	restarts := make(chan update.Applied, 1)
	updater, restart := newUpdater(cfg, opts.Version, restarts)
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: emitters, Config: cfg, Version: opts.Version, OnSettingsChanged: opts.OnSettings,
		Updater: updater, OnUpdateApplied: restart})
	if err != nil {
		db.Close()
		return nil, err
	}
	// This version opened the database and started: it is healthy (an
	// update that never gets here is rolled back at the next launch).
	if err := update.MarkHealthy(cfg.DataDir, opts.Version); err != nil {
		slog.Warn("mark the update healthy", "err", err)
	}
	return &Core{Store: db, Broker: broker, Service: svc, Version: opts.Version, restart: restarts}, nil
}

// Close stops the service and closes the database (once).
func (c *Core) Close() {
	c.once.Do(func() {
		c.Service.Close()
		c.Store.Close()
	})
}
