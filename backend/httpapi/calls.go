package httpapi

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/calls"
)

// mountCalls serves every declared call (backend/calls) on its route.
func (s *Server) mountCalls() {
	for _, c := range calls.All() {
		spec := c.Spec()
		if spec.Agents && s.opts.Agents == nil {
			continue // Settings → Agents exists only where agents are served
		}
		limit := spec.MaxBody
		if limit == 0 {
			limit = MaxBodyBytes
		}
		s.handle(c.Method()+" "+c.Path(), s.protectSized(limit, s.serveCall(c)))
	}
}

// serveCall decodes a call's request from the URL and body, does it, and
// writes its answer.
func (s *Server) serveCall(c calls.Call) func(http.ResponseWriter, *http.Request) error {
	spec := c.Spec()
	hasBody := c.Method() != http.MethodGet && c.Method() != http.MethodDelete && len(calls.BodyFields(c)) > 0
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := calls.WithLanguage(r.Context(), s.language(r))
		req := c.NewRequest(ctx, s.opts.Backend)
		if hasBody {
			if err := decodeBody(r, spec, req); err != nil {
				return err
			}
		}
		if err := decodeURL(r, c, req); err != nil {
			return err
		}
		resp, err := c.Invoke(ctx, s.opts.Backend, req)
		if err != nil {
			return err
		}
		switch {
		case spec.Status == http.StatusNoContent:
			w.WriteHeader(http.StatusNoContent)
		case spec.File:
			f := resp.(api.ExportedFile)
			w.Header().Set("Content-Type", f.MimeType)
			w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
			w.Header().Set("Cache-Control", "no-store")
			_, _ = io.WriteString(w, f.Content)
		default:
			if spec.Attachment != "" {
				w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": spec.Attachment}))
			}
			writeJSON(w, spec.Status, resp)
		}
		return nil
	}
}

// decodeBody reads the body into the request: as JSON, or as it is into
// the raw body's field.
func decodeBody(r *http.Request, spec calls.Spec, req any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if spec.RawBody != "" {
		return setFields(req, map[string]json.RawMessage{spec.RawBody: jsonString(string(body))}, nil)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		if spec.OptionalBody {
			return nil
		}
		return httpError{http.StatusBadRequest, "request body must be a JSON object"}
	}
	if err := json.Unmarshal(body, req); err != nil {
		return httpError{http.StatusBadRequest, "malformed JSON: " + err.Error()}
	}
	return nil
}

// decodeURL sets the request's fields named by the route's {params} and
// the call's query parameters (those given).
func decodeURL(r *http.Request, c calls.Call, req any) error {
	vals := map[string]json.RawMessage{}
	for _, p := range calls.PathParams(c.Path()) {
		vals[p] = jsonString(r.PathValue(p))
	}
	fields := calls.JSONFields(c.Request())
	q := r.URL.Query()
	for _, name := range c.Spec().Query {
		if !q.Has(name) || q.Get(name) == "" {
			continue
		}
		v := q.Get(name)
		if fields[name].Kind() == reflect.String {
			vals[name] = jsonString(v)
		} else {
			vals[name] = json.RawMessage(v) // a number or a boolean
		}
	}
	if len(vals) == 0 {
		return nil
	}
	return setFields(req, vals, c.Spec().QueryError)
}

// setFields sets fields of req by their JSON names.
func setFields(req any, vals map[string]json.RawMessage, badValue error) error {
	data, err := json.Marshal(vals)
	if err != nil || json.Unmarshal(data, req) != nil {
		if badValue != nil {
			return badValue
		}
		return httpError{http.StatusBadRequest, "malformed query parameter"}
	}
	return nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
