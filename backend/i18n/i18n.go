// Package i18n holds the texts the backend shows to the user (error
// messages, the window menu) in every language of the interface, one
// catalogue file per language (locales/<code>.json, English the source), and
// picks the language: the one chosen in Settings, else the system's (LANG,
// which the desktop window's WebKitGTK follows too), and for an HTTP request
// without a choice its Accept-Language. Texts sent to the model (tool
// descriptions, the §1 result formats, system prompts) never come from here.
//
// Messages are golang.org/x/text/message formats (%s, %d, %[2]s to reorder),
// which also write numbers the language's way.
package i18n

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// English is the source language: every key exists in it.
const English = "en"

// Languages are the codes of the interface's languages, English first; the
// frontend has the same list (frontend/src/i18n).
var Languages = []string{English, "zh-CN", "de", "es", "fr", "ja", "pt-BR"}

//go:embed locales/*.json
var localeFiles embed.FS

var (
	tags     []language.Tag
	matcher  language.Matcher
	cat      *catalog.Builder
	printers = map[string]*message.Printer{}
	sources  map[string]string // the English catalogue
	current  atomic.Value      // string: the process's language
)

func init() {
	cat = catalog.NewBuilder(catalog.Fallback(language.English))
	for _, code := range Languages {
		tag := language.MustParse(code)
		tags = append(tags, tag)
		entries, err := Catalogue(code)
		if err != nil {
			panic(err) // the files are embedded: a broken one is a build error the tests catch
		}
		if code == English {
			sources = entries
		}
		for key, text := range entries {
			if err := cat.SetString(tag, key, text); err != nil {
				panic(fmt.Sprintf("i18n: %s %s: %v", code, key, err))
			}
		}
	}
	matcher = language.NewMatcher(tags)
	for i, code := range Languages {
		printers[code] = message.NewPrinter(tags[i], message.Catalog(cat))
	}
	current.Store(English)
}

// Catalogue reads the embedded catalogue of one language.
func Catalogue(code string) (map[string]string, error) {
	b, err := localeFiles.ReadFile(path.Join("locales", code+".json"))
	if err != nil {
		return nil, fmt.Errorf("i18n: catalogue %s: %w", code, err)
	}
	var entries map[string]string
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("i18n: catalogue %s: %w", code, err)
	}
	return entries, nil
}

// Supported reports whether code is one of Languages.
func Supported(code string) bool {
	_, ok := printers[code]
	return ok
}

// Match returns the language of Languages that best fits the preferences
// (BCP 47 tags, an Accept-Language header, or POSIX locales such as
// de_DE.UTF-8), or "" when none fits.
func Match(prefs ...string) string {
	var want []language.Tag
	for _, p := range prefs {
		if p == "" {
			continue
		}
		if strings.ContainsAny(p, ",;") {
			if ts, _, err := language.ParseAcceptLanguage(p); err == nil {
				want = append(want, ts...)
			}
			continue
		}
		p = posixToBCP47(p)
		if p == "" {
			continue
		}
		if t, err := language.Parse(p); err == nil {
			want = append(want, t)
		}
	}
	if len(want) == 0 {
		return ""
	}
	_, i, conf := matcher.Match(want...)
	if conf == language.No {
		return ""
	}
	return Languages[i]
}

// posixToBCP47 turns "de_DE.UTF-8@euro" into "de-DE"; C and POSIX mean none.
func posixToBCP47(s string) string {
	if i := strings.IndexAny(s, ".@"); i >= 0 {
		s = s[:i]
	}
	if s == "C" || s == "POSIX" {
		return ""
	}
	return strings.ReplaceAll(s, "_", "-")
}

// System is the system's language from the environment (LC_ALL,
// LC_MESSAGES, LANG, in POSIX order), English when none fits.
func System(getenv func(string) string) string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if val := getenv(v); val != "" {
			if code := Match(val); code != "" {
				return code
			}
			return English
		}
	}
	return English
}

// Choose is the language to speak: the Settings choice when it is one of
// Languages, else the system's.
func Choose(setting string) string {
	if Supported(setting) {
		return setting
	}
	return System(os.Getenv)
}

// SetCurrent sets the process's language (Parley has one user: the
// language of their interface). Unknown codes mean English.
func SetCurrent(code string) {
	if !Supported(code) {
		code = English
	}
	current.Store(code)
}

// Current is the process's language.
func Current() string { return current.Load().(string) }

// In formats the message key in a language (English for an unknown one).
// An argument that is itself a Message is said in the same language.
func In(code, key string, args ...any) string {
	p, ok := printers[code]
	if !ok {
		p = printers[English]
	}
	cloned := false
	for i, a := range args {
		if m, ok := a.(Message); ok {
			if !cloned {
				args, cloned = slices.Clone(args), true // never change the caller's
			}
			args[i] = m.In(code)
		}
	}
	return p.Sprintf(key, args...)
}

// Source is the English format of the message key, for texts that must
// read exactly as fmt writes them (those for the model: no digit grouping).
func Source(key string) string {
	if f, ok := sources[key]; ok {
		return f
	}
	return key
}

// T formats the message key in the process's language.
func T(key string, args ...any) string { return In(Current(), key, args...) }

// Message is a text of the catalogue with its arguments, kept so that it can
// be said again in another language (an HTTP client's).
type Message struct {
	Key  string
	Args []any
}

// M makes a Message.
func M(key string, args ...any) Message { return Message{Key: key, Args: args} }

// In says the message in a language.
func (m Message) In(code string) string { return In(code, m.Key, m.Args...) }

// String says the message in the process's language.
func (m Message) String() string { return m.In(Current()) }

// Localized is an error whose text is a catalogue message: the backend's
// one error type, fault.Error (which imports this package).
type Localized interface {
	error
	Localized() Message
}

// Localize is err's text in a language: the catalogue message when err is
// a Localized error, or wraps one and says just its message, else
// err.Error().
func Localize(err error, code string) string {
	m, ok := messageOf(err)
	if !ok {
		return err.Error()
	}
	return m.In(code)
}

// messageOf is err's catalogue message when err says just that: a Localized
// error, or one wrapping it without words of its own (a Localized error
// without a message, such as a model server's failure passed on in its
// words, is looked through to its cause).
func messageOf(err error) (Message, bool) {
	for e := err; e != nil; {
		var l Localized
		if !errors.As(e, &l) {
			return Message{}, false
		}
		if l.Localized().Key == "" {
			e = errors.Unwrap(l)
			continue
		}
		if msg := err.Error(); msg != l.Error() && msg != l.Localized().String() {
			return Message{}, false // wrapped with words that are not in the catalogue
		}
		return l.Localized(), true
	}
	return Message{}, false
}

// ---- texts kept in the database ------------------------------------------------
// A text Parley stores to show later (why a file of a collection could not be
// read) is kept as its catalogue messages, not as words: it is then said in
// the language chosen when it is shown, not the one chosen when it was
// written. Texts stored before, and errors that are not catalogue messages
// (a library's words), are kept and shown as they are.

// storedPrefix marks a stored text that holds messages (JSON after it).
const storedPrefix = "i18n:"

// storedPart is one error of a stored text: its words as first said (Text)
// and, for a catalogue message, its key and arguments to say it again. The
// words are shown where the key is no longer in the catalogue.
type storedPart struct {
	Key  string `json:"k,omitempty"`
	Args []any  `json:"a,omitempty"` // strings and whole numbers
	Text string `json:"t,omitempty"`
}

// Store is the form in which errs are kept: each a catalogue message where
// its arguments survive the round trip (text and whole numbers; said again
// when shown), else its words. Shown joined by "; " (ShowStored).
func Store(errs ...error) string {
	if len(errs) == 0 {
		return ""
	}
	parts := make([]storedPart, 0, len(errs))
	for _, err := range errs {
		parts = append(parts, storedPartOf(err))
	}
	b, _ := json.Marshal(parts) // strings and integers only: cannot fail
	return storedPrefix + string(b)
}

func storedPartOf(err error) storedPart {
	words := storedPart{Text: err.Error()}
	m, ok := messageOf(err)
	if !ok {
		return words
	}
	args := make([]any, 0, len(m.Args))
	for _, a := range m.Args {
		switch v := a.(type) {
		case string:
			args = append(args, v)
		case int:
			args = append(args, int64(v))
		case int64:
			args = append(args, v)
		default: // a duration or a float would not be said as its verb wants after a round trip
			return words
		}
	}
	return storedPart{Key: m.Key, Args: args, Text: words.Text}
}

// ShowStored is a stored text (Store) in a language; a text stored as
// words (before messages were kept, or by hand) is returned as it is.
func ShowStored(stored, code string) string {
	rest, ok := strings.CutPrefix(stored, storedPrefix)
	if !ok {
		return stored
	}
	dec := json.NewDecoder(strings.NewReader(rest))
	dec.UseNumber() // whole numbers come back as numbers %d can say
	var parts []storedPart
	if err := dec.Decode(&parts); err != nil {
		return stored
	}
	return strings.Join(shownParts(parts, code), "; ")
}

func shownParts(parts []storedPart, code string) []string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if _, known := sources[p.Key]; !known {
			out = append(out, p.Text)
			continue
		}
		args, ok := storedArgs(p.Args)
		if !ok {
			out = append(out, p.Text)
			continue
		}
		out = append(out, In(code, p.Key, args...))
	}
	return out
}

// storedArgs are a stored message's arguments as Store had them: text, and
// whole numbers as int64. Anything else is not what Store writes.
func storedArgs(stored []any) ([]any, bool) {
	args := make([]any, len(stored))
	for i, a := range stored {
		switch v := a.(type) {
		case string:
			args[i] = v
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				return nil, false
			}
			args[i] = n
		default:
			return nil, false
		}
	}
	return args, true
}
