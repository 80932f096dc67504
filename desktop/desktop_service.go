package desktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/gen2brain/beeep"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/notify"
	"github.com/parley-app/parley/backend/service"
)

// DesktopService is window.go.desktop.DesktopService: what only the window
// does, which the HTTP API has no call for — native dialogs to save and
// open files, native notifications (WebKitGTK may refuse Web Notifications
// and Wails v2 has none of its own), the window's attention, opening links
// and cited files, and the agents' listener of this app.
type DesktopService struct {
	svc      *service.Service
	notifier *notify.Notifier
	// listener is the desktop's listener for agents (nil in tests).
	listener func() api.AgentListener
	// ctx is the window's context (set when the window starts).
	ctx context.Context
}

func newDesktopService(svc *service.Service, listener func() api.AgentListener) *DesktopService {
	beeep.AppName = "Parley"
	send := func(title, message, icon string) error { return beeep.Notify(title, message, icon) }
	return &DesktopService{svc: svc, listener: listener, notifier: notify.New(send, 3*time.Second, goruntime.GOOS == "linux")}
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

// SaveFile asks where to save file, an exported conversation, (what =
// "settings") the settings or (what = "backup") the full backup, and writes
// it there. It returns the path, or "" when the user cancelled. (A download
// link saves nothing in WebKitGTK.)
func (d *DesktopService) SaveFile(file api.ExportedFile, what string) (string, error) {
	title := i18n.T("dialog.exportConversation")
	switch what {
	case "settings":
		title = i18n.T("dialog.exportSettings")
	case "backup":
		title = i18n.T("dialog.exportBackup")
	}
	ext := strings.TrimPrefix(filepath.Ext(file.Name), ".")
	opts := runtime.SaveDialogOptions{Title: title, DefaultFilename: file.Name}
	if ext != "" {
		opts.Filters = []runtime.FileFilter{{DisplayName: i18n.T("dialog.filesOfType", strings.ToUpper(ext)), Pattern: "*." + ext}}
	}
	path, err := runtime.SaveFileDialog(d.ctx, opts)
	if err != nil || path == "" {
		return "", err
	}
	if err := os.WriteFile(path, []byte(file.Content), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// OpenConversationFile asks for an exported conversation and returns its
// text ("" when the user cancelled), for the ImportConversation call.
func (d *DesktopService) OpenConversationFile() (string, error) {
	path, err := runtime.OpenFileDialog(d.ctx, runtime.OpenDialogOptions{
		Title:   i18n.T("dialog.importConversation"),
		Filters: []runtime.FileFilter{{DisplayName: i18n.T("dialog.parleyConversation"), Pattern: "*.json"}},
	})
	if err != nil || path == "" {
		return "", err
	}
	return readImport(path)
}

// OpenBackupFile asks for a full backup (SPEC §14) and returns its text (""
// when the user cancelled), for the ImportBackup call.
func (d *DesktopService) OpenBackupFile() (string, error) {
	path, err := runtime.OpenFileDialog(d.ctx, runtime.OpenDialogOptions{
		Title:   i18n.T("dialog.importBackup"),
		Filters: []runtime.FileFilter{{DisplayName: i18n.T("dialog.parleyBackup"), Pattern: "*.json"}},
	})
	if err != nil || path == "" {
		return "", err
	}
	return readBackup(path)
}

// readBackup reads a full backup; a file over api.MaxBackupBytes is refused
// before it is read.
func readBackup(path string) (string, error) {
	return readFileUpTo(path, api.MaxBackupBytes)
}

// readImport reads an exported conversation; a file over
// service.MaxImportBytes is refused before it is read.
func readImport(path string) (string, error) {
	return readFileUpTo(path, service.MaxImportBytes)
}

// readFileUpTo reads a file to import; one over limit bytes is refused
// (service.ErrTooLarge) before it is read.
func readFileUpTo(path string, limit int64) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.Size() > limit {
		return "", fmt.Errorf("%s is %w", path, service.ErrTooLarge)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return string(data), nil
}

// ChooseFolder asks for a folder with the system's dialog ("" when cancelled).
func (d *DesktopService) ChooseFolder() (string, error) {
	return runtime.OpenDirectoryDialog(d.ctx, runtime.OpenDialogOptions{Title: i18n.T("dialog.addFolder")})
}

// ChooseFiles asks for files with the system's dialog (none when cancelled).
func (d *DesktopService) ChooseFiles() ([]string, error) {
	return wire(runtime.OpenMultipleFilesDialog(d.ctx, runtime.OpenDialogOptions{Title: i18n.T("dialog.addFiles")}))
}

// OpenSource opens a cited file with the system's application for it,
// through the same opener as links, and only a file that a collection
// indexes (a reply cannot make Parley open anything else).
func (d *DesktopService) OpenSource(path string) error {
	link, err := sourceURL(path)
	if err != nil {
		return err
	}
	if d.ctx == nil {
		return errors.New("open file: the window is not ready")
	}
	if !d.svc.IndexedFile(d.ctx, path) {
		return fmt.Errorf("open %s: it is not a file of a knowledge collection", path)
	}
	runtime.BrowserOpenURL(d.ctx, link)
	return nil
}

// sourceURL is the file: URL of an absolute path without control characters.
func sourceURL(path string) (string, error) {
	if !filepath.IsAbs(path) || strings.ContainsAny(path, "\x00\r\n") || filepath.Clean(path) != path {
		return "", fmt.Errorf("open %q: not a clean absolute path", path)
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/... on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), nil
}

// AgentListener says whether this app listens for agents, where, and why
// not (Settings → Agents).
func (d *DesktopService) AgentListener() api.AgentListener {
	if d.listener == nil {
		return api.AgentListener{}
	}
	return d.listener()
}
