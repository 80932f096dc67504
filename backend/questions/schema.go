package questions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaURL is where a card's schema is registered for compiling; nothing
// is ever fetched (the compiler loads no remote references).
const schemaURL = "urn:parley:schema.json"

// compileSchema compiles a JSON schema (draft 2020-12 unless it says
// otherwise), asserting formats (email, uri, date, date-time...).
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

var printer = message.NewPrinter(language.English)

// validateValue checks a JSON value against a compiled schema; the error
// names each failing field and rule on one line.
func validateValue(sch *jsonschema.Schema, raw json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	err = sch.Validate(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			msg := e.ErrorKind.LocalizedString(printer)
			if at == "/" {
				msgs = append(msgs, msg)
			} else {
				msgs = append(msgs, at+": "+msg)
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(msgs)
	return errors.New(strings.Join(slices.Compact(msgs), "; "))
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// fillDefaults returns the content with the schema's defaults set for the
// properties left empty (missing, null, "" or []); an empty property
// without a default is left out (a form's empty optional field is not an
// invalid value, and a required one is then reported missing). Other keys
// are kept as given.
func fillDefaults(schema, content json.RawMessage) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(content, &c); err != nil {
		return nil, err
	}
	if c == nil {
		c = map[string]json.RawMessage{}
	}
	for name, p := range s.Properties {
		switch v := strings.TrimSpace(string(c[name])); v {
		case "", "null", `""`, "[]":
			if len(p.Default) > 0 {
				c[name] = p.Default
			} else {
				delete(c, name)
			}
		}
	}
	return json.Marshal(c)
}

// ValidateJSON checks a value against a JSON schema (formats included). A
// schema that does not compile checks nothing: the value's receiver (an
// MCP server) checks it then.
func ValidateJSON(schema, value json.RawMessage) error {
	if len(schema) == 0 {
		return nil
	}
	sch, err := compileSchema(schema)
	if err != nil {
		return nil
	}
	return validateValue(sch, value)
}
