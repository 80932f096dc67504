package wire

import (
	"reflect"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/engine"
	"github.com/parley-app/parley/backend/engine/library"
	"github.com/parley-app/parley/backend/engine/ram"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/service"
	"github.com/parley-app/parley/backend/store"
	"github.com/parley-app/parley/backend/trace"
	"github.com/parley-app/parley/backend/update"
)

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Wire is every type, enum and limit the UI shares with Go, under the
// TypeScript names the UI uses. A struct that a listed type contains must be
// listed too (the generator says which one is missing).
var Wire = Registry{
	Enums: []Enum{
		{Name: "RunState", Values: []string{chat.StateIdle, chat.StateRequesting, chat.StateStreaming, chat.StateToolExecuting, chat.StateAwaitingUserResponse, chat.StateError}, List: "RUN_STATES"},
		{Name: "CardStatus", Go: typeOf[questions.Status](), Values: strs(questions.StatusPending, questions.StatusAnswered, questions.StatusDeclined, questions.StatusCancelled, questions.StatusTimedOut, questions.StatusAnsweredLate, questions.StatusSuperseded, questions.StatusApproved, questions.StatusRejected, questions.StatusAccepted), List: "CARD_STATUSES"},
		{Name: "CardKind", Go: typeOf[questions.Kind](), Values: strs(questions.KindQuestion, questions.KindApproval, questions.KindElicitation), List: "CARD_KINDS"},
		{Name: "RespondAction", Go: typeOf[questions.Action](), Values: strs(questions.ActionSubmit, questions.ActionDecline, questions.ActionCancel, questions.ActionSkip, questions.ActionApprove, questions.ActionReject, questions.ActionAccept)},
		{Name: "MCPPolicy", Values: []string{api.PolicyAllow, api.PolicyAsk, api.PolicyBlock}, List: "MCP_POLICIES"},
		{Name: "MCPTransport", Values: []string{api.TransportStdio, api.TransportHTTP}},
		{Name: "MCPStatus", Values: []string{api.MCPConnecting, api.MCPConnected, api.MCPError, api.MCPDisabled}},
		{Name: "Role", Values: []string{chat.RoleSystem, chat.RoleUser, chat.RoleAssistant, chat.RoleTool}, List: "ROLES"},
		// The values service.Settings.Validate accepts.
		{Name: "ThemeSetting", Values: []string{"system", "light", "dark"}},
		// How a profile's model gets its tools (SPEC §8).
		{Name: "ToolCalling", Values: assistant.ToolCallingModes, List: "TOOL_CALLING_MODES"},
		// How much a model thinks (SPEC §9).
		{Name: "ThinkingSetting", Values: chat.ThinkingSettings, List: "THINKING_SETTINGS"},
		// The formats service.ExportConversation writes.
		{Name: "ExportFormat", Values: []string{"markdown", "json"}},
		// A collection's state (SPEC §11).
		{Name: "CollectionStatus", Values: []string{api.KnowledgeIndexing, api.KnowledgeReady, api.KnowledgeError}},
		// Memory (SPEC §14): the setting, and where a memory came from.
		{Name: "MemorySetting", Values: []string{service.MemoryOn, service.MemoryOff}},
		{Name: "MemorySourceType", Values: []string{memory.SourceAnswer, memory.SourceUser, memory.SourceModel}},
		// The built-in engine's model library (SPEC §12).
		{Name: "EngineModelState", Values: library.States, List: "ENGINE_MODEL_STATES"},
		{Name: "EngineDownloadState", Values: library.DownloadStates, List: "ENGINE_DOWNLOAD_STATES"},
		{Name: "ModelCapability", Values: library.Capabilities, List: "MODEL_CAPABILITIES"},
	},
	Types: []Type{
		// Cards (SPEC §1, §3).
		{Name: "QuestionOption", Go: typeOf[questions.Option]()},
		{Name: "Question", Go: typeOf[questions.Question]()},
		{Name: "CardSource", Go: typeOf[questions.Source]()},
		{Name: "ApprovalTool", Go: typeOf[questions.ApprovalTool]()},
		{Name: "Card", Go: typeOf[questions.Card]()},
		{Name: "AnswerInput", Go: typeOf[questions.AnswerInput]()},
		{Name: "RespondRequest", Go: typeOf[questions.Response]()},
		// Conversations and messages.
		{Name: "ToolCall", Go: typeOf[chat.ToolCall]()},
		{Name: "Attachment", Go: typeOf[chat.Attachment]()},
		{Name: "MessageStats", Go: typeOf[chat.MessageStats]()},
		{Name: "SearchMatch", Go: typeOf[chat.SearchMatch]()},
		{Name: "Source", Go: typeOf[chat.Source]()},
		{Name: "Message", Go: typeOf[chat.Message](), Fields: map[string]string{"role": "Role"}},
		{Name: "Conversation", Go: typeOf[chat.Conversation]()},
		// Projects and the full backup (SPEC §14).
		{Name: "Project", Go: typeOf[chat.Project]()},
		{Name: "ProjectRequest", Go: typeOf[api.ProjectRequest]()},
		{Name: "BackupImported", Go: typeOf[api.BackupImported]()},
		{Name: "ConversationDetail", Go: typeOf[api.ConversationDetail](), Fields: map[string]string{"state": "RunState"}},
		{Name: "ConversationPage", Go: typeOf[api.ConversationPage]()},
		{Name: "RunStarted", Go: typeOf[api.RunStarted]()},
		// Conversation control (SPEC §7).
		{Name: "SendMessageRequest", Go: typeOf[api.SendRequest]()},
		{Name: "RegenerateRequest", Go: typeOf[api.RegenerateRequest]()},
		{Name: "BranchRequest", Go: typeOf[api.BranchRequest]()},
		{Name: "ForkRequest", Go: typeOf[api.ForkRequest]()},
		// Assistants, models and settings.
		{Name: "Profile", Go: typeOf[assistant.Profile](), Fields: map[string]string{"tool_calling": "ToolCalling", "thinking": "ThinkingSetting"}},
		{Name: "ToolInfo", Go: typeOf[service.ToolInfo]()},
		{Name: "ModelInfo", Go: typeOf[service.ModelInfo]()},
		{Name: "ModelStatus", Go: typeOf[service.ModelStatus]()},
		{Name: "MachineMemory", Go: typeOf[ram.Machine]()},
		{Name: "EngineStatus", Go: typeOf[engine.Status]()},
		{Name: "UpdateStatus", Go: typeOf[update.Status]()},
		{Name: "UpdateAvailable", Go: typeOf[update.Available]()},
		// The model library (SPEC §12).
		{Name: "EngineModelSource", Go: typeOf[library.Source]()},
		{Name: "EngineModel", Go: typeOf[library.Model](), Fields: map[string]string{"state": "EngineModelState"}},
		{Name: "EngineCatalogEntry", Go: typeOf[library.CatalogEntry]()},
		{Name: "EngineDownload", Go: typeOf[library.Download](), Fields: map[string]string{"state": "EngineDownloadState"}},
		{Name: "EngineDownloadRequest", Go: typeOf[api.EngineDownloadRequest]()},
		{Name: "ModelStats", Go: typeOf[store.ModelStats]()},
		{Name: "SettingsExport", Go: typeOf[service.SettingsExport]()},
		{Name: "Settings", Go: typeOf[service.Settings](), Fields: map[string]string{"theme": "ThemeSetting", "memory": "MemorySetting"}},
		{Name: "Health", Go: typeOf[api.Health]()},
		// MCP host (SPEC §6).
		{Name: "MCPTool", Go: typeOf[api.MCPTool](), Fields: map[string]string{"policy": "MCPPolicy"}},
		{Name: "MCPServer", Go: typeOf[api.MCPServer](), Fields: map[string]string{"transport": "MCPTransport", "status": "MCPStatus"}},
		{Name: "MCPServerConfig", Go: typeOf[api.MCPServerConfig]()},
		{Name: "MCPToolPolicy", Go: typeOf[api.MCPToolPolicy](), Fields: map[string]string{"policy": "MCPPolicy"}},
		{Name: "MCPImportResult", Go: typeOf[api.MCPImportResult]()},
		{Name: "AppInfo", Go: typeOf[api.AppInfo]()},
		// Knowledge (SPEC §11).
		{Name: "KnowledgeFileError", Go: typeOf[api.KnowledgeFileError]()},
		{Name: "Collection", Go: typeOf[api.Collection](), Fields: map[string]string{"status": "CollectionStatus"}},
		{Name: "CollectionRequest", Go: typeOf[api.CollectionRequest]()},
		{Name: "KnowledgeSearchRequest", Go: typeOf[api.KnowledgeSearchRequest]()},
		{Name: "KnowledgeResult", Go: typeOf[api.KnowledgeResult]()},
		{Name: "KnowledgeSearchResponse", Go: typeOf[api.KnowledgeSearchResponse]()},
		{Name: "KnowledgeProgressEvent", Go: typeOf[api.KnowledgeProgress](), Fields: map[string]string{"status": "CollectionStatus"}},
		// Memory (SPEC §14).
		{Name: "MemorySource", Go: typeOf[memory.Source](), Fields: map[string]string{"type": "MemorySourceType"}},
		{Name: "Memory", Go: typeOf[memory.Memory]()},
		{Name: "MemoryRequest", Go: typeOf[api.MemoryRequest]()},
		{Name: "MemoryUpdate", Go: typeOf[api.MemoryUpdate]()},
		// Agents on the machine (SPEC §10).
		{Name: "AgentToken", Go: typeOf[api.AgentToken]()},
		{Name: "NewAgentToken", Go: typeOf[api.NewAgentToken]()},
		{Name: "AgentTokenRequest", Go: typeOf[api.AgentTokenRequest]()},
		{Name: "AgentListener", Go: typeOf[api.AgentListener]()},
		{Name: "AskFiled", Go: typeOf[api.AskFiled]()},
		{Name: "AskState", Go: typeOf[api.AskState]()},
		// The page's marks of the card trace (backend/trace, the latency bench).
		{Name: "TraceMark", Go: typeOf[trace.PageMark]()},
		{Name: "TraceRecord", Go: typeOf[trace.CardRecord]()},
		// Event payloads (SPEC §3).
		{Name: "ConversationStateEvent", Go: typeOf[assistant.StateInfo](), Fields: map[string]string{"state": "RunState"}},
		{Name: "MessageDeltaEvent", Go: typeOf[events.MessageDeltaPayload]()},
		{Name: "MessageReasoningEvent", Go: typeOf[events.MessageReasoningPayload]()},
		{Name: "MessageDoneEvent", Go: typeOf[events.MessageDonePayload]()},
		{Name: "RunErrorEvent", Go: typeOf[events.RunErrorPayload]()},
		{Name: "ConversationUpdatedEvent", Go: typeOf[events.ConversationUpdatedPayload]()},
		{Name: "ConversationDeletedEvent", Go: typeOf[events.ConversationDeletedPayload]()},
		{Name: "ModelPullEvent", Go: typeOf[events.ModelPullPayload]()},
		{Name: "AgentNoticeEvent", Go: typeOf[events.AgentNoticePayload]()},
		{Name: "ProjectChangedEvent", Go: typeOf[events.ProjectChangedPayload]()},
		{Name: "MemoryChangedEvent", Go: typeOf[events.MemoryChangedPayload]()},
	},
	Events: []Event{
		{Name: events.ConversationState, Payload: typeOf[assistant.StateInfo]()},
		{Name: events.ConversationUpdated, Payload: typeOf[events.ConversationUpdatedPayload]()},
		{Name: events.ConversationDeleted, Payload: typeOf[events.ConversationDeletedPayload]()},
		{Name: events.MessageDelta, Payload: typeOf[events.MessageDeltaPayload]()},
		{Name: events.MessageReasoning, Payload: typeOf[events.MessageReasoningPayload]()},
		{Name: events.MessageDone, Payload: typeOf[events.MessageDonePayload]()},
		{Name: events.QuestionAsk, Payload: typeOf[*questions.Card]()},
		{Name: events.QuestionResolved, Payload: typeOf[*questions.Card]()},
		{Name: events.RunError, Payload: typeOf[events.RunErrorPayload]()},
		{Name: events.ModelPull, Payload: typeOf[events.ModelPullPayload]()},
		{Name: events.MCPServer, Payload: typeOf[api.MCPServer]()},
		{Name: events.KnowledgeProgress, Payload: typeOf[api.KnowledgeProgress]()},
		{Name: events.AgentNotice, Payload: typeOf[events.AgentNoticePayload]()},
		{Name: events.ProjectChanged, Payload: typeOf[events.ProjectChangedPayload]()},
		{Name: events.MemoryChanged, Payload: typeOf[events.MemoryChangedPayload]()},
		{Name: events.EngineDownload, Payload: typeOf[library.Download]()},
		{Name: events.EngineState, Payload: typeOf[engine.Status]()},
		{Name: events.UpdateState, Payload: typeOf[update.Status]()},
	},
	Consts: []Const{
		{Name: "ASK_TOOL", Value: questions.ToolName},
		// The marks around the matched words of a search snippet.
		{Name: "SNIPPET_OPEN", Value: chat.SnippetOpen},
		{Name: "SNIPPET_CLOSE", Value: chat.SnippetClose},
		// The profile new conversations use; deleting it resets it to its defaults.
		{Name: "DEFAULT_PROFILE", Value: assistant.DefaultProfileName},
		// Sent back for a secret env/header value of an MCP server that is left unchanged.
		{Name: "MCP_SECRET_MASK", Value: api.MCPSecretMask},
		// A card's answered_by when the user's memories answered it (SPEC §14).
		{Name: "ANSWERED_BY_MEMORY", Value: memory.AnsweredBy},
	},
	LimitsName: "LIMITS",
	Limits: []Limit{
		{"defaultPageSize", api.DefaultPageSize},
		{"maxPageSize", api.MaxPageSize},
		{"maxBodyBytes", api.MaxBodyBytes},
		{"maxImportBytes", api.MaxImportBytes},
		{"maxAttachments", api.MaxAttachments},
		{"maxTextFileBytes", api.MaxTextFileBytes},
		{"maxImageBytes", api.MaxImageBytes},
		{"maxAttachmentsBytes", api.MaxAttachmentsBytes},
		{"maxMessageBodyBytes", api.MaxMessageBodyBytes},
		{"maxQuestions", questions.MaxQuestions},
		{"maxQuestionLen", questions.MaxQuestionLen},
		{"maxHeaderLen", questions.MaxHeaderLen},
		{"minOptions", questions.MinOptions},
		{"maxOptions", questions.MaxOptions},
		{"maxLabelLen", questions.MaxLabelLen},
		{"maxDescriptionLen", questions.MaxDescriptionLen},
		{"maxPlaceholderLen", questions.MaxPlaceholderLen},
		{"maxCustomLen", questions.MaxCustomLen},
		{"maxCommentsLen", questions.MaxCommentsLen},
		{"defaultTopK", api.DefaultTopK},
		{"maxTopK", api.MaxTopK},
		{"maxCollectionName", api.MaxCollectionName},
		{"maxAgentContextChars", api.MaxAgentContextChars},
		{"maxAgentNameChars", api.MaxAgentNameChars},
		{"maxProjectName", api.MaxProjectName},
		{"maxProjectInstructions", api.MaxProjectInstructions},
		{"maxBackupBytes", api.MaxBackupBytes},
		{"maxMemoryChars", memory.MaxTextChars},
	},
}

func strs[S ~string](v ...S) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	return out
}
