package knowledge

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher notices files added, changed or removed under the collections'
// paths while Parley runs (fsnotify: inotify, FSEvents/kqueue,
// ReadDirectoryChangesW; one watch a folder, as fsnotify does not recurse).
// Changes are gathered for a moment, then each collection they touch is
// scanned again (by size and time, so only changed files are read).
type watcher struct {
	m  *Manager
	fw *fsnotify.Watcher

	mu      sync.Mutex
	watched map[string]bool
	changed map[string]bool // paths changed since the last scan was asked
	timer   *time.Timer
}

func newWatcher(m *Manager) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &watcher{m: m, fw: fw, watched: map[string]bool{}, changed: map[string]bool{}}, nil
}

// add watches a folder (for a file, its folder).
func (w *watcher) add(path string) {
	if info, err := statDir(path); err == nil && !info {
		path = filepath.Dir(path)
	}
	w.mu.Lock()
	if w.watched[path] {
		w.mu.Unlock()
		return
	}
	w.watched[path] = true
	w.mu.Unlock()
	if err := w.fw.Add(path); err != nil {
		w.mu.Lock()
		delete(w.watched, path)
		w.mu.Unlock()
		w.m.log.Warn("cannot watch folder: its changes are picked up at the next start", "path", path, "err", err)
	}
}

// watchDir is walkRoot's folder callback.
func (m *Manager) watchDir(path string) {
	if m.watch != nil {
		m.watch.add(path)
	}
}

func (w *watcher) close() { _ = w.fw.Close() }

func (w *watcher) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue // no change of content
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				w.mu.Lock()
				delete(w.watched, ev.Name) // a folder recreated is watched again
				w.mu.Unlock()
			}
			w.note(ev.Name)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// Events were lost (queue overflow): scan everything again.
			w.m.log.Warn("file watcher", "err", err)
			w.note("")
		}
	}
}

// note records a changed path ("" = anything) and (re)starts the wait.
func (w *watcher) note(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changed[path] = true
	if w.timer == nil {
		w.timer = time.AfterFunc(w.m.opt.Debounce, w.flush)
	} else {
		w.timer.Reset(w.m.opt.Debounce)
	}
}

// flush asks a scan of every collection a changed path belongs to.
func (w *watcher) flush() {
	w.mu.Lock()
	changed := w.changed
	w.changed = map[string]bool{}
	w.mu.Unlock()
	if w.m.ctx.Err() != nil {
		return
	}
	cs, err := w.m.st.Collections(w.m.ctx)
	if err != nil {
		return
	}
	for _, c := range cs {
		if c.Cancelled {
			continue
		}
		if changed[""] || touches(changed, c.Paths) {
			w.m.enqueue(c.ID)
		}
	}
}

func touches(changed map[string]bool, roots []string) bool {
	for p := range changed {
		for _, r := range roots {
			if under(p, r) {
				return true
			}
		}
	}
	return false
}
