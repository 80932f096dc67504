package library

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// remote is what the hub says of a file.
type remote struct {
	sha    string
	size   int64
	commit string
}

// fileURL is {endpoint}/{repo}/resolve/{revision}/{file}.
func (l *Library) fileURL(repo, revision, file string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return l.opt.Endpoint + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + strings.Join(segs, "/")
}

var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// etag is an ETag's value without W/ and quotes, lowercased.
func etag(v string) string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
	return strings.ToLower(strings.Trim(v, `"`))
}

// resolve asks the hub (HEAD, as Hugging Face's own tools do) for the
// file's sha256 and size: X-Linked-Etag and X-Linked-Size on the resolve
// answer (a redirect for large files), else ETag and Content-Length after
// following redirects.
func (l *Library) resolve(ctx context.Context, repo, revision, file string) (remote, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	noFollow := *l.client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	target := l.fileURL(repo, revision, file)
	var r remote
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, target, nil)
		if err != nil {
			return r, fault.Wrap(fault.Input, i18n.M("library.badRepo", repo), err)
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			return r, fault.Wrap(fault.Upstream, i18n.M("library.hubUnreachable", l.opt.Endpoint), err)
		}
		resp.Body.Close()
		h := resp.Header
		if c := h.Get("X-Repo-Commit"); c != "" && r.commit == "" {
			r.commit = c
		}
		linked := etag(h.Get("X-Linked-Etag"))
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400 && linked == "":
			loc, err := resp.Location()
			if err != nil || hop >= 5 {
				return r, fault.Wrap(fault.Upstream, i18n.M("library.hubUnreachable", l.opt.Endpoint), errors.New("bad redirect"))
			}
			target = loc.String()
			continue
		case resp.StatusCode >= 300 && resp.StatusCode < 400, resp.StatusCode == http.StatusOK:
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden ||
			resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
			why := resp.Status
			if code := h.Get("X-Error-Code"); code != "" {
				why += " " + code
			}
			return r, fault.New(fault.Validation, i18n.M("library.notOnHub", repo, file, why))
		default:
			return r, fault.Wrap(fault.Upstream, i18n.M("library.hubUnreachable", l.opt.Endpoint), errors.New(resp.Status))
		}
		r.sha, r.size = linked, -1
		if v := h.Get("X-Linked-Size"); v != "" {
			r.size, _ = strconv.ParseInt(v, 10, 64)
		}
		if r.sha == "" {
			r.sha = etag(h.Get("ETag"))
		}
		if r.size < 0 {
			r.size = resp.ContentLength
		}
		if !sha256Pattern.MatchString(r.sha) {
			return r, fault.New(fault.Validation, i18n.M("library.noChecksum", file))
		}
		if r.size <= 0 {
			return r, fault.New(fault.Validation, i18n.M("library.noSize", file))
		}
		return r, nil
	}
}
