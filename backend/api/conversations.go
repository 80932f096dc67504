package api

import (
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
	State    string         `json:"state"`
	Error    string         `json:"error,omitempty"`
	Messages []chat.Message `json:"messages"`
	// Earlier is how many messages of the visible path come before the
	// first of Messages, when only a window of them was asked for.
	Earlier         int             `json:"earlier,omitempty"`
	PendingQuestion *questions.Card `json:"pending_question"`
}

// SendRequest sends a user message (SPEC §7). ParentID absent (nil) puts it
// at the end of the visible path; set, it goes under that message ("" = a
// new first message): an edit is sent under the edited message's
// parent_id, as a new sibling of it.
type SendRequest struct {
	Content     string            `json:"content"`
	ParentID    *string           `json:"parent_id,omitempty"`
	Attachments []chat.Attachment `json:"attachments,omitempty"`
}

// ForkRequest changes the answer of an answered card (SPEC §7): the new
// answer goes to the model on a new branch.
type ForkRequest struct {
	Answers  map[string]questions.AnswerInput `json:"answers"`
	Comments string                           `json:"comments,omitempty"`
}

// ConversationUpdate changes what it gives of a conversation (PATCH
// /api/v1/conversations/{id}); at least one field must be set.
type ConversationUpdate struct {
	Title     *string   `json:"title,omitempty"`
	Pinned    *bool     `json:"pinned,omitempty"`
	Assistant *string   `json:"assistant,omitempty"`
	Model     *string   `json:"model,omitempty"`
	Thinking  *string   `json:"thinking,omitempty"`
	Knowledge *[]string `json:"knowledge,omitempty"`
	// ProjectID puts the conversation in a project (SPEC §14); "" takes it
	// out of its project (null is as if the field were not given).
	ProjectID *string `json:"project_id,omitempty"`
}
