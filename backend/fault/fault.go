// Package fault is the one error type of the backend: a failure with its
// kind (a bad request, no such thing, a conflict, …), the message the user
// reads (a catalogue message, said in the user's language by
// i18n.Localize) and the cause, for the log. Every adapter reports a kind
// the same way: the HTTP API answers its status (HTTPStatus), the window
// rejects the bound method's promise with the same body (Reply).
//
// It imports only the standard library and backend/i18n, so every package
// of the backend can return its errors.
package fault

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/parley-app/parley/backend/i18n"
)

// Kind classifies a failure, so that every adapter reports it the same way.
type Kind string

// The kinds of failure. The strings are part of the API: the window gets
// them with a rejected call (Reply).
const (
	Internal   Kind = "internal"   // Parley's own failure (HTTP 500)
	Input      Kind = "input"      // a bad request (HTTP 400)
	NotFound   Kind = "not_found"  // no such conversation, card or profile (HTTP 404)
	Conflict   Kind = "conflict"   // a run is active, or the card is no longer pending (HTTP 409)
	TooLarge   Kind = "too_large"  // an import or a file over its limit (HTTP 413)
	Validation Kind = "validation" // a value the request may not have: answers that do not fit the card (HTTP 422)
	TooMany    Kind = "too_many"   // refused for now: an agent's rate limit or pending cap (HTTP 429)
	Upstream   Kind = "upstream"   // the model server or what stands behind it failed (HTTP 502)
	// Storage: not enough free disk for what was asked, such as a model
	// download (HTTP 507).
	Storage Kind = "insufficient_storage"
)

// Kinds are all the kinds, in the order above.
var Kinds = []Kind{Internal, Input, NotFound, Conflict, TooLarge, Validation, TooMany, Upstream, Storage}

// Error is a failure of the backend.
type Error struct {
	Kind Kind
	// Code is a finer reason within the kind, for code that reacts to it
	// (llm's "no_tools": ask again without native tools); "" for most.
	Code string
	// Text is the catalogue message the user reads, said in their language
	// (i18n.Localize; Error says it in the process's).
	Text i18n.Message
	// Msg, when set, is what Error says: English words for messages only
	// API clients or the model see (JSON field names, a tool's input rule).
	// With a Text too, people read the Text and Msg is the words for the
	// model and the log.
	Msg string
	// Err is the cause, for the log and errors.Is/As; it is not said.
	Err error
}

// Error is Msg, else Text in the process's language; never the cause.
func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Text.Key != "" {
		return e.Text.String()
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Kind)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Localized is the catalogue message, if any (i18n.Localize says it in a
// language).
func (e *Error) Localized() i18n.Message { return e.Text }

// LogValue is the message with its cause, as the log shows it.
func (e *Error) LogValue() slog.Value {
	if e.Err == nil || e.Err.Error() == e.Error() {
		return slog.StringValue(e.Error())
	}
	return slog.StringValue(fmt.Sprintf("%s (%v)", e.Error(), e.Err))
}

// New is a failure of a kind saying a catalogue message.
func New(kind Kind, text i18n.Message) *Error { return &Error{Kind: kind, Text: text} }

// Newf is a failure of a kind with English words only API clients see.
func Newf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Wrap is New with a cause (kept for the log and errors.Is/As, not said).
func Wrap(kind Kind, text i18n.Message, cause error) *Error {
	return &Error{Kind: kind, Text: text, Err: cause}
}

// KindOf is the kind of err: that of the first *Error in its chain, ""
// for nil, Internal for any other error.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Kind != "" {
		return e.Kind
	}
	return Internal
}

// Coded is the first *Error in err's chain that has a Code, or nil.
func Coded(err error) *Error {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return nil
		}
		if e.Code != "" {
			return e
		}
		err = e.Err
	}
	return nil
}

// CodeOf is the Code of Coded(err), "" when none.
func CodeOf(err error) string {
	if e := Coded(err); e != nil {
		return e.Code
	}
	return ""
}

// HTTPStatus is the status the HTTP API answers a kind with.
func HTTPStatus(kind Kind) int {
	switch kind {
	case Input:
		return http.StatusBadRequest
	case NotFound:
		return http.StatusNotFound
	case Conflict:
		return http.StatusConflict
	case TooLarge:
		return http.StatusRequestEntityTooLarge
	case Validation:
		return http.StatusUnprocessableEntity
	case TooMany:
		return http.StatusTooManyRequests
	case Upstream:
		return http.StatusBadGateway
	case Storage:
		return http.StatusInsufficientStorage
	default:
		return http.StatusInternalServerError
	}
}

// Reply is how an adapter answers a failure: the HTTP API's error body
// ({"error": …}) with the kind and its HTTP status, which the window's
// rejected promise carries (the window has no status line).
type Reply struct {
	Error  string `json:"error"`
	Kind   Kind   `json:"kind"`
	Status int    `json:"status"`
}

// ReplyOf is err's Reply, its message said in the language lang.
func ReplyOf(err error, lang string) Reply {
	kind := KindOf(err)
	return Reply{Error: i18n.Localize(err, lang), Kind: kind, Status: HTTPStatus(kind)}
}

// As is the first *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
