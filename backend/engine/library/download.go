package library

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/engine/gguf"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// States of a download.
const (
	DownloadQueued      = "queued"
	DownloadDownloading = "downloading"
	DownloadPaused      = "paused"
	DownloadVerifying   = "verifying"
	DownloadDone        = "done"
	DownloadError       = "error"
	DownloadCancelled   = "cancelled"
)

// DownloadStates lists them, for the wire.
var DownloadStates = []string{DownloadQueued, DownloadDownloading, DownloadPaused, DownloadVerifying, DownloadDone, DownloadError, DownloadCancelled}

// Download is a download from the hub (GET /api/v1/engine/downloads, and
// the engine:download event).
type Download struct {
	ID       string `json:"id"`
	Repo     string `json:"repo"`
	File     string `json:"file"`
	Revision string `json:"revision"`
	// CatalogID is the catalogue entry it was asked by ("" for any file of
	// the hub).
	CatalogID string `json:"catalog_id,omitempty"`
	State     string `json:"state"`
	// Bytes of Total are on the disk.
	Bytes int64 `json:"bytes"`
	Total int64 `json:"total"`
	// SHA256 is the hub's checksum the file is verified against.
	SHA256 string `json:"sha256"`
	Error  string `json:"error,omitempty"`
	// Model is the installed model's id, once done.
	Model string `json:"model,omitempty"`
}

// download is a Download with what runs it.
type download struct {
	Download
	commit  string // the revision's commit (the hub's X-Repo-Commit): a resume gets the same file
	target  string // the file's name in the models folder once verified
	created time.Time
	cancel  context.CancelFunc // of the running transfer
	done    chan struct{}      // closed when the running transfer has ended; nil when none runs
	events  *throttle
}

// saved is a download's state on disk (.downloads/<id>.json).
type saved struct {
	Download
	Commit  string    `json:"commit,omitempty"`
	Target  string    `json:"target"`
	Created time.Time `json:"created"`
}

const downloadsDir = ".downloads"

func (l *Library) partPath(id string) string {
	return filepath.Join(l.opt.Dir, downloadsDir, id+".part")
}

func (l *Library) statePath(id string) string {
	return filepath.Join(l.opt.Dir, downloadsDir, id+".json")
}

// downloadID is the same for the same file of the same revision, so that
// asking twice gives the one download.
func downloadID(repo, revision, file string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(repo) + "\n" + revision + "\n" + file))
	return hex.EncodeToString(sum[:8])
}

// persist writes d's state (under l.mu).
func (l *Library) persist(d *download) {
	b, err := json.Marshal(saved{Download: d.Download, Commit: d.commit, Target: d.target, Created: d.created})
	if err == nil {
		err = writeFileAtomic(l.statePath(d.ID), b)
	}
	if err != nil {
		l.log.Error("save a download's state", "id", d.ID, "err", err)
	}
}

// forget removes d's files (under l.mu or once d has stopped).
func (l *Library) forget(d *download, part bool) {
	_ = os.Remove(l.statePath(d.ID))
	if part {
		_ = os.Remove(l.partPath(d.ID))
	}
}

// loadDownloads reads the downloads a previous run left: those that were
// queued or running are queued again.
func (l *Library) loadDownloads() {
	entries, err := os.ReadDir(filepath.Join(l.opt.Dir, downloadsDir))
	if err != nil {
		return
	}
	var list []*download
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(l.opt.Dir, downloadsDir, e.Name()))
		var s saved
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		if err != nil || s.ID == "" || s.ID+".json" != e.Name() {
			l.log.Warn("a download's state does not parse: dropped", "file", e.Name(), "err", err)
			_ = os.Remove(filepath.Join(l.opt.Dir, downloadsDir, e.Name()))
			continue
		}
		d := &download{Download: s.Download, commit: s.Commit, target: s.Target, created: s.Created}
		d.Bytes = 0
		if st, err := os.Stat(l.partPath(d.ID)); err == nil {
			d.Bytes = min(st.Size(), d.Total)
		}
		switch d.State {
		case DownloadQueued, DownloadDownloading, DownloadVerifying:
			d.State = DownloadQueued
		case DownloadPaused, DownloadError:
		default:
			l.forget(d, true)
			continue
		}
		d.events = l.newThrottle()
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].created.Before(list[j].created) })
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range list {
		l.downloads[d.ID] = d
		l.order = append(l.order, d.ID)
	}
}

// Downloads lists the downloads of this run and the unfinished ones of
// earlier runs, oldest first.
func (l *Library) Downloads() []Download {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Download, 0, len(l.order))
	for _, id := range l.order {
		out = append(out, l.downloads[id].Download)
	}
	return out
}

// Busy lists the downloads that still have work to do, paused ones too:
// the models folder is not changed under them.
func (l *Library) Busy() []Download {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Download
	for _, id := range l.order {
		if d := l.downloads[id]; active(d.State) || d.State == DownloadPaused {
			out = append(out, d.Download)
		}
	}
	return out
}

// GetDownload returns one download.
func (l *Library) GetDownload(id string) (Download, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.downloads[id]
	if !ok {
		return Download{}, fault.New(fault.NotFound, i18n.M("library.noDownload", id))
	}
	return d.Download, nil
}

var (
	repoPattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	revisionPattern = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
)

// checkRequest resolves a catalogue entry and checks the names.
func (l *Library) checkRequest(req api.EngineDownloadRequest) (api.EngineDownloadRequest, error) {
	if req.CatalogID != "" {
		e, ok := l.catalogEntry(req.CatalogID)
		if !ok {
			return req, fault.New(fault.NotFound, i18n.M("library.noCatalogEntry", req.CatalogID))
		}
		req = api.EngineDownloadRequest{CatalogID: e.ID, Repo: e.Repo, File: e.File, Revision: e.Revision}
	}
	req.Repo, req.File, req.Revision = strings.TrimSpace(req.Repo), strings.TrimSpace(req.File), strings.TrimSpace(req.Revision)
	if req.Revision == "" {
		req.Revision = "main"
	}
	if req.Repo == "" || req.File == "" {
		return req, fault.Newf(fault.Input, `give "catalog_id", or "repo" and "file"`)
	}
	if len(req.Repo) > 200 || !repoPattern.MatchString(req.Repo) || strings.Contains(req.Repo, "..") {
		return req, fault.New(fault.Input, i18n.M("library.badRepo", req.Repo))
	}
	if len(req.Revision) > 200 || !revisionPattern.MatchString(req.Revision) || strings.Contains(req.Revision, "..") {
		return req, fault.New(fault.Input, i18n.M("library.badRevision", req.Revision))
	}
	bad := len(req.File) > 500 || strings.HasPrefix(req.File, "/") || strings.Contains(req.File, `\`) || strings.Contains(req.File, "//")
	for _, seg := range strings.Split(req.File, "/") {
		bad = bad || seg == "" || seg == "." || seg == ".."
	}
	if bad {
		return req, fault.New(fault.Input, i18n.M("library.badFile", req.File))
	}
	if !isGGUFName(req.File) {
		return req, fault.New(fault.Validation, i18n.M("library.notGGUFName", req.File))
	}
	return req, nil
}

// active tells whether a download still has work to do.
func active(state string) bool {
	return state == DownloadQueued || state == DownloadDownloading || state == DownloadVerifying
}

// Start asks for a download: it asks the hub for the file's size and
// sha256, checks the free disk space and queues it. Asking again for a
// download in progress answers it.
func (l *Library) Start(ctx context.Context, req api.EngineDownloadRequest) (Download, error) {
	req, err := l.checkRequest(req)
	if err != nil {
		return Download{}, err
	}
	id := downloadID(req.Repo, req.Revision, req.File)
	l.mu.Lock()
	if d, ok := l.downloads[id]; ok && (active(d.State) || d.State == DownloadPaused) {
		running := d.Download // copied under the lock: its download writes it
		l.mu.Unlock()
		return running, nil
	}
	l.mu.Unlock()
	if m, ok := installedFrom(l.Models(), req.Repo, req.File); ok {
		return Download{}, fault.New(fault.Conflict, i18n.M("library.installed", req.File, m.ID))
	}
	remote, err := l.resolve(ctx, req.Repo, req.Revision, req.File)
	if err != nil {
		return Download{}, err
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return Download{}, errors.New("library: closed")
	}
	if d, ok := l.downloads[id]; ok && (active(d.State) || d.State == DownloadPaused) {
		return d.Download, nil // asked twice at once
	}
	have := int64(0)
	if old, ok := l.downloads[id]; ok && old.SHA256 == remote.sha {
		if st, err := os.Stat(l.partPath(id)); err == nil && st.Size() <= remote.size {
			have = st.Size() // an earlier attempt's bytes are kept
		}
	} else {
		_ = os.Remove(l.partPath(id))
	}
	if err := l.checkSpace(remote.size-have, id); err != nil {
		return Download{}, err
	}
	d := &download{
		Download: Download{ID: id, Repo: req.Repo, File: req.File, Revision: req.Revision, CatalogID: req.CatalogID,
			State: DownloadQueued, Bytes: have, Total: remote.size, SHA256: remote.sha},
		commit: remote.commit, target: l.targetName(req.File, id), created: time.Now().UTC(), events: l.newThrottle(),
	}
	if _, ok := l.downloads[id]; !ok {
		l.order = append(l.order, id)
	}
	l.downloads[id] = d
	l.persist(d)
	l.changed(d)
	go l.kick()
	return d.Download, nil
}

// HubFile is what a GGUF of the hub asked for by repository and file
// would take, told before it is downloaded (GET /api/v1/engine/hub/file):
// its size, the memory it needs to run, and whether the disk holds it.
type HubFile struct {
	Repo     string `json:"repo"`
	File     string `json:"file"`
	Revision string `json:"revision"`
	Size     int64  `json:"size"`
	// RAM is EstimateRAM(Size), as for an installed model of that size.
	RAM int64 `json:"ram"`
	// Memory is the machine's total memory (0 when it cannot be read);
	// Fits tells whether RAM is within it (true when unknown). The caller
	// fills them: the library does not read the machine's memory.
	Memory uint64 `json:"memory"`
	Fits   bool   `json:"fits"`
	// FreeDisk is the free space of the models folder's disk (-1 when it
	// cannot be read); DiskFits tells whether the download would be let
	// through (size + the reserve, beside the other downloads).
	FreeDisk int64 `json:"free_disk"`
	DiskFits bool  `json:"disk_fits"`
	// Installed is the installed model's id when this file already is one.
	Installed string `json:"installed,omitempty"`
}

// Check asks the hub about a file as Start would (the same 422 for a name
// that is not a GGUF or a file not on the hub, the same message when the
// hub cannot be reached) and says its size, memory need and whether the
// disk holds it, without downloading anything.
func (l *Library) Check(ctx context.Context, req api.EngineDownloadRequest) (HubFile, error) {
	req, err := l.checkRequest(req)
	if err != nil {
		return HubFile{}, err
	}
	remote, err := l.resolve(ctx, req.Repo, req.Revision, req.File)
	if err != nil {
		return HubFile{}, err
	}
	f := HubFile{Repo: req.Repo, File: req.File, Revision: req.Revision, Size: remote.size,
		RAM: EstimateRAM(remote.size), Fits: true, FreeDisk: -1, DiskFits: true}
	if m, ok := installedFrom(l.Models(), req.Repo, req.File); ok {
		f.Installed = m.ID
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	free, err := l.opt.FreeSpace(l.opt.Dir)
	if err != nil {
		return f, nil // unknown: Start lets it through too
	}
	f.FreeDisk = int64(min(free, uint64(1)<<62))
	f.DiskFits = l.checkSpace(remote.size, downloadID(req.Repo, req.Revision, req.File)) == nil
	return f, nil
}

// targetName is a free file name in the models folder for file (under
// l.mu).
func (l *Library) targetName(file, id string) string {
	base := filepath.Base(filepath.FromSlash(file))
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	taken := func(name string) bool {
		if _, err := os.Lstat(filepath.Join(l.opt.Dir, name)); err == nil {
			return true
		}
		for _, d := range l.downloads {
			if d.ID != id && active(d.State) && strings.EqualFold(d.target, name) {
				return true
			}
		}
		return false
	}
	name := base
	for n := 2; taken(name); n++ {
		name = stem + "-" + strconv.Itoa(n) + ext
	}
	return name
}

// checkSpace refuses a download of need more bytes when the disk cannot
// hold them, with the other downloads' and the reserve (under l.mu).
func (l *Library) checkSpace(need int64, id string) error {
	free, err := l.opt.FreeSpace(l.opt.Dir)
	if err != nil {
		l.log.Warn("free disk space unknown: the download goes ahead", "err", err)
		return nil
	}
	for _, d := range l.downloads {
		if d.ID != id && active(d.State) {
			need += max(0, d.Total-d.Bytes)
		}
	}
	want := need + l.opt.Reserve
	if want > 0 && free < uint64(want) {
		return fault.New(fault.Storage, i18n.M("library.noSpace", formatBytes(want), l.opt.Dir, formatBytes(int64(free))))
	}
	return nil
}

func formatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%d KB", (n+999)/1000)
	}
}

// Pause stops a queued or running download; its bytes stay for Resume.
func (l *Library) Pause(id string) (Download, error) {
	l.mu.Lock()
	d, ok := l.downloads[id]
	if !ok {
		l.mu.Unlock()
		return Download{}, fault.New(fault.NotFound, i18n.M("library.noDownload", id))
	}
	switch d.State {
	case DownloadPaused:
		same := d.Download // copied under the lock
		l.mu.Unlock()
		return same, nil
	case DownloadQueued, DownloadDownloading:
	default:
		l.mu.Unlock()
		return Download{}, fault.New(fault.Conflict, i18n.M("library.cannotPause", d.State))
	}
	d.State = DownloadPaused
	l.persist(d)
	l.changed(d)
	done := d.done
	if d.cancel != nil {
		d.cancel()
	}
	l.mu.Unlock()
	if done != nil {
		<-done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return d.Download, nil
}

// Resume queues a paused download again, or one that ended in error
// (from the bytes it has).
func (l *Library) Resume(id string) (Download, error) {
	l.mu.Lock()
	defer func() { go l.kick() }()
	defer l.mu.Unlock()
	d, ok := l.downloads[id]
	if !ok {
		return Download{}, fault.New(fault.NotFound, i18n.M("library.noDownload", id))
	}
	switch d.State {
	case DownloadQueued, DownloadDownloading, DownloadVerifying:
		return d.Download, nil
	case DownloadPaused, DownloadError:
	default:
		return Download{}, fault.New(fault.Conflict, i18n.M("library.cannotResume", d.State))
	}
	if err := l.checkSpace(d.Total-d.Bytes, id); err != nil {
		return Download{}, err
	}
	d.State, d.Error = DownloadQueued, ""
	l.persist(d)
	l.changed(d)
	return d.Download, nil
}

// Cancel stops a download and deletes its partial file.
func (l *Library) Cancel(id string) (Download, error) {
	l.mu.Lock()
	d, ok := l.downloads[id]
	if !ok {
		l.mu.Unlock()
		return Download{}, fault.New(fault.NotFound, i18n.M("library.noDownload", id))
	}
	switch d.State {
	case DownloadCancelled:
		same := d.Download // copied under the lock
		l.mu.Unlock()
		return same, nil
	case DownloadDone:
		l.mu.Unlock()
		return Download{}, fault.New(fault.Conflict, i18n.M("library.cannotCancel", d.State))
	}
	d.State, d.Error, d.Bytes = DownloadCancelled, "", 0
	done := d.done
	if d.cancel != nil {
		d.cancel()
	}
	l.mu.Unlock()
	if done != nil {
		<-done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forget(d, true)
	l.changed(d)
	go l.kick()
	return d.Download, nil
}

// kick starts queued downloads while fewer than MaxActive run.
func (l *Library) kick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	running := 0
	for _, d := range l.downloads {
		if d.done != nil {
			running++
		}
	}
	for _, id := range l.order {
		if running >= l.opt.MaxActive {
			return
		}
		d := l.downloads[id]
		if d.State != DownloadQueued || d.done != nil {
			continue
		}
		ctx, cancel := context.WithCancel(l.ctx)
		d.cancel, d.done = cancel, make(chan struct{})
		d.State = DownloadDownloading
		l.persist(d)
		l.changed(d)
		running++
		go l.run(ctx, d)
	}
}

// run downloads, verifies and installs d; a pause, a cancel or Close
// stops it (they set the state themselves).
func (l *Library) run(ctx context.Context, d *download) {
	err := l.transfer(ctx, d)
	l.mu.Lock()
	if ctx.Err() == nil && err != nil {
		l.log.Warn("download failed", "repo", d.Repo, "file", d.File, "err", err)
		d.State, d.Error = DownloadError, i18n.Localize(err, i18n.Current())
		l.persist(d)
		l.changed(d)
	}
	done := d.done
	d.cancel()
	d.cancel, d.done = nil, nil
	close(done)
	l.mu.Unlock()
	l.kick()
}

// errHashMismatch ends a download whose file does not match its sha256.
var errHashMismatch = errors.New("sha256 mismatch")

// transfer fetches the rest of d's file, resuming from what the partial
// file holds, then verifies and installs it.
func (l *Library) transfer(ctx context.Context, d *download) error {
	l.mu.Lock()
	total, sha, url := d.Total, d.SHA256, l.fileURL(d.Repo, d.revisionForFetch(), d.File)
	l.mu.Unlock()

	f, err := os.OpenFile(l.partPath(d.ID), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("open the partial file: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	offset, err := hashPrefix(ctx, f, h)
	if err != nil {
		return err
	}
	if offset > total {
		if err := restart(f, h); err != nil {
			return err
		}
		offset = 0
	}
	l.setBytes(d, offset)

	failures, lastFailAt := 0, int64(-1)
	for offset < total {
		var ferr error
		offset, ferr = l.fetch(ctx, d, f, h, url, offset, total)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ferr == nil {
			continue
		}
		var perm permanent
		if errors.As(ferr, &perm) {
			return perm.err
		}
		if offset > lastFailAt {
			failures = 0 // it got further: the count starts again
		}
		failures++
		lastFailAt = offset
		if failures > l.opt.MaxRetries {
			return fault.Wrap(fault.Upstream, i18n.M("library.dropped", reason(ferr)), ferr)
		}
		delay := min(l.opt.RetryDelay<<(failures-1), 30*time.Second)
		l.log.Info("download interrupted: retrying", "file", d.File, "at", offset, "in", delay, "err", ferr)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
	if err := f.Close(); err != nil {
		return err
	}

	l.mu.Lock()
	if ctx.Err() != nil {
		l.mu.Unlock()
		return ctx.Err()
	}
	d.State = DownloadVerifying
	l.persist(d)
	l.changed(d)
	l.mu.Unlock()

	part := l.partPath(d.ID)
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		_ = os.Remove(part)
		return fault.Wrap(fault.Validation, i18n.M("library.hashMismatch", d.File), fmt.Errorf("%w: got %s, want %s", errHashMismatch, got, sha))
	}
	if _, err := gguf.Read(part); err != nil {
		_ = os.Remove(part)
		return fault.Wrap(fault.Validation, i18n.M("library.notGGUF", d.File, reason(err)), err)
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	d.target = l.targetName(d.target, d.ID)
	dest := filepath.Join(l.opt.Dir, d.target)
	if err := os.Rename(part, dest); err != nil {
		return fmt.Errorf("move the file into the models folder: %w", err)
	}
	taken := map[string]bool{}
	for _, r := range l.records {
		taken[strings.ToLower(r.ID)] = true
	}
	if entries, err := os.ReadDir(l.opt.Dir); err == nil {
		for _, e := range entries {
			if n := e.Name(); isGGUFName(n) && n != d.target {
				taken[strings.ToLower(strings.TrimSuffix(n, filepath.Ext(n)))] = true
			}
		}
	}
	r := record{ID: unique(strings.TrimSuffix(d.target, filepath.Ext(d.target)), taken), File: d.target, Size: total,
		SHA256: sha, Source: Source{Repo: d.Repo, File: d.File, Revision: d.Revision}, Added: time.Now().UTC()}
	l.records = append(l.records, r)
	if err := l.saveRecords(); err != nil {
		return fmt.Errorf("save the library: %w", err)
	}
	d.State, d.Model, d.Bytes = DownloadDone, r.ID, total
	l.forget(d, false)
	l.changed(d)
	l.log.Info("model downloaded", "id", r.ID, "repo", d.Repo, "file", d.File, "bytes", total)
	return nil
}

// revisionForFetch is the commit when the hub said it (a resume then
// gets the same file even when the branch moved), else the revision.
func (d *download) revisionForFetch() string {
	if d.commit != "" {
		return d.commit
	}
	return d.Revision
}

// permanent marks an error that retrying will not mend.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// hashPrefix feeds the partial file's bytes to h and returns how many.
func hashPrefix(ctx context.Context, f *os.File, h hash.Hash) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("read the partial file: %w", err)
		}
	}
}

func restart(f *os.File, h hash.Hash) error {
	h.Reset()
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// fetch GETs the file from offset and appends what comes to f and h; it
// returns the new offset. A dropped or stalled body is a plain error (the
// caller retries), a refusal a permanent one.
func (l *Library) fetch(ctx context.Context, d *download, f *os.File, h hash.Hash, url string, offset, total int64) (int64, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, url, nil)
	if err != nil {
		return offset, permanent{err}
	}
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return offset, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if start, ok := contentRangeStart(resp.Header.Get("Content-Range")); !ok || start != offset {
			// Not the part asked for: start again from the beginning.
			if err := restart(f, h); err != nil {
				return offset, permanent{err}
			}
			l.setBytes(d, 0)
			return 0, fmt.Errorf("the hub answered another range (%q)", resp.Header.Get("Content-Range"))
		}
	case http.StatusOK:
		if offset > 0 { // the server ignored Range: the whole file comes
			if err := restart(f, h); err != nil {
				return offset, permanent{err}
			}
			offset = 0
			l.setBytes(d, 0)
		}
	case http.StatusRequestedRangeNotSatisfiable:
		if err := restart(f, h); err != nil {
			return offset, permanent{err}
		}
		l.setBytes(d, 0)
		return 0, errors.New("the hub refused the range: starting again")
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return offset, permanent{fault.New(fault.Validation, i18n.M("library.notOnHub", d.Repo, d.File, resp.Status))}
	default:
		return offset, fmt.Errorf("the hub answered %s", resp.Status)
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, permanent{err}
	}
	stall := time.AfterFunc(l.opt.StallTimeout, cancel)
	defer stall.Stop()
	buf := make([]byte, 256<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			stall.Reset(l.opt.StallTimeout)
			if offset+int64(n) > total {
				if err := restart(f, h); err != nil {
					return offset, permanent{err}
				}
				l.setBytes(d, 0)
				return 0, fmt.Errorf("the hub sent more than the %d bytes it announced", total)
			}
			if _, err := f.Write(buf[:n]); err != nil {
				return offset, permanent{fmt.Errorf("write the partial file: %w", err)}
			}
			h.Write(buf[:n])
			offset += int64(n)
			l.setBytes(d, offset)
		}
		switch {
		case rerr == nil:
		case errors.Is(rerr, io.EOF) && offset >= total:
			return offset, nil
		case errors.Is(rerr, io.EOF):
			return offset, errors.New("the connection closed before the end of the file")
		case ctx.Err() == nil && actx.Err() != nil:
			return offset, fmt.Errorf("nothing came for %s", l.opt.StallTimeout)
		default:
			return offset, rerr
		}
	}
}

// contentRangeStart reads the first byte of "bytes N-M/T".
func contentRangeStart(v string) (int64, bool) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, false
	}
	a, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(a, 10, 64)
	return n, err == nil
}

// setBytes records progress and tells about it (throttled).
func (l *Library) setBytes(d *download, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.Bytes == n {
		return
	}
	d.Bytes = n
	l.changed(d)
}

// changed tells OnDownload about d's change (under l.mu).
func (l *Library) changed(d *download) {
	d.events.poke(d.Download)
}

// throttle sends a download's changes at most once per interval, the
// latest one, in order.
type throttle struct {
	interval time.Duration
	emit     func(Download)

	mu        sync.Mutex
	latest    Download
	last      time.Time
	scheduled bool
}

func (l *Library) newThrottle() *throttle {
	emit := l.opt.OnDownload
	if emit == nil {
		emit = func(Download) {}
	}
	return &throttle{interval: l.opt.EventInterval, emit: emit}
}

func (t *throttle) poke(d Download) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.latest = d
	if t.scheduled {
		return
	}
	t.scheduled = true
	wait := max(0, t.interval-time.Since(t.last))
	time.AfterFunc(wait, t.flush)
}

func (t *throttle) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scheduled = false
	t.emit(t.latest)
	// The interval counts from the end of this delivery: a listener slow to
	// take it (a busy machine) never gets the next one sooner than that.
	t.last = time.Now()
}
