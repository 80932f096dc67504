package desktop

import (
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/core"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/service"
)

// localAPI is the desktop app's listener: on while agents are enabled
// (Settings → Agents, on by default: /mcp and /api/v1/asks, SPEC §10) or
// the "allow local tools" setting is on (off by default: then the whole
// local API answers too). While only agents are enabled every other path
// answers 403 with the reason. A taken port never stops the app: the
// listener stays off and Settings → Agents says why and what to do.
type localAPI struct {
	mu   sync.Mutex
	cfg  config.Config
	ui   fs.FS
	core *core.Core
	srv  *core.APIServer
	addr string // where srv listens (as asked)
	// full mirrors the "allow local tools" setting for the running server.
	full    atomic.Bool
	state   api.AgentListener
	onState func(api.AgentListener)
}

// listenAddr is where the listener goes: --addr when given (tests give
// each app its own), else the address saved in Settings → Agents.
func (d *localAPI) listenAddr(s service.Settings) string {
	if d.cfg.Set["addr"] {
		return d.cfg.Addr
	}
	if s.AgentsAddr == "" {
		return config.DefaultAddr
	}
	return s.AgentsAddr
}

// apply starts, restarts or stops the listener to match the settings.
func (d *localAPI) apply(s service.Settings) {
	d.mu.Lock()
	d.full.Store(s.APIEnabled)
	want := s.AgentsEnabled || s.APIEnabled
	addr := d.listenAddr(s)
	if d.srv != nil && (!want || addr != d.addr) {
		d.srv.Stop()
		d.srv = nil
		slog.Info("local listener off")
	}
	st := api.AgentListener{Enabled: s.AgentsEnabled, Addr: addr, LocalAPI: s.APIEnabled}
	if want && d.srv == nil && d.core != nil {
		srv, err := core.StartAPI(d.core, addr, d.cfg, d.ui, d.full.Load)
		if err != nil {
			st.Error = listenError(addr, err)
			slog.Error("start the local listener", "addr", addr, "err", err)
		} else {
			d.srv, d.addr = srv, addr
			slog.Info("local listener on", "url", srv.URL(), "local_api", s.APIEnabled)
		}
	}
	if d.srv != nil {
		st.Running, st.URL = true, d.srv.URL()+"/mcp"
	}
	d.state = st
	notify := d.onState
	d.mu.Unlock()
	if notify != nil {
		notify(st)
	}
}

// listenError says why the listener could not start, with the way out.
func listenError(addr string, err error) string {
	if errors.Is(err, syscall.EADDRINUSE) {
		return i18n.T("agents.addrTaken", addr)
	}
	return i18n.T("agents.cannotListen", addr, err.Error())
}

// status is the listener's state for Settings → Agents.
func (d *localAPI) status() api.AgentListener {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state
}

func (d *localAPI) close() {
	d.apply(service.Settings{})
}
