package events

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// conversationOf is the payload's top-level conversationId, as decoding
// data (its JSON) would read it. For a plain struct it is read from the
// field (issue #42: decoding every event again only to find it cost the
// run's goroutine a scan of the whole payload each time, a whole reply
// when one was stored: ~0.5 ms for 76 KB); anything else is decoded.
func conversationOf(payload any, data []byte) string {
	v := reflect.ValueOf(payload)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if f := conversationFieldOf(v.Type()); f.plain {
			if f.index < 0 {
				return ""
			}
			return v.Field(f.index).String()
		}
	}
	var head struct {
		ConversationID string `json:"conversationId"`
	}
	_ = json.Unmarshal(data, &head)
	return head.ConversationID
}

// conversationField says where a struct type keeps its conversationId.
// plain: the type's JSON is its exported fields, none embedded and none
// marshalling itself, so the field is the key (index -1: no such field,
// the key is never there).
type conversationField struct {
	plain bool
	index int
}

var conversationFields sync.Map // reflect.Type -> conversationField

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func conversationFieldOf(t reflect.Type) conversationField {
	if f, ok := conversationFields.Load(t); ok {
		return f.(conversationField)
	}
	f := findConversationField(t)
	conversationFields.Store(t, f)
	return f
}

func findConversationField(t reflect.Type) conversationField {
	if marshalsItself(t) {
		return conversationField{}
	}
	found := conversationField{plain: true, index: -1}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return conversationField{} // promoted fields: leave the rules to encoding/json
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		// The decoder matches keys without regard to case.
		if !strings.EqualFold(name, "conversationId") {
			continue
		}
		if found.index >= 0 || sf.Type.Kind() != reflect.String || marshalsItself(sf.Type) || strings.Contains(","+opts+",", ",string,") {
			return conversationField{} // two candidates, or not a plain string: decode
		}
		found.index = i
	}
	return found
}

// marshalsItself: encoding/json leaves a value of t to its own method.
func marshalsItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler) || t.Implements(textMarshaler) || pt.Implements(textMarshaler)
}
