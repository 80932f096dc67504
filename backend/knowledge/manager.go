package knowledge

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/yield"
)

// Options wire a Manager.
type Options struct {
	Store  *store.Store
	Events events.Emitter
	Logger *slog.Logger
	// Embed returns the current embedding settings (nil: none).
	Embed func() EmbedConfig
	// NoWatch: no file watcher (changes are picked up at start and on reindex).
	NoWatch bool
	// BatchFiles is how many files one transaction stores (default 32).
	BatchFiles int
	// EmbedBatch is how many passages one embedding request carries (default 32).
	EmbedBatch int
	// Debounce is how long the watcher waits for more changes (default 300 ms).
	Debounce time.Duration
	// EmbedRetry is how long a failed embedding pass waits to try again (default 30 s).
	EmbedRetry time.Duration
	// Gate says when the background work may run (issue #42: the user's
	// run wins): the workers stop at it while it is closed and rest while
	// it paces. nil: always open.
	Gate *yield.Gate

	// beforeRead, in tests, is called before each file is read, with the
	// scan's context.
	beforeRead func(ctx context.Context, path string)
	// normalPriority, in benchmarks, walks and reads at normal priority
	// (no lane): the indexer as it was before issue #42.
	normalPriority bool
	// afterPurge, in tests, is called after each short transaction of the
	// purge of deleted collections that removed something, with the
	// Manager's context.
	afterPurge func(ctx context.Context)
	// betweenTxs, in tests, is called between two short transactions of a
	// batch of files being stored, before the indexer looks at the gate.
	betweenTxs func()
}

// Manager keeps the collections indexed: one worker reads files (one at a
// time, stored in batches, so memory stays bounded and the chat keeps the
// other core), another makes vectors in the background; a file watcher
// and a scan at start pick up changes. Both give way to the user at the
// gate (Options.Gate), and the files are walked and read on a thread of
// lower priority (lane) so the OS runs the chat and the page first.
type Manager struct {
	opt Options
	st  *store.Store
	ev  events.Emitter
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	emitMu sync.Mutex // one knowledge:progress read and sent at a time

	mu        sync.Mutex
	queue     []string        // collections waiting for a scan, in order
	queued    map[string]bool // the same, as a set
	running   string          // the collection being scanned
	runCancel context.CancelFunc
	runDone   chan struct{} // closed when that scan has returned
	stateCh   chan struct{} // closed and replaced whenever the queue or the running scan changes
	wake      chan struct{}
	embedWake chan struct{}
	purgeWake chan struct{}
	embedding bool   // the embedding pass is running
	embedErr  string // why the last embedding pass failed
	lastEmit  map[string]time.Time
	vectors   map[string]*cachedIndex // by collection id
	// counts caches each collection's counts until the index is written
	// (countGen bumped after every write that can change them).
	counts   map[string]cachedCounts
	countGen atomic.Int64
	vecGen   int64 // bumped whenever stored vectors change
	embedder *Embedder
	embedCfg EmbedConfig

	watch *watcher
	// lane runs the CPU-heavy part of a scan (walking folders, reading and
	// parsing files) at a lower OS priority; writes and events stay off it.
	lane *yield.Lane
}

// New returns a Manager; Start begins its work.
func New(opt Options) *Manager {
	if opt.Events == nil {
		opt.Events = events.Discard
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Embed == nil {
		opt.Embed = func() EmbedConfig { return EmbedConfig{} }
	}
	if opt.BatchFiles <= 0 {
		opt.BatchFiles = 32
	}
	if opt.EmbedBatch <= 0 {
		opt.EmbedBatch = 32
	}
	if opt.Debounce <= 0 {
		opt.Debounce = 300 * time.Millisecond
	}
	if opt.EmbedRetry <= 0 {
		opt.EmbedRetry = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opt: opt, st: opt.Store, ev: opt.Events, log: opt.Logger, ctx: ctx, cancel: cancel,
		queued: map[string]bool{}, wake: make(chan struct{}, 1), embedWake: make(chan struct{}, 1), purgeWake: make(chan struct{}, 1), stateCh: make(chan struct{}),
		lastEmit: map[string]time.Time{}, vectors: map[string]*cachedIndex{}, counts: map[string]cachedCounts{}}
}

// Start resumes what a previous session left: every collection not
// cancelled is scanned (changes since, interrupted indexing), watched, and
// its passages embedded.
func (m *Manager) Start(ctx context.Context) error {
	if !m.opt.NoWatch {
		w, err := newWatcher(m)
		if err != nil {
			m.log.Warn("no file watcher: changes are picked up at start and on reindex", "err", err)
		} else {
			m.watch = w
			m.wg.Add(1)
			go func() { defer m.wg.Done(); w.run(m.ctx) }()
		}
	}
	if !m.opt.normalPriority {
		m.lane = yield.NewLane(m.log)
	}
	m.wg.Add(3)
	go func() { defer m.wg.Done(); m.indexLoop() }()
	go func() { defer m.wg.Done(); m.embedLoop() }()
	go func() { defer m.wg.Done(); m.purgeLoop() }()
	m.wakePurge() // a delete the last session did not finish
	cs, err := m.st.Collections(ctx)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if !c.Cancelled {
			m.enqueue(c.ID)
		}
	}
	m.wakeEmbed()
	return nil
}

func (m *Manager) stateChangedLocked() {
	close(m.stateCh)
	m.stateCh = make(chan struct{})
}

// cachedCounts are a collection's counts as of a countGen.
type cachedCounts struct {
	gen int64
	k   store.KnowledgeCounts
}

// knowledgeCounts returns the collection's counts, from the cache while
// nothing was written since. Counting reads every file and passage of the
// collection (32 ms with 20,000 files): a page asking a few times a second
// while the indexer gives way to the user (nothing written) was itself a
// steady load on the cores the chat needs (issue #42).
func (m *Manager) knowledgeCounts(ctx context.Context, id string) (store.KnowledgeCounts, error) {
	gen := m.countGen.Load() // before reading: a write meanwhile makes the entry stale
	m.mu.Lock()
	c, ok := m.counts[id]
	m.mu.Unlock()
	if ok && c.gen == gen {
		return c.k, nil
	}
	k, err := m.st.KnowledgeCounts(ctx, id)
	if err != nil {
		return k, err
	}
	m.mu.Lock()
	m.counts[id] = cachedCounts{gen: gen, k: k}
	m.mu.Unlock()
	return k, nil
}

// countsChanged is called after every write that may change counts
// (whether it succeeded or not).
func (m *Manager) countsChanged() { m.countGen.Add(1) }

// lowPriority runs fn on the lane (at normal priority without one).
func (m *Manager) lowPriority(fn func()) {
	if m.lane == nil {
		fn()
		return
	}
	m.lane.Run(fn)
}

// WaitIdle waits until no collection is scanned or waits to be (vectors
// may still be made in the background).
func (m *Manager) WaitIdle(ctx context.Context) error {
	for {
		m.mu.Lock()
		idle := len(m.queue) == 0 && m.running == ""
		ch := m.stateCh
		m.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-m.ctx.Done():
			return m.ctx.Err()
		}
	}
}

// Close stops the workers (what was stored stays; the next start resumes).
func (m *Manager) Close() {
	m.cancel()
	if m.watch != nil {
		m.watch.close()
	}
	m.wg.Wait()
	if m.lane != nil {
		m.lane.Close()
	}
}
