// An in-memory Transport for tests only (never imported by the app: see
// architecture.test.ts; the demo is the Go side's, `parley serve --demo`). It keeps
// conversations, messages and cards, validates responses like the Go side
// (SPEC §1; ./fakeCards.ts), exports and imports like it (./fakeExport.ts),
// records every call, and lets tests emit any event.
import type {
  AppInfo,
  Card,
  Conversation,
  ConversationDetail,
  ConversationPage,
  CreateConversationParams,
  EventMap,
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
  Message,
  ModelInfo,
  ModelPullEvent,
  ModelStats,
  ModelStatus,
  Profile,
  RespondRequest,
  Role,
  RunState,
  Settings,
  SettingsExport,
  ToolInfo,
} from '../types'
import type { EngineStatus, ForkRequest, SearchMatch, SendMessageRequest, TraceMark } from '../api/wire.gen'
import { SNIPPET_CLOSE, SNIPPET_OPEN } from '../api/wire.gen'
import { DEFAULT_PROFILE, isRunActive, THINKING_SETTINGS } from '../types'
import { isAnswerable, normalizeCard } from '../lib/cards'
import { DEFAULT_SETTINGS } from '../lib/settings'
import { Emitter, normalizeProfile, TransportError, type EventHandler, type Transport, type Unsubscribe } from './transport'
import { autoTitle, clone, defaultProfile, FAKE_TOOLS, fakeId, PROFILE_NAME, type FakeCall, type PendingPull } from './fakeData'
import { resolveCard } from './fakeCards'
import { exportText, importTitle, parseExport } from './fakeExport'
import { FakeMcp } from './fakeMcp'
import { FakeKnowledge } from './fakeKnowledge'
import type { Collection, CollectionRequest, KnowledgeSearchRequest, KnowledgeSearchResponse } from '../api/wire.gen'

export { autoTitle, defaultProfile, FAKE_TOOLS, fakeId, type FakeCall, type PendingPull } from './fakeData'

/** Where a search found its words, as Go's store marks it: the newest matching message, else the title. */
function fakeMatch(d: ConversationDetail, q: string): SearchMatch {
  const mark = (text: string) => {
    const at = text.toLowerCase().indexOf(q)
    const from = Math.max(0, at - 30)
    return (from ? '…' : '') + text.slice(from, at) + SNIPPET_OPEN + text.slice(at, at + q.length) + SNIPPET_CLOSE + text.slice(at + q.length, at + q.length + 40)
  }
  const m = [...d.messages].reverse().find((x) => (x.role === 'user' || x.role === 'assistant') && x.content.toLowerCase().includes(q))
  return m ? { message_id: m.id, snippet: mark(m.content) } : { snippet: mark(d.title) }
}

export class FakeTransport implements Transport {
  readonly kind = 'fake' as const
  /** Like the desktop app when true: export "saves" to `savedDir`, import reads `nextImportFile`. */
  nativeFileDialogs = false
  /** Stored profiles other than the default's override (by name). */
  profiles = new Map<string, Profile>()
  tools: ToolInfo[] = clone(FAKE_TOOLS)
  /** Native dialogs: where exports go; null makes the save dialog "cancelled". */
  savedDir: string | null = '/home/user/Documents'
  /** Native dialogs: the text of the file the open dialog picks; null = cancelled. */
  nextImportFile: string | null = null
  readonly emitter = new Emitter()
  readonly calls: FakeCall[] = []
  conversations = new Map<string, ConversationDetail>()
  cards = new Map<string, Card>()
  settings: Settings = { ...DEFAULT_SETTINGS, model: 'qwen3', onboarded: true }
  /** Whether checkModelServer finds the server (demo mode always does). */
  reachable = true
  /** How well each model asks, as modelStats returns it. */
  stats: ModelStats[] = []
  /** Whether the status says the server has Ollama's API (undefined: the base URL's port is Ollama's). */
  ollama?: boolean
  /** The technical reason checkModelServer gives when not reachable. */
  unreachableMessage = 'Cannot reach the model server at http://127.0.0.1:11434/v1: connection refused'
  info: AppInfo = { version: 'fake', dataDir: '/home/user/.config/parley' }
  /** Pulls under way, controlled by the test (see `pullHandler` to automate). */
  pulls: PendingPull[] = []
  /** When set, pullModel runs this instead of waiting for the test. */
  pullHandler?: (name: string, progress: (p: Omit<ModelPullEvent, 'model' | 'conversationId'>) => void) => Promise<void>
  models: ModelInfo[] = [
    { name: 'qwen3', supports_tools: true },
    { name: 'llama3.2', supports_tools: true },
    { name: 'gemma2', supports_tools: false },
  ]
  opened: string[] = []
  copied: string[] = []
  /** Artificial latency in ms for every call (0 = next microtask). */
  latency = 0
  /** Called after a user message was stored (the demo uses it to script replies). */
  onSend?: (conversationId: string, content: string) => void
  /** Called after retry started a new run (the demo scripts a reply). */
  onRetry?: (conversationId: string, lastUserContent: string) => void
  private failures = new Map<string, TransportError[]>()
  /** MCP servers (SPEC §6); changes are sent as mcp:server events. */
  readonly mcp = new FakeMcp((s) => this.emit('mcp:server', s))
  /** Knowledge collections (SPEC §11); tests index them with knowledge.index(). */
  readonly knowledge = new FakeKnowledge((e) => this.emit('knowledge:progress', e))
  /** Native pickers (the desktop app) when set: what the next pick returns. */
  choosePaths: ((kind: 'folder' | 'files') => Promise<string[]>) | null = null
  /** Files opened from a citation. */
  openedSources: string[] = []

  /** Makes the next call of `method` reject with `message` (and `status`). */
  failNext(method: keyof Transport, message: string, status?: number): void {
    const list = this.failures.get(method) ?? []
    list.push(new TransportError(message, status))
    this.failures.set(method, list)
  }

  /** Sends an event to every subscriber, as the Go side would. */
  emit<E extends EventName>(event: E, payload: EventMap[E]): void {
    this.emitter.emit(event, payload)
  }

  callsOf(method: keyof Transport): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args)
  }

  private async enter(method: string, args: unknown[]): Promise<void> {
    this.calls.push({ method, args: clone(args) })
    if (this.latency > 0) await new Promise((r) => setTimeout(r, this.latency))
    else await Promise.resolve()
    const failure = this.failures.get(method)?.shift()
    if (failure) throw failure
  }

  private mustGet(id: string): ConversationDetail {
    const c = this.conversations.get(id)
    if (!c) throw new TransportError('not found', 404)
    return c
  }

  private summary(d: ConversationDetail): Conversation {
    const c: Conversation = { id: d.id, title: d.title, assistant: d.assistant, pinned: d.pinned, created_at: d.created_at, updated_at: d.updated_at }
    if (d.model) c.model = d.model
    if (d.thinking) c.thinking = d.thinking
    if (d.agent) c.agent = d.agent
    return c
  }

  // ---- seeding helpers for tests --------------------------------------------

  addConversation(partial: Partial<ConversationDetail> = {}): ConversationDetail {
    const now = new Date().toISOString()
    const d: ConversationDetail = {
      id: partial.id ?? fakeId('conv'),
      title: partial.title ?? 'New chat',
      assistant: partial.assistant ?? 'default',
      pinned: partial.pinned ?? false,
      created_at: partial.created_at ?? now,
      updated_at: partial.updated_at ?? partial.created_at ?? now,
      state: partial.state ?? 'idle',
      error: partial.error,
      messages: partial.messages ?? [],
      pending_question: partial.pending_question ?? null,
      ...(partial.model ? { model: partial.model } : {}),
      ...(partial.thinking ? { thinking: partial.thinking } : {}),
      ...(partial.agent ? { agent: partial.agent } : {}),
    }
    this.conversations.set(d.id, d)
    return d
  }

  addMessage(conversationId: string, partial: Partial<Message> & Pick<Message, 'role'>): Message {
    const m: ConversationDetail['messages'][number] = {
      id: partial.id ?? fakeId('msg'),
      content: '',
      created_at: new Date().toISOString(),
      parent_id: this.mustGet(conversationId).messages.at(-1)?.id ?? '',
      siblings: 1,
      sibling_index: 0,
      ...partial,
      conversationId,
    }
    this.mustGet(conversationId).messages.push(m)
    return m
  }

  /** Stores a card (pending by default) and, when `emit`, sends question:ask. */
  addCard(partial: Partial<Card> & Pick<Card, 'conversationId' | 'questions'>, emit = false): Card {
    const card = normalizeCard({
      question_id: partial.question_id ?? fakeId('q'),
      status: 'pending',
      created_at: new Date().toISOString(),
      expires_at: null,
      ...partial,
    } as Card)
    this.cards.set(card.question_id, card)
    const conv = this.conversations.get(card.conversationId)
    if (conv && card.status === 'pending') {
      conv.pending_question = card
      conv.state = 'awaiting_user_response'
    }
    if (emit) {
      this.emit('question:ask', clone(card))
      this.setState(card.conversationId, 'awaiting_user_response')
    }
    return card
  }

  setState(conversationId: string, state: RunState, error?: string): void {
    const conv = this.conversations.get(conversationId)
    if (conv) {
      conv.state = state
      conv.error = error
    }
    this.emit('conversation:state', error ? { conversationId, state, error } : { conversationId, state })
  }

  // ---- Transport -------------------------------------------------------------

  async health(): Promise<Health> {
    await this.enter('health', [])
    return { status: 'ok', version: 'fake', ...(this.traceOn ? { trace: true } : {}) }
  }

  /** Card trace: on makes health say so and reportTrace keep the marks. */
  traceOn = false
  readonly traceMarks: TraceMark[] = []

  async reportTrace(marks: TraceMark[]): Promise<void> {
    await this.enter('reportTrace', [marks])
    if (!this.traceOn) throw new TransportError('no such endpoint')
    this.traceMarks.push(...marks.map((m) => ({ ...m })))
  }

  async listConversations(params: ListConversationsParams = {}): Promise<ConversationPage> {
    await this.enter('listConversations', [params])
    const q = (params.q ?? '').trim().toLowerCase()
    const all = [...this.conversations.values()]
      .filter((c) => !q || c.title.toLowerCase().includes(q) || c.messages.some((m) => m.content.toLowerCase().includes(q)))
      .sort((a, b) => (b.updated_at ?? '').localeCompare(a.updated_at ?? ''))
    const start = params.cursor ? Number(params.cursor) : 0
    const limit = params.limit ?? 50
    const items = all.slice(start, start + limit).map((d) => ({ ...this.summary(d), ...(q ? { match: fakeMatch(d, q) } : {}) }))
    const next = start + limit < all.length ? String(start + limit) : null
    return clone({ items, ...(next ? { next_cursor: next } : {}) })
  }

  async createConversation(params: CreateConversationParams = {}): Promise<Conversation> {
    await this.enter('createConversation', [params])
    const d = this.addConversation({ title: params.title || 'New chat', assistant: params.assistant || 'default' })
    return clone(this.summary(d))
  }

  async getConversation(id: string): Promise<ConversationDetail> {
    await this.enter('getConversation', [id])
    return clone(this.mustGet(id))
  }

  async renameConversation(id: string, title: string): Promise<Conversation> {
    await this.enter('renameConversation', [id, title])
    const d = this.mustGet(id)
    if (!title.trim()) throw new TransportError('title must not be empty', 400)
    d.title = title.trim()
    this.emit('conversation:updated', { conversationId: id, title: d.title })
    return clone(this.summary(d))
  }

  async setPinned(id: string, pinned: boolean): Promise<Conversation> {
    await this.enter('setPinned', [id, pinned])
    const d = this.mustGet(id)
    d.pinned = pinned
    this.emit('conversation:updated', { conversationId: id, pinned })
    return clone(this.summary(d))
  }

  async setAssistant(id: string, assistant: string): Promise<Conversation> {
    await this.enter('setAssistant', [id, assistant])
    const d = this.mustGet(id)
    const name = assistant || DEFAULT_PROFILE
    if (name !== DEFAULT_PROFILE && !this.profiles.has(name)) throw new TransportError(`unknown assistant "${name}"`, 400)
    d.assistant = name
    this.emit('conversation:updated', { conversationId: id, assistant: name })
    return clone(this.summary(d))
  }

  async setModel(id: string, model: string): Promise<Conversation> {
    await this.enter('setModel', [id, model])
    const d = this.mustGet(id)
    const name = model.trim()
    if (name.length > 200) throw new TransportError('a model name can be at most 200 characters', 400)
    if (name) d.model = name
    else delete d.model
    this.emit('conversation:updated', { conversationId: id, model: name })
    return clone(this.summary(d))
  }

  async setThinking(id: string, thinking: string): Promise<Conversation> {
    await this.enter('setThinking', [id, thinking])
    const d = this.mustGet(id)
    const value = thinking.trim()
    if (value && !(THINKING_SETTINGS as readonly string[]).includes(value)) {
      throw new TransportError(`thinking must be "auto", "off", "low", "medium" or "high" (not "${value}")`, 422)
    }
    if (value) d.thinking = value
    else delete d.thinking
    this.emit('conversation:updated', { conversationId: id, thinking: value })
    return clone(this.summary(d))
  }

  async deleteConversation(id: string): Promise<void> {
    await this.enter('deleteConversation', [id])
    this.mustGet(id)
    this.conversations.delete(id)
    for (const [qid, c] of this.cards) if (c.conversationId === id) this.cards.delete(qid)
    this.emit('conversation:deleted', { conversationId: id })
  }

  async sendMessage(id: string, content: string): Promise<{ run_id: string }> {
    await this.enter('sendMessage', [id, content])
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    if (!content.trim()) throw new TransportError('content must not be empty', 400)
    const first = !d.messages.some((m) => m.role === 'user')
    this.addMessage(id, { role: 'user', content })
    d.updated_at = new Date().toISOString()
    // Like Go: the first message names an untitled conversation.
    if (first && (!d.title || d.title === 'New chat')) {
      d.title = autoTitle(content)
      this.emit('conversation:updated', { conversationId: id, title: d.title })
    }
    const runId = fakeId('run')
    this.setState(id, 'requesting')
    this.onSend?.(id, content)
    return { run_id: runId }
  }

  async sendWith(id: string, req: SendMessageRequest): Promise<{ run_id: string }> {
    if (req.parent_id === undefined && !req.attachments?.length) return this.sendMessage(id, req.content)
    await this.enter('sendWith', [id, req])
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    if (!req.content.trim() && !req.attachments?.length) throw new TransportError('content must not be empty', 400)
    // The fake keeps the visible path only: a new branch replaces what follows its parent.
    const sibling = req.parent_id === undefined ? undefined : this.branchAt(d, req.parent_id)
    this.addMessage(id, {
      role: 'user',
      content: req.content,
      ...(req.attachments?.length ? { attachments: req.attachments } : {}),
      ...(sibling ? { parent_id: req.parent_id, siblings: sibling.siblings + 1, sibling_index: sibling.siblings } : {}),
    })
    this.setState(id, 'requesting')
    this.onSend?.(id, req.content)
    return { run_id: fakeId('run') }
  }

  async regenerate(id: string, messageId: string, model = ''): Promise<{ run_id: string }> {
    await this.enter('regenerate', [id, messageId, model])
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    const at = d.messages.findIndex((m) => m.id === messageId)
    if (at < 0) throw new TransportError(`message ${messageId} not found`, 404)
    if (d.messages[at].role === 'user') throw new TransportError('regenerate takes a reply of the assistant', 400)
    const user = d.messages.slice(0, at).map((m) => m.role).lastIndexOf('user')
    if (user < 0) throw new TransportError('this reply answers no message of yours', 400)
    this.branchAt(d, d.messages[user].id)
    this.setState(id, 'requesting')
    this.onRetry?.(id, d.messages[user].content)
    return { run_id: fakeId('run') }
  }

  async selectBranch(id: string, messageId: string): Promise<ConversationDetail> {
    await this.enter('selectBranch', [id, messageId])
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    if (!d.messages.some((m) => m.id === messageId)) throw new TransportError(`message ${messageId} not found`, 404)
    return structuredClone(d)
  }

  async forkQuestion(id: string, questionId: string, req: ForkRequest): Promise<{ run_id: string }> {
    await this.enter('forkQuestion', [id, questionId, req])
    const d = this.mustGet(id)
    const card = this.cards.get(questionId)
    if (!card || card.conversationId !== id) throw new TransportError(`question ${questionId} not found`, 404)
    if (isRunActive(d.state) || card.status === 'pending') throw new TransportError('a run is already active in this conversation', 409)
    const result = d.messages.find((m) => m.role === 'tool' && m.tool_call_id === card.tool_call_id)
    if (!result) throw new TransportError('this card has no answer to change', 409)
    const answers: Record<string, string> = {}
    for (const [q, a] of Object.entries(req.answers)) answers[q] = [...(a.selected ?? []), ...(a.custom ? [a.custom] : [])].join(', ')
    const sibling = this.branchAt(d, result.parent_id)
    this.addMessage(id, {
      role: 'tool',
      tool_call_id: result.tool_call_id,
      tool_name: result.tool_name,
      content: JSON.stringify({ answers, ...(req.comments ? { comments: req.comments } : {}) }),
      parent_id: result.parent_id,
      siblings: sibling.siblings + 1,
      sibling_index: sibling.siblings,
    })
    this.setState(id, 'requesting')
    return { run_id: fakeId('run') }
  }

  /** Cuts the visible path after parentId ("" = before the first message); returns how many children it had. */
  private branchAt(d: ConversationDetail, parentId: string): { siblings: number } {
    const at = parentId === '' ? -1 : d.messages.findIndex((m) => m.id === parentId)
    if (parentId !== '' && at < 0) throw new TransportError(`message ${parentId} not found`, 404)
    const next = d.messages[at + 1]
    d.messages.splice(at + 1)
    return { siblings: next ? next.siblings : 0 }
  }

  async retry(id: string): Promise<{ run_id: string }> {
    await this.enter('retry', [id])
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    const lastUser = [...d.messages].reverse().find((m) => m.role === 'user')
    if (!lastUser) throw new TransportError('nothing to retry: the conversation has no user message', 400)
    const runId = fakeId('run')
    this.setState(id, 'requesting')
    this.onRetry?.(id, lastUser.content)
    return { run_id: runId }
  }

  async cancel(id: string): Promise<void> {
    await this.enter('cancel', [id])
    const d = this.mustGet(id)
    const card = d.pending_question && this.cards.get(d.pending_question.question_id)
    if (card && card.status === 'pending') {
      card.status = 'cancelled'
      d.pending_question = null
      this.emit('question:resolved', clone(card))
    }
    this.setState(id, 'idle')
  }

  async respond(id: string, req: RespondRequest): Promise<Card> {
    await this.enter('respond', [id, req])
    const d = this.mustGet(id)
    let card = req.question_id === 'latest' ? d.pending_question && this.cards.get(d.pending_question.question_id) : this.cards.get(req.question_id)
    if (!card || card.conversationId !== id) throw new TransportError('unknown question', 404)
    if (!isAnswerable(card.status, card.kind)) throw new TransportError('question is no longer pending', 409)
    const late = card.status === 'timed_out'
    resolveCard(card, req, late)
    if (d.pending_question?.question_id === card.question_id) d.pending_question = null
    this.emit('question:resolved', clone(card))
    if (req.action === 'cancel') this.setState(id, 'idle')
    else if (!late) this.setState(id, 'requesting')
    return clone(card)
  }

  async pendingQuestions(): Promise<Card[]> {
    await this.enter('pendingQuestions', [])
    return clone([...this.cards.values()].filter((c) => c.status === 'pending'))
  }

  async conversationQuestions(id: string): Promise<Card[]> {
    await this.enter('conversationQuestions', [id])
    this.mustGet(id)
    return clone(
      [...this.cards.values()].filter((c) => c.conversationId === id).sort((a, b) => a.created_at.localeCompare(b.created_at)),
    )
  }

  async getSettings(): Promise<Settings> {
    await this.enter('getSettings', [])
    return clone(this.settings)
  }

  /** Validates like the Go side (service.Settings.Validate) and stores. */
  async saveSettings(settings: Settings): Promise<Settings> {
    await this.enter('saveSettings', [settings])
    const next: Settings = { ...this.settings, ...clone(settings) }
    next.base_url = (next.base_url ?? '').trim().replace(/\/+$/, '')
    let url: URL | null = null
    try {
      url = new URL(next.base_url)
    } catch {
      url = null
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.host) {
      throw new TransportError(`base URL "${next.base_url}" must be an http(s) URL such as ${DEFAULT_SETTINGS.base_url}`, 400)
    }
    if (!(next.question_timeout_seconds >= 0 && next.question_timeout_seconds <= 604800)) {
      throw new TransportError('question timeout must be 0 (wait forever) to 604800 seconds', 400)
    }
    if (!(next.rate_limit_seconds >= 0 && next.rate_limit_seconds <= 3600)) {
      throw new TransportError('rate limit must be 0 to 3600 seconds between questions', 400)
    }
    if (!(next.max_pending_questions >= 1 && next.max_pending_questions <= 1000)) {
      throw new TransportError('maximum pending questions must be 1 to 1000', 400)
    }
    if (!['light', 'dark', 'system'].includes(next.theme)) throw new TransportError('theme must be "light", "dark" or "system"', 400)
    this.settings = next
    return clone(this.settings)
  }

  /** The built-in engine's state (stopped: the fake runs no engine). */
  async engineStatus(): Promise<EngineStatus> {
    await this.enter('engineStatus', [])
    return { state: 'stopped', model: null, backend: '', models_dir: '' }
  }

  async listModels(): Promise<ModelInfo[]> {
    await this.enter('listModels', [])
    return clone(this.models)
  }

  async checkModelServer(): Promise<ModelStatus> {
    await this.enter('checkModelServer', [])
    const s = this.settings
    if (s.demo_mode) {
      const real = this.reachable ? { server_models: clone(this.models) } : {}
      return { reachable: true, base_url: s.base_url, model: s.model, demo: true, ollama: false, models: [{ name: 'parley-demo', supports_tools: true }], ...real }
    }
    if (!this.reachable) return { reachable: false, base_url: s.base_url, model: s.model, demo: false, ollama: false, message: this.unreachableMessage, models: [] }
    return { reachable: true, base_url: s.base_url, model: s.model, demo: false, ollama: this.ollama ?? /:11434(\/|$)/.test(s.base_url), models: clone(this.models) }
  }

  pullModel(name: string): Promise<void> {
    return this.enter('pullModel', [name]).then(() => {
      const progress = (p: Omit<ModelPullEvent, 'model' | 'conversationId'>) => this.emit('model:pull', { ...p, conversationId: '', model: name })
      if (this.pullHandler) return this.pullHandler(name, progress)
      return new Promise<void>((resolve, reject) => {
        const pull: PendingPull = {
          name,
          progress: (status, total, completed) => progress({ status, total, completed }),
          resolve: () => {
            this.pulls = this.pulls.filter((p) => p !== pull)
            // As Ollama does, a name pulled without a tag is listed as name:latest.
            const listed = name.slice(name.lastIndexOf('/') + 1).includes(':') ? name : `${name}:latest`
            if (!this.models.some((m) => m.name === listed)) this.models.push({ name: listed, supports_tools: true })
            resolve()
          },
          reject: (message, status) => {
            this.pulls = this.pulls.filter((p) => p !== pull)
            reject(new TransportError(message, status))
          },
        }
        this.pulls.push(pull)
      })
    })
  }

  async modelStats(): Promise<ModelStats[]> {
    await this.enter('modelStats', [])
    return clone(this.stats)
  }

  async resetModelStats(): Promise<void> {
    await this.enter('resetModelStats', [])
    this.stats = []
  }

  async saveSettingsExport(): Promise<ExportResult> {
    return { kind: 'content', content: JSON.stringify(await this.exportSettings(), null, 2) + '\n', mimeType: 'application/json' }
  }

  async exportSettings(): Promise<SettingsExport> {
    await this.enter('exportSettings', [])
    return clone({ format: 'parley-settings', version: 1, exported_at: new Date(0).toISOString(), settings: { ...this.settings, api_key: '' },
      profiles: await this.listProfiles(), model_stats: this.stats })
  }

  async appInfo(): Promise<AppInfo> {
    await this.enter('appInfo', [])
    return clone(this.info)
  }

  // ---- profiles, export and import (like backend/service/profiles.go) -------

  async listProfiles(): Promise<Profile[]> {
    await this.enter('listProfiles', [])
    const def = this.profiles.get(DEFAULT_PROFILE) ?? defaultProfile()
    const others = [...this.profiles.values()].filter((p) => p.name !== DEFAULT_PROFILE).sort((a, b) => a.name.localeCompare(b.name))
    return clone([def, ...others])
  }

  async saveProfile(profile: Profile): Promise<Profile> {
    await this.enter('saveProfile', [profile])
    const p = normalizeProfile(profile)
    p.name = p.name.trim()
    if (!PROFILE_NAME.test(p.name)) {
      throw new TransportError('profile name must be 1-40 letters, digits, spaces, dots, dashes or underscores', 400)
    }
    if ([...p.system_prompt].length > 20000) throw new TransportError('system prompt must be at most 20000 characters', 400)
    const tools: string[] = []
    for (const t of p.tools) {
      if (!this.tools.some((k) => k.name === t)) throw new TransportError(`unknown tool "${t}"`, 400)
      if (!tools.includes(t)) tools.push(t)
    }
    p.tools = tools
    p.model = p.model.trim()
    if (!['auto', 'native', 'text', 'off'].includes(p.tool_calling ?? 'auto')) {
      throw new TransportError('tool calling must be "auto", "native", "text" or "off"', 400)
    }
    if (!(THINKING_SETTINGS as readonly string[]).includes(p.thinking ?? 'auto')) {
      throw new TransportError(`thinking must be "auto", "off", "low", "medium" or "high" (not "${p.thinking}")`, 422)
    }
    this.profiles.set(p.name, p)
    return clone(p)
  }

  async deleteProfile(name: string): Promise<void> {
    await this.enter('deleteProfile', [name])
    if (!this.profiles.delete(name) && name !== DEFAULT_PROFILE) throw new TransportError('not found', 404)
  }

  async availableTools(): Promise<ToolInfo[]> {
    await this.enter('availableTools', [])
    return clone(this.tools)
  }

  /** The export text: JSON in Go's parley.conversation format, or a Markdown transcript. */
  exportText(id: string, format: ExportFormat): string {
    return exportText(this.mustGet(id), [...this.cards.values()].filter((c) => c.conversationId === id), format)
  }

  async exportConversation(id: string, format: ExportFormat): Promise<ExportResult> {
    await this.enter('exportConversation', [id, format])
    if (format !== 'markdown' && format !== 'json') throw new TransportError('format must be "markdown" or "json"', 400)
    const content = this.exportText(id, format)
    if (!this.nativeFileDialogs) return { kind: 'content', content, mimeType: format === 'json' ? 'application/json' : 'text/markdown' }
    if (this.savedDir === null) return { kind: 'cancelled' }
    return { kind: 'saved', path: `${this.savedDir}/conversation.${format === 'json' ? 'json' : 'md'}` }
  }

  async importConversation(json?: string): Promise<Conversation | null> {
    await this.enter('importConversation', json === undefined ? [] : [json])
    let text = json
    if (this.nativeFileDialogs && text === undefined) {
      if (this.nextImportFile === null) return null
      text = this.nextImportFile
    }
    if (text === undefined) throw new TransportError('Choose a file to import', 400)
    const { conversation: c, messages: msgs } = parseExport(text)
    const now = new Date().toISOString()
    const d = this.addConversation({ title: importTitle(c.title ?? '', [...this.conversations.values()].map((x) => x.title)), assistant: c.assistant || DEFAULT_PROFILE, pinned: !!c.pinned, created_at: c.created_at || now, updated_at: c.updated_at || now })
    for (const m of msgs) this.addMessage(d.id, { ...m, id: fakeId('msg'), role: m.role as Role, content: m.content ?? '', created_at: m.created_at || now })
    this.emit('conversation:updated', { conversationId: d.id, title: d.title })
    return clone(this.summary(d))
  }

  /** Agent tokens made in this fake (SPEC §10). */
  agentTokenList: AgentToken[] = []
  listener: AgentListener = { enabled: true, addr: '127.0.0.1:8765', running: true, url: 'http://127.0.0.1:8765/mcp', local_api: false }

  async agentListener(): Promise<AgentListener> {
    await this.enter('agentListener', [])
    return clone(this.listener)
  }

  async agentTokens(): Promise<AgentToken[]> {
    await this.enter('agentTokens', [])
    return clone(this.agentTokenList)
  }

  async createAgentToken(name: string): Promise<NewAgentToken> {
    await this.enter('createAgentToken', [name])
    if (!name.trim()) throw new TransportError('invalid agent name: must be 1-64 characters (got 0)', 422)
    const id = fakeId('tok')
    this.agentTokenList.push({ id, name: name.trim(), created_at: new Date().toISOString(), last_used_at: null })
    return { id, name: name.trim(), token: 'parley_agent_' + id }
  }

  async revokeAgentToken(id: string): Promise<void> {
    await this.enter('revokeAgentToken', [id])
    this.agentTokenList = this.agentTokenList.filter((t) => t.id !== id)
  }

  async mcpServers(): Promise<MCPServer[]> {
    await this.enter('mcpServers', [])
    return this.mcp.list()
  }

  async putMCPServer(name: string, cfg: MCPServerConfig): Promise<MCPServer> {
    await this.enter('putMCPServer', [name, cfg])
    return this.mcp.put(name, cfg)
  }

  async deleteMCPServer(name: string): Promise<void> {
    await this.enter('deleteMCPServer', [name])
    this.mcp.remove(name)
  }

  async setMCPToolPolicy(server: string, tool: string, policy: MCPPolicy): Promise<MCPTool> {
    await this.enter('setMCPToolPolicy', [server, tool, policy])
    return this.mcp.setPolicy(server, tool, policy)
  }

  async importMCPConfig(content: string): Promise<MCPImportResult> {
    await this.enter('importMCPConfig', [content])
    return this.mcp.importConfig(content)
  }

  async listCollections(): Promise<Collection[]> {
    await this.enter('listCollections', [])
    return this.knowledge.list()
  }

  async getCollection(id: string): Promise<Collection> {
    await this.enter('getCollection', [id])
    return clone(this.knowledge.get(id))
  }

  async createCollection(req: CollectionRequest): Promise<Collection> {
    await this.enter('createCollection', [req])
    return this.knowledge.create(req)
  }

  async updateCollection(id: string, req: CollectionRequest): Promise<Collection> {
    await this.enter('updateCollection', [id, req])
    return this.knowledge.update(id, req)
  }

  async reindexCollection(id: string): Promise<void> {
    await this.enter('reindexCollection', [id])
    this.knowledge.reindex(id)
  }

  async cancelCollection(id: string): Promise<Collection> {
    await this.enter('cancelCollection', [id])
    return this.knowledge.cancel(id)
  }

  async deleteCollection(id: string): Promise<void> {
    await this.enter('deleteCollection', [id])
    this.knowledge.remove(id)
  }

  async searchCollection(id: string, req: KnowledgeSearchRequest): Promise<KnowledgeSearchResponse> {
    await this.enter('searchCollection', [id, req])
    return { results: this.knowledge.search(id, req.query, req.top_k) }
  }

  async setConversationKnowledge(id: string, collections: string[]): Promise<void> {
    await this.enter('setConversationKnowledge', [id, collections])
    const d = this.mustGet(id)
    for (const c of collections) this.knowledge.get(c)
    if (collections.length) d.knowledge = [...collections]
    else delete d.knowledge
    this.emit('conversation:updated', { conversationId: id, knowledge: [...collections] })
  }

  async openSource(path: string): Promise<boolean> {
    await this.enter('openSource', [path])
    if (!this.nativeFileDialogs) return false
    this.openedSources.push(path)
    return true
  }

  on<E extends EventName>(event: E, handler: EventHandler<E>): Unsubscribe {
    return this.emitter.on(event, handler)
  }

  openExternal(url: string): void {
    this.opened.push(url)
  }

  async copyText(text: string): Promise<boolean> {
    this.copied.push(text)
    return true
  }
}
