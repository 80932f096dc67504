package events

import "github.com/parley-app/parley/backend/chat"

// Payloads of the events above, one type per event (the frontend's types
// are generated from them: cmd/wiregen). conversation:state sends
// assistant.StateInfo and the question events send the card (questions.Card);
// those types live with the code that owns them.
//
// Fields are declared in the order of their JSON keys, so the bytes sent are
// those of the map payloads these types replaced.

// MessageDeltaPayload is a piece of streamed assistant text.
type MessageDeltaPayload struct {
	ConversationID string `json:"conversationId"`
	Delta          string `json:"delta"`
	// MessageID is the id the finished message will have.
	MessageID string `json:"messageId"`
	RunID     string `json:"runId"`
}

// MessageReasoningPayload is a piece of the thinking of the assistant reply
// that will be MessageID (SPEC §9).
type MessageReasoningPayload struct {
	ConversationID string `json:"conversationId"`
	Delta          string `json:"delta"`
	MessageID      string `json:"messageId"`
	// Moved: the reply's text streamed so far was thinking (a `</think>`
	// came without a `<think>`): Delta is that text, the reply starts
	// again empty.
	Moved bool   `json:"moved,omitempty"`
	RunID string `json:"runId"`
}

// MessageDonePayload is a message saved in full.
type MessageDonePayload struct {
	ConversationID string       `json:"conversationId"`
	Message        chat.Message `json:"message"`
	// RunID is empty for a late answer added to an active run's history.
	RunID string `json:"runId,omitempty"`
}

// RunErrorPayload says why a run failed.
type RunErrorPayload struct {
	ConversationID string `json:"conversationId"`
	Error          string `json:"error"`
	RunID          string `json:"runId"`
}

// ConversationUpdatedPayload carries only the fields that changed.
type ConversationUpdatedPayload struct {
	Assistant      *string `json:"assistant,omitempty"`
	ConversationID string  `json:"conversationId"`
	// Knowledge are the conversation's collections (SPEC §11; [] = none).
	Knowledge *[]string `json:"knowledge,omitempty"`
	Model     *string   `json:"model,omitempty"`
	Pinned    *bool     `json:"pinned,omitempty"`
	// ProjectID is the conversation's project (SPEC §14); "" = it left
	// its project.
	ProjectID *string `json:"project_id,omitempty"`
	Thinking  *string `json:"thinking,omitempty"`
	Title     *string `json:"title,omitempty"`
}

// TitleChanged is the conversation:updated payload of a new title.
func TitleChanged(conversationID, title string) ConversationUpdatedPayload {
	return ConversationUpdatedPayload{ConversationID: conversationID, Title: &title}
}

// PinnedChanged is the conversation:updated payload of a (un)pin.
func PinnedChanged(conversationID string, pinned bool) ConversationUpdatedPayload {
	return ConversationUpdatedPayload{ConversationID: conversationID, Pinned: &pinned}
}

// AssistantChanged is the conversation:updated payload of a new assistant profile.
func AssistantChanged(conversationID, assistant string) ConversationUpdatedPayload {
	return ConversationUpdatedPayload{ConversationID: conversationID, Assistant: &assistant}
}

// ModelChanged is the conversation:updated payload of a newly chosen model
// ("" = the profile's model or the default again).
func ModelChanged(conversationID, model string) ConversationUpdatedPayload {
	return ConversationUpdatedPayload{ConversationID: conversationID, Model: &model}
}

// ThinkingChanged is the conversation:updated payload of a newly chosen
// thinking setting ("" = the profile's again).
func ThinkingChanged(conversationID, thinking string) ConversationUpdatedPayload {
	return ConversationUpdatedPayload{ConversationID: conversationID, Thinking: &thinking}
}

// KnowledgeChanged is the conversation:updated payload of the collections
// attached to a conversation.
func KnowledgeChanged(conversationID string, collections []string) ConversationUpdatedPayload {
	if collections == nil {
		collections = []string{}
	}
	return ConversationUpdatedPayload{ConversationID: conversationID, Knowledge: &collections}
}

// ProjectIDChanged is the conversation:updated payload of a conversation
// that joined a project, or left one (projectID "").
func ProjectIDChanged(conversationID, projectID string) ConversationUpdatedPayload {
	return ConversationUpdatedPayload{ConversationID: conversationID, ProjectID: &projectID}
}

// ProjectChangedPayload is a project as it is now, or the id of a deleted
// one (Project nil, Deleted set).
type ProjectChangedPayload struct {
	// ConversationID is always "": a project is no conversation's.
	ConversationID string        `json:"conversationId"`
	Deleted        bool          `json:"deleted,omitempty"`
	ID             string        `json:"id"`
	Project        *chat.Project `json:"project"`
}

// ConversationDeletedPayload names the deleted conversation.
type ConversationDeletedPayload struct {
	ConversationID string `json:"conversationId"`
}

// ModelPullPayload is one step of downloading an Ollama model (Ollama's
// progress line), or the last one with Status "error" and Error set.
type ModelPullPayload struct {
	Completed *int64 `json:"completed,omitempty"`
	// ConversationID is always "": a download belongs to no conversation.
	ConversationID string `json:"conversationId"`
	Error          string `json:"error,omitempty"`
	Model          string `json:"model"`
	Status         string `json:"status"`
	Total          *int64 `json:"total,omitempty"`
}

// PullProgress is the model:pull payload of one progress line.
func PullProgress(model, status string, total, completed int64) ModelPullPayload {
	return ModelPullPayload{Model: model, Status: status, Total: &total, Completed: &completed}
}

// PullFailed is the last model:pull payload of a failed download.
func PullFailed(model, message string) ModelPullPayload {
	return ModelPullPayload{Model: model, Status: "error", Error: message}
}

// AgentNoticePayload is an agent's notice (SPEC §10): its conversation,
// name, message and level (info, success or warning).
type AgentNoticePayload struct {
	ConversationID string `json:"conversationId"`
	Agent          string `json:"agent"`
	Message        string `json:"message"`
	Level          string `json:"level"`
}

// MemoryChangedPayload names the memories added, changed or deleted (SPEC
// §14); All says every memory was deleted (IDs is then empty).
type MemoryChangedPayload struct {
	// ConversationID is the conversation that made the change ("" when the
	// user did, in Settings or through the API).
	ConversationID string   `json:"conversationId"`
	IDs            []string `json:"ids"`
	All            bool     `json:"all,omitempty"`
}
