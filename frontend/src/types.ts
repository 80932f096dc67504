// Shared data shapes of the Parley UI. They mirror /work/shared/SPEC.md
// (§1 card input/answers, §2 run states, §3 events, §4 HTTP API) and the Go
// JSON tags in backend/chat and backend/questions.

/** Conversation run states (SPEC §2). */
export type RunState =
  | 'idle'
  | 'requesting'
  | 'streaming'
  | 'tool_executing'
  | 'awaiting_user_response'
  | 'error'

export const RUN_STATES: readonly RunState[] = [
  'idle',
  'requesting',
  'streaming',
  'tool_executing',
  'awaiting_user_response',
  'error',
]

/** True while a run is active (a new message would get a 409). */
export function isRunActive(state: RunState | undefined): boolean {
  return state === 'requesting' || state === 'streaming' || state === 'tool_executing' || state === 'awaiting_user_response'
}

/** Card lifecycle (SPEC §1 "Lifecycle and limits"). */
export type CardStatus =
  | 'pending'
  | 'answered'
  | 'declined'
  | 'cancelled'
  | 'timed_out'
  | 'answered_late'
  | 'superseded'

export interface QuestionOption {
  label: string
  description?: string
}

/** One question of a card. Zero options means open-ended (free text only). */
export interface Question {
  question: string
  header?: string
  options: QuestionOption[]
  multiSelect: boolean
  allowCustom: boolean
  placeholder?: string
}

/** The user's answer to one question, as sent in the respond body. */
export interface AnswerInput {
  selected: string[]
  custom?: string
}

/** `answers` of the respond body, keyed by the question text. */
export type Answers = Record<string, AnswerInput>

/**
 * One ask_user_question call (1..4 questions), wherever it appears (API, events).
 * `answers` is what the backend stored once answered: the Go side keeps the
 * joined answer text per question (`{"<question>": "<answer>"}`); the
 * structured respond form is accepted too.
 */
export interface Card {
  question_id: string
  conversationId: string
  status: CardStatus
  questions: Question[]
  created_at: string
  expires_at: string | null
  answers?: Record<string, string | AnswerInput>
  comments?: string
  run_id?: string
  tool_call_id?: string
  answered_at?: string | null
}

export type RespondAction = 'submit' | 'decline' | 'cancel'

/** Body of POST /api/v1/conversations/{id}/respond (SPEC §4). */
export interface RespondRequest {
  question_id: string
  action: RespondAction
  answers?: Answers
  comments?: string
}

export interface Conversation {
  id: string
  title: string
  assistant?: string
  pinned?: boolean
  created_at?: string
  updated_at?: string
}

export type Role = 'system' | 'user' | 'assistant' | 'tool'

export interface ToolCall {
  id: string
  name: string
  /** The raw JSON arguments the model sent. */
  arguments: string
}

export interface Message {
  id: string
  conversationId?: string
  run_id?: string
  role: Role
  content: string
  tool_calls?: ToolCall[]
  tool_call_id?: string
  tool_name?: string
  created_at: string
  /** UI only: an optimistic user message not yet confirmed by the backend. */
  local?: 'sending' | 'sent' | 'failed'
}

/** GET /api/v1/conversations/{id}. */
export interface ConversationDetail extends Conversation {
  state: RunState
  /** The user-readable message while state is "error". */
  error?: string
  messages: Message[]
  pending_question: Card | null
}

/** GET /api/v1/conversations. */
export interface ConversationPage {
  items: Conversation[]
  next_cursor?: string | null
}

export interface ListConversationsParams {
  limit?: number
  cursor?: string | null
  q?: string
}

export interface CreateConversationParams {
  title?: string
  assistant?: string
}

/**
 * An assistant profile (Go `agent.Profile`): its system prompt, model ("" =
 * the app's model) and the tools it opts in to. The name is its key.
 */
export interface Profile {
  name: string
  system_prompt: string
  model: string
  tools: string[]
}

/** The profile new conversations use; deleting it resets it to its defaults. */
export const DEFAULT_PROFILE = 'default'

/** A tool a profile can opt in to (Go `service.ToolInfo`). */
export interface ToolInfo {
  name: string
  description: string
}

export type ExportFormat = 'markdown' | 'json'

/**
 * What exporting a conversation gave: the text for the UI to save (browser),
 * or, when the Go side saved it through its own dialog (desktop), where it
 * went, or nothing when the user cancelled that dialog.
 */
export type ExportResult =
  | { kind: 'content'; content: string; mimeType: string }
  | { kind: 'saved'; path: string }
  | { kind: 'cancelled' }

export interface Health {
  status: string
  version?: string
}

export interface ModelInfo {
  name: string
  supports_tools: boolean
  /** The server does not say whether the model calls tools (not Ollama). */
  tools_unknown?: boolean
}

export type ThemeSetting = 'system' | 'light' | 'dark'

/**
 * App settings, exactly the Go `service.Settings` JSON. SaveSettings replaces
 * the whole object (Wails), so the UI always sends every field.
 */
export interface Settings {
  base_url: string
  api_key: string
  model: string
  /** Seconds; 0 waits forever. */
  question_timeout_seconds: number
  /** Minimum seconds between two cards of one conversation. */
  rate_limit_seconds: number
  max_pending_questions: number
  theme: ThemeSetting
  /** Scripted assistant, no model server needed. */
  demo_mode: boolean
  /** Desktop app: also serve the local HTTP API (local tools may answer cards). */
  api_enabled: boolean
  onboarded: boolean
}

/** Go `service.ModelStatus`: whether the model server answers, and its models. */
export interface ModelStatus {
  reachable: boolean
  base_url: string
  model: string
  demo: boolean
  /** The server has Ollama's API (models can be downloaded). */
  ollama?: boolean
  /** Why it is not reachable (technical; not shown to the user as is). */
  message?: string
  models: ModelInfo[]
}

/** Wails `App.Info()`; over HTTP only the version is known. */
export interface AppInfo {
  version: string
  dataDir: string
}

// ---- events (SPEC §3) -------------------------------------------------------

export interface ConversationStateEvent {
  conversationId: string
  state: RunState
  error?: string
  runId?: string
  pending_question?: Card
}

export interface MessageDeltaEvent {
  conversationId: string
  delta: string
  /** The id the finished message will have (camelCase like conversationId). */
  messageId?: string
  runId?: string
  /** Older spelling, still accepted. */
  message_id?: string
}

/**
 * A finished message. The UI accepts the message object at the top level
 * (`{conversationId, id, role, content, ...}`) or nested as `message`.
 */
export interface MessageDoneEvent extends Partial<Message> {
  conversationId: string
  message?: Message
}

/** Question events carry the whole card (at the top level, or as `card`). */
export type QuestionEvent = Card | { conversationId: string; card: Card }

export interface RunErrorEvent {
  conversationId: string
  error: string
  runId?: string
}

/** Local event of the transport itself (never sent by Go). */
export interface ConnectionEvent {
  connected: boolean
  /** True when the connection came back after a loss: state may be stale. */
  reconnected?: boolean
}

/** Progress of pulling an Ollama model (Ollama's pull stream, as is). */
export interface ModelPullEvent {
  conversationId?: string
  model: string
  status: string
  total?: number
  completed?: number
  /** With status "error": why the download failed. */
  error?: string
}

/**
 * A conversation's title or pin changed (auto-title from the first message,
 * rename, pin, import). Only the fields that changed are present.
 */
export interface ConversationUpdatedEvent {
  conversationId: string
  title?: string
  pinned?: boolean
  assistant?: string
}

/** A conversation was deleted (by this window or another client). */
export interface ConversationDeletedEvent {
  conversationId: string
}

export interface EventMap {
  'conversation:state': ConversationStateEvent
  'conversation:updated': ConversationUpdatedEvent
  'conversation:deleted': ConversationDeletedEvent
  'message:delta': MessageDeltaEvent
  'message:done': MessageDoneEvent
  'question:ask': QuestionEvent
  'question:resolved': QuestionEvent
  'run:error': RunErrorEvent
  'model:pull': ModelPullEvent
  'transport:connection': ConnectionEvent
}

export type EventName = keyof EventMap

/** The events that Go emits (Wails events and SSE): SPEC §3 and the conversation list's. */
export const SERVER_EVENTS = [
  'conversation:state',
  'conversation:updated',
  'conversation:deleted',
  'message:delta',
  'message:done',
  'question:ask',
  'question:resolved',
  'run:error',
  'model:pull',
] as const satisfies readonly EventName[]

export const ASK_TOOL = 'ask_user_question'
