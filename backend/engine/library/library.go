// Package library is the built-in engine's model library (SPEC §12): the
// installed models, the curated catalogue, downloads from the Hugging Face
// hub and imports of GGUF files from disk.
//
// The models live in one folder (--models-dir, default <data
// dir>/models). A model is:
//   - downloaded: a file of the folder that a download put there, verified
//     against the hub's sha256 (its source is {repo, file, revision});
//   - imported: a GGUF anywhere on the disk, used in place (its source is
//     {path}); deleting it only forgets it;
//   - found: any other .gguf file of the folder (someone put it there), also
//     {path}.
//
// The library's own records (library.json: the downloaded and imported
// models) and the downloads in progress (.downloads/<id>.json beside the
// partial file <id>.part) are in the folder too, so a download resumes
// after a restart. Every listed model is checked each time it is listed
// (cached by size and modification time): a file that is missing, changed
// or not a readable GGUF (backend/engine/gguf) is "broken", with the
// reason. Nothing here loads a model.
package library

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/engine/gguf"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// States of an installed model.
const (
	StateReady  = "ready"
	StateBroken = "broken"
)

// States lists the model states, for the wire.
var States = []string{StateReady, StateBroken}

// Capabilities a model may have (from its GGUF metadata).
var Capabilities = []string{gguf.CapTools, gguf.CapThinking, gguf.CapVision, gguf.CapEmbedding}

// Source is where a model came from: the hub (Repo, File, Revision) or a
// file on the disk (Path).
type Source struct {
	Repo     string `json:"repo,omitempty"`
	File     string `json:"file,omitempty"`
	Revision string `json:"revision,omitempty"`
	Path     string `json:"path,omitempty"`
}

// Model is an installed model (GET /api/v1/engine/models).
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// File is the file's name.
	File string `json:"file"`
	Size int64  `json:"size"`
	// SHA256 is the hub's checksum the file was verified against ("" for
	// a model Parley did not download).
	SHA256       string   `json:"sha256"`
	Capabilities []string `json:"capabilities"`
	Source       Source   `json:"source"`
	State        string   `json:"state"`
	// Error says why a broken model cannot be used.
	Error string `json:"error,omitempty"`
	// RAM is the memory the model needs to run, in bytes: its catalogue
	// entry's figure when it was downloaded from one, else EstimateRAM of
	// its file's size.
	RAM int64 `json:"ram"`
	// AllowLarge: the user chose to load it even though it needs more
	// memory than the machine has ("Load anyway", remembered).
	AllowLarge bool `json:"allow_large"`
	// Path is the file, for the engine.
	Path string `json:"-"`
}

// Embedding tells whether the model makes embeddings rather than chats.
func (m Model) Embedding() bool {
	for _, c := range m.Capabilities {
		if c == gguf.CapEmbedding {
			return true
		}
	}
	return false
}

// Options configure a Library.
type Options struct {
	// Dir is the models folder (created when missing).
	Dir string
	// Endpoint is the hub (HF_ENDPOINT; default https://huggingface.co).
	Endpoint string
	// Client makes the hub requests (default: one with connect and header
	// timeouts; redirects followed).
	Client *http.Client
	// FreeSpace says how many bytes are free in a folder (default: the
	// file system's answer).
	FreeSpace func(dir string) (uint64, error)
	// Reserve is the free space a download must leave (default 1 GB).
	Reserve int64
	// OnDownload hears a download's changes: at most one call per
	// EventInterval per download (default 200 ms: 5 a second), the last
	// state always. It must not block.
	OnDownload    func(Download)
	EventInterval time.Duration
	// MaxActive downloads run at once (default 1); the others queue.
	MaxActive int
	// A dropped connection is retried MaxRetries times in a row (default
	// 5), after RetryDelay, doubling (default 1 s); a body that sends
	// nothing for StallTimeout (default 60 s) counts as dropped.
	MaxRetries   int
	RetryDelay   time.Duration
	StallTimeout time.Duration
	// Catalog is the curated catalogue (default: catalog.json).
	Catalog []CatalogEntry
	Logger  *slog.Logger
}

// DefaultEndpoint is the Hugging Face hub.
const DefaultEndpoint = "https://huggingface.co"

// Library is the models folder and its downloads.
type Library struct {
	opt    Options
	log    *slog.Logger
	client *http.Client
	ctx    context.Context
	stop   context.CancelFunc

	mu         sync.Mutex
	records    []record
	allowLarge map[string]bool
	infos      map[string]cachedInfo
	downloads  map[string]*download
	order      []string // download ids, oldest first
	closed     bool
}

// record is a downloaded or imported model in library.json.
type record struct {
	ID string `json:"id"`
	// File is a name in the models folder (downloaded) or an absolute
	// path (imported).
	File   string    `json:"file"`
	Size   int64     `json:"size"`
	SHA256 string    `json:"sha256,omitempty"`
	Source Source    `json:"source"`
	Added  time.Time `json:"added"`
}

type recordsFile struct {
	Version int      `json:"version"`
	Models  []record `json:"models"`
	// AllowLarge are the ids of the models the user chose to load despite
	// their memory need (any model, also one found in the folder).
	AllowLarge []string `json:"allow_large,omitempty"`
}

type cachedInfo struct {
	size  int64
	mtime time.Time
	info  *gguf.Info
	err   error
}

const recordsName = "library.json"

// Open opens the models folder, and resumes the downloads a previous run
// left queued or running.
func Open(opt Options) (*Library, error) {
	if opt.Dir == "" {
		return nil, errors.New("library: no models folder")
	}
	if opt.Endpoint == "" {
		opt.Endpoint = DefaultEndpoint
	}
	opt.Endpoint = strings.TrimRight(opt.Endpoint, "/")
	if opt.FreeSpace == nil {
		opt.FreeSpace = freeSpace
	}
	if opt.Reserve == 0 {
		opt.Reserve = 1 << 30
	}
	if opt.EventInterval <= 0 {
		opt.EventInterval = 200 * time.Millisecond
	}
	if opt.MaxActive <= 0 {
		opt.MaxActive = 1
	}
	if opt.MaxRetries <= 0 {
		opt.MaxRetries = 5
	}
	if opt.RetryDelay <= 0 {
		opt.RetryDelay = time.Second
	}
	if opt.StallTimeout <= 0 {
		opt.StallTimeout = time.Minute
	}
	if opt.Catalog == nil {
		opt.Catalog = Catalog()
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	client := opt.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			ResponseHeaderTimeout: 30 * time.Second,
			TLSHandshakeTimeout:   15 * time.Second,
			IdleConnTimeout:       90 * time.Second,
		}}
	}
	if err := os.MkdirAll(filepath.Join(opt.Dir, downloadsDir), 0o755); err != nil {
		return nil, fmt.Errorf("library: create the models folder: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l := &Library{opt: opt, log: opt.Logger.With("component", "library"), client: client, ctx: ctx, stop: stop,
		infos: map[string]cachedInfo{}, allowLarge: map[string]bool{}, downloads: map[string]*download{}}
	if err := l.loadRecords(); err != nil {
		stop()
		return nil, err
	}
	l.loadDownloads()
	l.kick()
	return l, nil
}

// Dir is the models folder.
func (l *Library) Dir() string { return l.opt.Dir }

// Close stops the downloads (their state stays on disk: the next Open
// resumes them, as after a crash) and waits for them.
func (l *Library) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	var running []chan struct{}
	for _, d := range l.downloads {
		if d.done != nil {
			running = append(running, d.done)
		}
	}
	l.mu.Unlock()
	l.stop()
	for _, c := range running {
		<-c
	}
}

func (l *Library) loadRecords() error {
	b, err := os.ReadFile(filepath.Join(l.opt.Dir, recordsName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	var rf recordsFile
	if err := json.Unmarshal(b, &rf); err != nil {
		// A damaged file must not take the library down: keep it aside.
		l.log.Error("the library's records do not parse: kept aside, starting afresh", "err", err)
		_ = os.Rename(filepath.Join(l.opt.Dir, recordsName), filepath.Join(l.opt.Dir, recordsName+".damaged"))
		return nil
	}
	l.records = rf.Models
	for _, id := range rf.AllowLarge {
		l.allowLarge[id] = true
	}
	return nil
}

// saveRecords writes library.json (under l.mu).
func (l *Library) saveRecords() error {
	allow := make([]string, 0, len(l.allowLarge))
	for id := range l.allowLarge {
		allow = append(allow, id)
	}
	sort.Strings(allow)
	b, err := json.MarshalIndent(recordsFile{Version: 1, Models: l.records, AllowLarge: allow}, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(l.opt.Dir, recordsName), b)
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// path is a record's file.
func (l *Library) path(r record) string {
	if filepath.IsAbs(r.File) {
		return r.File
	}
	return filepath.Join(l.opt.Dir, r.File)
}

// inFolder tells whether p is a file of the models folder itself.
func (l *Library) inFolder(p string) bool {
	return filepath.Clean(filepath.Dir(p)) == filepath.Clean(l.opt.Dir)
}

// Models lists the installed models, by id, each checked.
func (l *Library) Models() []Model {
	l.mu.Lock()
	records := append([]record(nil), l.records...)
	l.mu.Unlock()
	out := make([]Model, 0, len(records))
	taken := map[string]bool{}
	known := map[string]bool{}
	for _, r := range records {
		p := l.path(r)
		known[filepath.Clean(p)] = true
		taken[strings.ToLower(r.ID)] = true
		out = append(out, l.inspect(r, p))
	}
	if entries, err := os.ReadDir(l.opt.Dir); err == nil {
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(l.opt.Dir, name)
			if e.IsDir() || strings.HasPrefix(name, ".") || !isGGUFName(name) || known[filepath.Clean(p)] {
				continue
			}
			id := unique(strings.TrimSuffix(name, filepath.Ext(name)), taken)
			taken[strings.ToLower(id)] = true
			out = append(out, l.inspect(record{ID: id, File: name, Source: Source{Path: p}}, p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].ID) < strings.ToLower(out[j].ID) })
	l.mu.Lock()
	for i := range out {
		out[i].RAM = EstimateRAM(out[i].Size)
		if e, ok := l.catalogEntryFor(out[i].Source); ok && e.RAM > 0 {
			out[i].RAM = e.RAM
		}
		out[i].AllowLarge = l.allowLarge[out[i].ID]
	}
	l.mu.Unlock()
	return out
}

// EstimateRAM is the memory a model whose file has size bytes needs: the
// weights, plus the context's KV cache and the compute buffers, which grow
// with the model: about a fifth of the file and half a gigabyte at the
// engine's context (4096–8192 tokens). It matches the catalogue's figures
// (from the models' cards) within a few percent; the UI estimates a hub
// file before download the same way (frontend/src/lib/engine.ts).
func EstimateRAM(size int64) int64 {
	if size <= 0 {
		return 0
	}
	return size + size/5 + 512<<20
}

// SetAllowLarge remembers whether the model id may be loaded even though
// it needs more memory than the machine has ("Load anyway").
func (l *Library) SetAllowLarge(id string, allow bool) (Model, error) {
	if _, ok := l.Model(id); !ok {
		return Model{}, fault.New(fault.NotFound, i18n.M("library.noModel", id))
	}
	set := func(on bool) {
		if on {
			l.allowLarge[id] = true
		} else {
			delete(l.allowLarge, id)
		}
	}
	l.mu.Lock()
	was := l.allowLarge[id]
	set(allow)
	err := l.saveRecords()
	if err != nil {
		set(was) // nothing changed
	}
	l.mu.Unlock()
	if err != nil {
		return Model{}, fmt.Errorf("library: save: %w", err)
	}
	m, _ := l.Model(id)
	return m, nil
}

// Model returns the installed model id.
func (l *Library) Model(id string) (Model, bool) {
	for _, m := range l.Models() {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// Ready lists the models that can be loaded.
func (l *Library) Ready() []Model {
	var out []Model
	for _, m := range l.Models() {
		if m.State == StateReady {
			out = append(out, m)
		}
	}
	return out
}

// inspect checks a model's file.
func (l *Library) inspect(r record, p string) Model {
	name := filepath.Base(p)
	m := Model{ID: r.ID, Name: strings.TrimSuffix(name, filepath.Ext(name)), File: name, Size: r.Size, SHA256: r.SHA256,
		Capabilities: []string{}, Source: r.Source, State: StateBroken, Path: p}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		m.Error = i18n.M("library.missing", p).String()
		return m
	case err != nil:
		m.Error = i18n.M("library.unreadable", err.Error()).String()
		return m
	case st.IsDir():
		m.Error = i18n.M("library.unreadable", p).String()
		return m
	}
	m.Size = st.Size()
	if r.Size > 0 && r.SHA256 != "" && st.Size() != r.Size {
		m.Error = i18n.M("library.changed", p, strconv.FormatInt(r.Size, 10), strconv.FormatInt(st.Size(), 10)).String()
		return m
	}
	info, err := l.info(p, st)
	if err != nil {
		m.Error = i18n.M("library.unreadable", reason(err)).String()
		return m
	}
	if info.Name != "" {
		m.Name = info.Name
	}
	m.Capabilities = info.Capabilities()
	m.State = StateReady
	return m
}

// info reads p's GGUF metadata, cached while its size and modification
// time stay the same.
func (l *Library) info(p string, st os.FileInfo) (*gguf.Info, error) {
	l.mu.Lock()
	c, ok := l.infos[p]
	l.mu.Unlock()
	if ok && c.size == st.Size() && c.mtime.Equal(st.ModTime()) {
		return c.info, c.err
	}
	info, err := gguf.Read(p)
	l.mu.Lock()
	l.infos[p] = cachedInfo{size: st.Size(), mtime: st.ModTime(), info: info, err: err}
	l.mu.Unlock()
	return info, err
}

// reason is err's words without the path Read's caller already says.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func isGGUFName(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".gguf") }

// unique is base, or base-2, base-3, … when taken (lowercased keys).
func unique(base string, taken map[string]bool) string {
	if base == "" {
		base = "model"
	}
	id := base
	for n := 2; taken[strings.ToLower(id)]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	return id
}

// Import adds the GGUF at path (absolute), used in place; a file already
// in the library answers its model.
func (l *Library) Import(path string) (Model, error) {
	path = strings.TrimSpace(path)
	if path == "" || !filepath.IsAbs(path) {
		return Model{}, fault.New(fault.Input, i18n.M("library.notAbsolute", path))
	}
	p := filepath.Clean(path)
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Model{}, fault.Wrap(fault.Validation, i18n.M("library.noFile", p), err)
	case err != nil:
		return Model{}, fault.Wrap(fault.Validation, i18n.M("library.notGGUF", p, reason(err)), err)
	case st.IsDir():
		return Model{}, fault.New(fault.Validation, i18n.M("library.notGGUF", p, "a folder"))
	}
	if _, err := gguf.Read(p); err != nil {
		return Model{}, fault.Wrap(fault.Validation, i18n.M("library.notGGUF", p, reason(err)), err)
	}
	models := l.Models()
	for _, m := range models {
		if filepath.Clean(m.Path) == p {
			return m, nil
		}
	}
	taken := map[string]bool{}
	for _, m := range models {
		taken[strings.ToLower(m.ID)] = true
	}
	name := filepath.Base(p)
	l.mu.Lock()
	for _, r := range l.records {
		taken[strings.ToLower(r.ID)] = true
	}
	r := record{ID: unique(strings.TrimSuffix(name, filepath.Ext(name)), taken), File: p, Size: st.Size(),
		Source: Source{Path: p}, Added: time.Now().UTC()}
	l.records = append(l.records, r)
	err = l.saveRecords()
	l.mu.Unlock()
	if err != nil {
		return Model{}, fmt.Errorf("library: save: %w", err)
	}
	return l.inspect(r, p), nil
}

// Delete removes a model: a file of the models folder is deleted, an
// imported one only forgotten.
func (l *Library) Delete(id string) (Model, error) {
	m, ok := l.Model(id)
	if !ok {
		return Model{}, fault.New(fault.NotFound, i18n.M("library.noModel", id))
	}
	if l.inFolder(m.Path) {
		if err := os.Remove(m.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Model{}, fmt.Errorf("library: delete %s: %w", m.Path, err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.records[:0]
	for _, r := range l.records {
		if r.ID != id {
			kept = append(kept, r)
		}
	}
	l.records = kept
	delete(l.infos, m.Path)
	delete(l.allowLarge, id)
	if err := l.saveRecords(); err != nil {
		return Model{}, fmt.Errorf("library: save: %w", err)
	}
	return m, nil
}

// installed returns the model downloaded from repo's file, if any.
func installedFrom(models []Model, repo, file string) (Model, bool) {
	for _, m := range models {
		if m.Source.Repo != "" && strings.EqualFold(m.Source.Repo, repo) && m.Source.File == file {
			return m, true
		}
	}
	return Model{}, false
}
