// Transport over the Wails v2 bindings: `window.go.desktop.<Service>.<Method>`
// (the Go package desktop), one bound Go service per area (see WAILS_SERVICE),
// and `window.go.main.App` (the root package's App), for calls and
// `window.runtime.EventsOn` for events. Wails generates the bindings into
// frontend/wailsjs (checked in; `wails build` rewrites them and
// scripts/test.sh fails when they changed); ./wailsCheck.ts checks at compile
// time that the methods below match them. The calls go through `window.go`
// so tests can hand in their own window; results are typed by the wire types.
// Go errors arrive as rejected promises carrying a string.
import type {
  AppInfo,
  Card,
  Conversation,
  ConversationDetail,
  ConversationPage,
  CreateConversationParams,
  EventName,
  ExportFormat,
  ExportResult,
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
  RunStarted,
  SendMessageRequest,
  TraceMark,
} from '../api/wire.gen'
import { normalizeSettings } from '../lib/settings'
import { normalizeImportResult, normalizeMCPServer } from '../lib/mcp'
import {
  browserCopy,
  isSafeExternalUrl,
  normalizeProfile,
  toError,
  TransportError,
  type EventHandler,
  type Transport,
  type Unsubscribe,
} from './transport'

/** The Go methods the Wails transport calls, with their argument order. */
export interface WailsChatService {
  Health(): Promise<Health>
  ReportTrace(marks: TraceMark[]): Promise<void>
  ListConversations(limit: number, cursor: string, q: string): Promise<ConversationPage>
  CreateConversation(title: string, assistant: string): Promise<Conversation>
  GetConversation(id: string): Promise<ConversationDetail>
  RenameConversation(id: string, title: string): Promise<Conversation | null | void>
  SetPinned(id: string, pinned: boolean): Promise<Conversation | null | void>
  SetAssistant(id: string, assistant: string): Promise<Conversation | null | void>
  SetModel(id: string, model: string): Promise<Conversation | null | void>
  SetThinking(id: string, thinking: string): Promise<Conversation | null | void>
  DeleteConversation(id: string): Promise<void>
  Retry(id: string): Promise<RunStarted>
  Send(id: string, req: SendMessageRequest): Promise<RunStarted>
  Regenerate(id: string, messageId: string, model: string): Promise<RunStarted>
  SelectBranch(id: string, messageId: string): Promise<ConversationDetail>
  ForkQuestion(id: string, questionId: string, req: ForkRequest): Promise<RunStarted>
  Cancel(id: string): Promise<void>
  Respond(id: string, req: RespondRequest): Promise<Card | null | void>
  PendingQuestions(): Promise<Card[]>
  ConversationQuestions(id: string): Promise<Card[]>
  GetSettings(): Promise<Partial<Settings> | null>
  SaveSettings(settings: Settings): Promise<Partial<Settings> | null | void>
  ListModels(): Promise<ModelInfo[]>
  CheckModelServer(): Promise<ModelStatus>
  PullModel(name: string): Promise<void>
  ModelStats(): Promise<ModelStats[]>
  ResetModelStats(): Promise<void>
  ExportSettings(): Promise<SettingsExport>
  SaveSettingsExport(): Promise<string>
  Profiles(): Promise<Profile[]>
  SaveProfile(profile: Profile): Promise<Profile>
  DeleteProfile(name: string): Promise<void>
  AvailableTools(): Promise<ToolInfo[]>
  /** Asks where to save and writes the file; the path, or "" when cancelled. */
  ExportConversation(id: string, format: string): Promise<string>
  /** Asks for an exported JSON file and adds it; null when cancelled. */
  ImportConversation(): Promise<Conversation | null>
  Servers(): Promise<MCPServer[]>
  PutServer(name: string, cfg: MCPServerConfig): Promise<MCPServer>
  DeleteServer(name: string): Promise<void>
  SetToolPolicy(server: string, tool: string, policy: string): Promise<MCPTool | null | void>
  ImportConfig(content: string): Promise<MCPImportResult>
  Listener(): Promise<AgentListener>
  AgentTokens(): Promise<AgentToken[]>
  CreateAgentToken(name: string): Promise<NewAgentToken>
  RevokeAgentToken(id: string): Promise<void>
  /** Opens an http(s)/mailto link in the system browser (Go refuses other schemes). */
  OpenURL(url: string): Promise<void>
  ListCollections(): Promise<Collection[]>
  GetCollection(id: string): Promise<Collection>
  CreateCollection(req: CollectionRequest): Promise<Collection>
  UpdateCollection(id: string, req: CollectionRequest): Promise<Collection>
  ReindexCollection(id: string): Promise<void>
  CancelCollection(id: string): Promise<Collection>
  DeleteCollection(id: string): Promise<void>
  SearchCollection(id: string, req: KnowledgeSearchRequest): Promise<KnowledgeSearchResponse>
  SetConversationKnowledge(id: string, collections: string[]): Promise<void>
  /** The system's folder dialog: the path, or "" when cancelled. */
  ChooseFolder(): Promise<string>
  /** The system's file dialog: the paths, none when cancelled. */
  ChooseFiles(): Promise<string[]>
  /** Opens a file a collection indexes with its application (Go checks it). */
  OpenSource(path: string): Promise<void>
}

/** The bound Go services (`window.go.desktop.<name>`, App in `window.go.main`), one per area. */
export type WailsServiceName =
  | 'App'
  | 'ConversationService'
  | 'QuestionService'
  | 'ModelService'
  | 'SettingsService'
  | 'MCPService'
  | 'AgentsService'
  | 'DesktopService'
  | 'DebugService'
  | 'KnowledgeService'

/** Which bound Go service has each method. */
export const WAILS_SERVICE = {
  Health: 'App',
  ReportTrace: 'DebugService',
  ListConversations: 'ConversationService',
  CreateConversation: 'ConversationService',
  GetConversation: 'ConversationService',
  RenameConversation: 'ConversationService',
  SetPinned: 'ConversationService',
  SetAssistant: 'ConversationService',
  SetModel: 'ConversationService',
  SetThinking: 'ConversationService',
  DeleteConversation: 'ConversationService',
  Retry: 'ConversationService',
  Send: 'ConversationService',
  Regenerate: 'ConversationService',
  SelectBranch: 'ConversationService',
  ForkQuestion: 'ConversationService',
  Cancel: 'ConversationService',
  ExportConversation: 'ConversationService',
  ImportConversation: 'ConversationService',
  Respond: 'QuestionService',
  PendingQuestions: 'QuestionService',
  ConversationQuestions: 'QuestionService',
  ListModels: 'ModelService',
  CheckModelServer: 'ModelService',
  PullModel: 'ModelService',
  ModelStats: 'ModelService',
  ResetModelStats: 'ModelService',
  ExportSettings: 'SettingsService',
  SaveSettingsExport: 'SettingsService',
  GetSettings: 'SettingsService',
  SaveSettings: 'SettingsService',
  Profiles: 'SettingsService',
  SaveProfile: 'SettingsService',
  DeleteProfile: 'SettingsService',
  AvailableTools: 'SettingsService',
  Servers: 'MCPService',
  PutServer: 'MCPService',
  DeleteServer: 'MCPService',
  SetToolPolicy: 'MCPService',
  ImportConfig: 'MCPService',
  Listener: 'AgentsService',
  AgentTokens: 'AgentsService',
  CreateAgentToken: 'AgentsService',
  RevokeAgentToken: 'AgentsService',
  OpenURL: 'DesktopService',
  ListCollections: 'KnowledgeService',
  GetCollection: 'KnowledgeService',
  CreateCollection: 'KnowledgeService',
  UpdateCollection: 'KnowledgeService',
  ReindexCollection: 'KnowledgeService',
  CancelCollection: 'KnowledgeService',
  DeleteCollection: 'KnowledgeService',
  SearchCollection: 'KnowledgeService',
  SetConversationKnowledge: 'KnowledgeService',
  ChooseFolder: 'KnowledgeService',
  ChooseFiles: 'KnowledgeService',
  OpenSource: 'KnowledgeService',
} as const satisfies Record<keyof WailsChatService, WailsServiceName>

/** `window.go.main.App`: the window's own methods. */
export interface WailsApp {
  Info(): Promise<AppInfo>
}

export interface WailsRuntime {
  EventsOn(name: string, callback: (...data: unknown[]) => void): () => void
  BrowserOpenURL?(url: string): void
  ClipboardSetText?(text: string): Promise<boolean>
  /** The native window title (the "(N) " attention prefix follows it). */
  WindowSetTitle?(title: string): void
}

type WailsPackage = Partial<Record<WailsServiceName, Partial<WailsChatService>>> & Record<string, unknown>

declare global {
  interface Window {
    go?: { main?: { App?: Partial<WailsApp> } & WailsPackage; desktop?: WailsPackage } & Record<string, unknown>
    runtime?: WailsRuntime
  }
}

export const DEFAULT_PAGE_SIZE = 50

/** The bound service `name`: App is the root Go package's (`main`), the rest are package desktop's. */
function boundService(win: Window, name: WailsServiceName): unknown {
  return name === 'App' ? win.go?.main?.App : win.go?.desktop?.[name]
}

export class WailsTransport implements Transport {
  readonly kind = 'wails' as const
  readonly nativeFileDialogs = true

  constructor(private readonly win: Window = window) {}

  private async call<M extends keyof WailsChatService>(
    method: M,
    ...args: Parameters<WailsChatService[M]>
  ): Promise<Awaited<ReturnType<WailsChatService[M]>>> {
    const name = WAILS_SERVICE[method]
    const svc = boundService(this.win, name) as Record<string, unknown> | undefined
    const fn = svc?.[method] as ((...a: unknown[]) => Promise<unknown>) | undefined
    if (typeof fn !== 'function') {
      throw new TransportError(`The app backend is not ready (${name}.${method} is missing)`)
    }
    try {
      return (await fn.apply(svc, args)) as Awaited<ReturnType<WailsChatService[M]>>
    } catch (err) {
      throw toError(err)
    }
  }

  health(): Promise<Health> {
    return this.call('Health')
  }

  async reportTrace(marks: TraceMark[]): Promise<void> {
    await this.call('ReportTrace', marks)
  }

  async appInfo(): Promise<AppInfo> {
    const app = this.win.go?.main?.App
    if (typeof app?.Info !== 'function') throw new TransportError('The app backend is not ready (App.Info is missing)')
    try {
      const info = await app.Info.call(app)
      return { version: info?.version ?? '', dataDir: info?.dataDir ?? '' }
    } catch (err) {
      throw toError(err)
    }
  }

  async listConversations(params: ListConversationsParams = {}): Promise<ConversationPage> {
    const page = await this.call('ListConversations', params.limit ?? DEFAULT_PAGE_SIZE, params.cursor ?? '', params.q ?? '')
    return page
  }

  createConversation(params: CreateConversationParams = {}): Promise<Conversation> {
    return this.call('CreateConversation', params.title ?? '', params.assistant ?? '')
  }

  async getConversation(id: string): Promise<ConversationDetail> {
    const d = await this.call('GetConversation', id)
    return { ...d, pending_question: d.pending_question ?? null }
  }

  async renameConversation(id: string, title: string): Promise<Conversation | void> {
    return (await this.call('RenameConversation', id, title)) ?? undefined
  }

  async setPinned(id: string, pinned: boolean): Promise<Conversation | void> {
    return (await this.call('SetPinned', id, pinned)) ?? undefined
  }

  async setAssistant(id: string, assistant: string): Promise<Conversation | void> {
    return (await this.call('SetAssistant', id, assistant)) ?? undefined
  }

  async setModel(id: string, model: string): Promise<Conversation | void> {
    return (await this.call('SetModel', id, model)) ?? undefined
  }

  async setThinking(id: string, thinking: string): Promise<Conversation | void> {
    return (await this.call('SetThinking', id, thinking)) ?? undefined
  }

  async deleteConversation(id: string): Promise<void> {
    await this.call('DeleteConversation', id)
  }

  /** sendWith with the content alone: Go binds one way to send (Send). */
  async sendMessage(id: string, content: string): Promise<{ run_id: string }> {
    return this.sendWith(id, { content })
  }

  async sendWith(id: string, req: SendMessageRequest): Promise<{ run_id: string }> {
    return runStarted(await this.call('Send', id, req))
  }

  async regenerate(id: string, messageId: string, model = ''): Promise<{ run_id: string }> {
    return runStarted(await this.call('Regenerate', id, messageId, model))
  }

  async selectBranch(id: string, messageId: string): Promise<ConversationDetail> {
    return this.call('SelectBranch', id, messageId)
  }

  async forkQuestion(id: string, questionId: string, req: ForkRequest): Promise<{ run_id: string }> {
    return runStarted(await this.call('ForkQuestion', id, questionId, req))
  }

  async retry(id: string): Promise<{ run_id: string }> {
    return runStarted(await this.call('Retry', id))
  }

  async cancel(id: string): Promise<void> {
    await this.call('Cancel', id)
  }

  async respond(id: string, req: RespondRequest): Promise<Card | void> {
    return (await this.call('Respond', id, req)) ?? undefined
  }

  async pendingQuestions(): Promise<Card[]> {
    return this.call('PendingQuestions')
  }

  async conversationQuestions(id: string): Promise<Card[]> {
    return this.call('ConversationQuestions', id)
  }

  async getSettings(): Promise<Settings> {
    return normalizeSettings(await this.call('GetSettings'))
  }

  async saveSettings(settings: Settings): Promise<Settings | void> {
    const saved = await this.call('SaveSettings', settings)
    return saved && typeof saved === 'object' ? normalizeSettings(saved) : undefined
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.call('ListModels')
  }

  async checkModelServer(): Promise<ModelStatus> {
    return this.call('CheckModelServer')
  }

  async pullModel(name: string): Promise<void> {
    await this.call('PullModel', name)
  }

  async modelStats(): Promise<ModelStats[]> {
    return this.call('ModelStats')
  }

  async resetModelStats(): Promise<void> {
    await this.call('ResetModelStats')
  }

  async exportSettings(): Promise<SettingsExport> {
    return this.call('ExportSettings')
  }

  /** The Go side shows a save dialog and writes the file. */
  async saveSettingsExport(): Promise<ExportResult> {
    const path = await this.call('SaveSettingsExport')
    return path ? { kind: 'saved', path } : { kind: 'cancelled' }
  }

  async listProfiles(): Promise<Profile[]> {
    return (await this.call('Profiles')).map(normalizeProfile)
  }

  async saveProfile(profile: Profile): Promise<Profile> {
    return normalizeProfile((await this.call('SaveProfile', profile)) ?? profile)
  }

  async deleteProfile(name: string): Promise<void> {
    await this.call('DeleteProfile', name)
  }

  async availableTools(): Promise<ToolInfo[]> {
    return this.call('AvailableTools')
  }

  /** The Go side shows a save dialog and writes the file. */
  async exportConversation(id: string, format: ExportFormat): Promise<ExportResult> {
    const path = await this.call('ExportConversation', id, format)
    return path ? { kind: 'saved', path } : { kind: 'cancelled' }
  }

  /** The Go side shows an open dialog and reads the file. */
  async importConversation(json?: string): Promise<Conversation | null> {
    if (json !== undefined) throw new TransportError('The desktop app picks the file to import itself')
    return (await this.call('ImportConversation')) || null
  }

  async mcpServers(): Promise<MCPServer[]> {
    return (await this.call('Servers')).map(normalizeMCPServer)
  }

  async putMCPServer(name: string, cfg: MCPServerConfig): Promise<MCPServer> {
    return normalizeMCPServer(await this.call('PutServer', name, cfg))
  }

  async deleteMCPServer(name: string): Promise<void> {
    await this.call('DeleteServer', name)
  }

  async setMCPToolPolicy(server: string, tool: string, policy: MCPPolicy): Promise<MCPTool | void> {
    return (await this.call('SetToolPolicy', server, tool, policy)) ?? undefined
  }

  async importMCPConfig(content: string): Promise<MCPImportResult> {
    return normalizeImportResult(await this.call('ImportConfig', content))
  }
  async agentListener(): Promise<AgentListener> {
    return this.call('Listener')
  }

  async agentTokens(): Promise<AgentToken[]> {
    return this.call('AgentTokens')
  }

  async createAgentToken(name: string): Promise<NewAgentToken> {
    return this.call('CreateAgentToken', name)
  }

  async revokeAgentToken(id: string): Promise<void> {
    await this.call('RevokeAgentToken', id)
  }


  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    const rt = this.win.runtime
    if (event === 'transport:connection' || typeof rt?.EventsOn !== 'function') return () => {}
    const off = rt.EventsOn(event, (payload: unknown) => handler(payload as Parameters<EventHandler<E>>[0]))
    return typeof off === 'function' ? off : () => {}
  }

  // ---- knowledge (SPEC §11) ----------------------------------------------------------

  async listCollections(): Promise<Collection[]> {
    return this.call('ListCollections')
  }

  async getCollection(id: string): Promise<Collection> {
    return this.call('GetCollection', id)
  }

  async createCollection(req: CollectionRequest): Promise<Collection> {
    return this.call('CreateCollection', req)
  }

  async updateCollection(id: string, req: CollectionRequest): Promise<Collection> {
    return this.call('UpdateCollection', id, req)
  }

  async reindexCollection(id: string): Promise<void> {
    await this.call('ReindexCollection', id)
  }

  async cancelCollection(id: string): Promise<Collection> {
    return this.call('CancelCollection', id)
  }

  async deleteCollection(id: string): Promise<void> {
    await this.call('DeleteCollection', id)
  }

  async searchCollection(id: string, req: KnowledgeSearchRequest): Promise<KnowledgeSearchResponse> {
    return this.call('SearchCollection', id, req)
  }

  async setConversationKnowledge(id: string, collections: string[]): Promise<void> {
    await this.call('SetConversationKnowledge', id, collections)
  }

  /** The system's folder and file dialogs. */
  readonly choosePaths = async (kind: 'folder' | 'files'): Promise<string[]> => {
    if (kind === 'folder') {
      const dir = await this.call('ChooseFolder')
      return dir ? [dir] : []
    }
    return this.call('ChooseFiles')
  }

  async openSource(path: string): Promise<boolean> {
    await this.call('OpenSource', path)
    return true
  }

  /** Through DesktopService.OpenURL (Go checks the scheme again), else Wails' runtime. */
  openExternal(url: string): void {
    if (!isSafeExternalUrl(url)) return
    if (typeof this.win.go?.desktop?.DesktopService?.OpenURL === 'function') {
      this.call('OpenURL', url).catch((err: unknown) => console.warn('parley: open link', toError(err).message))
    } else if (typeof this.win.runtime?.BrowserOpenURL === 'function') this.win.runtime.BrowserOpenURL(url)
    else this.win.open(url, '_blank', 'noopener,noreferrer')
  }

  async copyText(text: string): Promise<boolean> {
    if (typeof this.win.runtime?.ClipboardSetText === 'function') {
      try {
        if (await this.win.runtime.ClipboardSetText(text)) return true
      } catch {
        // fall back to the browser clipboard
      }
    }
    return browserCopy(text)
  }
}

function runStarted(res: RunStarted | null | undefined): { run_id: string } {
  return { run_id: res?.run_id ?? '' }
}
