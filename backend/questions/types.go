// Package questions implements the ask_user_question contract (SPEC §1):
// parsing and validating the model's input, the QuestionManager that holds
// pending cards until the user answers, answer validation and the exact
// tool-result texts the model receives.
package questions

import (
	"context"
	"time"
)

// ToolName is the name the model calls.
const ToolName = "ask_user_question"

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question of a card. Zero options means open-ended.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
	AllowCustom bool     `json:"allowCustom"`
	Placeholder string   `json:"placeholder,omitempty"`
}

// Status is a card's lifecycle state (SPEC §1 "Lifecycle and limits").
type Status string

const (
	StatusPending      Status = "pending"
	StatusAnswered     Status = "answered"
	StatusDeclined     Status = "declined"
	StatusCancelled    Status = "cancelled"
	StatusTimedOut     Status = "timed_out"
	StatusAnsweredLate Status = "answered_late"
	StatusSuperseded   Status = "superseded"
)

// Card is one ask_user_question call: 1..4 questions shown together.
// Its JSON form is the card object of SPEC §3.
type Card struct {
	ID             string            `json:"question_id"`
	ConversationID string            `json:"conversationId"`
	RunID          string            `json:"run_id,omitempty"`
	ToolCallID     string            `json:"tool_call_id,omitempty"`
	Status         Status            `json:"status"`
	Questions      []Question        `json:"questions"`
	CreatedAt      time.Time         `json:"created_at"`
	ExpiresAt      *time.Time        `json:"expires_at"`
	Answers        map[string]string `json:"answers,omitempty"`
	Comments       string            `json:"comments,omitempty"`
	AnsweredAt     *time.Time        `json:"answered_at,omitempty"`
}

// Action is what the user did with a card.
type Action string

const (
	ActionSubmit  Action = "submit"
	ActionDecline Action = "decline"
	ActionCancel  Action = "cancel"
	// ActionSkip is another name for ActionDecline: "Skip" is what the card's
	// button and the README call it.
	ActionSkip Action = "skip"
)

// Canonical returns the action with aliases resolved (skip is decline).
func (a Action) Canonical() Action {
	if a == ActionSkip {
		return ActionDecline
	}
	return a
}

// AnswerInput is the user's answer to one question: selected option labels
// and/or one free-text answer.
type AnswerInput struct {
	Selected []string `json:"selected"`
	Custom   string   `json:"custom,omitempty"`
}

// Response is the user's reply to a card. QuestionID may be "latest".
type Response struct {
	QuestionID string                 `json:"question_id"`
	Action     Action                 `json:"action"`
	Answers    map[string]AnswerInput `json:"answers,omitempty"`
	Comments   string                 `json:"comments,omitempty"`
}

// Outcome is how a card ended for the run that asked it.
type Outcome struct {
	Status Status
	// Result is the exact tool-result content the model receives.
	Result string
	// StopRun is true when the user cancelled: the run stops and the
	// conversation goes idle.
	StopRun bool
}

// Store persists cards; the storage package implements it. Every card is
// saved before its event goes out ("write before show").
type Store interface {
	SaveCard(ctx context.Context, c *Card) error
}

// Clock is injectable so timeouts are tested without sleeping.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; Stop cancels it.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle returned by Clock.AfterFunc.
type Timer interface {
	Stop() bool
}
