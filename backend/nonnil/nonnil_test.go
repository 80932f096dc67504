package nonnil

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type nnInner struct {
	Tags []string `json:"tags"`
}

type nnOuter struct {
	Name    string             `json:"name"`
	List    []nnInner          `json:"list"`
	Ptr     *nnInner           `json:"ptr"`
	NilPtr  *nnInner           `json:"nil_ptr"`
	Map     map[string][]int   `json:"map"`
	Blob    []byte             `json:"blob"`
	Omitted []string           `json:"omitted,omitempty"`
	Any     any                `json:"any"`
	ByName  map[string]nnInner `json:"by_name"`
	hidden  []string
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestNonNilFillsNilSlicesAndMapsEverywhere(t *testing.T) {
	in := nnOuter{
		List:   []nnInner{{}, {Tags: []string{"a"}}},
		Ptr:    &nnInner{},
		Map:    map[string][]int{"k": nil},
		Any:    &nnInner{},
		ByName: map[string]nnInner{"x": {}},
	}
	before := marshal(t, in)
	out := Of(in)
	assert.JSONEq(t, `{"name":"","list":[{"tags":[]},{"tags":["a"]}],"ptr":{"tags":[]},"nil_ptr":null,
		"map":{"k":[]},"blob":null,"any":{"tags":[]},"by_name":{"x":{"tags":[]}}}`, marshal(t, out))
	assert.Equal(t, before, marshal(t, in), "the value given is not changed")
	assert.Nil(t, in.Ptr.Tags, "what a pointer points to is copied, not changed")
}

func TestNonNilTopLevelAndPointers(t *testing.T) {
	var list []*nnInner
	assert.Equal(t, `[]`, marshal(t, Of(list)))
	assert.Equal(t, `[]`, marshal(t, Any(list)))
	assert.Equal(t, `[{"tags":[]},null]`, marshal(t, Of([]*nnInner{{}, nil})))
	var m map[string]string
	assert.Equal(t, `{}`, marshal(t, Any(m)))
	assert.Nil(t, Any(nil))
	var p *nnOuter
	assert.Nil(t, Of(p))
}

func TestNonNilPassesFullValuesThrough(t *testing.T) {
	in := &nnInner{Tags: []string{"x"}}
	assert.Same(t, in, Of(in), "nothing to fill: the same pointer")
	type plain struct{ A, B string }
	assert.Equal(t, plain{"a", "b"}, Any(plain{"a", "b"}))
}

type nnOptional struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags,omitempty"`
	Inner []nnInner         `json:"inner,omitempty"`
	ByKey map[string][]int  `json:"by_key,omitempty"`
	Ptr   *nnInner          `json:"ptr,omitempty"`
	Later []string          `json:"later,omitzero"`
	Cache map[string]string `json:"-"`
}

// A nil slice or map that JSON leaves out (omitempty) is left as it is: a
// list of such values (a long conversation's messages) passes through
// without a copy. What a non-nil one holds is still filled, and omitzero
// (which leaves out only nil, so an empty one would show) is filled as before.
func TestNonNilLeavesOmittedFieldsAlone(t *testing.T) {
	list := []nnOptional{{Name: "a", Later: []string{}}, {Name: "b", Later: []string{"x"}}}
	out := Of(list)
	require.Len(t, out, 2)
	assert.Same(t, &list[0], &out[0], "nothing to fill: the same backing array")
	assert.Equal(t, `[{"name":"a","later":[]},{"name":"b","later":["x"]}]`, marshal(t, out))

	full := nnOptional{Name: "c", Inner: []nnInner{{}}, ByKey: map[string][]int{"k": nil}, Ptr: &nnInner{}}
	assert.JSONEq(t, `{"name":"c","inner":[{"tags":[]}],"by_key":{"k":[]},"ptr":{"tags":[]},"later":[]}`, marshal(t, Of(full)))
	assert.Nil(t, full.Inner[0].Tags, "the value given is not changed")
}

// A struct whose only pointer-like field holds nothing that could be nil
// (a time.Time, a struct of plain fields) is known not to need filling.
func TestNonNilKnowsPlainStructsNeedNothing(t *testing.T) {
	type stamped struct {
		At   time.Time `json:"at"`
		Name string    `json:"name"`
	}
	assert.False(t, mayHoldNil(reflect.TypeOf(stamped{})))
	assert.True(t, mayHoldNil(reflect.TypeOf(nnOptional{})), "a non-nil omitempty slice may hold values to fill")
}
