package api

import (
	"encoding/json"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/trace"
)

// The requests of the calls that need their own. A field named as a
// route's {param} comes from the path over HTTP.

// ByID names a conversation, collection or agent token.
type ByID struct {
	ID string `json:"id"`
}

// ByName names a profile or an MCP server.
type ByName struct {
	Name string `json:"name"`
}

// ListConversationsArgs asks for a page of the conversation list.
type ListConversationsArgs struct {
	// Limit is the page size (none = DefaultPageSize).
	Limit  *int   `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	// Q keeps the conversations whose title or messages match.
	Q string `json:"q,omitempty"`
	// Project keeps the conversations of that project (SPEC §14).
	Project string `json:"project,omitempty"`
}

// CreateConversationArgs starts an empty conversation.
type CreateConversationArgs struct {
	Title string `json:"title,omitempty"`
	// Assistant is the profile ("" = the project's, else the default).
	Assistant string `json:"assistant,omitempty"`
	// ProjectID puts it in a project (SPEC §14).
	ProjectID string `json:"project_id,omitempty"`
}

// UpdateConversationArgs changes what it gives of a conversation.
type UpdateConversationArgs struct {
	ID string `json:"id"`
	ConversationUpdate
}

// SendArgs sends a user message (SPEC §7): content, files, or both.
type SendArgs struct {
	ID          string            `json:"id"`
	Content     *string           `json:"content,omitempty"`
	ParentID    *string           `json:"parent_id,omitempty"`
	Attachments []chat.Attachment `json:"attachments,omitempty"`
}

// RegenerateArgs asks for a new reply beside an earlier one.
type RegenerateArgs struct {
	ID string `json:"id"`
	RegenerateRequest
}

// SelectBranchArgs makes the path through a message the visible one.
type SelectBranchArgs struct {
	ID string `json:"id"`
	BranchRequest
	// Last: the conversation comes with the newest Last messages of its
	// new path only (as GetConversationArgs.Last).
	Last *int `json:"last,omitempty"`
}

// ForkQuestionArgs changes an answered card's answer on a new branch. Its
// fields are ForkRequest's, not embedded: Wails generates the
// TypeScript classes of what named fields reach (questions.AnswerInput)
// and skips embedded structs, so the window's models.ts would refer to a
// class it lacks.
type ForkQuestionArgs struct {
	ID         string                           `json:"id"`
	QuestionID string                           `json:"question_id"`
	Answers    map[string]questions.AnswerInput `json:"answers"`
	Comments   string                           `json:"comments,omitempty"`
}

// RespondArgs answers the conversation's pending card (SPEC §2).
type RespondArgs struct {
	ID string `json:"id"`
	questions.Response
}

// QuestionsArgs filters the cards of every conversation by status.
type QuestionsArgs struct {
	Status string `json:"status,omitempty"`
}

// GetConversationArgs asks for a conversation and its visible path, or a
// window of the path: the Last messages (before the message Before, if
// given). A long conversation is opened with its newest messages and read
// back page by page (SPEC §7).
type GetConversationArgs struct {
	ID     string `json:"id"`
	Last   *int   `json:"last,omitempty"`
	Before string `json:"before,omitempty"`
}

// ExportArgs exports a conversation as "markdown" (the default) or "json".
type ExportArgs struct {
	ID     string `json:"id"`
	Format string `json:"format,omitempty"`
}

// ImportArgs is an exported conversation's JSON.
type ImportArgs struct {
	Data string `json:"data"`
}

// ImportBackupArgs is a full backup's JSON (SPEC §14).
type ImportBackupArgs struct {
	Data string `json:"data"`
}

// UpdateProjectArgs changes what it gives of a project.
type UpdateProjectArgs struct {
	ID string `json:"id"`
	ProjectRequest
}

// DeleteProjectArgs deletes a project, and its conversations with it when
// asked (else they stay, out of any project).
type DeleteProjectArgs struct {
	ID                string `json:"id"`
	WithConversations bool   `json:"with_conversations,omitempty"`
}

// PullModelArgs names the Ollama model to download.
type PullModelArgs struct {
	Model string `json:"model"`
}

// PutMCPServerArgs adds or replaces an MCP server.
type PutMCPServerArgs struct {
	Name string `json:"name"`
	MCPServerConfig
}

// MCPToolPolicyArgs sets whether a server's tool runs, asks or is blocked.
type MCPToolPolicyArgs struct {
	Name string `json:"name"`
	Tool string `json:"tool"`
	MCPToolPolicy
}

// ImportMCPConfigArgs is another host's mcp.json, as it is.
type ImportMCPConfigArgs struct {
	Content string `json:"content"`
}

// UpdateCollectionArgs renames a collection or changes its paths.
type UpdateCollectionArgs struct {
	ID string `json:"id"`
	CollectionRequest
}

// SearchCollectionArgs searches one collection.
type SearchCollectionArgs struct {
	ID string `json:"id"`
	KnowledgeSearchRequest
}

// MemoriesArgs filters the memory list (SPEC §14): "all" or none (every
// memory), "none" (the memories of no project) or a project's id.
type MemoriesArgs struct {
	Project string `json:"project,omitempty"`
}

// UpdateMemoryArgs changes a memory's text and/or auto_answer.
type UpdateMemoryArgs struct {
	ID string `json:"id"`
	MemoryUpdate
}

// TraceRecords is the card trace's records (the latency bench).
type TraceRecords struct {
	Records []trace.CardRecord `json:"records"`
}

// PendingQuestionState is the conversation's pending card with
// has_pending_question (SPEC §4); without one, the card's fields are null.
type PendingQuestionState struct {
	HasPendingQuestion bool `json:"has_pending_question"`
	*questions.Card
}

// MarshalJSON writes the card's fields as null (questions as []) when there
// is none, as SPEC §4 shows.
func (p PendingQuestionState) MarshalJSON() ([]byte, error) {
	if p.Card == nil {
		return json.Marshal(map[string]any{"has_pending_question": false, "question_id": nil,
			"questions": []any{}, "created_at": nil, "expires_at": nil})
	}
	type plain PendingQuestionState // without this method
	return json.Marshal(plain(p))
}

// ImportModelArgs imports a GGUF file into the model library (SPEC §12).
type ImportModelArgs struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
}

// UpdateEngineModelArgs changes what it gives of an installed model.
type UpdateEngineModelArgs struct {
	ID string `json:"id"`
	// AllowLarge loads the model even though it needs more memory than
	// the machine has ("Load anyway", remembered per model).
	AllowLarge *bool `json:"allow_large,omitempty"`
}

// HubFileArgs name a GGUF of the hub (revision "main" when not given), to
// know what it would take before downloading it.
type HubFileArgs struct {
	Repo     string `json:"repo"`
	File     string `json:"file"`
	Revision string `json:"revision,omitempty"`
}

// EngineDownloadRequest asks for a download: a catalogue entry, or any GGUF of
// the hub by repository and file (revision "main" when not given).
type EngineDownloadRequest struct {
	CatalogID string `json:"catalog_id,omitempty"`
	Repo      string `json:"repo,omitempty"`
	File      string `json:"file,omitempty"`
	Revision  string `json:"revision,omitempty"`
}
