// Package chat holds the conversation data shared by the assistant loop, storage
// and the API: messages, runs, conversations and the History interface the
// assistant loop persists through (storage implements it).
package chat

import (
	"context"
	"time"

	"github.com/parley-app/parley/backend/fault"
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
	// ParentID is the message before this one on its branch ("" for a
	// first message): conversations are trees (SPEC §7).
	ParentID string `json:"parent_id"`
	// Siblings counts the messages sharing the parent (1 when none);
	// SiblingIndex is this one's place among them, 0-based in creation order.
	Siblings     int `json:"siblings"`
	SiblingIndex int `json:"sibling_index"`
	// SiblingIDs are the ids of those messages in the same order, when
	// there are more than one: what the UI's < 2/3 > switches to.
	SiblingIDs []string `json:"sibling_ids,omitempty"`
	// Stats are the figures of an assistant reply (nil for other messages).
	Stats *MessageStats `json:"stats,omitempty"`
	// Reasoning is an assistant reply's thinking ("" when none came; SPEC
	// §9), ReasoningMs the time from its first to its last piece, and
	// ReasoningSource where it came from (llm.ReasoningFrom...: the field
	// it goes back in with the history).
	Reasoning       string `json:"reasoning,omitempty"`
	ReasoningMs     int64  `json:"reasoning_ms,omitempty"`
	ReasoningSource string `json:"reasoning_source,omitempty"`
	// Sources are the passages of the user's documents the reply was
	// given (SPEC §11), numbered as the reply cites them ([n]).
	Sources []Source `json:"sources,omitempty"`
}

// Source is one passage of a collection a reply was given (SPEC §11).
type Source struct {
	N       int    `json:"n"`
	Path    string `json:"path"`
	Locator string `json:"locator"`
	Text    string `json:"text"`
}

// MessageStats are the figures of one model answer.
type MessageStats struct {
	// Model is the model that answered.
	Model string `json:"model,omitempty"`
	// TimeToFirstTokenMs is from sending the request to the first streamed text or tool call.
	TimeToFirstTokenMs int64 `json:"time_to_first_token_ms"`
	// DurationMs is from sending the request to the end of the answer.
	DurationMs int64 `json:"duration_ms"`
	// TokensPerSecond is the output tokens over the time after the first token (0 when unknown).
	TokensPerSecond float64 `json:"tokens_per_second"`
	// PromptTokens and CompletionTokens are the tokens in and out.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Estimated: the server sent no usage, so Parley counted the tokens (roughly).
	Estimated bool `json:"estimated,omitempty"`
	// ContextLength is the model's context window where the server tells it (0 = unknown).
	ContextLength int `json:"context_length,omitempty"`
	// AnswerMs is, for a reply that thought, from its last thinking to the
	// end of the answer (the thinking time is the message's reasoning_ms).
	AnswerMs int64 `json:"answer_ms,omitempty"`
	// ThinkingNote says, once, that the server refused the thinking setting
	// and the request went again without it ("" otherwise).
	ThinkingNote string `json:"thinking_note,omitempty"`
}

// Attachment is a file stored with a message: a text file or an image.
type Attachment struct {
	Name     string `json:"name"`
	MIMEType string `json:"mime_type"`
	Size     int64  `json:"size"`
	// Data is the file's content (base64 in JSON).
	Data []byte `json:"data,omitempty"`
}

// Thinking settings of profiles and conversations (SPEC §9): auto sends
// nothing (the server decides), off asks not to think, a level asks for
// that much thinking.
const (
	ThinkingAuto   = "auto"
	ThinkingOff    = "off"
	ThinkingLow    = "low"
	ThinkingMedium = "medium"
	ThinkingHigh   = "high"
)

// ThinkingSettings lists the thinking settings.
var ThinkingSettings = []string{ThinkingAuto, ThinkingOff, ThinkingLow, ThinkingMedium, ThinkingHigh}

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
	ID        string `json:"id"`
	Title     string `json:"title"`
	Assistant string `json:"assistant"`
	// Model, when set, answers this conversation instead of its profile's
	// model (the chat header's model picker).
	Model string `json:"model,omitempty"`
	// Thinking, when set, overrides its profile's thinking setting (auto,
	// off, low, medium or high; SPEC §9).
	Thinking string `json:"thinking,omitempty"`
	Pinned   bool   `json:"pinned"`
	// Knowledge are the ids of the collections the assistant searches in
	// this conversation (SPEC §11), besides its profile's.
	Knowledge []string `json:"knowledge,omitempty"`
	// Agent names the agent on the machine whose cards this conversation
	// holds (SPEC §10); empty for the user's own chats.
	Agent string `json:"agent,omitempty"`
	// ProjectID is the project the conversation is in (SPEC §14); nil =
	// none (the field is then left out).
	ProjectID *string   `json:"project_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Match is set in search results: where the words were found.
	Match *SearchMatch `json:"match,omitempty"`
}

// Project gathers conversations that share instructions, collections and,
// for new conversations, a profile and a model (SPEC §14).
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Instructions open the system prompt of the project's conversations.
	Instructions string `json:"instructions"`
	// Knowledge are collection ids searched in every conversation of the
	// project, with the conversation's own (SPEC §11).
	Knowledge []string `json:"knowledge"`
	// Profile, when set, is the assistant profile of conversations created
	// in the project without one.
	Profile string `json:"profile,omitempty"`
	// Model, when set, answers the project's conversations that have no
	// model of their own (before their profile's model).
	Model     string    `json:"model,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// The marks around the matched words in a SearchMatch snippet.
const (
	SnippetOpen  = "[["
	SnippetClose = "]]"
)

// SearchMatch says where a search found a conversation: in a message (on
// any branch; PUT /branch with MessageID shows it) or in the title.
type SearchMatch struct {
	// MessageID is the matching message ("" when only the title matched).
	MessageID string `json:"message_id,omitempty"`
	// Snippet is the text around the match, the matched words between
	// SnippetOpen and SnippetClose.
	Snippet string `json:"snippet"`
}

// ErrNotFound is returned when a conversation, message or run does not exist.
var ErrNotFound error = fault.Newf(fault.NotFound, "not found")

// History is what the assistant loop needs from storage. Implementations store
// before returning, so whatever an event announces is already durable.
type History interface {
	// Messages returns the conversation's messages, oldest first.
	Messages(ctx context.Context, conversationID string) ([]Message, error)
	// AppendMessage stores m, filling ID and CreatedAt when empty.
	AppendMessage(ctx context.Context, m *Message) error
	// SaveRun inserts or updates a run.
	SaveRun(ctx context.Context, r *Run) error
}
