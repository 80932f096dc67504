// Package hubtest is a loopback HTTP server shaped like the Hugging Face
// hub's file downloads, for the model library's tests (SPEC §12) and, run
// by cmd/fakehub, for the end-to-end and desktop tests: no model weights
// are reachable from the registries, so tests serve generated GGUFs
// (backend/engine/ggufgen) through it, with HF_ENDPOINT pointing at it.
//
// Like the hub, GET and HEAD /{owner}/{name}/resolve/{revision}/{file}
// answer the file with its sha256 in X-Linked-Etag and ETag, its size in
// X-Linked-Size and Content-Length, the commit in X-Repo-Commit; Range
// gives 206; an unknown file is 404 (X-Error-Code: EntryNotFound), an
// unknown repository 401 (RepoNotFound). Each file has a Mode: a redirect
// to a CDN-like path (as the hub does for large files), a slow body, a
// wrong body (the headers keep the true sha256), connections dropped mid
// file, no X-Linked headers. Every request is recorded (Requests).
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mode is how a file is served.
type Mode struct {
	// Redirect: resolve answers 302 (with the X-Linked headers) to
	// /cdn/{sha256}, which serves the body.
	Redirect bool
	// BytesPerSecond slows the body down (0 = as fast as it goes).
	BytesPerSecond int
	// WrongHash serves a body that differs from the file in its last byte;
	// the headers still give the file's sha256.
	WrongHash bool
	// Drops responses (GET) drop their connection after DropAfter bytes
	// of body, one after the other.
	Drops     int
	DropAfter int64
	// NoLinked leaves out X-Linked-Etag and X-Linked-Size: clients must use
	// ETag and Content-Length.
	NoLinked bool
}

// Request is one request the server saw.
type Request struct {
	Method string
	Path   string
	Range  string
	Status int
}

type file struct {
	content []byte
	sha     string
	mode    Mode
}

// Server is the fake hub.
type Server struct {
	ts *httptest.Server

	mu       sync.Mutex
	files    map[string]*file // "owner/name/path"
	repos    map[string]bool
	requests []Request
}

// New starts a hub on a loopback port; Close stops it.
func New() *Server {
	s := NewUnstarted()
	s.ts = httptest.NewServer(s)
	return s
}

// NewUnstarted returns a hub to serve with an http.Server of one's own
// (cmd/fakehub): it is an http.Handler.
func NewUnstarted() *Server {
	return &Server{files: map[string]*file{}, repos: map[string]bool{}}
}

// URL is the hub's address, for HF_ENDPOINT ("" when not started by New).
func (s *Server) URL() string {
	if s.ts == nil {
		return ""
	}
	return s.ts.URL
}

// Close stops a hub started by New.
func (s *Server) Close() {
	if s.ts != nil {
		s.ts.CloseClientConnections()
		s.ts.Close()
	}
}

// Add serves content as repo's file (repo "owner/name", file a path in
// it) and returns its sha256.
func (s *Server) Add(repo, path string, content []byte, mode Mode) string {
	sum := sha256.Sum256(content)
	sha := hex.EncodeToString(sum[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[repo+"/"+path] = &file{content: content, sha: sha, mode: mode}
	s.repos[repo] = true
	return sha
}

// SetMode changes how a file is served from the next request on.
func (s *Server) SetMode(repo, path string, mode Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.files[repo+"/"+path]; f != nil {
		f.mode = mode
	}
}

// Requests returns every request so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Ranges returns the Range headers of the GETs that answered path's body
// (path: a file's path in its repository; redirects left out), in order
// ("" for a GET without one): those answered 200, 206 or 416.
func (s *Server) Ranges(path string) []string {
	s.mu.Lock()
	cdn := map[string]bool{}
	for k, f := range s.files {
		if strings.HasSuffix(k, "/"+path) {
			cdn["/cdn/"+f.sha] = true
		}
	}
	s.mu.Unlock()
	var out []string
	for _, r := range s.Requests() {
		served := r.Status == http.StatusOK || r.Status == http.StatusPartialContent || r.Status == http.StatusRequestedRangeNotSatisfiable
		if r.Method == http.MethodGet && served &&
			(strings.Contains(r.Path, "/resolve/") && strings.HasSuffix(r.Path, "/"+path) || cdn[r.Path]) {
			out = append(out, r.Range)
		}
	}
	return out
}

// Commit is the commit the hub says a repository is at.
func Commit(repo string) string {
	sum := sha1.Sum([]byte(repo))
	return hex.EncodeToString(sum[:])
}

func (s *Server) record(r *http.Request, status int) {
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Range: r.Header.Get("Range"), Status: status})
	s.mu.Unlock()
}

// ServeHTTP serves resolve and CDN requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.record(r, http.StatusMethodNotAllowed)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if sha, ok := strings.CutPrefix(r.URL.Path, "/cdn/"); ok {
		s.serveCDN(w, r, sha)
		return
	}
	// /{owner}/{name}/resolve/{revision}/{path...}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 5)
	if len(parts) < 5 || parts[2] != "resolve" {
		s.record(r, http.StatusNotFound)
		http.NotFound(w, r)
		return
	}
	repo, rev, path := parts[0]+"/"+parts[1], parts[3], parts[4]
	s.mu.Lock()
	known := s.repos[repo]
	f := s.files[repo+"/"+path]
	var mode Mode
	if f != nil {
		mode = f.mode
	}
	s.mu.Unlock()
	switch {
	case !known:
		s.refuse(w, r, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		return
	case rev != "main" && rev != Commit(repo):
		s.refuse(w, r, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	case f == nil:
		s.refuse(w, r, http.StatusNotFound, "EntryNotFound", "Entry not found")
		return
	}
	h := w.Header()
	h.Set("X-Repo-Commit", Commit(repo))
	if !mode.NoLinked {
		h.Set("X-Linked-Etag", `"`+f.sha+`"`)
		h.Set("X-Linked-Size", strconv.Itoa(len(f.content)))
	}
	if mode.Redirect {
		h.Set("Location", "/cdn/"+f.sha)
		s.record(r, http.StatusFound)
		w.WriteHeader(http.StatusFound)
		return
	}
	s.serveBody(w, r, f)
}

func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	s.record(r, status)
	w.Header().Set("X-Error-Code", code)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":%q}`, msg)
}

func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request, sha string) {
	s.mu.Lock()
	var f *file
	for _, c := range s.files {
		if c.sha == sha {
			f = c
		}
	}
	s.mu.Unlock()
	if f == nil {
		s.record(r, http.StatusNotFound)
		http.NotFound(w, r)
		return
	}
	s.serveBody(w, r, f)
}

// serveBody answers the file's content, or the part Range asks for.
func (s *Server) serveBody(w http.ResponseWriter, r *http.Request, f *file) {
	s.mu.Lock()
	mode := f.mode
	drop := false
	if r.Method == http.MethodGet && mode.Drops > 0 {
		drop = true
		f.mode.Drops--
	}
	s.mu.Unlock()

	content := f.content
	if mode.WrongHash && len(content) > 0 {
		content = append([]byte(nil), content...)
		content[len(content)-1] ^= 0xff
	}
	size := int64(len(content))
	h := w.Header()
	h.Set("ETag", `"`+f.sha+`"`)
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Type", "application/octet-stream")
	start, end, status := int64(0), size, http.StatusOK
	if rg := r.Header.Get("Range"); rg != "" {
		from, to, ok := parseRange(rg, size)
		switch {
		case !ok && from >= size:
			h.Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			s.record(r, http.StatusRequestedRangeNotSatisfiable)
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		case ok:
			start, end, status = from, to, http.StatusPartialContent
			h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end-1, size))
		}
	}
	h.Set("Content-Length", strconv.FormatInt(end-start, 10))
	s.record(r, status)
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	body := content[start:end]
	limit := int64(len(body))
	if drop {
		limit = min(limit, mode.DropAfter)
	}
	flusher, _ := w.(http.Flusher)
	chunk := 32 << 10
	var tick time.Duration
	if mode.BytesPerSecond > 0 {
		chunk = max(1, mode.BytesPerSecond/20)
		tick = 50 * time.Millisecond
	}
	for sent := int64(0); sent < limit; {
		n := min(int64(chunk), limit-sent)
		if _, err := w.Write(body[sent : sent+n]); err != nil {
			return
		}
		sent += n
		if flusher != nil {
			flusher.Flush()
		}
		if tick > 0 && sent < limit {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(tick):
			}
		}
	}
	if drop && limit < int64(len(body)) {
		panic(http.ErrAbortHandler) // the connection closes mid body
	}
}

// parseRange reads "bytes=N-" or "bytes=N-M": [from, to) within size.
// ok is false for a range it does not serve (from is then set when it
// lies past the end).
func parseRange(h string, size int64) (from, to int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	a, b, _ := strings.Cut(spec, "-")
	from, err := strconv.ParseInt(a, 10, 64)
	if err != nil || from < 0 {
		return 0, 0, false
	}
	if from >= size {
		return from, 0, false
	}
	to = size
	if b != "" {
		last, err := strconv.ParseInt(b, 10, 64)
		if err != nil || last < from {
			return 0, 0, false
		}
		to = min(size, last+1)
	}
	return from, to, true
}
