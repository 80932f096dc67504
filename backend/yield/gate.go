// Package yield lets background work give way to the user (issue #42): on
// two cores, indexing a folder must not slow a run the user watches. The
// service closes the Gate while a run of the user's works (the model
// streams, tools run), paces it while a card waits for the user, and
// leaves it open otherwise, when background work runs at full speed.
// Background workers call Worker.Yield between small slices of work.
package yield

import (
	"context"
	"sync"
	"time"
)

// Mode is how much background work may run.
type Mode int

const (
	// Open: background work runs at full speed.
	Open Mode = iota
	// Paced: slices of work, each followed by a rest (a share Duty of the time).
	Paced
	// Closed: no background work (beyond the slice under way).
	Closed
)

func (m Mode) String() string {
	switch m {
	case Open:
		return "open"
	case Paced:
		return "paced"
	default:
		return "closed"
	}
}

// Options tune a Gate; zero values take the defaults.
type Options struct {
	// Linger keeps the gate closed this long after its last reason to
	// close went (default 500 ms): the page paints what arrived last (the
	// card, the end of a stream) before background work takes the core.
	Linger time.Duration
	// MaxClosed is how long the gate stays closed without a break before it
	// paces instead (default 2 min): a run that goes on and on cannot
	// starve the index.
	MaxClosed time.Duration
	// Duty is the share of the time paced work may take (default 0.25).
	Duty float64
	// Slice is how long paced work goes on before it rests (default 2 ms).
	Slice time.Duration
}

// Gate is the one switch every background worker looks at. The zero
// value is not usable; a nil *Gate is always open.
type Gate struct {
	opt Options

	mu      sync.Mutex
	sources map[string]Mode // what each source asks for
	want    Mode            // the strictest of them
	// lingerUntil: the gate stays closed until then (after a close ended).
	lingerUntil time.Time
	lingerTimer *time.Timer
	// closedSince is when the gate closed (zero when it is not).
	closedSince time.Time
	maxTimer    *time.Timer
	changed     chan struct{} // closed and replaced whenever the mode may have changed
	waiting     int           // workers waiting in Yield (for tests)
}

// New returns an open gate.
func New(opt Options) *Gate {
	if opt.Linger < 0 {
		opt.Linger = 0
	} else if opt.Linger == 0 {
		opt.Linger = 500 * time.Millisecond
	}
	if opt.MaxClosed <= 0 {
		opt.MaxClosed = 2 * time.Minute
	}
	if opt.Duty <= 0 || opt.Duty > 1 {
		opt.Duty = 0.25
	}
	if opt.Slice <= 0 {
		opt.Slice = 2 * time.Millisecond
	}
	return &Gate{opt: opt, sources: map[string]Mode{}, changed: make(chan struct{})}
}

// NoLinger is the Linger of a gate that opens as soon as its reasons go.
const NoLinger = -1

// Set records what source (runs, cards...) asks for; the gate follows the
// strictest source.
func (g *Gate) Set(source string, m Mode) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	g.modeLocked(now) // forgets a close that has ended
	if m == Open {
		delete(g.sources, source)
	} else {
		g.sources[source] = m
	}
	want := Open
	for _, s := range g.sources {
		want = max(want, s)
	}
	if want == g.want {
		return
	}
	if g.want == Closed && g.opt.Linger > 0 {
		g.lingerUntil = now.Add(g.opt.Linger)
		if g.lingerTimer != nil {
			g.lingerTimer.Stop()
		}
		g.lingerTimer = time.AfterFunc(g.opt.Linger, g.wake)
	}
	if want == Closed && g.closedSince.IsZero() {
		g.closedSince = now
		if g.maxTimer != nil {
			g.maxTimer.Stop()
		}
		g.maxTimer = time.AfterFunc(g.opt.MaxClosed, g.wake)
	}
	g.want = want
	g.wakeLocked()
}

// Mode is the gate's mode now.
func (g *Gate) Mode() Mode {
	if g == nil {
		return Open
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	m, _ := g.modeLocked(time.Now())
	return m
}

// Changed is closed when the mode may have changed.
func (g *Gate) Changed() <-chan struct{} {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.changed
}

// Waiting is how many workers wait in Yield while the gate is closed.
func (g *Gate) Waiting() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// modeLocked is the mode at now, and the channel that tells a change.
func (g *Gate) modeLocked(now time.Time) (Mode, chan struct{}) {
	m := g.want
	if m != Closed && now.Before(g.lingerUntil) {
		m = Closed
	}
	if m != Closed {
		g.closedSince = time.Time{}
	}
	if m == Closed && !g.closedSince.IsZero() && now.Sub(g.closedSince) >= g.opt.MaxClosed {
		m = Paced // closed too long: the work must not starve
	}
	return m, g.changed
}

func (g *Gate) wake() {
	g.mu.Lock()
	g.wakeLocked()
	g.mu.Unlock()
}

func (g *Gate) wakeLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// Worker is one background worker's view of the gate: it keeps the time
// worked since the last rest, which pacing needs.
type Worker struct {
	g      *Gate
	worked time.Duration // since the last rest
	since  time.Time     // when the current slice began
}

// Worker returns a worker of the gate (nil gate: always open).
func (g *Gate) Worker() *Worker { return &Worker{g: g, since: time.Now()} }

// Yield returns when the worker may go on with its next slice of work: at
// once when the gate is open (or paced and the worker has not used its
// slice yet), after a rest when paced, once the gate is no longer closed.
// It returns the context's error when it ends first.
func (w *Worker) Yield(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.g == nil {
		return nil
	}
	now := time.Now()
	w.worked += now.Sub(w.since)
	defer func() { w.since = time.Now() }()
	counted := false
	defer func() {
		if counted {
			w.g.mu.Lock()
			w.g.waiting--
			w.g.mu.Unlock()
		}
	}()
	for {
		w.g.mu.Lock()
		m, changed := w.g.modeLocked(time.Now())
		if m == Closed && !counted {
			counted = true
			w.g.waiting++
		} else if m != Closed && counted {
			counted = false
			w.g.waiting--
		}
		w.g.mu.Unlock()
		switch m {
		case Open:
			w.worked = 0
			return nil
		case Paced:
			if w.worked < w.g.opt.Slice {
				return nil
			}
			rest := time.Duration(float64(w.worked) * (1 - w.g.opt.Duty) / w.g.opt.Duty)
			rest = min(rest, time.Second)
			t := time.NewTimer(rest)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-changed:
				t.Stop()
				continue // opened (no rest needed) or closed
			case <-t.C:
				w.worked = 0
				return nil
			}
		case Closed:
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-changed:
			}
		}
	}
}
