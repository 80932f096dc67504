package update

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"syscall"
)

// ErrNoSpace is a staging that ran out of disk space; the staging folder
// has been cleaned.
var ErrNoSpace = errors.New("not enough disk space to stage the update")

// ErrUnreachable wraps every failure to reach the feed or the artifact.
var ErrUnreachable = errors.New("cannot reach the update feed")

// Stager downloads an artifact into the staging folder, resuming a
// partial download with Range, and verifies its size and sha256.
type Stager struct {
	Client *http.Client
	Dir    string // the staging folder (<data>/update/staging)
	// UserAgent is sent with every request.
	UserAgent string
	// FreeSpace is the free space of a folder (nil: the OS's); an
	// unknown free space does not stop a download.
	FreeSpace func(dir string) (uint64, error)
	// WrapWriter wraps the staging file's writer (tests inject a full disk).
	WrapWriter func(io.Writer) io.Writer
	// OnProgress is told the bytes staged so far (optional).
	OnProgress func(done, total int64)
}

// StagedName is the staged file's name for an artifact: its sha256 and the
// URL's base name, so a different artifact never resumes another's bytes.
func StagedName(a Artifact) string {
	base := "artifact"
	if u, err := url.Parse(a.URL); err == nil && path.Base(u.Path) != "" && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
		base = path.Base(u.Path)
	}
	return a.SHA256[:16] + "-" + base
}

// Stage downloads a (its URL already resolved) and returns the verified
// file's path. A cut download keeps its .part file to be resumed; a size
// or hash mismatch deletes it and is a Refusal; a full disk cleans the
// staging folder and returns ErrNoSpace.
func (s *Stager) Stage(ctx context.Context, a Artifact) (string, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", err
	}
	final := filepath.Join(s.Dir, StagedName(a))
	if err := verifyFile(final, a); err == nil {
		return final, nil
	}
	os.Remove(final)
	// Only one staged update at a time: drop others.
	s.clean(filepath.Base(final) + ".part")
	part := final + ".part"
	have := int64(0)
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	if have > a.Size {
		os.Remove(part)
		have = 0
	}
	free := s.FreeSpace
	if free == nil {
		free = freeSpace
	}
	if n, err := free(s.Dir); err == nil && int64(n) < a.Size-have {
		s.clean("")
		return "", fmt.Errorf("%w: %d bytes needed, %d free", ErrNoSpace, a.Size-have, n)
	}
	if have < a.Size {
		if err := s.download(ctx, a, part, have); err != nil {
			if isNoSpace(err) {
				s.clean("")
				return "", fmt.Errorf("%w: %v", ErrNoSpace, err)
			}
			return "", err
		}
	}
	if err := verifyFile(part, a); err != nil {
		os.Remove(part)
		return "", err
	}
	if err := os.Rename(part, final); err != nil {
		return "", err
	}
	return final, nil
}

func (s *Stager) download(ctx context.Context, a Artifact, part string, have int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", s.UserAgent)
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	default:
		return fmt.Errorf("%w: download answered %s", ErrUnreachable, resp.Status)
	}
	f, err := os.OpenFile(part, flags, 0o600)
	if err != nil {
		return err
	}
	var w io.Writer = f
	if s.WrapWriter != nil {
		w = s.WrapWriter(f)
	}
	// Never write more than the artifact's size: a longer answer is a mismatch.
	pw := &progressWriter{w: w, done: have, total: a.Size, on: s.OnProgress}
	_, copyErr := io.Copy(pw, io.LimitReader(resp.Body, a.Size-have+1))
	closeErr := f.Close()
	if copyErr != nil {
		if isNoSpace(copyErr) {
			return copyErr
		}
		var pe *writeError
		if errors.As(copyErr, &pe) {
			return pe.err
		}
		return fmt.Errorf("%w: download cut after %d of %d bytes: %v", ErrUnreachable, pw.done, a.Size, copyErr)
	}
	return closeErr
}

func (s *Stager) clean(keep string) {
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if e.Name() != keep {
			os.RemoveAll(filepath.Join(s.Dir, e.Name()))
		}
	}
}

func verifyFile(name string, a Artifact) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if n != a.Size {
		return refuse("the download is %d bytes, the feed says %d", n, a.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != a.SHA256 {
		return refuse("the download's sha256 %s does not match the feed's %s", got, a.SHA256)
	}
	return nil
}

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

type progressWriter struct {
	w           io.Writer
	done, total int64
	on          func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.on != nil {
		p.on(p.done, p.total)
	}
	if err != nil {
		return n, &writeError{err}
	}
	return n, nil
}

func isNoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }
