package desktop

import (
	"context"
	"sync/atomic"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/nonnil"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/trace"
)

// The window's frontend calls Go through two bound services:
// window.go.desktop.Calls (calls.gen.go), every call declared in
// backend/calls, the same calls the HTTP API serves; and
// window.go.desktop.DesktopService, what only the window does (native
// dialogs, notifications, opening files). An error reaches the window as a
// rejected promise carrying its message.

// wire is what a bound method returns: its value with [] (and {}) where a
// nil slice (or map) would reach the window as null (nonnil.Of).
func wire[T any](v T, err error) (T, error) { return nonnil.Of(v), err }

// binding is what a bound service holds: the domain service and the
// window's context (set when the window starts).
type binding struct {
	svc *service.Service
	ctx context.Context
}

func newCalls(svc *service.Service) *Calls {
	return &Calls{binding{svc: svc, ctx: context.Background()}}
}

// wailsEmitter sends events to the window once it exists.
type wailsEmitter struct {
	ctx atomic.Pointer[context.Context]
}

// Emit sends one event to the window (dropped before the window starts).
func (w *wailsEmitter) Emit(name string, payload any) {
	if ctx := w.ctx.Load(); ctx != nil {
		runtime.EventsEmit(*ctx, name, nonnil.Any(payload)) // [] where the UI's type says T[], never null
		if trace.Enabled() {
			trace.Mark(events.TraceKey(name, payload), trace.HopWailsSent)
		}
	}
}
