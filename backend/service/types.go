// Package service is Parley's domain façade: conversations, runs, question
// cards and settings, wired from storage, the agent runtime and the
// QuestionManager. The Wails bindings and the HTTP API both call it, so no
// logic is written twice.
package service

import (
	"errors"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

// ConversationPage is one page of the conversation list.
type ConversationPage struct {
	Items      []chat.Conversation `json:"items"`
	NextCursor string              `json:"next_cursor,omitempty"`
}

// ConversationDetail is a conversation with its messages and run state.
type ConversationDetail struct {
	chat.Conversation
	State           string          `json:"state"`
	Error           string          `json:"error,omitempty"`
	Messages        []chat.Message  `json:"messages"`
	PendingQuestion *questions.Card `json:"pending_question"`
}

// ErrRunActive is returned when a message is sent while a run is active.
var ErrRunActive = errors.New("a run is already active in this conversation")

// InputError is a request the user or client got wrong (HTTP 400).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(msg string) error { return &InputError{Msg: msg} }

// UpstreamError is a failure of the model server or of what stands behind
// it (Ollama's registry), not of Parley or the request (HTTP 502). Msg is
// for the user; Err keeps the cause for the log.
type UpstreamError struct {
	Msg string
	Err error
}

func (e *UpstreamError) Error() string { return e.Msg }

func (e *UpstreamError) Unwrap() error { return e.Err }
