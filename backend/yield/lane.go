package yield

import (
	"log/slog"
	"runtime"
	"sync"
)

// LowNice is the nice value of a Lane's thread: the OS gives the user's
// threads (the chat, the page's processes) the cores first, yet the
// background work still gets a share (not SCHED_IDLE: a thread starved
// outright could sit on a lock of the Go runtime others wait for).
const LowNice = 10

// Lane runs functions, one at a time, on one OS thread of lower priority
// (LowNice on Linux; elsewhere at normal priority). Go schedules goroutines
// on any thread, so only work handed to the lane runs at the lower
// priority: CPU-heavy work holding no lock others wait for (reading and
// parsing files), never a database write or an event.
type Lane struct {
	fns   chan func()
	done  chan struct{}
	close sync.Once
}

// NewLane starts a lane's thread.
func NewLane(log *slog.Logger) *Lane {
	l := &Lane{fns: make(chan func()), done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		// Never unlocked: the thread ends with the goroutine instead of
		// going back to the runtime's pool at the lower priority.
		runtime.LockOSThread()
		if err := lowerThreadPriority(LowNice); err != nil && log != nil {
			log.Warn("background work runs at normal priority", "err", err)
		}
		close(ready)
		defer close(l.done)
		for fn := range l.fns {
			fn()
		}
	}()
	<-ready
	return l
}

// Run runs fn on the lane's thread and returns when it has returned.
func (l *Lane) Run(fn func()) {
	finished := make(chan struct{})
	l.fns <- func() {
		defer close(finished)
		fn()
	}
	<-finished
}

// Close ends the lane's thread (no Run may follow). Closing again does
// nothing: a service may be closed twice (by its owner and a cleanup).
func (l *Lane) Close() {
	l.close.Do(func() { close(l.fns) })
	<-l.done
}
