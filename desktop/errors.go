package desktop

import (
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// windowError is how a bound method's error reaches the window (Wails'
// ErrorFormatter): the rejected promise carries the body the HTTP API
// answers, {"error": …}, with the error's kind and the HTTP status of the
// kind, so that the frontend tells a 404 from a 409 in the window too. The
// message is in the interface's language.
func windowError(err error) any { return fault.ReplyOf(err, i18n.Current()) }
