package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
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

	// beforeRead, in tests, is called before each file is read, with the
	// scan's context.
	beforeRead func(ctx context.Context, path string)
	// afterPurge, in tests, is called after each short transaction of the
	// purge of deleted collections that removed something, with the
	// Manager's context.
	afterPurge func(ctx context.Context)
}

// Errors of the collection API.
var (
	ErrInvalid  = errors.New("invalid collection")
	ErrNotFound = chat.ErrNotFound
)

// InvalidError is a collection or a search that breaks a rule (HTTP 422).
// Its text is a catalogue message (Settings → Knowledge shows it), said
// again in an HTTP client's language by i18n.Localize.
type InvalidError struct{ text i18n.Message }

func (e *InvalidError) Error() string           { return e.text.String() }
func (e *InvalidError) Localized() i18n.Message { return e.text }
func (e *InvalidError) Is(target error) bool    { return target == ErrInvalid }

// Invalid is an InvalidError saying the catalogue message key.
func Invalid(key string, args ...any) error { return &InvalidError{i18n.M(key, args...)} }

// Manager keeps the collections indexed: one worker reads files (one at a
// time, stored in batches, so memory stays bounded and the chat keeps the
// other core), another makes vectors in the background; a file watcher
// and a scan at start pick up changes.
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
	vecGen    int64                   // bumped whenever stored vectors change
	embedder  *Embedder
	embedCfg  EmbedConfig

	watch *watcher
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
		lastEmit: map[string]time.Time{}, vectors: map[string]*cachedIndex{}}
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
}

// enqueue schedules a scan of the collection (once, however often asked).
func (m *Manager) enqueue(id string) {
	m.mu.Lock()
	if !m.queued[id] {
		m.queued[id] = true
		m.queue = append(m.queue, id)
	}
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func (m *Manager) wakeEmbed() {
	select {
	case m.embedWake <- struct{}{}:
	default:
	}
}

func (m *Manager) wakePurge() {
	select {
	case m.purgeWake <- struct{}{}:
	default:
	}
}

// purgeLoop removes what deleted collections left, one short transaction
// at a time, so the chat's writes get the database in between.
func (m *Manager) purgeLoop() {
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.purgeWake:
		}
		for more := true; more && m.ctx.Err() == nil; {
			var err error
			if more, err = m.st.PurgeDeletedKnowledge(m.ctx); err != nil {
				if m.ctx.Err() == nil {
					m.log.Error("remove deleted collections' index", "err", err)
				}
				break
			}
			if more && m.opt.afterPurge != nil {
				m.opt.afterPurge(m.ctx)
			}
		}
	}
}

func (m *Manager) indexLoop() {
	for {
		m.mu.Lock()
		var id string
		if len(m.queue) > 0 {
			id = m.queue[0]
			m.queue = m.queue[1:]
			delete(m.queued, id)
		}
		var ctx context.Context
		done := make(chan struct{})
		if id != "" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(m.ctx)
			m.running, m.runCancel, m.runDone = id, cancel, done
		}
		m.mu.Unlock()
		if id == "" {
			select {
			case <-m.ctx.Done():
				return
			case <-m.wake:
				continue
			}
		}
		err := m.scan(ctx, id)
		m.mu.Lock()
		m.runCancel()
		m.running, m.runCancel, m.runDone = "", nil, nil
		m.stateChangedLocked()
		m.mu.Unlock()
		close(done)
		switch {
		case m.ctx.Err() != nil:
			return
		case errors.Is(err, context.Canceled):
		case err != nil && !errors.Is(err, ErrNotFound):
			m.log.Error("index collection", "collection", id, "err", err)
		}
		m.emitProgress(id, true)
		m.wakeEmbed()
	}
}

// scan brings a collection's index up to date with its files: new and
// changed files (by size and time, then content hash) are read, files gone
// are dropped. Files are stored in batches as they are read, so an
// interrupted scan resumes where it stopped (files still pending).
func (m *Manager) scan(ctx context.Context, id string) error {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return err
	}
	if c.Cancelled {
		return nil
	}
	stored, err := m.st.KnowledgeFiles(ctx, id)
	if err != nil {
		return err
	}
	known := make(map[string]store.KnowledgeFile, len(stored))
	for _, f := range stored {
		known[f.Path] = f
	}
	seen := map[string]bool{}
	var todo []foundFile
	var problems []error
	for _, root := range c.Paths {
		err := walkRoot(root, func(f foundFile) {
			if seen[f.path] {
				return // under two of the collection's paths
			}
			seen[f.path] = true
			k, ok := known[f.path]
			if !ok || k.Status == store.FilePending || k.Size != f.size || k.MtimeNs != f.mtimeNs {
				todo = append(todo, f)
			}
		}, m.watchDir)
		if err != nil {
			problems = append(problems, err)
		}
		if m.watch != nil {
			m.watch.add(root)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var gone []string
	for _, f := range stored {
		if !seen[f.Path] {
			gone = append(gone, f.Path)
		}
	}
	if err := m.st.DeleteKnowledgeFiles(ctx, id, gone); err != nil {
		return err
	}
	if len(gone) > 0 {
		m.vectorsChanged()
	}
	pending := make([]store.KnowledgeFile, 0, len(todo))
	for _, f := range todo {
		pending = append(pending, store.KnowledgeFile{Path: f.path, Size: f.size, MtimeNs: f.mtimeNs})
	}
	if err := m.st.AddPendingFiles(ctx, id, pending); err != nil {
		return err
	}
	if msg := i18n.Store(problems...); msg != c.Error {
		c.Error = msg
		if err := m.st.UpdateCollection(ctx, c); err != nil {
			return err
		}
	}
	m.emitProgress(id, true)

	var batch []store.IndexedFile
	passages := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		// Stored even when cancelled: what was read is kept.
		err := m.st.SaveIndexedFiles(context.WithoutCancel(ctx), id, batch)
		batch, passages = nil, 0
		m.vectorsChanged()
		m.emitProgress(id, false)
		m.wakeEmbed()
		return err
	}
	for _, f := range todo {
		if ctx.Err() != nil {
			break
		}
		if m.opt.beforeRead != nil {
			m.opt.beforeRead(ctx, f.path)
		}
		done, skip := m.readFile(f, known[f.path])
		if skip {
			if err := m.st.DeleteKnowledgeFiles(ctx, id, []string{f.path}); err != nil {
				return err
			}
			continue
		}
		batch = append(batch, done)
		passages += len(done.Passages)
		if len(batch) >= m.opt.BatchFiles || passages >= 2000 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// readFile reads one file into what the index stores. skip: the file is
// gone, or found in a folder and not text after all (not counted).
func (m *Manager) readFile(f foundFile, known store.KnowledgeFile) (out store.IndexedFile, skip bool) {
	out = store.IndexedFile{Path: f.path, Size: f.size, MtimeNs: f.mtimeNs}
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return out, true
	}
	if err != nil {
		out.Err = i18n.Store(fileErr("knowledge.fileUnreadable", err))
		return out, false
	}
	if len(data) > MaxFileBytes {
		return out, true
	}
	sum := sha256.Sum256(data)
	out.Hash = hex.EncodeToString(sum[:])
	if known.Hash == out.Hash && known.Status == store.FileIndexed {
		out.Unchanged = true // touched, not changed
		return out, false
	}
	ps, err := readPassages(f.path, data)
	switch {
	case (errors.Is(err, errNotText) || errors.Is(err, errNotDocument)) && !f.named:
		return out, true
	case err != nil:
		out.Err = i18n.Store(err)
	case len(ps) == 0:
		out.Err = i18n.Store(fileErr("knowledge.fileEmpty", nil))
	default:
		out.Passages = ps
	}
	return out, false
}

// emitProgress sends knowledge:progress for a collection, at most every
// 200 ms unless final (a few events a second: the page's work per event
// stays small). Events are read and sent one at a time, so none sent
// after the final one carries older figures: the UI ends at the exact counts.
func (m *Manager) emitProgress(id string, final bool) {
	m.mu.Lock()
	if !final && time.Since(m.lastEmit[id]) < 200*time.Millisecond {
		m.mu.Unlock()
		return
	}
	m.lastEmit[id] = time.Now()
	m.mu.Unlock()
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	ctx := context.WithoutCancel(m.ctx)
	k, err := m.st.KnowledgeCounts(ctx, id)
	if err != nil {
		return // deleted meanwhile
	}
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return
	}
	m.ev.Emit(events.KnowledgeProgress, api.KnowledgeProgress{ID: id, IndexedFiles: k.IndexedFiles, Files: k.Files,
		Chunks: k.Chunks, Status: m.status(ctx, c)})
}

// status is indexing while the collection is scanned (or waits to be) or
// its passages wait for vectors, error when a path is gone, else ready.
func (m *Manager) status(ctx context.Context, c *store.Collection) string {
	model := m.opt.Embed().Model // not under m.mu: it takes the settings' lock
	m.mu.Lock()
	busy := m.running == c.ID || m.queued[c.ID]
	embedding, embedErr := m.embedding, m.embedErr
	m.mu.Unlock()
	switch {
	case c.Error != "":
		return api.KnowledgeError
	case busy && !c.Cancelled:
		return api.KnowledgeIndexing
	case model != "" && embedErr == "" && !c.Cancelled:
		if embedding || m.needsVectors(ctx, c.ID, model) {
			return api.KnowledgeIndexing
		}
	}
	return api.KnowledgeReady
}

func (m *Manager) needsVectors(ctx context.Context, id, model string) bool {
	n, err := m.st.CountWithoutVector(ctx, id, model)
	return err == nil && n > 0
}

// Info returns a collection as the API shows it.
func (m *Manager) Info(ctx context.Context, id string) (api.Collection, error) {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return api.Collection{}, err
	}
	return m.info(ctx, c)
}

func (m *Manager) info(ctx context.Context, c *store.Collection) (api.Collection, error) {
	k, err := m.st.KnowledgeCounts(ctx, c.ID)
	if err != nil {
		return api.Collection{}, err
	}
	out := api.Collection{ID: c.ID, Name: c.Name, Paths: c.Paths, Files: k.Files, IndexedFiles: k.IndexedFiles,
		Chunks: k.Chunks, Cancelled: c.Cancelled, Error: i18n.ShowStored(c.Error, i18n.Current()),
		CreatedAt: c.CreatedAt.Format(time.RFC3339)}
	for _, p := range k.Errors {
		out.Errors = append(out.Errors, api.KnowledgeFileError{Path: p.Path, Error: i18n.ShowStored(p.Error, i18n.Current())})
	}
	if model := m.opt.Embed().Model; model != "" {
		out.EmbeddingModel = &model
		if out.EmbeddedChunks, err = m.st.CountWithVector(ctx, c.ID, model); err != nil {
			return api.Collection{}, err
		}
		m.mu.Lock()
		out.EmbeddingError = i18n.ShowStored(m.embedErr, i18n.Current())
		m.mu.Unlock()
	}
	out.Status = m.status(ctx, c)
	return out, nil
}

// List returns every collection, oldest first.
func (m *Manager) List(ctx context.Context) ([]api.Collection, error) {
	cs, err := m.st.Collections(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]api.Collection, 0, len(cs))
	for i := range cs {
		info, err := m.info(ctx, &cs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// checkName trims and checks a collection's name.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > api.MaxCollectionName {
		return "", Invalid("knowledge.badName", api.MaxCollectionName)
	}
	return name, nil
}

// checkPaths cleans paths: each absolute and existing, no duplicates.
func checkPaths(paths []string) ([]string, error) {
	if len(paths) == 0 || len(paths) > api.MaxCollectionPaths {
		return nil, Invalid("knowledge.badPathCount", api.MaxCollectionPaths)
	}
	out := make([]string, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if !filepath.IsAbs(p) {
			return nil, Invalid("knowledge.pathNotAbsolute", p)
		}
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, Invalid("knowledge.pathMissing", p)
			}
			return nil, Invalid("knowledge.pathUnreadable", p, errDetail(err))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// Create stores a new collection and starts indexing it.
func (m *Manager) Create(ctx context.Context, name string, paths []string) (api.Collection, error) {
	name, err := checkName(name)
	if err != nil {
		return api.Collection{}, err
	}
	if paths, err = checkPaths(paths); err != nil {
		return api.Collection{}, err
	}
	c, err := m.st.CreateCollection(ctx, name, paths)
	if err != nil {
		return api.Collection{}, err
	}
	m.enqueue(c.ID)
	return m.info(ctx, c)
}

// Update renames a collection and/or changes its paths (indexed again).
func (m *Manager) Update(ctx context.Context, id string, name *string, paths []string) (api.Collection, error) {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return api.Collection{}, err
	}
	if name != nil {
		if c.Name, err = checkName(*name); err != nil {
			return api.Collection{}, err
		}
	}
	reindex := false
	if paths != nil {
		if c.Paths, err = checkPaths(paths); err != nil {
			return api.Collection{}, err
		}
		reindex, c.Cancelled = true, false
	}
	if reindex {
		m.stopScan(id) // the running scan follows the old paths
	}
	if err := m.st.UpdateCollection(ctx, c); err != nil {
		return api.Collection{}, err
	}
	if reindex {
		m.enqueue(id)
	}
	return m.info(ctx, c)
}

// Reindex scans a collection again (also after a cancel).
func (m *Manager) Reindex(ctx context.Context, id string) error {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return err
	}
	if c.Cancelled {
		c.Cancelled = false
		if err := m.st.UpdateCollection(ctx, c); err != nil {
			return err
		}
	}
	m.enqueue(id)
	m.wakeEmbed()
	return nil
}

// Cancel stops a collection's indexing; what was indexed stays searchable.
func (m *Manager) Cancel(ctx context.Context, id string) (api.Collection, error) {
	c, err := m.st.Collection(ctx, id)
	if err != nil {
		return api.Collection{}, err
	}
	c.Cancelled = true
	if err := m.st.UpdateCollection(ctx, c); err != nil {
		return api.Collection{}, err
	}
	m.stopScan(id)
	m.emitProgress(id, true)
	return m.info(ctx, c)
}

// stopScan removes the collection from the queue and stops its running
// scan, waiting until it has stopped.
func (m *Manager) stopScan(id string) {
	for {
		m.mu.Lock()
		if m.queued[id] {
			delete(m.queued, id)
			for i, q := range m.queue {
				if q == id {
					m.queue = append(m.queue[:i], m.queue[i+1:]...)
					break
				}
			}
			m.stateChangedLocked()
		}
		var done chan struct{}
		if m.running == id {
			m.runCancel()
			done = m.runDone
		}
		m.mu.Unlock()
		if done == nil {
			return
		}
		select { // the scan stops at its next file
		case <-m.ctx.Done():
			return
		case <-done:
		}
	}
}

// Delete removes a collection and its index; the files are never touched.
// The collection is gone at once (from the API and from search); its
// passages are removed in the background, in short transactions (also
// after a restart, when the app stopped before they all were).
func (m *Manager) Delete(ctx context.Context, id string) error {
	if _, err := m.st.Collection(ctx, id); err != nil {
		return err
	}
	m.stopScan(id)
	if err := m.st.DeleteCollection(ctx, id); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.vectors, id)
	delete(m.lastEmit, id)
	m.mu.Unlock()
	m.wakePurge()
	return nil
}

// EmbeddingChanged restarts the embedding pass with the current settings:
// passages without a vector of the new model are embedded in the background.
func (m *Manager) EmbeddingChanged() {
	m.mu.Lock()
	m.embedErr = ""
	m.mu.Unlock()
	m.vectorsChanged()
	m.wakeEmbed()
}

// Exists tells whether a collection exists.
func (m *Manager) Exists(ctx context.Context, id string) bool {
	_, err := m.st.Collection(ctx, id)
	return err == nil
}
