package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/nonnil"
)

type httpError struct {
	status int
	msg    string
}

// Error returns the message sent to the client.
func (e httpError) Error() string { return e.msg }

// statusError answers err with a status of its own; err's text (and its
// catalogue message, for the client's language) is the message.
type statusError struct {
	status int
	error
}

func (e statusError) Unwrap() error { return e.error }

// forgeable refuses what a page of another site could make a browser send
// with the login cookie, the second wall behind the SameSite cookie and the
// Origin check (a browser that sends no Origin, a form): a request the
// browser marks Sec-Fetch-Site: cross-site (403), and a state-changing
// request whose body is not JSON (415). Forms and no-cors fetches can only
// send text/plain, form-urlencoded or multipart bodies; application/json
// needs a CORS preflight, which this server never grants. A request without
// a body and without a Content-Type (DELETE, cancel) carries nothing to
// forge. It returns the status and message, or 0.
func forgeable(r *http.Request) (int, string) {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return http.StatusForbidden, "cross-site request refused"
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return 0, ""
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return 0, ""
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, "the request body must be JSON (Content-Type: application/json)"
	}
	return 0, ""
}

// protect requires the token, bounds the body and maps errors to statuses.
func (s *Server) protect(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return s.protectSized(MaxBodyBytes, h)
}

func (s *Server) protectSized(limit int64, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.auth.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
			// A revoked agent token lands here too: its script shows this to a person.
			writeError(w, http.StatusUnauthorized, s.say(r, i18n.M("api.wrongToken")))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := h(w, r); err != nil {
			if r.Context().Err() != nil {
				// The client went away (and what it started was stopped with
				// its context, e.g. a model pull): nobody reads an answer, and
				// it is no failure of Parley's.
				s.log.Info("api request ended: the client went away", "method", r.Method, "path", r.URL.Path, "err", err)
				return
			}
			status := statusFor(err)
			switch fe := fault.As(err); {
			case fe != nil && fe.Kind == fault.Upstream:
				// The model server's trouble, not Parley's.
				s.log.Warn("model server request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err, "cause", fe.Err)
			case status >= 500:
				s.log.Error("api request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			}
			writeError(w, status, s.errorText(r, err))
		}
	})
}

// errorText says err in the language of the interface (Settings), or, when
// none is chosen there, in the client's Accept-Language; the process's
// language otherwise (backend/i18n).
func (s *Server) errorText(r *http.Request, err error) string {
	return i18n.Localize(err, s.language(r))
}

// say is a catalogue message in the language errorText speaks.
func (s *Server) say(r *http.Request, m i18n.Message) string { return m.In(s.language(r)) }

// language is the one a request is answered in.
func (s *Server) language(r *http.Request) string {
	if s.opts.Backend.GetSettings().Language == "" {
		if lang := i18n.Match(r.Header.Get("Accept-Language")); lang != "" {
			return lang
		}
	}
	return i18n.Current()
}

// statusFor maps an error to its HTTP status: the request errors of this
// adapter (bad JSON, oversized bodies, a status of its own), else the
// status of the error's kind (fault.HTTPStatus).
func statusFor(err error) int {
	var he httpError
	var se statusError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he.status
	case errors.As(err, &se):
		return se.status
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge
	}
	return fault.HTTPStatus(fault.KindOf(err))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(nonnil.Any(v)) // [] where the UI's type says T[], never null
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decode reads a JSON body strictly enough to catch malformed input.
func decode(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return httpError{http.StatusBadRequest, "request body must be a JSON object"}
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return httpError{http.StatusBadRequest, "malformed JSON: " + err.Error()}
	}
	return nil
}
