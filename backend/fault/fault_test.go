package fault_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// A sentinel compared with errors.Is keeps its kind through wrapping.
var errGone error = fault.Newf(fault.NotFound, "not found")

func TestKindOfFindsTheKindThroughWrapping(t *testing.T) {
	assert.Equal(t, fault.Kind(""), fault.KindOf(nil))
	assert.Equal(t, fault.Internal, fault.KindOf(errors.New("disk on fire")), "any other error")
	assert.Equal(t, fault.Internal, fault.KindOf(&fault.Error{Msg: "no kind"}), "an Error without a kind")

	wrapped := fmt.Errorf("load conversation c1: %w", errGone)
	assert.Equal(t, fault.NotFound, fault.KindOf(wrapped))
	assert.ErrorIs(t, wrapped, errGone)
	assert.Equal(t, fault.Conflict, fault.KindOf(fmt.Errorf("a: %w", fmt.Errorf("b: %w", fault.New(fault.Conflict, i18n.M("service.runActive"))))))

	// The outermost Error says the kind; its cause stays for errors.Is.
	outer := fault.Wrap(fault.Validation, i18n.M("service.runActive"), errGone)
	assert.Equal(t, fault.Validation, fault.KindOf(fmt.Errorf("x: %w", outer)))
	assert.ErrorIs(t, outer, errGone)
	assert.Same(t, outer, fault.As(fmt.Errorf("x: %w", outer)))
	assert.Nil(t, fault.As(errors.New("plain")))
}

func TestCodeOfLooksThroughErrorsWithoutACode(t *testing.T) {
	inner := &fault.Error{Kind: fault.Internal, Code: "no_tools", Msg: "the server refused tools", Err: errors.New("HTTP 400")}
	outer := &fault.Error{Kind: fault.Upstream, Msg: "the server refused tools", Err: inner}
	assert.Equal(t, "no_tools", fault.CodeOf(fmt.Errorf("call: %w", outer)))
	assert.Same(t, inner, fault.Coded(outer))
	assert.Equal(t, "", fault.CodeOf(errGone))
	assert.Equal(t, "", fault.CodeOf(errors.New("plain")))
	assert.Nil(t, fault.Coded(nil))
}

func TestHTTPStatusOfEachKind(t *testing.T) {
	want := map[fault.Kind]int{
		fault.Internal:   http.StatusInternalServerError,
		fault.Input:      http.StatusBadRequest,
		fault.NotFound:   http.StatusNotFound,
		fault.Conflict:   http.StatusConflict,
		fault.TooLarge:   http.StatusRequestEntityTooLarge,
		fault.Validation: http.StatusUnprocessableEntity,
		fault.TooMany:    http.StatusTooManyRequests,
		fault.Upstream:   http.StatusBadGateway,
		fault.Storage:    http.StatusInsufficientStorage,
	}
	require.Len(t, fault.Kinds, len(want), "a kind without a status here")
	for _, k := range fault.Kinds {
		assert.Equal(t, want[k], fault.HTTPStatus(k), "kind %q", k)
	}
	assert.Equal(t, http.StatusInternalServerError, fault.HTTPStatus(""))
	assert.Equal(t, http.StatusInternalServerError, fault.HTTPStatus("unheard-of"))
}

// The kinds' strings are what the window gets: they do not change.
func TestKindStringsAreStable(t *testing.T) {
	assert.Equal(t, []fault.Kind{"internal", "input", "not_found", "conflict", "too_large", "validation", "too_many", "upstream", "insufficient_storage"}, fault.Kinds)
}

func TestErrorSaysMsgElseTextNeverTheCause(t *testing.T) {
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	i18n.SetCurrent(i18n.English)
	cause := errors.New("dial tcp: connection refused")
	e := fault.Wrap(fault.Conflict, i18n.M("service.runActive"), cause)
	assert.Equal(t, "a run is already active in this conversation", e.Error())
	assert.Equal(t, cause, errors.Unwrap(e))
	assert.Equal(t, "a run is already active in this conversation (dial tcp: connection refused)", e.LogValue().String(), "the log shows the cause")

	// Msg (English, for API clients or the model) wins over the Text.
	both := &fault.Error{Kind: fault.Validation, Msg: "invalid input: questions must have 1-4 items", Text: i18n.M("service.runActive")}
	assert.Equal(t, "invalid input: questions must have 1-4 items", both.Error())
	assert.Equal(t, "a run is already active in this conversation", i18n.Localize(both, i18n.English), "people read the Text")

	assert.Equal(t, "limit must be a number from 1 to 200", fault.Newf(fault.Input, "limit must be a number from 1 to %d", 200).Error())
}

func TestLocalizeSaysTheTextInTwoLanguages(t *testing.T) {
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	i18n.SetCurrent(i18n.English)
	err := fault.New(fault.TooLarge, i18n.M("service.importTooLarge"))
	assert.Equal(t, "too large to be a Parley conversation", i18n.Localize(err, i18n.English))
	assert.Equal(t, "zu groß für einen Parley-Chat", i18n.Localize(err, "de"))
	assert.Equal(t, "zu groß für einen Parley-Chat", i18n.Localize(fmt.Errorf("%w", err), "de"), "wrapped without words of its own")
	assert.Equal(t, "import x: too large to be a Parley conversation", i18n.Localize(fmt.Errorf("import x: %w", err), "de"), "wrapped with words: as they are")

	// English-only words stay English.
	assert.Equal(t, "not found", i18n.Localize(errGone, "de"))

	// A failure passed on in another's words is said as that one.
	passed := &fault.Error{Kind: fault.Upstream, Msg: err.Error(), Err: err}
	assert.Equal(t, "zu groß für einen Parley-Chat", i18n.Localize(passed, "de"))
}

func TestReplyIsTheAPIBodyWithKindAndStatus(t *testing.T) {
	t.Cleanup(func() { i18n.SetCurrent(i18n.English) })
	err := fmt.Errorf("%w", fault.New(fault.Conflict, i18n.M("service.runActive")))
	assert.Equal(t, fault.Reply{Error: "in diesem Chat läuft bereits eine Antwort", Kind: fault.Conflict, Status: http.StatusConflict}, fault.ReplyOf(err, "de"))
	assert.Equal(t, fault.Reply{Error: "disk on fire", Kind: fault.Internal, Status: http.StatusInternalServerError}, fault.ReplyOf(errors.New("disk on fire"), "de"))
	b, jerr := json.Marshal(fault.ReplyOf(err, i18n.English))
	require.NoError(t, jerr)
	assert.JSONEq(t, `{"error":"a run is already active in this conversation","kind":"conflict","status":409}`, string(b))
}
