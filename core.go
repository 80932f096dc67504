package main

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
)

// core is what both the window and `parley serve` run on: the database, the
// event broker (SSE clients) and the domain service.
type core struct {
	store  *store.Store
	broker *events.Broker
	svc    *service.Service
	once   sync.Once
}

// openCore opens the data folder's database and starts the service; extra
// emitters (the window) receive every event too.
func openCore(cfg config.Config, extra ...events.Emitter) (*core, error) {
	return openCoreWith(cfg, nil, extra...)
}

// openCoreWith also registers a settings-changed hook.
func openCoreWith(cfg config.Config, onSettings func(service.Settings), extra ...events.Emitter) (*core, error) {
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return nil, err
	}
	db, err := store.Open(filepath.Join(cfg.DataDir, "parley.db"))
	if err != nil {
		return nil, err
	}
	broker := events.NewBroker(1024)
	emitters := append(events.Multi{broker}, extra...)
	svc, err := service.New(context.Background(), service.Options{Store: db, Events: emitters, Config: cfg, Version: version, OnSettingsChanged: onSettings})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &core{store: db, broker: broker, svc: svc}, nil
}

func (c *core) close() {
	c.once.Do(func() {
		c.svc.Close()
		c.store.Close()
	})
}
