// An in-memory Transport for tests only (never imported by the app: see
// architecture.test.ts; the demo is the Go side's, `parley serve --demo`). It
// implements the generated calls (../api/calls.gen.ts: a new call breaks its
// compile until it is added here) and the platform part. It keeps
// conversations, messages and cards, validates responses like the Go side
// (SPEC §1; ./fakeCards.ts), exports and imports like it (./fakeExport.ts),
// records every call by its name with its request, and lets tests emit any
// event.
import type {
  AppInfo,
  Card,
  Conversation,
  ConversationDetail,
  ConversationPage,
  EventMap,
  EventName,
  ExportFormat,
  ExportResult,
  Health,
  AgentListener,
  AgentToken,
  NewAgentToken,
  MCPImportResult,
  MCPServer,
  MCPTool,
  Message,
  ModelInfo,
  ModelPullEvent,
  ModelStats,
  ModelStatus,
  Profile,
  Role,
  RunState,
  Settings,
  SettingsExport,
  ToolInfo,
} from '../types'
import type * as W from '../api/wire.gen'
import type { SearchMatch, TraceMark } from '../api/wire.gen'
import type { EngineStatus } from '../api/wire.gen'
import { SNIPPET_CLOSE, SNIPPET_OPEN } from '../api/wire.gen'
import { DEFAULT_PROFILE, isRunActive, THINKING_SETTINGS } from '../types'
import { isAnswerable, normalizeCard } from '../lib/cards'
import { DEFAULT_SETTINGS, normalizeProfile } from '../lib/settings'
import { contentResult, Emitter, TransportError, type EventHandler, type SavedFileKind, type Transport, type Unsubscribe } from './transport'
import { autoTitle, clone, defaultProfile, FAKE_TOOLS, fakeId, PROFILE_NAME, type FakeCall, type PendingPull } from './fakeData'
import { resolveCard } from './fakeCards'
import { exportText, importTitle, parseExport } from './fakeExport'
import { FakeMcp } from './fakeMcp'
import { FakeKnowledge } from './fakeKnowledge'
import { FakeEngineLibrary } from './fakeEngine'

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
  /** Like the desktop app when true: saveFile "saves" to `savedDir`, chooseConversationFile reads `nextImportFile`. */
  nativeFileDialogs = false
  /** Stored profiles (by name); the default one is here once changed. */
  storedProfiles = new Map<string, Profile>()
  tools: ToolInfo[] = clone(FAKE_TOOLS)
  /** Native dialogs: where exports go; null makes the save dialog "cancelled". */
  savedDir: string | null = '/home/user/Documents'
  /** Native dialogs: the text of the file the open dialog picks; null = cancelled. */
  nextImportFile: string | null = null
  /** Native dialogs: the text of the backup the open dialog picks; null = cancelled. */
  nextBackupFile: string | null = null
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
  /** The built-in engine's model library (SPEC §12); downloads are moved on by tests. */
  readonly engineLibrary = new FakeEngineLibrary((d) => this.emit('engine:download', d))
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
    if (d.project_id) c.project_id = d.project_id
    if (d.knowledge) c.knowledge = [...d.knowledge]
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
      ...(partial.project_id ? { project_id: partial.project_id } : {}),
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

  // ---- Transport: the generated calls (one request object each) --------------

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

  async trace(): Promise<W.TraceRecords> {
    await this.enter('trace', [])
    if (!this.traceOn) throw new TransportError('no such endpoint')
    return { records: [] }
  }

  async listConversations(params: W.ListConversationsArgs = {}): Promise<ConversationPage> {
    await this.enter('listConversations', [params])
    const q = (params.q ?? '').trim().toLowerCase()
    const all = [...this.conversations.values()]
      .filter((c) => !q || c.title.toLowerCase().includes(q) || c.messages.some((m) => m.content.toLowerCase().includes(q)))
      .filter((c) => !params.project || c.project_id === params.project)
      .sort((a, b) => (b.updated_at ?? '').localeCompare(a.updated_at ?? ''))
    const start = params.cursor ? Number(params.cursor) : 0
    const limit = params.limit ?? 50
    const items = all.slice(start, start + limit).map((d) => ({ ...this.summary(d), ...(q ? { match: fakeMatch(d, q) } : {}) }))
    const next = start + limit < all.length ? String(start + limit) : null
    return clone({ items, ...(next ? { next_cursor: next } : {}) })
  }

  async createConversation(params: W.CreateConversationArgs = {}): Promise<Conversation> {
    await this.enter('createConversation', [params])
    // As Go: an unknown project is refused; one without an assistant gets the project's profile.
    const project = params.project_id ? this.projectsById.get(params.project_id) : undefined
    if (params.project_id && !project) throw new TransportError(`unknown project "${params.project_id}"`, 400)
    const assistant = params.assistant || (project?.profile && this.storedProfiles.has(project.profile) ? project.profile : 'default')
    const d = this.addConversation({ title: params.title || 'New chat', assistant, project_id: project?.id })
    return clone(this.summary(d))
  }

  /** As Go: the whole visible path, or the `last` messages of it before `before` (with how many come earlier). */
  async getConversation(req: W.GetConversationArgs): Promise<ConversationDetail> {
    await this.enter('getConversation', [req])
    return this.windowOf(this.mustGet(req.id), req.last, req.before)
  }

  /**
   * Changes what the request gives, in Go's order (service.UpdateConversation:
   * the refusable settings first), each change sent as its own
   * conversation:updated; returns the conversation.
   */
  async updateConversation(req: W.UpdateConversationArgs): Promise<ConversationDetail> {
    await this.enter('updateConversation', [req])
    const { id } = req
    const d = this.mustGet(id)
    if (req.title === undefined && req.pinned === undefined && req.assistant === undefined && req.model === undefined && req.thinking === undefined && req.knowledge === undefined && req.project_id === undefined) {
      throw new TransportError('give "title", "pinned", "assistant", "model", "thinking", "knowledge" and/or "project_id"', 400)
    }
    if (req.project_id !== undefined) {
      const pid = req.project_id.trim()
      if (pid && !this.projectsById.has(pid)) throw new TransportError(`unknown project "${pid}"`, 400)
      if (pid) d.project_id = pid
      else delete d.project_id
      this.emit('conversation:updated', { conversationId: id, project_id: pid })
    }
    if (req.thinking !== undefined) {
      const value = req.thinking.trim()
      if (value && !(THINKING_SETTINGS as readonly string[]).includes(value)) {
        throw new TransportError(`thinking must be "auto", "off", "low", "medium" or "high" (not "${value}")`, 422)
      }
      if (value) d.thinking = value
      else delete d.thinking
      this.emit('conversation:updated', { conversationId: id, thinking: value })
    }
    if (req.knowledge !== undefined) {
      const collections = req.knowledge
      for (const c of collections) this.knowledge.get(c)
      if (collections.length) d.knowledge = [...collections]
      else delete d.knowledge
      this.emit('conversation:updated', { conversationId: id, knowledge: [...collections] })
    }
    if (req.assistant !== undefined) {
      const name = req.assistant || DEFAULT_PROFILE
      if (name !== DEFAULT_PROFILE && !this.storedProfiles.has(name)) throw new TransportError(`unknown assistant "${name}"`, 400)
      d.assistant = name
      this.emit('conversation:updated', { conversationId: id, assistant: name })
    }
    if (req.model !== undefined) {
      const name = req.model.trim()
      if (name.length > 200) throw new TransportError('a model name can be at most 200 characters', 400)
      if (name) d.model = name
      else delete d.model
      this.emit('conversation:updated', { conversationId: id, model: name })
    }
    if (req.title !== undefined) {
      if (!req.title.trim()) throw new TransportError('title must not be empty', 400)
      d.title = req.title.trim()
      this.emit('conversation:updated', { conversationId: id, title: d.title })
    }
    if (req.pinned !== undefined) {
      d.pinned = req.pinned
      this.emit('conversation:updated', { conversationId: id, pinned: req.pinned })
    }
    return clone(d)
  }

  async deleteConversation(req: W.ByID): Promise<W.Deleted> {
    await this.enter('deleteConversation', [req])
    const { id } = req
    this.mustGet(id)
    this.conversations.delete(id)
    for (const [qid, c] of this.cards) if (c.conversationId === id) this.cards.delete(qid)
    this.emit('conversation:deleted', { conversationId: id })
    return { deleted: true }
  }

  // ---- memory (SPEC §14) -----------------------------------------------------

  /** Memories, newest first. */
  storedMemories: W.Memory[] = []

  async memories(req: W.MemoriesArgs): Promise<W.Memory[]> {
    await this.enter('memories', [req])
    const project = req.project ?? 'all'
    return this.storedMemories
      .filter((m) => project === 'all' || (project === 'none' ? m.project_id === null : m.project_id === project))
      .map(clone)
  }

  async createMemory(req: W.MemoryRequest): Promise<W.Memory> {
    await this.enter('createMemory', [req])
    const text = req.text.trim()
    if (!text || [...text].length > 500) throw new TransportError('A memory is 1 to 500 characters.', 400)
    if (this.settings.memory === 'off') throw new TransportError('Memory is off.', 400)
    const m: W.Memory = { id: `m${Date.now()}-${this.storedMemories.length}`, text, source: { type: 'user' },
      project_id: req.project_id || null, auto_answer: false, created_at: new Date().toISOString(), used_at: null }
    this.storedMemories.unshift(m)
    this.emit('memory:changed', { conversationId: '', ids: [m.id] })
    return clone(m)
  }

  async updateMemory(req: W.UpdateMemoryArgs): Promise<W.Memory> {
    await this.enter('updateMemory', [req])
    const m = this.storedMemories.find((x) => x.id === req.id)
    if (!m) throw new TransportError('No such memory.', 404)
    if (req.text !== undefined) {
      const text = req.text.trim()
      if (!text || [...text].length > 500) throw new TransportError('A memory is 1 to 500 characters.', 400)
      m.text = text
    }
    if (req.auto_answer !== undefined) {
      if (req.auto_answer && m.source.type !== 'answer') throw new TransportError('Only a remembered answer can answer cards.', 400)
      m.auto_answer = req.auto_answer
    }
    this.emit('memory:changed', { conversationId: '', ids: [m.id] })
    return clone(m)
  }

  async deleteMemory(req: W.ByID): Promise<W.Deleted> {
    await this.enter('deleteMemory', [req])
    const i = this.storedMemories.findIndex((x) => x.id === req.id)
    if (i < 0) throw new TransportError('No such memory.', 404)
    this.storedMemories.splice(i, 1)
    this.emit('memory:changed', { conversationId: '', ids: [req.id] })
    return { deleted: true }
  }

  /** Keeps one memory per named question of an answered card, as Go's respond does with "remember" (one per question: a newer answer replaces it). */
  private rememberAnswers(card: Card, names: string[]): void {
    if (this.settings.memory === 'off') return
    const ids: string[] = []
    for (const q of card.questions.filter((x) => names.some((n) => n.trim() === x.question))) {
      const text = `${q.header ? `${q.header}: ` : ''}${q.question} — ${card.answers?.[q.question] ?? ''}`.slice(0, 500)
      const prefix = `${q.header ? `${q.header}: ` : ''}${q.question} — `
      const old = this.storedMemories.filter((m) => m.source.type === 'answer' && m.text.startsWith(prefix))
      ids.push(...old.map((m) => m.id))
      this.storedMemories = this.storedMemories.filter((m) => !old.includes(m))
      const m: W.Memory = { id: fakeId('mem'), text, source: { type: 'answer', conversationId: card.conversationId, question_id: card.question_id },
        project_id: null, auto_answer: false, created_at: new Date().toISOString(), used_at: null }
      this.storedMemories.unshift(m)
      ids.push(m.id)
    }
    this.emit('memory:changed', { conversationId: card.conversationId, ids })
  }

  async deleteAllMemories(): Promise<W.Deleted> {
    await this.enter('deleteAllMemories', [])
    this.storedMemories = []
    this.emit('memory:changed', { conversationId: '', ids: [], all: true })
    return { deleted: true }
  }

  // ---- projects and the full backup (SPEC §14) -------------------------------

  /** Projects by id. */
  projectsById = new Map<string, W.Project>()

  async projects(): Promise<W.Project[]> {
    await this.enter('projects', [])
    return [...this.projectsById.values()].map(clone).sort((a, b) => a.name.localeCompare(b.name))
  }

  async createProject(req: W.ProjectRequest): Promise<W.Project> {
    await this.enter('createProject', [req])
    const name = (req.name ?? '').trim()
    if (!name) throw new TransportError('A project needs a name.', 400)
    const now = new Date().toISOString()
    const p: W.Project = { id: `p${this.projectsById.size + 1}-${Date.now()}`, name, instructions: req.instructions ?? '',
      knowledge: [...(req.knowledge ?? [])], created_at: now, updated_at: now,
      ...(req.profile ? { profile: req.profile } : {}), ...(req.model ? { model: req.model } : {}) }
    this.projectsById.set(p.id, p)
    this.emit('project:changed', { conversationId: '', id: p.id, project: clone(p) })
    return clone(p)
  }

  async getProject(req: W.ByID): Promise<W.Project> {
    await this.enter('getProject', [req])
    return clone(this.mustGetProject(req.id))
  }

  async updateProject(req: W.UpdateProjectArgs): Promise<W.Project> {
    await this.enter('updateProject', [req])
    const p = this.mustGetProject(req.id)
    if (req.name !== undefined) {
      if (!req.name.trim()) throw new TransportError('A project needs a name.', 400)
      p.name = req.name.trim()
    }
    if (req.instructions !== undefined) p.instructions = req.instructions
    if (req.knowledge !== undefined) p.knowledge = [...req.knowledge]
    if (req.profile !== undefined) p.profile = req.profile || undefined
    if (req.model !== undefined) p.model = req.model || undefined
    p.updated_at = new Date().toISOString()
    this.emit('project:changed', { conversationId: '', id: p.id, project: clone(p) })
    return clone(p)
  }

  async deleteProject(req: W.DeleteProjectArgs): Promise<W.Deleted> {
    await this.enter('deleteProject', [req])
    this.mustGetProject(req.id)
    for (const d of [...this.conversations.values()]) {
      if (d.project_id !== req.id) continue
      if (req.with_conversations) await this.deleteConversation({ id: d.id })
      else {
        delete d.project_id
        this.emit('conversation:updated', { conversationId: d.id, project_id: '' })
      }
    }
    this.projectsById.delete(req.id)
    this.emit('project:changed', { conversationId: '', id: req.id, project: null, deleted: true })
    return { deleted: true }
  }

  async exportBackup(): Promise<W.ExportedFile> {
    await this.enter('exportBackup', [])
    const content = JSON.stringify({ format: 'parley.backup', version: 1, projects: [...this.projectsById.values()],
      conversations: [...this.conversations.values()] }, null, 2)
    return { name: 'parley-backup.json', mime_type: 'application/json', content }
  }

  async importBackup(req: W.ImportBackupArgs): Promise<W.BackupImported> {
    await this.enter('importBackup', [req])
    let backup: { format?: string; projects?: W.Project[]; conversations?: ConversationDetail[] }
    try {
      backup = JSON.parse(req.data)
    } catch {
      throw new TransportError('This is not a Parley backup.', 400)
    }
    if (backup.format !== 'parley.backup') throw new TransportError('This is not a Parley backup.', 400)
    const added = { projects: 0, conversations: 0 }
    const skipped = { projects: 0, conversations: 0 }
    for (const p of backup.projects ?? []) {
      if (this.projectsById.has(p.id)) skipped.projects++
      else {
        this.projectsById.set(p.id, clone(p))
        added.projects++
        this.emit('project:changed', { conversationId: '', id: p.id, project: clone(p) })
      }
    }
    for (const d of backup.conversations ?? []) {
      if (this.conversations.has(d.id)) skipped.conversations++
      else {
        this.conversations.set(d.id, clone(d))
        added.conversations++
        this.emit('conversation:updated', { conversationId: d.id, title: d.title })
      }
    }
    return { added, skipped }
  }

  private mustGetProject(id: string): W.Project {
    const p = this.projectsById.get(id)
    if (!p) throw new TransportError('No such project.', 404)
    return p
  }

  /** A message: a plain one at the end, or (parent_id given) an edit that starts a new branch; files either way. */
  async send(req: W.SendArgs): Promise<W.RunStarted> {
    await this.enter('send', [req])
    const { id } = req
    const content = req.content ?? ''
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    if (!content.trim() && !req.attachments?.length) throw new TransportError('content must not be empty', 400)
    if (req.parent_id === undefined && !req.attachments?.length) {
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
    // The fake keeps the visible path only: a new branch replaces what follows its parent.
    const sibling = req.parent_id === undefined ? undefined : this.branchAt(d, req.parent_id)
    this.addMessage(id, {
      role: 'user',
      content,
      ...(req.attachments?.length ? { attachments: req.attachments } : {}),
      ...(sibling ? { parent_id: req.parent_id, siblings: sibling.siblings + 1, sibling_index: sibling.siblings } : {}),
    })
    this.setState(id, 'requesting')
    this.onSend?.(id, content)
    return { run_id: fakeId('run') }
  }

  async regenerate(req: W.RegenerateArgs): Promise<W.RunStarted> {
    await this.enter('regenerate', [req])
    const { id, message_id: messageId } = req
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    const at = d.messages.findIndex((m) => m.id === messageId)
    if (at < 0) throw new TransportError(`message ${messageId} not found`, 404)
    if (d.messages[at]!.role === 'user') throw new TransportError('regenerate takes a reply of the assistant', 400)
    const user = d.messages.slice(0, at).map((m) => m.role).lastIndexOf('user')
    if (user < 0) throw new TransportError('this reply answers no message of yours', 400)
    this.branchAt(d, d.messages[user]!.id)
    this.setState(id, 'requesting')
    this.onRetry?.(id, d.messages[user]!.content)
    return { run_id: fakeId('run') }
  }

  async selectBranch(req: W.SelectBranchArgs): Promise<ConversationDetail> {
    await this.enter('selectBranch', [req])
    const d = this.mustGet(req.id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    if (!d.messages.some((m) => m.id === req.message_id)) throw new TransportError(`message ${req.message_id} not found`, 404)
    return this.windowOf(d, req.last)
  }

  /** The conversation with the newest `last` messages of its path only (all when not given), as Go gives it. */
  private windowOf(d: ConversationDetail, last: number | undefined, before?: string): ConversationDetail {
    if (last === undefined && !before) return clone(d)
    if (last !== undefined && !(Number.isInteger(last) && last >= 1)) throw new TransportError('"last" must be a positive number of messages', 400)
    let end = d.messages.length
    if (before) {
      end = d.messages.findIndex((m) => m.id === before)
      if (end < 0) throw new TransportError(`message ${before}: not found`, 404)
    }
    const start = last === undefined ? 0 : Math.max(0, end - last)
    const { messages: _all, ...rest } = d
    return clone({ ...rest, messages: d.messages.slice(start, end), ...(start > 0 ? { earlier: start } : {}) })
  }

  async forkQuestion(req: W.ForkQuestionArgs): Promise<W.RunStarted> {
    await this.enter('forkQuestion', [req])
    const { id, question_id: questionId } = req
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

  async retry(req: W.ByID): Promise<W.RunStarted> {
    await this.enter('retry', [req])
    const { id } = req
    const d = this.mustGet(id)
    if (isRunActive(d.state)) throw new TransportError('a run is already active in this conversation', 409)
    const lastUser = [...d.messages].reverse().find((m) => m.role === 'user')
    if (!lastUser) throw new TransportError('nothing to retry: the conversation has no user message', 400)
    const runId = fakeId('run')
    this.setState(id, 'requesting')
    this.onRetry?.(id, lastUser.content)
    return { run_id: runId }
  }

  async cancel(req: W.ByID): Promise<W.OK> {
    await this.enter('cancel', [req])
    const { id } = req
    const d = this.mustGet(id)
    const card = d.pending_question && this.cards.get(d.pending_question.question_id)
    if (card && card.status === 'pending') {
      card.status = 'cancelled'
      d.pending_question = null
      this.emit('question:resolved', clone(card))
    }
    this.setState(id, 'idle')
    return { ok: true }
  }

  async respond(args: W.RespondArgs): Promise<Card> {
    await this.enter('respond', [args])
    const { id, ...req } = args
    const d = this.mustGet(id)
    let card = req.question_id === 'latest' ? d.pending_question && this.cards.get(d.pending_question.question_id) : this.cards.get(req.question_id)
    if (!card || card.conversationId !== id) throw new TransportError('unknown question', 404)
    if (!isAnswerable(card.status, card.kind)) throw new TransportError('question is no longer pending', 409)
    const remember = req.remember ?? []
    if (remember.length) {
      if (req.action !== 'submit') throw new TransportError('"remember" goes with "action": "submit"', 400)
      const unknown = remember.find((name) => !card!.questions.some((q) => q.question === name.trim()))
      if (unknown !== undefined) throw new TransportError(`the card has no question "${unknown}" to remember`, 400)
    }
    const late = card.status === 'timed_out'
    resolveCard(card, req, late)
    if (d.pending_question?.question_id === card.question_id) d.pending_question = null
    this.emit('question:resolved', clone(card))
    if (remember.length) this.rememberAnswers(card, remember)
    if (req.action === 'cancel') this.setState(id, 'idle')
    else if (!late) this.setState(id, 'requesting')
    return clone(card)
  }

  async questions(req: W.QuestionsArgs = {}): Promise<Card[]> {
    await this.enter('questions', [req])
    return clone([...this.cards.values()].filter((c) => !req.status || c.status === req.status))
  }

  async pendingQuestion(req: W.ByID): Promise<W.PendingQuestionState> {
    await this.enter('pendingQuestion', [req])
    const d = this.mustGet(req.id)
    const card = d.pending_question && this.cards.get(d.pending_question.question_id)
    if (!card || card.status !== 'pending') {
      return { has_pending_question: false, question_id: null, questions: [], created_at: null, expires_at: null } as unknown as W.PendingQuestionState
    }
    return clone({ has_pending_question: true, ...card }) as W.PendingQuestionState
  }

  async conversationQuestions(req: W.ByID): Promise<Card[]> {
    await this.enter('conversationQuestions', [req])
    const { id } = req
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
    if (!(Number.isInteger(next.engine_threads) && next.engine_threads >= 0 && next.engine_threads <= 256)) {
      throw new TransportError("the built-in engine's threads must be 0 (automatic) to 256", 400)
    }
    const dirChanged = (next.engine_models_dir ?? '') !== (this.settings.engine_models_dir ?? '')
    if (dirChanged) {
      // As the Go side (backend/service/modelsdir.go).
      const dir = next.engine_models_dir.trim()
      if (dir && !dir.startsWith('/')) throw new TransportError(`The models folder must be an absolute path (such as /home/me/models), not "${dir}".`, 400)
      if (this.engineLibrary.dirByFlag) {
        throw new TransportError(`The models folder is set by the command line (--models-dir or PARLEY_MODELS_DIR): "${this.engineLibrary.dir}". Start Parley without it to change the folder here.`, 409)
      }
      const busy = this.engineLibrary.busy().length
      if (busy) throw new TransportError(`The models folder cannot change while ${busy} download(s) are in progress or paused. Let them finish, or cancel them, first.`, 409)
      if (this.engineLibrary.files.get(dir) !== undefined) throw new TransportError(`The models folder "${dir}" cannot be used: not a folder. Choose a folder Parley can create and write to.`, 422)
    }
    if (next.engine === 'builtin' && next.model && (next.model !== this.settings.model || this.settings.engine !== 'builtin')) {
      // As the Go side: a built-in model must be installed and readable.
      const m = this.engineLibrary.list().find((x) => x.id === next.model)
      if (!m) throw new TransportError(`No model "${next.model}" is installed.`, 422)
      if (m.state === 'broken') throw new TransportError(`${next.model} cannot be used: ${m.error ?? 'it is broken'}.`, 422)
      const tooBig = this.engineLibrary.tooBig(m.id)
      if (tooBig) throw new TransportError(tooBig, 422)
    }
    if (dirChanged) this.engineLibrary.setDir(next.engine_models_dir.trim())
    this.settings = next
    return clone(this.settings)
  }

  /** The updater (SPEC §13): a build that never updates itself, unless a test sets updateStatus. */
  updateStatus: W.UpdateStatus = { current: 'fake', kind: '', auto: true, state: 'idle', available: null }
  /** What the next checkUpdate finds (null: the state stays as it is). */
  nextCheck: W.UpdateStatus | null = null

  /** Changes the updater's state as Go does: the update:state event with the status. */
  setUpdate(change: Partial<W.UpdateStatus>): void {
    this.updateStatus = { ...this.updateStatus, ...change }
    this.emit('update:state', clone(this.updateStatus))
  }

  async getUpdate(): Promise<W.UpdateStatus> {
    await this.enter('getUpdate', [])
    return clone(this.updateStatus)
  }

  async checkUpdate(): Promise<W.UpdateStatus> {
    await this.enter('checkUpdate', [])
    this.updateStatus = { ...this.updateStatus, ...(this.nextCheck ?? {}), checked_at: new Date().toISOString() }
    return clone(this.updateStatus)
  }

  async applyUpdate(): Promise<W.UpdateStatus> {
    await this.enter('applyUpdate', [])
    if (this.updateStatus.state !== 'ready') throw new TransportError('no update is ready to install', 409)
    return clone(this.updateStatus)
  }

  /** The built-in engine's state (stopped: the fake runs no engine). */
  async engineStatus(): Promise<EngineStatus> {
    await this.enter('engineStatus', [])
    return {
      state: 'stopped', model: null, backend: '', models_dir: this.engineLibrary.dir, models_dir_by_flag: this.engineLibrary.dirByFlag,
      memory: clone(this.engineLibrary.memory),
    }
  }

  async engineModels(): Promise<W.EngineModel[]> {
    await this.enter('engineModels', [])
    return this.engineLibrary.list()
  }

  async engineCatalog(): Promise<W.EngineCatalogEntry[]> {
    await this.enter('engineCatalog', [])
    return this.engineLibrary.listCatalog()
  }

  async checkHubFile(req: W.HubFileArgs): Promise<W.HubFile> {
    await this.enter('checkHubFile', [req])
    return this.engineLibrary.check(req)
  }

  async startEngineDownload(req: W.EngineDownloadRequest): Promise<W.EngineDownload> {
    await this.enter('startEngineDownload', [req])
    return this.engineLibrary.start(req)
  }

  async engineDownloads(): Promise<W.EngineDownload[]> {
    await this.enter('engineDownloads', [])
    return this.engineLibrary.listDownloads()
  }

  async pauseEngineDownload(req: W.ByID): Promise<W.EngineDownload> {
    await this.enter('pauseEngineDownload', [req])
    return this.engineLibrary.pause(req.id)
  }

  async resumeEngineDownload(req: W.ByID): Promise<W.EngineDownload> {
    await this.enter('resumeEngineDownload', [req])
    return this.engineLibrary.resume(req.id)
  }

  async cancelEngineDownload(req: W.ByID): Promise<W.EngineDownload> {
    await this.enter('cancelEngineDownload', [req])
    return this.engineLibrary.cancel(req.id)
  }

  async importEngineModel(req: W.ImportModelArgs): Promise<W.EngineModel> {
    await this.enter('importEngineModel', [req])
    return this.engineLibrary.import(req.path)
  }

  async updateEngineModel(req: W.UpdateEngineModelArgs): Promise<W.EngineModel> {
    await this.enter('updateEngineModel', [req])
    return this.engineLibrary.setAllowLarge(req.id, req.allow_large)
  }

  async deleteEngineModel(req: W.ByID): Promise<W.Deleted> {
    await this.enter('deleteEngineModel', [req])
    this.engineLibrary.remove(req.id)
    return { deleted: true }
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
    if (s.engine === 'builtin') {
      // The built-in engine (SPEC §12): its models are the installed ones.
      const models = this.engineLibrary.list().filter((m) => m.state === 'ready').map((m) => ({ name: m.id, supports_tools: m.capabilities.includes('tools') }))
      return { reachable: true, base_url: s.base_url, model: s.model, demo: false, ollama: false, models }
    }
    if (!this.reachable) return { reachable: false, base_url: s.base_url, model: s.model, demo: false, ollama: false, message: this.unreachableMessage, models: [] }
    return { reachable: true, base_url: s.base_url, model: s.model, demo: false, ollama: this.ollama ?? /:11434(\/|$)/.test(s.base_url), models: clone(this.models) }
  }

  pullModel(req: W.PullModelArgs): Promise<W.PullDone> {
    const name = req.model
    return this.enter('pullModel', [req]).then(() => {
      const progress = (p: Omit<ModelPullEvent, 'model' | 'conversationId'>) => this.emit('model:pull', { ...p, conversationId: '', model: name })
      if (this.pullHandler) return this.pullHandler(name, progress).then(() => ({ status: 'success' }))
      return new Promise<W.PullDone>((resolve, reject) => {
        const pull: PendingPull = {
          name,
          progress: (status, total, completed) => progress({ status, total, completed }),
          resolve: () => {
            this.pulls = this.pulls.filter((p) => p !== pull)
            // As Ollama does, a name pulled without a tag is listed as name:latest.
            const listed = name.slice(name.lastIndexOf('/') + 1).includes(':') ? name : `${name}:latest`
            if (!this.models.some((m) => m.name === listed)) this.models.push({ name: listed, supports_tools: true })
            resolve({ status: 'success' })
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

  async resetModelStats(): Promise<W.Reset> {
    await this.enter('resetModelStats', [])
    this.stats = []
    return { reset: true }
  }

  async exportSettings(): Promise<SettingsExport> {
    await this.enter('exportSettings', [])
    return clone({ format: 'parley-settings', version: 1, exported_at: new Date(0).toISOString(), settings: { ...this.settings, api_key: '' },
      profiles: this.profileList(), model_stats: this.stats })
  }

  async appInfo(): Promise<AppInfo> {
    await this.enter('appInfo', [])
    return clone(this.info)
  }

  // ---- profiles, export and import (like backend/service/profiles.go) -------

  async profiles(): Promise<Profile[]> {
    await this.enter('profiles', [])
    return this.profileList()
  }

  private profileList(): Profile[] {
    const def = this.storedProfiles.get(DEFAULT_PROFILE) ?? defaultProfile()
    const others = [...this.storedProfiles.values()].filter((p) => p.name !== DEFAULT_PROFILE).sort((a, b) => a.name.localeCompare(b.name))
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
    this.storedProfiles.set(p.name, p)
    return clone(p)
  }

  async deleteProfile(req: W.ByName): Promise<W.Deleted> {
    await this.enter('deleteProfile', [req])
    const { name } = req
    if (!this.storedProfiles.delete(name) && name !== DEFAULT_PROFILE) throw new TransportError('not found', 404)
    return { deleted: true }
  }

  async availableTools(): Promise<ToolInfo[]> {
    await this.enter('availableTools', [])
    return clone(this.tools)
  }

  /** The export text: JSON in Go's parley.conversation format, or a Markdown transcript. */
  exportText(id: string, format: ExportFormat): string {
    return exportText(this.mustGet(id), [...this.cards.values()].filter((c) => c.conversationId === id), format)
  }

  /** The export as Go's ExportConversation gives it (a file: its name, type and text). */
  async exportConversation(req: W.ExportArgs): Promise<W.ExportedFile> {
    await this.enter('exportConversation', [req])
    const format = (req.format || 'markdown') as ExportFormat
    if (format !== 'markdown' && format !== 'json') throw new TransportError('format must be "markdown" or "json"', 400)
    const content = this.exportText(req.id, format)
    const json = format === 'json'
    return { name: `conversation.${json ? 'json' : 'md'}`, mime_type: json ? 'application/json' : 'text/markdown; charset=utf-8', content }
  }

  /** Like the desktop app's save dialog with native dialogs (into `savedDir`, null = cancelled), else the text to download. */
  async saveFile(file: W.ExportedFile, what: SavedFileKind): Promise<ExportResult> {
    await this.enter('saveFile', [file, what])
    if (!this.nativeFileDialogs) return contentResult(file)
    if (this.savedDir === null) return { kind: 'cancelled' }
    return { kind: 'saved', path: `${this.savedDir}/${file.name}` }
  }

  /** The desktop app's open dialog: `nextImportFile` (null = cancelled); none in a browser. */
  async chooseConversationFile(): Promise<string | null> {
    await this.enter('chooseConversationFile', [])
    if (!this.nativeFileDialogs) throw new TransportError('Choose a file to import', 400)
    return this.nextImportFile
  }

  /** The desktop app's open dialog for a backup: `nextBackupFile` (null = cancelled); none in a browser. */
  async chooseBackupFile(): Promise<string | null> {
    await this.enter('chooseBackupFile', [])
    if (!this.nativeFileDialogs) throw new TransportError('Choose a file to import', 400)
    return this.nextBackupFile
  }

  async importConversation(req: W.ImportArgs): Promise<Conversation> {
    await this.enter('importConversation', [req])
    const { conversation: c, messages: msgs } = parseExport(req.data)
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

  async createAgentToken(req: W.AgentTokenRequest): Promise<NewAgentToken> {
    await this.enter('createAgentToken', [req])
    const { name } = req
    if (!name.trim()) throw new TransportError('invalid agent name: must be 1-64 characters (got 0)', 422)
    const id = fakeId('tok')
    this.agentTokenList.push({ id, name: name.trim(), created_at: new Date().toISOString(), last_used_at: null })
    return { id, name: name.trim(), token: 'parley_agent_' + id }
  }

  async revokeAgentToken(req: W.ByID): Promise<void> {
    await this.enter('revokeAgentToken', [req])
    const { id } = req
    this.agentTokenList = this.agentTokenList.filter((t) => t.id !== id)
  }

  async mcpServers(): Promise<MCPServer[]> {
    await this.enter('mcpServers', [])
    return this.mcp.list()
  }

  async getMCPServer(req: W.ByName): Promise<MCPServer> {
    await this.enter('getMCPServer', [req])
    const s = this.mcp.list().find((x) => x.name === req.name)
    if (!s) throw new TransportError(`No MCP server named ${req.name}.`, 404)
    return s
  }

  async putMCPServer(req: W.PutMCPServerArgs): Promise<MCPServer> {
    await this.enter('putMCPServer', [req])
    const { name, ...cfg } = req
    return this.mcp.put(name, cfg)
  }

  async deleteMCPServer(req: W.ByName): Promise<W.Deleted> {
    await this.enter('deleteMCPServer', [req])
    this.mcp.remove(req.name)
    return { deleted: true }
  }

  async setMCPToolPolicy(req: W.MCPToolPolicyArgs): Promise<MCPTool> {
    await this.enter('setMCPToolPolicy', [req])
    return this.mcp.setPolicy(req.name, req.tool, req.policy as MCPTool['policy'])
  }

  async importMCPConfig(req: W.ImportMCPConfigArgs): Promise<MCPImportResult> {
    await this.enter('importMCPConfig', [req])
    return this.mcp.importConfig(req.content)
  }

  async collections(): Promise<W.Collection[]> {
    await this.enter('collections', [])
    return this.knowledge.list()
  }

  async getCollection(req: W.ByID): Promise<W.Collection> {
    await this.enter('getCollection', [req])
    return clone(this.knowledge.get(req.id))
  }

  async createCollection(req: W.CollectionRequest): Promise<W.Collection> {
    await this.enter('createCollection', [req])
    return this.knowledge.create(req)
  }

  async updateCollection(req: W.UpdateCollectionArgs): Promise<W.Collection> {
    await this.enter('updateCollection', [req])
    const { id, ...change } = req
    return this.knowledge.update(id, change)
  }

  async reindexCollection(req: W.ByID): Promise<W.Reindexing> {
    await this.enter('reindexCollection', [req])
    this.knowledge.reindex(req.id)
    return { reindexing: true }
  }

  async cancelCollection(req: W.ByID): Promise<W.Collection> {
    await this.enter('cancelCollection', [req])
    return this.knowledge.cancel(req.id)
  }

  async deleteCollection(req: W.ByID): Promise<W.Deleted> {
    await this.enter('deleteCollection', [req])
    this.knowledge.remove(req.id)
    return { deleted: true }
  }

  async searchCollection(req: W.SearchCollectionArgs): Promise<W.KnowledgeSearchResponse> {
    await this.enter('searchCollection', [req])
    return { results: this.knowledge.search(req.id, req.query, req.top_k) }
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

  /** Open at once unless a test holds it (`holdEventsOpen`). */
  eventsOpen(): Promise<void> {
    return this.eventsGate?.promise ?? Promise.resolve()
  }

  private eventsGate: { promise: Promise<void>; open: () => void } | null = null

  /** Plays an event stream slow to open; the returned function opens it. */
  holdEventsOpen(): () => void {
    let open = () => {}
    const promise = new Promise<void>((resolve) => (open = resolve))
    this.eventsGate = { promise, open }
    return () => {
      this.eventsGate = null
      open()
      this.emitter.emit('transport:connection', { connected: true, reconnected: false })
    }
  }

  openExternal(url: string): void {
    this.opened.push(url)
  }

  async copyText(text: string): Promise<boolean> {
    this.copied.push(text)
    return true
  }
}
