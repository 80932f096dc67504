package architecture

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/agentinbox"
	"github.com/parley-app/parley/backend/calls"
	"github.com/parley-app/parley/backend/httpapi"
	"github.com/parley-app/parley/desktop"
)

// windowOnly are the methods bound to the window that are not calls: what
// only a window does, which the HTTP API has no route for.
var windowOnly = map[string][]string{
	"desktop/DesktopService": {"AgentListener", "ChooseFiles", "ChooseFolder", "ClearAttention", "Notify",
		"OpenBackupFile", "OpenConversationFile", "OpenSource", "OpenURL", "RequestAttention", "SaveFile"},
	"main/App": {"Info"},
}

func declared() map[string]calls.Call {
	out := map[string]calls.Call{}
	for _, c := range calls.All() {
		out[c.Name()] = c
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Every declared call has its HTTP route, and every route is a call or
// one of the few that are not (httpapi.NotCalls, each with its reason).
func TestEveryRouteIsADeclaredCall(t *testing.T) {
	s := httpapi.New(httpapi.Options{Token: "t", Agents: (*agentinbox.Inbox)(nil)})
	routes := map[string]bool{}
	for _, p := range s.Patterns() {
		routes[p] = true
	}
	for _, c := range calls.All() {
		assert.True(t, routes[c.Method()+" "+c.Path()], "call %s has no route %s %s", c.Name(), c.Method(), c.Path())
	}
	decl := map[string]bool{}
	for _, c := range calls.All() {
		decl[c.Method()+" "+c.Path()] = true
	}
	for _, p := range s.Patterns() {
		_, notCall := httpapi.NotCalls[p]
		assert.True(t, decl[p] || notCall, "route %s is neither a declared call nor in httpapi.NotCalls", p)
	}
}

// The window's bound methods are exactly the declared calls
// (desktop.Calls, generated) plus the window-only ones listed above: read
// from what Wails itself generated for the window (frontend/wailsjs/go),
// so a service bound by hand shows up here.
func TestEveryBoundMethodIsADeclaredCall(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "frontend", "wailsjs", "go")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.d.ts"))
	require.NoError(t, err)
	fn := regexp.MustCompile(`(?m)^export function (\w+)\(`)
	bound := map[string][]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, strings.TrimSuffix(f, ".d.ts"))
		for _, m := range fn.FindAllStringSubmatch(string(src), -1) {
			bound[filepath.ToSlash(rel)] = append(bound[filepath.ToSlash(rel)], m[1])
		}
	}
	want := map[string][]string{"desktop/Calls": sortedKeys(declared())}
	for svc, methods := range windowOnly {
		want[svc] = methods
	}
	for svc := range bound {
		sort.Strings(bound[svc])
	}
	assert.Equal(t, want, bound, "the window's bindings (frontend/wailsjs/go, written by `wails build`) are not the declared calls and the window-only methods")

	// The Go type agrees with its generated bindings (the generator's output is current).
	var methods []string
	ct := reflect.TypeFor[*desktop.Calls]()
	for i := 0; i < ct.NumMethod(); i++ {
		methods = append(methods, ct.Method(i).Name)
	}
	assert.Equal(t, sortedKeys(declared()), methods, "desktop.Calls' methods are not the declarations: run go run ./cmd/wiregen")
}

// The TypeScript client has an entry for every declaration and no other.
func TestEveryClientEntryIsADeclaredCall(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "frontend", "src", "api", "calls.gen.ts"))
	require.NoError(t, err)
	entry := regexp.MustCompile(`(?m)^  (\w+): \{ binding: '(\w+)', method: '(\w+)', path: '([^']+)'`)
	got := map[string]string{}
	for _, m := range entry.FindAllStringSubmatch(string(src), -1) {
		got[m[2]] = m[1] + " " + m[3] + " " + m[4]
	}
	want := map[string]string{}
	for _, c := range calls.All() {
		want[c.Name()] = calls.ClientName(c) + " " + c.Method() + " " + c.Path()
	}
	assert.Equal(t, want, got, "frontend/src/api/calls.gen.ts is not the declarations: run go run ./cmd/wiregen")
}

// The calls' requests are wire types of backend/api, one package, except
// the domain records a call takes whole (the settings, a profile, the
// page's trace marks).
func TestCallRequestsAreWireTypesOfOnePackage(t *testing.T) {
	whole := map[string]bool{
		module + "/backend/service.Settings":  true,
		module + "/backend/assistant.Profile": true,
		module + "/backend/trace.PageMark":    true,
		module + "/backend/calls.None":        true,
	}
	for _, c := range calls.All() {
		rt := c.Request()
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		name := rt.PkgPath() + "." + rt.Name()
		if whole[name] {
			continue
		}
		assert.Equal(t, module+"/backend/api", rt.PkgPath(), "call %s takes %s: declare its request in backend/api", c.Name(), name)
	}
}
