package desktop

import (
	"context"
	"errors"
	"log/slog"
	goruntime "runtime"
	"time"

	"github.com/gen2brain/beeep"

	"github.com/parley-app/parley/backend/notify"
)

// DesktopService is bound to the window: native notifications, since
// WebKitGTK may refuse Web Notifications and Wails v2 has none of its own.
type DesktopService struct {
	notifier *notify.Notifier
	// ctx is the window's context (set when the window starts), for OpenURL.
	ctx context.Context
}

func newDesktopService() *DesktopService {
	beeep.AppName = "Parley"
	send := func(title, message, icon string) error { return beeep.Notify(title, message, icon) }
	return &DesktopService{notifier: notify.New(send, 3*time.Second, goruntime.GOOS == "linux")}
}

// Notify shows a native notification; a burst of them shows only the first
// (the inbox lists every pending card).
func (d *DesktopService) Notify(title, body string) error {
	err := d.notifier.Notify(title, body)
	switch {
	case errors.Is(err, notify.ErrThrottled):
		return nil
	case err != nil:
		slog.Warn("desktop notification", "err", err)
	}
	return err
}

// RequestAttention marks the window as wanting attention (a card arrived
// while Parley was in the background); ClearAttention stops it.
func (d *DesktopService) RequestAttention() { setWindowUrgency(true) }

// ClearAttention is called when the user comes back to the window.
func (d *DesktopService) ClearAttention() { setWindowUrgency(false) }
