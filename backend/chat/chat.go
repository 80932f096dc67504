// Package chat holds the conversation data shared by the agent loop, storage
// and the API: messages, runs, conversations and the History interface the
// agent loop persists through (storage implements it).
package chat

import (
	"context"
	"errors"
	"time"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ToolCall is one tool call an assistant message made.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one turn of a conversation.
type Message struct {
	ID             string     `json:"id"`
	ConversationID string     `json:"conversationId"`
	RunID          string     `json:"run_id,omitempty"`
	Role           string     `json:"role"`
	Content        string     `json:"content"`
	ToolCalls      []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID     string     `json:"tool_call_id,omitempty"`
	ToolName       string     `json:"tool_name,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	// Attachments are files the user attached (SPEC §7) or images an MCP
	// tool returned (SPEC §6).
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Attachment is a file stored with a message: a text file or an image.
type Attachment struct {
	Name     string `json:"name"`
	MIMEType string `json:"mime_type"`
	Size     int64  `json:"size"`
	// Data is the file's content (base64 in JSON).
	Data []byte `json:"data,omitempty"`
}

// Run states (SPEC §2) shown to clients.
const (
	StateIdle                 = "idle"
	StateRequesting           = "requesting"
	StateStreaming            = "streaming"
	StateToolExecuting        = "tool_executing"
	StateAwaitingUserResponse = "awaiting_user_response"
	StateError                = "error"
)

// Run statuses as stored.
const (
	RunRunning     = "running"
	RunAwaiting    = "awaiting_user_response"
	RunCompleted   = "completed"
	RunCancelled   = "cancelled"
	RunFailed      = "failed"
	RunInterrupted = "interrupted"
)

// Run is one model loop started by a user turn (or a late answer).
type Run struct {
	ID             string     `json:"id"`
	ConversationID string     `json:"conversationId"`
	Status         string     `json:"status"`
	ResumedFrom    string     `json:"resumed_from,omitempty"`
	Error          string     `json:"error,omitempty"`
	StartedAt      time.Time  `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at,omitempty"`
}

// Conversation is one chat.
type Conversation struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Assistant string    `json:"assistant"`
	Pinned    bool      `json:"pinned"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ErrNotFound is returned when a conversation, message or run does not exist.
var ErrNotFound = errors.New("not found")

// History is what the agent loop needs from storage. Implementations store
// before returning, so whatever an event announces is already durable.
type History interface {
	// Messages returns the conversation's messages, oldest first.
	Messages(ctx context.Context, conversationID string) ([]Message, error)
	// AppendMessage stores m, filling ID and CreatedAt when empty.
	AppendMessage(ctx context.Context, m *Message) error
	// SaveRun inserts or updates a run.
	SaveRun(ctx context.Context, r *Run) error
}
