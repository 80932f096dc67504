package nonnil

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Of returns v with every nil slice and nil map in it (fields, elements,
// pointed-to values, v itself) replaced by an empty one, so that JSON sends
// [] and {} where the generated TypeScript type says T[] or Record<K, V>,
// never null. Every way out to the UI goes through it once: the HTTP API's
// JSON encoding, the events (SSE and the window's), and the window's bound
// methods. v itself is not changed: what needs filling is copied. Nil
// pointers and interfaces stay nil (their TypeScript type says `| null` or
// the field is optional).
func Of[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	if !mayHoldNil(rv.Type()) {
		return v
	}
	if out, changed := fill(rv); changed {
		return out.Interface().(T)
	}
	return v
}

// Any is Of for a value whose type is only known at run time (an
// event payload): the result has v's dynamic type.
func Any(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if !mayHoldNil(rv.Type()) {
		return v
	}
	if out, changed := fill(rv); changed {
		return out.Interface()
	}
	return v
}

// mayHold caches, per type, whether a value of it can contain a nil slice
// or map that JSON would send as null: most payloads (a text delta) cannot
// and are passed through.
var mayHold sync.Map // reflect.Type -> bool

func mayHoldNil(t reflect.Type) bool {
	if v, ok := mayHold.Load(t); ok {
		return v.(bool)
	}
	mayHold.Store(t, true) // a recursive type: assume yes while it is computed
	r := computeMayHold(t, map[reflect.Type]bool{})
	mayHold.Store(t, r)
	return r
}

func computeMayHold(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // already being looked at further up
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Array:
		return computeMayHold(t.Elem(), seen)
	case reflect.Struct:
		for _, f := range fieldsOf(t) {
			ft := t.Field(f.index).Type
			// A nil omitempty slice, map or pointer is left out: only what
			// a non-nil one holds counts.
			if !f.omitEmpty && computeMayHold(ft, seen) || f.omitEmpty && (ft.Kind() == reflect.Interface || computeMayHold(ft.Elem(), seen)) {
				return true
			}
		}
	}
	return false
}

// structField is a field of a struct that JSON sends and whose type is or
// holds a slice, map, pointer or interface.
type structField struct {
	index int
	// omitEmpty: JSON leaves the field out when it is nil or empty, so a
	// nil slice or map there needs no filling (only what a non-nil one
	// holds does). A long conversation's messages have four such fields:
	// skipping them spares copying each message.
	omitEmpty bool
}

// fields caches fieldsOf, per struct type.
var fields sync.Map // reflect.Type -> []structField

func fieldsOf(t reflect.Type) []structField {
	if v, ok := fields.Load(t); ok {
		return v.([]structField)
	}
	var out []structField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Interface, reflect.Pointer, reflect.Array, reflect.Struct:
		default:
			continue
		}
		_, opts, _ := strings.Cut(tag, ",")
		omit := slices.Contains(strings.Split(opts, ","), "omitempty") && f.Type.Kind() != reflect.Array && f.Type.Kind() != reflect.Struct
		out = append(out, structField{index: i, omitEmpty: omit})
	}
	fields.Store(t, out)
	return out
}

// fill returns v with nil slices and maps replaced, and whether anything
// was; v is left as it is (a changed value is a copy).
func fill(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return v, false // []byte is base64 text, and null for nil
			}
			return reflect.MakeSlice(v.Type(), 0, 0), true
		}
		if !mayHoldNil(v.Type().Elem()) {
			return v, false
		}
		return fillElems(v, func() reflect.Value {
			out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(out, v)
			return out
		})
	case reflect.Map:
		if v.IsNil() {
			return reflect.MakeMap(v.Type()), true
		}
		if !mayHoldNil(v.Type().Elem()) {
			return v, false
		}
		var out reflect.Value
		iter := v.MapRange()
		for iter.Next() {
			e, changed := fill(iter.Value())
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.MakeMapWithSize(v.Type(), v.Len())
				for it := v.MapRange(); it.Next(); {
					out.SetMapIndex(it.Key(), it.Value())
				}
			}
			out.SetMapIndex(iter.Key(), e)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	case reflect.Pointer:
		if v.IsNil() || !mayHoldNil(v.Type().Elem()) {
			return v, false
		}
		e, changed := fill(v.Elem())
		if !changed {
			return v, false
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e, changed := fill(v.Elem())
		if !changed {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(e)
		return out, true
	case reflect.Struct:
		var out reflect.Value
		t := v.Type()
		for _, f := range fieldsOf(t) {
			i := f.index
			fv := v.Field(i)
			if f.omitEmpty && fv.IsNil() || !mayHoldNil(fv.Type()) {
				continue
			}
			e, changed := fill(fv)
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(v)
			}
			out.Field(i).Set(e)
		}
		if out.IsValid() {
			return out, true
		}
		return v, false
	case reflect.Array:
		return fillElems(v, func() reflect.Value {
			out := reflect.New(v.Type()).Elem()
			out.Set(v)
			return out
		})
	}
	return v, false
}

// fillElems fills the elements of a slice or array; at the first element
// that changes, the rest goes into a copy (made by clone).
func fillElems(v reflect.Value, clone func() reflect.Value) (reflect.Value, bool) {
	var out reflect.Value
	for i := range v.Len() {
		e, changed := fill(v.Index(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = clone()
		}
		out.Index(i).Set(e)
	}
	if out.IsValid() {
		return out, true
	}
	return v, false
}
