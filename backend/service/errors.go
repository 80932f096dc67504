package service

import (
	"errors"
	"fmt"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/knowledge"
	"github.com/parley-app/parley/backend/mcp"
	"github.com/parley-app/parley/backend/questions"
)

// ErrRunActive is returned when a message is sent while a run is active.
var ErrRunActive = i18n.NewError("service.runActive")

// ErrAgentConversation: the assistant does not reply in an agent's
// conversation (SPEC §10) (HTTP 409).
var ErrAgentConversation = errors.New("no assistant replies in an agent's conversation")

// ErrTooLarge is returned for an import larger than MaxImportBytes.
var ErrTooLarge = i18n.NewError("service.importTooLarge")

// ErrBadPageSize is returned for a conversation page size out of range.
var ErrBadPageSize error = &InputError{Msg: fmt.Sprintf("limit must be a number from 1 to %d", MaxPageSize)}

// InputError is a request the user or client got wrong (HTTP 400). Msg is
// for the user; Text, when set, is the same message from the catalogue, to
// be said again in an HTTP client's language (i18n.Localize). Messages only
// API clients see (JSON field names) are English only.
type InputError struct {
	Msg  string
	Text i18n.Message
}

// Error returns the message for the user.
func (e *InputError) Error() string { return e.Msg }

// Localized is the catalogue message, if any.
func (e *InputError) Localized() i18n.Message { return e.Text }

func inputErrorf(msg string) error { return &InputError{Msg: msg} }

// inputError is an InputError the interface shows: from the catalogue.
func inputError(text i18n.Message) error { return &InputError{Msg: text.String(), Text: text} }

// ValueError is a field given a value it never takes, such as an unknown
// thinking setting (HTTP 422).
type ValueError struct{ Msg string }

// Error returns the message for the user.
func (e *ValueError) Error() string { return e.Msg }

// UpstreamError is a failure of the model server or of what stands behind
// it (Ollama's registry), not of Parley or the request (HTTP 502). Msg is
// for the user; Err keeps the cause for the log.
type UpstreamError struct {
	Msg string
	Err error
}

// Error returns the message for the user.
func (e *UpstreamError) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *UpstreamError) Unwrap() error { return e.Err }

// Kind classifies an error the service returns, so that every adapter
// reports the same failure the same way (the HTTP API maps it to a status;
// the bindings hand the error itself to the window).
type Kind string

// The kinds of error the service returns.
const (
	KindInternal   Kind = "internal"   // Parley's own failure (HTTP 500)
	KindInput      Kind = "input"      // a bad request (HTTP 400)
	KindNotFound   Kind = "not_found"  // no such conversation, card or profile (HTTP 404)
	KindConflict   Kind = "conflict"   // a run is active, or the card is no longer pending (HTTP 409)
	KindTooLarge   Kind = "too_large"  // an import over MaxImportBytes (HTTP 413)
	KindValidation Kind = "validation" // answers that do not fit the card (HTTP 422)
	KindUpstream   Kind = "upstream"   // the model server failed (HTTP 502)
)

// KindOf returns the kind of an error the service returned.
func KindOf(err error) Kind {
	var ve *questions.ValidationError
	var ie *InputError
	var ue *UpstreamError
	var me *mcp.InputError
	var ae *AttachmentError
	var vae *ValueError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ae) && ae.TooLarge:
		return KindTooLarge
	case errors.As(err, &ae):
		return KindValidation
	case errors.Is(err, ErrTooLarge):
		return KindTooLarge
	case errors.As(err, &ve), errors.As(err, &vae), errors.Is(err, knowledge.ErrInvalid):
		return KindValidation
	case errors.As(err, &ie), errors.As(err, &me):
		return KindInput
	case errors.As(err, &ue):
		return KindUpstream
	case errors.Is(err, chat.ErrNotFound), errors.Is(err, questions.ErrNotFound), errors.Is(err, mcp.ErrNotFound):
		return KindNotFound
	case errors.Is(err, questions.ErrConflict), errors.Is(err, ErrRunActive), errors.Is(err, ErrAgentConversation):
		return KindConflict
	default:
		return KindInternal
	}
}
