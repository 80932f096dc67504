// Package calls declares every call between the UI and Go once: its name,
// HTTP method and path, request and response wire types, and the service
// method that does it (table.go). From the declarations come the HTTP
// routes (backend/httpapi mounts them), the methods bound to the window
// (desktop/calls.gen.go) and the TypeScript client
// (frontend/src/api/calls.gen.ts); cmd/wiregen writes the generated ones.
//
// A request is one JSON object. Over HTTP, a route's {params} and the
// declared query parameters fill the request's JSON fields of the same
// names and the body fills the rest; through the window the object is
// passed whole. So a call means the same through both.
package calls

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
)

// Call is one declared call, its types erased (the HTTP adapter and the
// generators walk these).
type Call interface {
	// Name is the bound method's name and, lower-camel, the client's.
	Name() string
	Method() string
	// Path is the HTTP path pattern, with {params}.
	Path() string
	Spec() Spec
	Request() reflect.Type
	Response() reflect.Type
	// NewRequest returns a pointer to a request, set to its starting value.
	NewRequest(ctx context.Context, b Backend) any
	// Invoke does the call with the request NewRequest returned.
	Invoke(ctx context.Context, b Backend, req any) (any, error)
}

// Spec is what a route does beyond decoding its request and encoding its
// response as JSON with status 200.
type Spec struct {
	// Status of a success (201 created, 202 a run started, 204 no body).
	Status int
	// Query lists the request's JSON fields read from the URL's query.
	Query []string
	// OptionalBody: an empty body is the zero request (else it is refused).
	OptionalBody bool
	// RawBody names the string field the body fills as it is (a file).
	RawBody string
	// MaxBody bounds the body (0 = api.MaxBodyBytes).
	MaxBody int64
	// File: the response (an api.ExportedFile) is sent as the file itself.
	File bool
	// Attachment: the JSON response is offered for download under this name.
	Attachment string
	// QueryError replaces the error of a query value of the wrong type.
	QueryError error
	// Agents: the call serves Settings → Agents; the HTTP API has it only
	// while it serves agents (httpapi.Options.Agents).
	Agents bool
	// Doc says what the call does (the generated code's comments).
	Doc string
}

// None is the request of a call that takes nothing and the response of
// one that answers nothing.
type None struct{}

// Option sets part of a call's Spec.
type Option func(*Spec)

// Status sets the status of a success.
func Status(code int) Option { return func(s *Spec) { s.Status = code } }

// Query reads these request fields from the URL's query.
func Query(fields ...string) Option { return func(s *Spec) { s.Query = fields } }

// OptionalBody lets the body be empty.
func OptionalBody() Option { return func(s *Spec) { s.OptionalBody = true } }

// RawBody puts the body, as it is, into the string field named.
func RawBody(field string) Option { return func(s *Spec) { s.RawBody = field } }

// MaxBody bounds the body.
func MaxBody(n int64) Option { return func(s *Spec) { s.MaxBody = n } }

// File sends the api.ExportedFile response as the file itself.
func File() Option { return func(s *Spec) { s.File = true } }

// Attachment offers the JSON response for download as name.
func Attachment(name string) Option { return func(s *Spec) { s.Attachment = name } }

// QueryError is the error of a query value of the wrong type.
func QueryError(err error) Option { return func(s *Spec) { s.QueryError = err } }

// ForAgents marks a call of Settings → Agents.
func ForAgents() Option { return func(s *Spec) { s.Agents = true } }

// Decl is a declared call with its types.
type Decl[Req, Resp any] struct {
	name, method, path string
	spec               Spec
	do                 func(context.Context, Backend, Req) (Resp, error)
	start              func(context.Context, Backend) Req
}

// all is every declaration, in the order of table.go.
var all []Call

// All returns the declarations.
func All() []Call { return append([]Call(nil), all...) }

// declare adds a call; route is "METHOD /path". It panics on a declaration
// that cannot work, so a mistake fails every test at once.
func declare[Req, Resp any](name, route, doc string, do func(context.Context, Backend, Req) (Resp, error), opts ...Option) *Decl[Req, Resp] {
	method, path, ok := strings.Cut(route, " ")
	if !ok || !strings.HasPrefix(path, "/api/v1/") {
		panic(fmt.Sprintf("calls: %s: route %q is not \"METHOD /api/v1/...\"", name, route))
	}
	d := &Decl[Req, Resp]{name: name, method: method, path: path, do: do, spec: Spec{Status: http.StatusOK, Doc: doc}}
	for _, o := range opts {
		o(&d.spec)
	}
	if err := check(d); err != nil {
		panic(fmt.Sprintf("calls: %s: %v", name, err))
	}
	all = append(all, d)
	return d
}

// startFrom makes a request start from a value (PUT /settings changes
// only the fields its body gives).
func (d *Decl[Req, Resp]) startFrom(f func(context.Context, Backend) Req) *Decl[Req, Resp] {
	d.start = f
	return d
}

func (d *Decl[Req, Resp]) Name() string           { return d.name }
func (d *Decl[Req, Resp]) Method() string         { return d.method }
func (d *Decl[Req, Resp]) Path() string           { return d.path }
func (d *Decl[Req, Resp]) Spec() Spec             { return d.spec }
func (d *Decl[Req, Resp]) Request() reflect.Type  { return reflect.TypeFor[Req]() }
func (d *Decl[Req, Resp]) Response() reflect.Type { return reflect.TypeFor[Resp]() }

// NewRequest returns a *Req at its starting value.
func (d *Decl[Req, Resp]) NewRequest(ctx context.Context, b Backend) any {
	req := new(Req)
	if d.start != nil {
		*req = d.start(ctx, b)
	}
	return req
}

// Invoke does the call with a *Req.
func (d *Decl[Req, Resp]) Invoke(ctx context.Context, b Backend, req any) (any, error) {
	return d.Do(ctx, b, *req.(*Req))
}

// Do does the call (the bound methods call it).
func (d *Decl[Req, Resp]) Do(ctx context.Context, b Backend, req Req) (Resp, error) {
	return d.do(ctx, b, req)
}

// PathParams returns the {params} of a path, in order.
func PathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.TrimSuffix(seg[1:], "}"))
		}
	}
	return out
}

// JSONFields returns a struct type's JSON field names and types, embedded
// structs flattened as encoding/json does (nil for a type that is not a
// struct).
func JSONFields(t reflect.Type) map[string]reflect.Type {
	if t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, hasTag := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			for k, v := range JSONFields(f.Type) {
				if _, shadowed := out[k]; !shadowed {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type // a field of the outer struct wins, as in encoding/json
	}
	return out
}

// check refuses a declaration whose request cannot carry its route.
func check[Req, Resp any](d *Decl[Req, Resp]) error {
	req := reflect.TypeFor[Req]()
	fields := JSONFields(req)
	for _, p := range PathParams(d.path) {
		if t, ok := fields[p]; !ok || t.Kind() != reflect.String {
			return fmt.Errorf("path parameter {%s} is not a string field of %v", p, req)
		}
	}
	for _, q := range d.spec.Query {
		if _, ok := fields[q]; !ok {
			return fmt.Errorf("query parameter %q is not a field of %v", q, req)
		}
	}
	if f := d.spec.RawBody; f != "" {
		if t, ok := fields[f]; !ok || t.Kind() != reflect.String {
			return fmt.Errorf("raw body field %q is not a string field of %v", f, req)
		}
	}
	if d.spec.File && reflect.TypeFor[Resp]() != fileType {
		return fmt.Errorf("a File call answers an api.ExportedFile, not %v", reflect.TypeFor[Resp]())
	}
	if (d.method == http.MethodGet || d.method == http.MethodDelete) && len(BodyFields(d)) > 0 {
		return fmt.Errorf("%s takes no body, but %v has fields %v outside its path and query", d.method, req, BodyFields(d))
	}
	return nil
}

// BodyFields are the request's JSON fields a body carries: those not in
// the path or the query.
func BodyFields(c interface {
	Path() string
	Spec() Spec
	Request() reflect.Type
}) []string {
	skip := map[string]bool{}
	for _, p := range PathParams(c.Path()) {
		skip[p] = true
	}
	for _, q := range c.Spec().Query {
		skip[q] = true
	}
	var out []string
	t := c.Request()
	if t.Kind() != reflect.Struct {
		return []string{""} // the whole request is the body (a list)
	}
	for name := range JSONFields(t) {
		if !skip[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
