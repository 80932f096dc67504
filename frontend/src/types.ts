// Shared data shapes of the Parley UI. They mirror docs/spec.md
// (§1 card input/answers, §2 run states, §3 events, §4 HTTP API) and the Go
// JSON tags in backend/chat and backend/questions.

// Data shapes of the Parley UI. Everything Go sends or receives (SPEC §1–§4)
// is generated from the Go types into ./api/wire.gen.ts (go run ./cmd/wiregen)
// and re-exported here under the names the components use; this file adds
// only what the UI itself defines.
import type { AnswerInput, EventPayloads, Message as WireMessage, RunState } from './api/wire.gen'

export type {
  AgentListener,
  AgentNoticeEvent,
  AgentToken,
  NewAgentToken,
  AnswerInput,
  AppInfo,
  ApprovalTool,
  Attachment,
  BackupImported,
  Card,
  CardKind,
  CardSource,
  CardStatus,
  Collection,
  CollectionRequest,
  CollectionStatus,
  Conversation,
  EngineCatalogEntry,
  EngineDownload,
  EngineDownloadRequest,
  EngineModel,
  EngineStatus,
  HubFile,
  HubFileArgs,
  ConversationDeletedEvent,
  ConversationDetail,
  ConversationPage,
  ConversationStateEvent,
  ConversationUpdatedEvent,
  ExportFormat,
  Health,
  KnowledgeProgressEvent,
  KnowledgeResult,
  KnowledgeSearchResponse,
  MCPImportResult,
  MCPPolicy,
  MCPServer,
  MCPServerConfig,
  MCPStatus,
  MCPTool,
  Memory,
  MemoryChangedEvent,
  MessageDeltaEvent,
  MessageReasoningEvent,
  MessageDoneEvent,
  ModelInfo,
  ModelPullEvent,
  ModelStats,
  ModelStatus,
  Profile,
  Project,
  ProjectChangedEvent,
  ProjectRequest,
  Question,
  QuestionOption,
  RespondAction,
  RespondRequest,
  Role,
  RunErrorEvent,
  RunStarted,
  RunState,
  ServerEventName,
  Settings,
  SettingsExport,
  Source,
  ThemeSetting,
  ThinkingSetting,
  ToolCall,
  ToolCalling,
  ToolInfo,
  UpdateAvailable,
  UpdateStatus,
} from './api/wire.gen'
export { ANSWERED_BY_MEMORY, ASK_TOOL, CARD_KINDS, CARD_STATUSES, MCP_POLICIES, MCP_SECRET_MASK, DEFAULT_PROFILE, LIMITS, ROLES, RUN_STATES, SERVER_EVENTS, THINKING_SETTINGS, TOOL_CALLING_MODES } from './api/wire.gen'

/** True while a run is active (a new message would get a 409). */
export function isRunActive(state: RunState | undefined): boolean {
  return state === 'requesting' || state === 'streaming' || state === 'tool_executing' || state === 'awaiting_user_response'
}

/** `answers` of the respond body, keyed by the question text. */
export type Answers = Record<string, AnswerInput>

/** A message as the UI keeps it: the wire message, maybe not yet confirmed. */
export interface Message extends Omit<WireMessage, 'conversationId'> {
  /** Go always sets it; the UI's own (optimistic) messages may not. */
  conversationId?: string
  /** An optimistic user message not yet confirmed by the backend. */
  local?: 'sending' | 'sent' | 'failed'
  /**
   * The key the message list renders it under, when not its id: the stored
   * message that replaces the page's own optimistic one keeps that one's key,
   * so the list patches it instead of drawing it again.
   */
  viewKey?: string
}

export interface CreateConversationParams {
  title?: string
  assistant?: string
  /** The project it starts in (SPEC §14). */
  project_id?: string
}

/**
 * What exporting a conversation gave: the text for the UI to save (browser),
 * or, when the Go side saved it through its own dialog (desktop), where it
 * went, or nothing when the user cancelled that dialog.
 */
export type ExportResult =
  | { kind: 'content'; content: string; mimeType: string }
  | { kind: 'saved'; path: string }
  | { kind: 'cancelled' }

// ---- events (SPEC §3) -------------------------------------------------------

/** Question events carry the whole card. */
export type QuestionEvent = EventPayloads['question:ask']

/** Local event of the transport itself (never sent by Go). */
export interface ConnectionEvent {
  connected: boolean
  /** True when the connection came back after a loss: state may be stale. */
  reconnected?: boolean
}

/** Every event a transport delivers: Go's, and its own connection event. */
export interface EventMap extends EventPayloads {
  'transport:connection': ConnectionEvent
}

export type EventName = keyof EventMap
