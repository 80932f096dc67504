// The one interface through which the UI talks to the Go side (SPEC §4 and
// §3). Components never see which implementation is in use: stores call it,
// and `pickTransport()` (./index.ts) chooses Wails bindings or HTTP + SSE.
import type {
  AppInfo,
  Card,
  Conversation,
  ConversationDetail,
  ConversationPage,
  CreateConversationParams,
  EventMap,
  ExportFormat,
  ExportResult,
  EventName,
  Health,
  ListConversationsParams,
  AgentListener,
  AgentToken,
  NewAgentToken,
  MCPImportResult,
  MCPPolicy,
  MCPServer,
  MCPServerConfig,
  MCPTool,
  ModelInfo,
  ModelStats,
  ModelStatus,
  Profile,
  RespondRequest,
  Settings,
  SettingsExport,
  ToolInfo,
} from '../types'
import type {
  Collection,
  CollectionRequest,
  ForkRequest,
  KnowledgeSearchRequest,
  KnowledgeSearchResponse,
  SendMessageRequest,
  TraceMark,
} from '../api/wire.gen'
import { t } from '../i18n'

export type Unsubscribe = () => void
export type EventHandler<E extends EventName> = (payload: EventMap[E]) => void

export interface Transport {
  readonly kind: 'wails' | 'http' | 'fake'
  /**
   * True when the Go side shows native file dialogs (the desktop app):
   * exportConversation saves the file itself and importConversation asks for
   * the file. Otherwise export returns the text and import takes it.
   */
  readonly nativeFileDialogs: boolean

  health(): Promise<Health>
  /** The page's marks of the card trace (only while health().trace; refused otherwise). */
  reportTrace(marks: TraceMark[]): Promise<void>
  listConversations(params?: ListConversationsParams): Promise<ConversationPage>
  createConversation(params?: CreateConversationParams): Promise<Conversation>
  getConversation(id: string): Promise<ConversationDetail>
  renameConversation(id: string, title: string): Promise<Conversation | void>
  setPinned(id: string, pinned: boolean): Promise<Conversation | void>
  /** Switches the conversation to another assistant profile (its next runs). */
  setAssistant(id: string, assistant: string): Promise<Conversation | void>
  /** Chooses the conversation's model for its next runs ("" = its profile's model or the default). */
  setModel(id: string, model: string): Promise<Conversation | void>
  /** Chooses how much the conversation's model thinks ("" = its profile's setting; SPEC §9). */
  setThinking(id: string, thinking: string): Promise<Conversation | void>
  deleteConversation(id: string): Promise<void>
  /** A plain message: sendWith with the content alone (Go has one way to send). */
  sendMessage(id: string, content: string): Promise<{ run_id: string }>
  /**
   * Sends a message with files, or under an earlier message (SPEC §7:
   * `parent_id` set = an edit, "" = a new first message).
   */
  sendWith(id: string, req: SendMessageRequest): Promise<{ run_id: string }>
  /** A new reply beside the reply of messageId, by model when given. */
  regenerate(id: string, messageId: string, model?: string): Promise<{ run_id: string }>
  /** Makes the path through messageId the visible one (the `< 2/3 >` switch, a search hit). */
  selectBranch(id: string, messageId: string): Promise<ConversationDetail>
  /** Changes an answered card's answer on a new branch, which then runs. */
  forkQuestion(id: string, questionId: string, req: ForkRequest): Promise<{ run_id: string }>
  /**
   * Runs the assistant again on the saved history (after a run error, or a
   * run interrupted by closing the app) without adding a user message.
   */
  retry(id: string): Promise<{ run_id: string }>
  cancel(id: string): Promise<void>
  /** Resolves with the updated card when the backend returns it. */
  respond(id: string, req: RespondRequest): Promise<Card | void>
  /** Pending cards across all conversations. */
  pendingQuestions(): Promise<Card[]>
  /** One conversation's cards, oldest first. */
  conversationQuestions(id: string): Promise<Card[]>
  getSettings(): Promise<Settings>
  /** Saves the whole settings object; resolves with the effective settings. */
  saveSettings(settings: Settings): Promise<Settings | void>
  listModels(): Promise<ModelInfo[]>
  /** Whether the configured model server answers, and its models. */
  checkModelServer(): Promise<ModelStatus>
  /** Downloads an Ollama model; progress arrives as `model:pull` events. */
  pullModel(name: string): Promise<void>
  /** How well each model asks (cards, outcomes, invalid calls, corrections). */
  modelStats(): Promise<ModelStats[]>
  /** Forgets every model's statistics. */
  resetModelStats(): Promise<void>
  /** Settings, profiles and model statistics, without the API key. */
  exportSettings(): Promise<SettingsExport>
  /**
   * Saves the settings export as a file: the desktop app shows a save
   * dialog ("saved" / "cancelled"); otherwise the JSON text comes back
   * ("content") for the page to download.
   */
  saveSettingsExport(): Promise<ExportResult>
  /** Version and data folder (the data folder is empty over HTTP). */
  appInfo(): Promise<AppInfo>

  /** Assistant profiles; the default one is always first. */
  listProfiles(): Promise<Profile[]>
  /** Creates or replaces the profile named `profile.name` (the backend validates it). */
  saveProfile(profile: Profile): Promise<Profile>
  /** Deletes a profile; deleting "default" resets it to its defaults. */
  deleteProfile(name: string): Promise<void>
  /** The tools a profile may opt in to. */
  availableTools(): Promise<ToolInfo[]>
  /** Exports one conversation as Markdown or as JSON (see ExportResult). */
  exportConversation(id: string, format: ExportFormat): Promise<ExportResult>
  /**
   * Adds a conversation exported as JSON (with new ids). `json` is the file's
   * text; with native file dialogs it is left out and the Go side asks for the
   * file. Resolves null when the user cancelled that dialog.
   */
  importConversation(json?: string): Promise<Conversation | null>

  /** MCP servers with their state and tools (SPEC §6); secrets come back as key names only. */
  mcpServers(): Promise<MCPServer[]>
  /**
   * Adds or replaces a server. An env or header value left out (or sent back
   * as the masked value) keeps the stored secret.
   */
  putMCPServer(name: string, cfg: MCPServerConfig): Promise<MCPServer>
  deleteMCPServer(name: string): Promise<void>
  setMCPToolPolicy(server: string, tool: string, policy: MCPPolicy): Promise<MCPTool | void>
  /** Adds the servers of another host's mcp.json / claude_desktop_config.json (the file's text). */
  importMCPConfig(content: string): Promise<MCPImportResult>

  /** Knowledge collections (SPEC §11), oldest first. */
  listCollections(): Promise<Collection[]>
  getCollection(id: string): Promise<Collection>
  /** Stores a collection and starts indexing it; progress comes as `knowledge:progress`. */
  createCollection(req: CollectionRequest): Promise<Collection>
  /** Renames a collection or changes its paths (indexed again). */
  updateCollection(id: string, req: CollectionRequest): Promise<Collection>
  reindexCollection(id: string): Promise<void>
  /** Stops indexing; what was indexed stays searchable. */
  cancelCollection(id: string): Promise<Collection>
  /** Deletes the index (never the files). */
  deleteCollection(id: string): Promise<void>
  searchCollection(id: string, req: KnowledgeSearchRequest): Promise<KnowledgeSearchResponse>
  /** The collections a conversation's assistant searches. */
  setConversationKnowledge(id: string, collections: string[]): Promise<void>
  /**
   * Native folder and file pickers (the desktop app): absolute paths, none
   * when cancelled. Null where there are none (the browser build takes
   * typed paths).
   */
  readonly choosePaths: ((kind: 'folder' | 'files') => Promise<string[]>) | null
  /** Opens a cited file with its application (the desktop app); false where the build cannot. */
  openSource(path: string): Promise<boolean>
  /** Agents on the machine (SPEC §10): where Parley listens for them, and their tokens. */
  agentListener(): Promise<AgentListener>
  agentTokens(): Promise<AgentToken[]>
  /** Makes a token; the secret is in the answer this once. */
  createAgentToken(name: string): Promise<NewAgentToken>
  revokeAgentToken(id: string): Promise<void>

  /** Subscribes to a SPEC §3 event (or the local `transport:connection`). */
  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe

  /** Opens an http(s)/mailto link outside the app window. */
  openExternal(url: string): void
  /** Copies text to the system clipboard; resolves false when it could not. */
  copyText(text: string): Promise<boolean>
}

/** An error from the Go side; `status` is the HTTP status when there is one. */
export class TransportError extends Error {
  readonly status?: number
  constructor(message: string, status?: number) {
    super(message)
    this.name = 'TransportError'
    this.status = status
  }
}

/**
 * Turns anything thrown or rejected into an Error. The window rejects a
 * bound method's call with the HTTP API's error body and the HTTP status of
 * the error's kind (`{error, kind, status}`, the Go side's fault.Reply);
 * a string is an error without a status.
 */
export function toError(err: unknown): TransportError {
  if (err instanceof TransportError) return err
  if (err instanceof Error) return new TransportError(err.message || t('chat.runState.error'))
  if (typeof err === 'string') return new TransportError(err || t('chat.runState.error'))
  if (err && typeof err === 'object' && 'error' in err && typeof (err as { error: unknown }).error === 'string') {
    const { error, status } = err as { error: string; status?: unknown }
    return new TransportError(error || t('chat.runState.error'), typeof status === 'number' ? status : undefined)
  }
  return new TransportError(t('chat.runState.error'))
}

/** A small event hub the implementations share. */
export class Emitter {
  private handlers = new Map<string, Set<(payload: never) => void>>()

  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    let set = this.handlers.get(event)
    if (!set) {
      set = new Set()
      this.handlers.set(event, set)
    }
    set.add(handler as (payload: never) => void)
    return () => {
      set!.delete(handler as (payload: never) => void)
    }
  }

  emit<E extends EventName>(event: E, payload: EventMap[E]): void {
    const set = this.handlers.get(event)
    if (!set) return
    for (const h of [...set]) {
      try {
        ;(h as EventHandler<E>)(payload)
      } catch (err) {
        console.error(`parley: handler for ${event} failed`, err)
      }
    }
  }

  count(event?: EventName): number {
    if (event) return this.handlers.get(event)?.size ?? 0
    let n = 0
    for (const set of this.handlers.values()) n += set.size
    return n
  }
}

/** Fills fields Go may leave null (a profile without tools is `"tools": null`). */
export function normalizeProfile(p: Partial<Profile> | null | undefined): Profile {
  return {
    name: p?.name ?? '',
    system_prompt: p?.system_prompt ?? '',
    model: p?.model ?? '',
    tools: Array.isArray(p?.tools) ? [...p.tools] : [],
    // Left out when not given: the Go side reads it as "auto".
    ...(p?.tool_calling ? { tool_calling: p.tool_calling } : {}),
    ...(p?.thinking ? { thinking: p.thinking } : {}),
    ...(Array.isArray(p?.knowledge) && p.knowledge.length ? { knowledge: [...p.knowledge] } : {}),
  }
}

const SAFE_URL = /^(https?:|mailto:)/i

/** Whether a link may be opened outside the app. */
export function isSafeExternalUrl(url: string): boolean {
  return SAFE_URL.test(url.trim())
}

/** Clipboard through the browser, with the old execCommand fallback. */
export async function browserCopy(text: string): Promise<boolean> {
  try {
    if (typeof navigator !== 'undefined' && navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    // fall through to the fallback
  }
  try {
    const ta = document.createElement('textarea')
    ta.value = text
    ta.setAttribute('readonly', '')
    ta.style.position = 'fixed'
    ta.style.opacity = '0'
    document.body.appendChild(ta)
    ta.select()
    const ok = typeof document.execCommand === 'function' && document.execCommand('copy')
    ta.remove()
    return ok
  } catch {
    return false
  }
}
