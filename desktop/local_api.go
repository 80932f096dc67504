package desktop

import (
	"io/fs"
	"log/slog"
	"sync"

	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
	"github.com/parley-app/parley/backend/service"
)

// localAPI runs the local HTTP API inside the desktop app while the
// "allow local tools" setting is on (off by default), so scripts and editors
// can read and answer cards while the window is open.
type localAPI struct {
	mu   sync.Mutex
	cfg  config.Config
	ui   fs.FS
	core *core.Core
	srv  *core.APIServer
}

// apply starts or stops the server to match the setting.
func (d *localAPI) apply(s service.Settings) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case s.APIEnabled && d.srv == nil && d.core != nil:
		srv, err := core.StartAPI(d.core, d.cfg, d.ui)
		if err != nil {
			slog.Error("start the local API", "err", err)
			return
		}
		d.srv = srv
		slog.Info("local API on", "url", srv.URL())
	case !s.APIEnabled && d.srv != nil:
		d.srv.Stop()
		d.srv = nil
		slog.Info("local API off")
	}
}

func (d *localAPI) close() {
	d.apply(service.Settings{APIEnabled: false})
}
