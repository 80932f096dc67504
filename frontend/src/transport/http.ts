// Transport for a browser talking to `parley serve`: fetch to /api/v1/...
// exactly per SPEC §4 (cookie auth, same origin) and one EventSource on
// /api/v1/events with named events that reconnects after losses.
import {
  SERVER_EVENTS,
  type AppInfo,
  type Card,
  type Conversation,
  type ConversationDetail,
  type ConversationPage,
  type CreateConversationParams,
  type EventMap,
  type ExportFormat,
  type ExportResult,
  type EventName,
  type Health,
  type ListConversationsParams,
  type AgentListener,
  type AgentToken,
  type NewAgentToken,
  type MCPImportResult,
  type MCPPolicy,
  type MCPServer,
  type MCPServerConfig,
  type MCPTool,
  type ModelInfo,
  type ModelStats,
  type ModelStatus,
  type Profile,
  type RespondRequest,
  type Settings,
  type SettingsExport,
  type ToolInfo,
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
import { normalizeSettings } from '../lib/settings'
import { normalizeImportResult, normalizeMCPServer } from '../lib/mcp'
import {
  browserCopy,
  Emitter,
  isSafeExternalUrl,
  normalizeProfile,
  TransportError,
  type EventHandler,
  type Transport,
  type Unsubscribe,
} from './transport'
import { t } from '../i18n'

export interface HttpTransportOptions {
  /** Prefix of every API path (default "/api/v1"). */
  base?: string
  fetch?: typeof fetch
  EventSource?: typeof EventSource
  /** First reconnect delay in ms (doubles up to maxReconnectDelay). */
  reconnectDelay?: number
  maxReconnectDelay?: number
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

function parseJSON(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export class HttpTransport implements Transport {
  readonly kind = 'http' as const
  readonly nativeFileDialogs = false
  private readonly base: string
  private readonly fetchFn: typeof fetch
  private readonly ES: typeof EventSource | undefined
  private readonly emitter = new Emitter()
  private source: EventSource | null = null
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null
  private attempts = 0
  private lostConnection = false
  private readonly firstDelay: number
  private readonly maxDelay: number

  constructor(opts: HttpTransportOptions = {}) {
    this.base = (opts.base ?? '/api/v1').replace(/\/$/, '')
    this.fetchFn = opts.fetch ?? ((input, init) => fetch(input, init))
    this.ES = opts.EventSource ?? (typeof EventSource === 'undefined' ? undefined : EventSource)
    this.firstDelay = opts.reconnectDelay ?? 1000
    this.maxDelay = opts.maxReconnectDelay ?? 30000
  }

  // ---- requests --------------------------------------------------------------

  /**
   * Sends a request and returns the response text; non-2xx responses become
   * a TransportError with the server's `{"error"}` message and the status.
   * `raw` sends `body` as is (already JSON text) instead of encoding it.
   */
  private async send(method: Method, path: string, body?: unknown, raw = false): Promise<{ text: string; res: Response }> {
    const headers: Record<string, string> = { Accept: 'application/json' }
    const init: RequestInit = { method, headers, credentials: 'same-origin' }
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json'
      init.body = raw ? String(body) : JSON.stringify(body)
    }
    let res: Response
    try {
      res = await this.fetchFn(this.base + path, init)
    } catch (err) {
      throw new TransportError(t('transport.unreachable', { error: err instanceof Error ? err.message : String(err) }), 0)
    }
    const text = await res.text().catch(() => '')
    if (!res.ok) {
      const data = parseJSON(text)
      const msg =
        data && typeof data === 'object' && typeof (data as { error?: unknown }).error === 'string'
          ? (data as { error: string }).error
          : t('transport.failed', { status: `${res.status}${res.statusText ? ' ' + res.statusText : ''}` })
      throw new TransportError(msg, res.status)
    }
    return { text, res }
  }

  private async request<T>(method: Method, path: string, body?: unknown, raw = false): Promise<T> {
    const { text } = await this.send(method, path, body, raw)
    return parseJSON(text) as T
  }

  private conv(id: string, rest = ''): string {
    return `/conversations/${encodeURIComponent(id)}${rest}`
  }

  health(): Promise<Health> {
    return this.request('GET', '/health')
  }

  /** POST /debug/trace (404 while tracing is off). */
  async reportTrace(marks: TraceMark[]): Promise<void> {
    await this.request('POST', '/debug/trace', marks)
  }

  /** GET /health: the version; the data folder is not shown to browsers. */
  async appInfo(): Promise<AppInfo> {
    const h = await this.health()
    return { version: h?.version ?? '', dataDir: '' }
  }

  async listConversations(params: ListConversationsParams = {}): Promise<ConversationPage> {
    const qs = new URLSearchParams()
    if (params.limit) qs.set('limit', String(params.limit))
    if (params.cursor) qs.set('cursor', params.cursor)
    if (params.q) qs.set('q', params.q)
    const query = qs.toString()
    const page = await this.request<ConversationPage>('GET', '/conversations' + (query ? '?' + query : ''))
    return page
  }

  createConversation(params: CreateConversationParams = {}): Promise<Conversation> {
    const body: CreateConversationParams = {}
    if (params.title) body.title = params.title
    if (params.assistant) body.assistant = params.assistant
    return this.request('POST', '/conversations', body)
  }

  async getConversation(id: string): Promise<ConversationDetail> {
    const d = await this.request<ConversationDetail>('GET', this.conv(id))
    return { ...d, pending_question: d.pending_question ?? null }
  }

  // Not in SPEC §4 yet: PATCH /conversations/{id} {"title"} / {"pinned"}.
  async renameConversation(id: string, title: string): Promise<Conversation | void> {
    return (await this.request<Conversation | undefined>('PATCH', this.conv(id), { title })) ?? undefined
  }

  async setPinned(id: string, pinned: boolean): Promise<Conversation | void> {
    return (await this.request<Conversation | undefined>('PATCH', this.conv(id), { pinned })) ?? undefined
  }

  async setAssistant(id: string, assistant: string): Promise<Conversation | void> {
    return (await this.request<Conversation | undefined>('PATCH', this.conv(id), { assistant })) ?? undefined
  }

  async setModel(id: string, model: string): Promise<Conversation | void> {
    return (await this.request<Conversation | undefined>('PATCH', this.conv(id), { model })) ?? undefined
  }

  async setThinking(id: string, thinking: string): Promise<Conversation | void> {
    return (await this.request<Conversation | undefined>('PATCH', this.conv(id), { thinking })) ?? undefined
  }

  async deleteConversation(id: string): Promise<void> {
    await this.request('DELETE', this.conv(id))
  }

  /** sendWith with the content alone (the same POST .../messages). */
  async sendMessage(id: string, content: string): Promise<{ run_id: string }> {
    return this.sendWith(id, { content })
  }

  async sendWith(id: string, req: SendMessageRequest): Promise<{ run_id: string }> {
    const res = await this.request<{ run_id?: string }>('POST', this.conv(id, '/messages'), req)
    return { run_id: res?.run_id ?? '' }
  }

  async regenerate(id: string, messageId: string, model = ''): Promise<{ run_id: string }> {
    const res = await this.request<{ run_id?: string }>('POST', this.conv(id, '/regenerate'), { message_id: messageId, ...(model ? { model } : {}) })
    return { run_id: res?.run_id ?? '' }
  }

  async selectBranch(id: string, messageId: string): Promise<ConversationDetail> {
    return this.request<ConversationDetail>('PUT', this.conv(id, '/branch'), { message_id: messageId })
  }

  async forkQuestion(id: string, questionId: string, req: ForkRequest): Promise<{ run_id: string }> {
    const res = await this.request<{ run_id?: string }>('POST', this.conv(id, `/questions/${encodeURIComponent(questionId)}/fork`), req)
    return { run_id: res?.run_id ?? '' }
  }

  async retry(id: string): Promise<{ run_id: string }> {
    const res = await this.request<{ run_id?: string }>('POST', this.conv(id, '/retry'))
    return { run_id: res?.run_id ?? '' }
  }

  async cancel(id: string): Promise<void> {
    await this.request('POST', this.conv(id, '/cancel'))
  }

  async respond(id: string, req: RespondRequest): Promise<Card | void> {
    const res = await this.request<Card | undefined>('POST', this.conv(id, '/respond'), req)
    return res && typeof res === 'object' && 'question_id' in res ? res : undefined
  }

  async pendingQuestions(): Promise<Card[]> {
    return this.request<Card[]>('GET', '/questions?status=pending')
  }

  async conversationQuestions(id: string): Promise<Card[]> {
    return this.request<Card[]>('GET', this.conv(id, '/questions'))
  }

  // Not in SPEC §4: GET/PUT /settings, GET /models, GET /models/status, POST /models/pull.
  async getSettings(): Promise<Settings> {
    return normalizeSettings(await this.request<Partial<Settings> | null>('GET', '/settings'))
  }

  async saveSettings(settings: Settings): Promise<Settings | void> {
    const saved = await this.request<Partial<Settings> | undefined>('PUT', '/settings', settings)
    return saved && typeof saved === 'object' ? normalizeSettings(saved) : undefined
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.request<ModelInfo[]>('GET', '/models')
  }

  async checkModelServer(): Promise<ModelStatus> {
    return this.request<ModelStatus>('GET', '/models/status')
  }

  /** Resolves when the pull finished (progress comes as model:pull events). */
  async pullModel(name: string): Promise<void> {
    await this.request('POST', '/models/pull', { model: name })
  }

  // Not in SPEC §4: how well each model asks, and the settings export.
  async modelStats(): Promise<ModelStats[]> {
    return this.request<ModelStats[]>('GET', '/models/stats')
  }

  async resetModelStats(): Promise<void> {
    await this.request('DELETE', '/models/stats')
  }

  async exportSettings(): Promise<SettingsExport> {
    return this.request<SettingsExport>('GET', '/settings/export')
  }

  /** The export as JSON text, for the page to download. */
  async saveSettingsExport(): Promise<ExportResult> {
    return { kind: 'content', content: JSON.stringify(await this.exportSettings(), null, 2) + '\n', mimeType: 'application/json' }
  }

  // Not in SPEC §4: GET /profiles, PUT|DELETE /profiles/{name}, GET /tools.
  async listProfiles(): Promise<Profile[]> {
    return (await this.request<Profile[]>('GET', '/profiles')).map(normalizeProfile)
  }

  /** PUT /profiles/{name}: the path names the profile, the body holds the rest. */
  async saveProfile(profile: Profile): Promise<Profile> {
    const saved = await this.request<Profile | undefined>('PUT', `/profiles/${encodeURIComponent(profile.name)}`, profile)
    return normalizeProfile(saved && typeof saved === 'object' ? saved : profile)
  }

  async deleteProfile(name: string): Promise<void> {
    await this.request('DELETE', `/profiles/${encodeURIComponent(name)}`)
  }

  async availableTools(): Promise<ToolInfo[]> {
    return this.request<ToolInfo[]>('GET', '/tools')
  }

  /** GET /conversations/{id}/export?format=: the text, for the UI to save. */
  async exportConversation(id: string, format: ExportFormat): Promise<ExportResult> {
    const { text, res } = await this.send('GET', this.conv(id, `/export?format=${encodeURIComponent(format)}`))
    const fallback = format === 'json' ? 'application/json' : 'text/markdown'
    const mimeType = (res.headers.get('Content-Type') || fallback).split(';')[0]!.trim() || fallback
    return { kind: 'content', content: text, mimeType }
  }

  /** POST /conversations/import with the exported JSON as the body, as is. */
  async importConversation(json?: string): Promise<Conversation | null> {
    if (json === undefined) throw new TransportError(t('transport.chooseFile'), 400)
    return this.request<Conversation>('POST', '/conversations/import', json, true)
  }

  // ---- Agents on the machine (SPEC §10) ----------------------------------------

  /** In a browser the page is served by the listener agents use (`parley serve`). */
  async agentListener(): Promise<AgentListener> {
    const origin = typeof location === 'undefined' ? '' : location.origin
    return { enabled: true, addr: origin.replace(/^https?:\/\//, ''), running: true, url: origin + '/mcp', local_api: true }
  }

  async agentTokens(): Promise<AgentToken[]> {
    const res = await this.request<AgentToken[] | null>('GET', '/agent-tokens')
    return Array.isArray(res) ? res : []
  }

  async createAgentToken(name: string): Promise<NewAgentToken> {
    return this.request<NewAgentToken>('POST', '/agent-tokens', { name })
  }

  async revokeAgentToken(id: string): Promise<void> {
    await this.request('DELETE', `/agent-tokens/${encodeURIComponent(id)}`)
  }

  // ---- MCP servers (SPEC §6) ------------------------------------------------------

  private mcp(name: string, rest = ''): string {
    return `/mcp/servers/${encodeURIComponent(name)}${rest}`
  }

  async mcpServers(): Promise<MCPServer[]> {
    return (await this.request<MCPServer[]>('GET', '/mcp/servers')).map(normalizeMCPServer)
  }

  async putMCPServer(name: string, cfg: MCPServerConfig): Promise<MCPServer> {
    return normalizeMCPServer(await this.request<MCPServer>('PUT', this.mcp(name), cfg))
  }

  async deleteMCPServer(name: string): Promise<void> {
    await this.request('DELETE', this.mcp(name))
  }

  async setMCPToolPolicy(server: string, tool: string, policy: MCPPolicy): Promise<MCPTool | void> {
    const res = await this.request<MCPTool | undefined>('PUT', this.mcp(server, `/tools/${encodeURIComponent(tool)}`), { policy })
    return res && typeof res === 'object' ? res : undefined
  }

  /** POST /mcp/import with the file's text as the body, as is. */
  async importMCPConfig(content: string): Promise<MCPImportResult> {
    return normalizeImportResult(await this.request<MCPImportResult>('POST', '/mcp/import', content, true))
  }

  // ---- events ----------------------------------------------------------------

  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    const off = this.emitter.on(event, handler)
    this.ensureStream()
    return () => {
      off()
      if (this.emitter.count() === 0) this.close()
    }
  }

  /** Closes the event stream (it reopens on the next `on`). */
  close(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    this.reconnectTimer = null
    this.source?.close()
    this.source = null
  }

  private ensureStream(): void {
    if (this.source || this.reconnectTimer || !this.ES) return
    this.connect()
  }

  private connect(): void {
    if (!this.ES) return
    let es: EventSource
    try {
      es = new this.ES(this.base + '/events', { withCredentials: false })
    } catch {
      this.scheduleReconnect()
      return
    }
    this.source = es
    for (const name of SERVER_EVENTS) {
      es.addEventListener(name, (ev: Event) => {
        const data = (ev as MessageEvent).data
        if (typeof data !== 'string') return
        let payload: unknown
        try {
          payload = JSON.parse(data)
        } catch {
          console.warn('parley: ignoring malformed event', name)
          return
        }
        if (!payload || typeof payload !== 'object') return
        this.emitter.emit(name, payload as EventMap[typeof name])
      })
    }
    es.onopen = () => {
      this.attempts = 0
      const reconnected = this.lostConnection
      this.lostConnection = false
      this.emitter.emit('transport:connection', { connected: true, reconnected })
    }
    es.onerror = () => {
      if (this.source !== es) return
      if (!this.lostConnection) {
        this.lostConnection = true
        this.emitter.emit('transport:connection', { connected: false })
      }
      // CONNECTING: the browser retries by itself. CLOSED (e.g. 401/404/5xx):
      // it gave up, so we reconnect with backoff.
      if (es.readyState === 2) {
        es.close()
        this.source = null
        this.scheduleReconnect()
      }
    }
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || this.emitter.count() === 0) return
    const delay = Math.min(this.maxDelay, this.firstDelay * 2 ** this.attempts)
    this.attempts++
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null
      if (this.emitter.count() > 0 && !this.source) this.connect()
    }, delay)
  }

  // ---- knowledge (SPEC §11) ----------------------------------------------------------

  private kn(id: string, rest = ''): string {
    return `/knowledge/${encodeURIComponent(id)}${rest}`
  }

  async listCollections(): Promise<Collection[]> {
    return this.request<Collection[]>('GET', '/knowledge')
  }

  async getCollection(id: string): Promise<Collection> {
    return this.request<Collection>('GET', this.kn(id))
  }

  async createCollection(req: CollectionRequest): Promise<Collection> {
    return this.request<Collection>('POST', '/knowledge', req)
  }

  async updateCollection(id: string, req: CollectionRequest): Promise<Collection> {
    return this.request<Collection>('PATCH', this.kn(id), req)
  }

  async reindexCollection(id: string): Promise<void> {
    await this.request('POST', this.kn(id, '/reindex'))
  }

  async cancelCollection(id: string): Promise<Collection> {
    return this.request<Collection>('POST', this.kn(id, '/cancel'))
  }

  async deleteCollection(id: string): Promise<void> {
    await this.request('DELETE', this.kn(id))
  }

  async searchCollection(id: string, req: KnowledgeSearchRequest): Promise<KnowledgeSearchResponse> {
    return this.request<KnowledgeSearchResponse>('POST', this.kn(id, '/search'), req)
  }

  async setConversationKnowledge(id: string, collections: string[]): Promise<void> {
    await this.request('PATCH', this.conv(id), { knowledge: collections })
  }

  /** A browser cannot show the machine's folder dialog with real paths: paths are typed. */
  readonly choosePaths = null

  /** A page cannot open files on the machine. */
  async openSource(): Promise<boolean> {
    return false
  }

  openExternal(url: string): void {
    if (!isSafeExternalUrl(url)) return
    window.open(url, '_blank', 'noopener,noreferrer')
  }

  copyText(text: string): Promise<boolean> {
    return browserCopy(text)
  }
}
