package service

import (
	"fmt"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// The service's errors are *fault.Error: each carries its kind, which every
// adapter reports the same way (the HTTP API answers its status, the window
// rejects the call with it), and its message from the catalogue, said in
// the user's language. Messages only API clients see (JSON field names) are
// English only (inputErrorf).

// ErrRunActive is returned when a message is sent while a run is active.
var ErrRunActive error = fault.New(fault.Conflict, i18n.M("service.runActive"))

// ErrAgentConversation: the assistant does not reply in an agent's
// conversation (SPEC §10) (HTTP 409).
var ErrAgentConversation error = fault.Newf(fault.Conflict, "no assistant replies in an agent's conversation")

// ErrNoUpdateReady: apply without a verified, staged update (HTTP 409).
var ErrNoUpdateReady error = fault.New(fault.Conflict, i18n.M("service.noUpdateReady"))

// ErrTooLarge is returned for an import larger than MaxImportBytes.
var ErrTooLarge error = fault.New(fault.TooLarge, i18n.M("service.importTooLarge"))

// ErrBadPageSize is returned for a conversation page size out of range.
var ErrBadPageSize error = fault.Newf(fault.Input, "limit must be a number from 1 to %d", MaxPageSize)

// inputErrorf is a request the client got wrong (HTTP 400), in English
// words only API clients see.
func inputErrorf(msg string) error { return &fault.Error{Kind: fault.Input, Msg: msg} }

// inputError is a request the user got wrong (HTTP 400), as the interface
// shows it: from the catalogue.
func inputError(text i18n.Message) error { return fault.New(fault.Input, text) }

// valueErrorf is a field given a value it never takes, such as an unknown
// thinking setting (HTTP 422).
func valueErrorf(format string, args ...any) error {
	return &fault.Error{Kind: fault.Validation, Msg: fmt.Sprintf(format, args...)}
}

// upstreamError is a failure of the model server or of what stands behind
// it (Ollama's registry), not of Parley or the request (HTTP 502): msg is
// for the user, cause for the log.
func upstreamError(msg string, cause error) error {
	return &fault.Error{Kind: fault.Upstream, Msg: msg, Err: cause}
}
