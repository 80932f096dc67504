package textcalls

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// RepairArguments turns tool arguments as small models write them into a
// JSON object where the intent is unambiguous: code fences around them,
// arguments given as a JSON string, trailing commas, single-quoted strings
// and keys, bare keys, Python's True/False/None, and raw line breaks inside
// strings. It returns the arguments unchanged (repaired false) when they are
// already valid JSON or cannot be read without guessing; the tool's own
// validation then tells the model what is wrong (SPEC §1 error text).
func RepairArguments(raw string) (fixed string, repaired bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return raw, false
	}
	changed := false
	if inner, ok := stripFence(s); ok {
		s, changed = inner, true
	}
	if json.Valid([]byte(s)) {
		if obj, ok := unwrapString(s); ok {
			return obj, true
		}
		if changed {
			return s, true
		}
		return raw, false
	}
	out, err := lenientJSON(s)
	if err != nil {
		return raw, false
	}
	if obj, ok := unwrapString(out); ok {
		return obj, true
	}
	return out, true
}

// unwrapString decodes arguments sent as a JSON string holding a JSON
// object (some models double-encode them).
func unwrapString(s string) (string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", false
	}
	var inner string
	if json.Unmarshal([]byte(s), &inner) != nil {
		return "", false
	}
	inner = strings.TrimSpace(inner)
	if fenced, ok := stripFence(inner); ok {
		inner = fenced
	}
	if !strings.HasPrefix(inner, "{") {
		return "", false
	}
	if json.Valid([]byte(inner)) {
		return inner, true
	}
	if out, err := lenientJSON(inner); err == nil && strings.HasPrefix(out, "{") {
		return out, true
	}
	return "", false
}

// stripFence removes a Markdown code fence (```json ... ```) around s.
func stripFence(s string) (string, bool) {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return "", false
	}
	body := s[3 : len(s)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return strings.TrimSpace(body), true
	}
	if info := strings.TrimSpace(body[:nl]); info != "" && !isFenceInfo(info) {
		return "", false
	}
	return strings.TrimSpace(body[nl+1:]), true
}

func isFenceInfo(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' && r != '+' {
			return false
		}
	}
	return true
}

// lenientJSON reads one JSON-like value (see RepairArguments) and writes it
// as strict JSON; anything it cannot read without guessing is an error.
func lenientJSON(s string) (string, error) {
	p := &lenient{src: s}
	var b strings.Builder
	p.space()
	if err := p.value(&b, 0); err != nil {
		return "", err
	}
	p.space()
	for p.pos < len(p.src) && p.src[p.pos] == ';' { // a statement-style ending
		p.pos++
		p.space()
	}
	if p.pos != len(p.src) {
		return "", fmt.Errorf("unexpected %q after the value", p.rest())
	}
	out := b.String()
	if !json.Valid([]byte(out)) {
		return "", errors.New("not JSON after repair")
	}
	return out, nil
}

type lenient struct {
	src string
	pos int
}

const maxDepth = 64

func (p *lenient) rest() string {
	r := p.src[p.pos:]
	if len(r) > 20 {
		r = r[:20]
	}
	return r
}

func (p *lenient) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *lenient) value(b *strings.Builder, depth int) error {
	if depth > maxDepth {
		return errors.New("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return errors.New("unexpected end")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(b, depth)
	case c == '[':
		return p.array(b, depth)
	case c == '"' || c == '\'':
		str, err := p.str()
		if err != nil {
			return err
		}
		writeString(b, str)
		return nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number(b)
	default:
		word := p.word()
		switch word {
		case "true", "True":
			b.WriteString("true")
		case "false", "False":
			b.WriteString("false")
		case "null", "None":
			b.WriteString("null")
		default:
			return fmt.Errorf("unexpected %q", p.rest())
		}
		return nil
	}
}

func (p *lenient) object(b *strings.Builder, depth int) error {
	p.pos++ // {
	b.WriteByte('{')
	first := true
	for {
		p.space()
		if p.pos >= len(p.src) {
			return errors.New("unclosed object")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			b.WriteByte('}')
			return nil
		}
		if !first {
			if p.src[p.pos] != ',' {
				return fmt.Errorf("expected , or } at %q", p.rest())
			}
			p.pos++
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == '}' { // trailing comma
				p.pos++
				b.WriteByte('}')
				return nil
			}
			b.WriteByte(',')
		}
		first = false
		var key string
		if p.pos < len(p.src) && (p.src[p.pos] == '"' || p.src[p.pos] == '\'') {
			k, err := p.str()
			if err != nil {
				return err
			}
			key = k
		} else {
			key = p.word()
			if key == "" {
				return fmt.Errorf("expected a key at %q", p.rest())
			}
		}
		writeString(b, key)
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return fmt.Errorf("expected : after key %q", key)
		}
		p.pos++
		b.WriteByte(':')
		p.space()
		if err := p.value(b, depth+1); err != nil {
			return err
		}
	}
}

func (p *lenient) array(b *strings.Builder, depth int) error {
	p.pos++ // [
	b.WriteByte('[')
	first := true
	for {
		p.space()
		if p.pos >= len(p.src) {
			return errors.New("unclosed array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			b.WriteByte(']')
			return nil
		}
		if !first {
			if p.src[p.pos] != ',' {
				return fmt.Errorf("expected , or ] at %q", p.rest())
			}
			p.pos++
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ']' { // trailing comma
				p.pos++
				b.WriteByte(']')
				return nil
			}
			b.WriteByte(',')
		}
		first = false
		if err := p.value(b, depth+1); err != nil {
			return err
		}
	}
}

// word reads a bare identifier (a key or a literal).
func (p *lenient) word() string {
	start := p.pos
	for p.pos < len(p.src) {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		if r != '_' && r != '$' && !unicode.IsLetter(r) && !(p.pos > start && unicode.IsDigit(r)) {
			break
		}
		p.pos += size
	}
	return p.src[start:p.pos]
}

func (p *lenient) number(b *strings.Builder) error {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
		p.pos++
	}
	num := p.src[start:p.pos]
	if !json.Valid([]byte(num)) {
		return fmt.Errorf("bad number %q", num)
	}
	b.WriteString(num)
	return nil
}

// str reads a double- or single-quoted string with JSON escapes (and \'),
// taking raw line breaks and tabs inside it as text.
func (p *lenient) str() (string, error) {
	quote := p.src[p.pos]
	p.pos++
	var lit strings.Builder // the string as a strict JSON literal
	lit.WriteByte('"')
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == quote:
			p.pos++
			lit.WriteByte('"')
			var out string
			if err := json.Unmarshal([]byte(lit.String()), &out); err != nil {
				return "", fmt.Errorf("bad string: %w", err)
			}
			return out, nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", errors.New("unfinished escape")
			}
			if p.src[p.pos+1] == '\'' {
				lit.WriteByte('\'')
			} else {
				lit.WriteString(p.src[p.pos : p.pos+2])
			}
			p.pos += 2
		case c == '"':
			lit.WriteString(`\"`)
			p.pos++
		case c < 0x20:
			fmt.Fprintf(&lit, `\u%04x`, c)
			p.pos++
		default:
			lit.WriteByte(c)
			p.pos++
		}
	}
	return "", errors.New("unclosed string")
}

func writeString(b *strings.Builder, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}
