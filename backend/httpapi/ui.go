package httpapi

import (
	"io/fs"
	"net/http"
	"strings"
)

// login trades a one-time code (or the token itself) for an HttpOnly,
// SameSite=Strict cookie, then opens the UI.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !(q.Get("code") != "" && s.auth.useLoginCode(q.Get("code"))) && !s.auth.tokenOK(q.Get("token")) {
		writeError(w, http.StatusUnauthorized, "this login link is invalid or was already used; run parley serve again for a new one")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.opts.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: 60 * 60 * 24 * 365})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// ui serves the built frontend; unknown paths get index.html (one page app).
func (s *Server) ui() http.Handler {
	files := http.FileServerFS(s.opts.UI)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		path := strings.TrimPrefix(r.URL.Path, "/")
		if path != "" {
			if _, err := fs.Stat(s.opts.UI, path); err != nil {
				r.URL.Path = "/"
			}
		}
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		files.ServeHTTP(w, r)
	})
}
