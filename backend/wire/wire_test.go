package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/nonnil"
)

// The checked-in generated files are what the Go declarations generate today.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := Files()
	require.NoError(t, err)
	require.Len(t, files, 3)
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", path))
		require.NoError(t, err)
		// Not a diff of the whole file: the message says what to do.
		assert.True(t, bytes.Equal(want, got), "%s is stale: run go run ./cmd/wiregen", path)
	}
}

// Every event Go emits has its payload type listed, once.
func TestEveryEventHasAPayloadType(t *testing.T) {
	var listed []string
	for _, e := range Wire.Events {
		listed = append(listed, e.Name)
	}
	assert.ElementsMatch(t, events.Names, listed)
}

type sampleBase struct {
	ID string `json:"id"`
}

type sampleInner struct {
	N int `json:"n"`
}

type sampleColor string

type sample struct {
	sampleBase
	When     time.Time              `json:"when"`
	Maybe    *time.Time             `json:"maybe"`
	Later    *time.Time             `json:"later,omitempty"`
	Note     string                 `json:"note,omitempty"`
	Blob     []byte                 `json:"blob"`
	Tags     map[string][]string    `json:"tags"`
	Inner    *sampleInner           `json:"inner"`
	Inners   []*sampleInner         `json:"inners"`
	Raw      any                    `json:"raw"`
	Color    sampleColor            `json:"color"`
	Kind     string                 `json:"kind"`
	Skipped  string                 `json:"-"`
	private  string                 //nolint:unused // unexported: not on the wire
	Extra    map[string]sampleInner `json:"extra-info"`
	Untagged bool
}

func TestGenerateFollowsEncodingJSON(t *testing.T) {
	out, err := Generate(Registry{
		Enums: []Enum{
			{Name: "Color", Go: reflect.TypeFor[sampleColor](), Values: []string{"red", "it's"}, List: "COLORS"},
			{Name: "Kind", Values: []string{"a"}},
		},
		Types: []Type{
			{Name: "Sample", Go: reflect.TypeFor[sample](), Fields: map[string]string{"kind": "Kind"}},
			{Name: "Inner", Go: reflect.TypeFor[sampleInner]()},
		},
		Events:     []Event{{Name: "x:y", Payload: reflect.TypeFor[*sampleInner]()}},
		Consts:     []Const{{Name: "NAME", Value: "v"}},
		LimitsName: "LIMITS",
		Limits:     []Limit{{"max", 3}},
	})
	require.NoError(t, err)
	assert.Equal(t, Header+`
export type Color = 'red' | 'it\'s'

export const COLORS: readonly Color[] = ['red', 'it\'s']

export type Kind = 'a'

export interface Sample {
  id: string
  when: string
  maybe: string | null
  later?: string
  note?: string
  blob: string
  tags: Record<string, string[]>
  inner: Inner | null
  inners: Inner[]
  raw: unknown
  color: Color
  kind: Kind
  'extra-info': Record<string, Inner>
  Untagged: boolean
}

export interface Inner {
  n: number
}

/** Every event Go emits (Wails events and SSE), with its payload. */
export interface EventPayloads {
  'x:y': Inner
}

export type ServerEventName = keyof EventPayloads

export const SERVER_EVENTS: readonly ServerEventName[] = ['x:y']

export const NAME = 'v'

export const LIMITS = {
  max: 3,
} as const
`, string(out))
}

func TestGenerateRefusesWhatItCannotWrite(t *testing.T) {
	cases := map[string]struct {
		reg  Registry
		want string
	}{
		"unlisted struct": {Registry{Types: []Type{{Name: "Sample", Go: reflect.TypeFor[sample]()}}}, "type Sample field inner: wire.sampleInner is not registered in wire.Wire"},
		"not a struct":    {Registry{Types: []Type{{Name: "Color", Go: reflect.TypeFor[sampleColor]()}}}, "type Color: wire.sampleColor is not a struct"},
		"listed twice":    {Registry{Types: []Type{{Name: "A", Go: reflect.TypeFor[sampleInner]()}, {Name: "B", Go: reflect.TypeFor[sampleInner]()}}}, "type B: wire.sampleInner is already registered as A"},
		"unknown enum":    {Registry{Types: []Type{{Name: "Inner", Go: reflect.TypeFor[sampleInner](), Fields: map[string]string{"n": "Nope"}}}}, `type Inner field n: "Nope" is not a registered enum`},
		"no such field":   {Registry{Enums: []Enum{{Name: "Kind", Values: []string{"a"}}}, Types: []Type{{Name: "Inner", Go: reflect.TypeFor[sampleInner](), Fields: map[string]string{"m": "Kind"}}}}, `type Inner: field override "m" names no field`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Generate(c.reg)
			assert.EqualError(t, err, c.want)
		})
	}
}

// nullArrays lists the fields of JSON that hold null where the Go type of
// t has a slice (other than []byte) or a map: the generated TypeScript says
// T[] or Record there.
func nullArrays(t reflect.Type, data any, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		if data == nil {
			return []string{path}
		}
	case reflect.Struct:
		obj, _ := data.(map[string]any)
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				out = append(out, nullArrays(f.Type, data, path)...)
				continue
			}
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if v, ok := obj[name]; ok {
				out = append(out, nullArrays(f.Type, v, path+"."+name)...)
			}
		}
	}
	return out
}

// Issue 23: a nil Go slice reaches the UI as [], never null, wherever the
// generated type says T[] (api.NonNil, which every way out applies): checked
// on the zero value of every wire type and event payload.
func TestZeroValuesOfEveryWireTypeHaveNoNullArrays(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, ty := range Wire.Types {
		types[ty.Name] = ty.Go
	}
	for _, e := range Wire.Events {
		types["event "+e.Name] = e.Payload
	}
	checked := 0
	for name, ty := range types {
		zero := reflect.New(ty).Elem()
		if ty.Kind() == reflect.Pointer {
			zero = reflect.New(ty.Elem())
		}
		b, err := json.Marshal(nonnil.Any(zero.Interface()))
		require.NoError(t, err, name)
		var data any
		require.NoError(t, json.Unmarshal(b, &data), name)
		assert.Empty(t, nullArrays(ty, data, name), "%s: %s", name, b)
		if strings.Contains(string(b), "[]") {
			checked++
		}
	}
	assert.Greater(t, checked, 10, "types with lists checked")
}
