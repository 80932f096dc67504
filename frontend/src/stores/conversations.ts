// The conversation list of the sidebar: paging, search, new / rename /
// delete / pin, and which conversation is open. conversation:updated and
// conversation:deleted (from Go, whoever made the change) keep it current.
// It sits above the chat and questions stores: opening, sending to and
// deleting a conversation reach into them; they never call back.
import { defineStore } from 'pinia'
import { toRaw } from 'vue'
import type {
  Attachment,
  Conversation,
  ConversationDeletedEvent,
  ConversationStateEvent,
  ConversationUpdatedEvent,
  CreateConversationParams,
  ExportFormat,
  ExportResult,
} from '../types'
import { DEFAULT_PROFILE } from '../types'
import { useTransport } from '../transport'
import { useChatStore } from './chat'
import { OPEN_WINDOW } from './conversationWindow'
import { useQuestionsStore } from './questions'
import { t, t as i18nT } from '../i18n'
import { DEFAULT_TITLE, shownTitle } from '../lib/titles'
import { newerFirst, timeKey } from '../lib/times'
import { attempt, loadInto } from './asyncState'

export const PAGE_SIZE = 30

interface State {
  items: Conversation[]
  nextCursor: string | null
  query: string
  loading: boolean
  loadingMore: boolean
  loaded: boolean
  error: string | null
  /** Error of the last rename / pin / delete / create. */
  actionError: string | null
  currentId: string | null
  /**
   * Every conversation summary seen, by id, sharing the objects in `items`:
   * the header keeps the open conversation's title while a search hides it
   * from the list.
   */
  known: Record<string, Conversation>
  /** Conversations deleted while this window runs (late answers are ignored). */
  deleted: Record<string, true>
  /** The assistant profile new conversations get ('' = the default). */
  newAssistant: string
  /** The collections the next new conversation searches (the composer's picker before the first message). */
  newKnowledge: string[]
  /** The project the next new conversation starts in ('' = none; SPEC §14). */
  newProject: string
  /** Per project: the cursor of its next page of conversations (null: none left), once its first page was asked for. */
  projectCursors: Record<string, string | null>
  /** Per project: its conversations are being loaded. */
  projectLoading: Record<string, boolean>
  /** Per project: why loading its conversations failed. */
  projectErrors: Record<string, string | null>
  /** A short confirmation for the sidebar (e.g. where an export was saved). */
  notice: string | null
  /** Why the last import failed (nothing was added). */
  importError: string | null
  importing: boolean
}

/**
 * Newest first (last activity, else creation), as times to the digit,
 * unknown times last; equal times keep the list's order. Each item's time is
 * read once, through the reactive list (the getters follow it), and parsed
 * once; the sort compares plain numbers. A sort comparing the reactive items'
 * text with localeCompare read both times through the proxies and collated
 * them on each of its n·log n comparisons, for every getter it served.
 */
function newestFirst(list: Conversation[]): Conversation[] {
  const keyed = list.map((c) => ({ c, at: timeKey(c.updated_at || c.created_at) }))
  keyed.sort((x, y) => newerFirst(x.at, y.at))
  return keyed.map((k) => k.c)
}

/**
 * Whether `item` changed after every other conversation of `items` (raw
 * objects: this runs on each message event, and read through the reactive
 * list, with a locale comparison each, it cost ~0.5 ms an event with 1,000
 * conversations). Compared as times, as the lists are sorted (each text is
 * parsed once: lib/times).
 */
function newestOf(items: readonly Conversation[], item: Conversation): boolean {
  const mine = timeKey(item.updated_at || item.created_at)
  for (const c of items) if (c !== item && newerFirst(timeKey(c.updated_at || c.created_at), mine) <= 0) return false
  return true
}

function summaryOf(c: Conversation): Conversation {
  const out: Conversation = { id: c.id, title: c.title ?? '', assistant: c.assistant, pinned: c.pinned, created_at: c.created_at, updated_at: c.updated_at }
  if (c.model) out.model = c.model
  if (c.thinking) out.thinking = c.thinking
  if (c.match) out.match = c.match
  if (c.agent) out.agent = c.agent // listed under Agents (SPEC §10)
  if (c.project_id) out.project_id = c.project_id // grouped under its project (SPEC §14)
  return out
}

export const useConversationsStore = defineStore('conversations', {
  state: (): State => ({
    items: [],
    nextCursor: null,
    query: '',
    loading: false,
    loadingMore: false,
    loaded: false,
    error: null,
    actionError: null,
    currentId: null,
    known: {},
    deleted: {},
    newAssistant: '',
    newKnowledge: [],
    newProject: '',
    projectCursors: {},
    projectLoading: {},
    projectErrors: {},
    notice: null,
    importError: null,
    importing: false,
  }),

  getters: {
    pinned(state): Conversation[] {
      return newestFirst(state.items.filter((c) => c.pinned && !c.agent))
    },
    recent(state): Conversation[] {
      return newestFirst(state.items.filter((c) => !c.pinned && !c.agent))
    },
    /** Agents' conversations (SPEC §10): one per agent, listed under Agents. */
    agents(state): Conversation[] {
      return newestFirst(state.items.filter((c) => !!c.agent))
    },
    current(state): Conversation | null {
      if (!state.currentId) return null
      return state.items.find((c) => c.id === state.currentId) ?? state.known[state.currentId] ?? null
    },
    byId(state) {
      return (id: string): Conversation | undefined => state.items.find((c) => c.id === id) ?? state.known[id]
    },
  },

  actions: {
    /** Loads the first page (for the current search). */
    load(): Promise<void> {
      const query = this.query
      // When the search changed meanwhile, a newer load is on its way: it sets the fields.
      const stale = () => query !== this.query
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'error', stale }, async () => {
        const page = await useTransport().listConversations({ limit: PAGE_SIZE, q: query || undefined })
        if (stale()) return
        this.items = page.items.filter((c) => !this.deleted[c.id]).map(summaryOf)
        this.remember()
        this.nextCursor = page.next_cursor || null
        // The projects' own pages were dropped with the old list: their groups load them again.
        this.projectCursors = {}
        this.projectErrors = {}
      })
    },

    async loadMore(): Promise<void> {
      if (!this.nextCursor || this.loadingMore) return
      const cursor = this.nextCursor
      const query = this.query
      await loadInto(this, { loading: 'loadingMore', error: 'error' }, async () => {
        const page = await useTransport().listConversations({ limit: PAGE_SIZE, cursor, q: query || undefined })
        if (query !== this.query) return
        const known = new Set(this.items.map((c) => c.id))
        this.items.push(...page.items.filter((c) => !known.has(c.id) && !this.deleted[c.id]).map(summaryOf))
        this.remember()
        this.nextCursor = page.next_cursor || null
      })
    },

    async search(q: string): Promise<void> {
      const query = q.trim()
      if (query === this.query && this.loaded) return
      this.query = query
      await this.load()
    },

    /**
     * Creates a conversation (with the chosen assistant profile) and opens
     * it. `first` is called with it as soon as it exists, before anything
     * the page shows changes (see send).
     */
    async create(title?: string, first?: (c: Conversation) => void): Promise<Conversation | null> {
      const failed = (err: Error) => t('sidebar.errors.newChat', { error: err.message })
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        const params: CreateConversationParams = {}
        if (title) params.title = title
        if (this.newAssistant) params.assistant = this.newAssistant
        if (this.newProject) params.project_id = this.newProject
        const c = summaryOf(await useTransport().createConversation(params))
        first?.(c)
        this.newProject = ''
        if (this.query) {
          this.query = ''
          void this.load()
        }
        this.items = [c, ...this.items.filter((x) => x.id !== c.id)]
        this.remember()
        this.setCurrent(c.id)
        const chat = useChatStore()
        if (!chat.messages[c.id]) chat.messages[c.id] = []
        return c
      })
      return done.ok ? done.value : null
    },

    /** Shows the empty "new chat" screen; the chat starts in `projectId` ('' = in none) at its first message. */
    startNew(projectId = ''): void {
      this.newProject = projectId
      void this.select(null)
    },

    /**
     * Loads a page of a project's conversations (the first, or with `more`
     * the next) into the list, so its sidebar group is whole however far the
     * main list was paged.
     */
    async loadProject(projectId: string, more = false): Promise<void> {
      if (this.projectLoading[projectId]) return
      const cursor = more ? this.projectCursors[projectId] : undefined
      if (more && !cursor) return
      await loadInto(this, { key: projectId, loading: 'projectLoading', error: 'projectErrors' }, async () => {
        const page = await useTransport().listConversations({ limit: PAGE_SIZE, project: projectId, ...(cursor ? { cursor } : {}) })
        for (const c of page.items) {
          if (this.deleted[c.id]) continue
          const item = this.items.find((x) => x.id === c.id)
          if (item) Object.assign(item, summaryOf({ ...item, ...c }))
          else if (!this.query) this.items.push(summaryOf(c))
        }
        this.remember()
        this.projectCursors[projectId] = page.next_cursor || null
      })
    },

    /** Puts a conversation in a project, or ('' ) takes it out of its project. */
    async moveToProject(id: string, projectId: string): Promise<boolean> {
      const item = this.byId(id)
      if (!item || (item.project_id ?? '') === projectId) return false
      const before = item.project_id
      const set = (v: string | undefined) => {
        for (const c of new Set([item, this.items.find((x) => x.id === id), this.known[id]])) {
          if (!c) continue
          if (v) c.project_id = v
          else delete c.project_id
        }
      }
      set(projectId || undefined)
      const failed = (err: Error) => {
        set(before)
        return t('projects.errors.move', { error: err.message })
      }
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        await useTransport().updateConversation({ id, project_id: projectId })
      })
      return done.ok
    },

    /** A project was deleted: its conversations (those kept) are in no project now. */
    leftProject(projectId: string): void {
      for (const c of new Set([...this.items, ...Object.values(this.known)])) if (c.project_id === projectId) delete c.project_id
      delete this.projectCursors[projectId]
      delete this.projectLoading[projectId]
      delete this.projectErrors[projectId]
      if (this.newProject === projectId) this.newProject = ''
    },

    /** Opens a conversation (null shows the empty "new chat" screen). */
    async select(id: string | null): Promise<void> {
      this.setCurrent(id)
      if (id) await this.reload(id)
    },

    /**
     * Makes a conversation the open one. The one left is released (its
     * messages and settled cards are loaded again when it is opened), so
     * memory does not grow with every conversation opened in a session.
     */
    setCurrent(id: string | null): void {
      const left = this.currentId
      this.currentId = id
      if (left && left !== id) this.release(left)
    },

    release(id: string): void {
      useChatStore().release(id)
      useQuestionsStore().releaseConversation(id)
    },

    /** Loads a conversation's messages and cards again (it stays listed with its latest title). */
    async reload(id: string): Promise<void> {
      const detail = await useChatStore().open(id)
      if (detail) this.upsertSummary(detail)
      // Left while it loaded: what just arrived is not kept either.
      if (this.currentId !== id) this.release(id)
    },

    /**
     * Sends a user message to a conversation: the given one, else the open
     * one, else a new one (the new-chat screen). Resolves true once sent.
     */
    async send(content: string, conversationId?: string | null, attachments: Attachment[] = []): Promise<boolean> {
      if (!content.trim() && !attachments.length) return false
      let id = conversationId ?? this.currentId
      const chat = useChatStore()
      let sending: Promise<boolean> | null = null
      if (!id) {
        // A new chat's first message is sent as soon as its conversation
        // exists, in the same task and before the page changes: the page
        // then renders the new conversation once, with the message in it,
        // and the model's request does not wait for that render. Sent after
        // it, the message waited for the new conversation's whole first
        // render (its list, header and sidebar entry; ~30 ms of the
        // page's main thread), then came in a render of its own (issue #42).
        // With knowledge chosen, the collections are set first.
        const knowledge = this.newKnowledge.length > 0
        const created = await this.create(undefined, knowledge ? undefined : (c) => (sending = chat.send(content, c.id, attachments)))
        if (!created) return false
        id = created.id
        if (knowledge && !(await this.setKnowledge(id, this.newKnowledge))) return false
        this.newKnowledge = []
      }
      const sent = await (sending ?? chat.send(content, id, attachments))
      if (sent) this.touch(id)
      return sent
    },

    /** Retry after an error (chat.retry); the conversation moves up the list. */
    async retry(id: string): Promise<boolean> {
      const done = await useChatStore().retry(id)
      if (done) this.touch(id)
      return done
    },

    async rename(id: string, title: string): Promise<boolean> {
      const t = title.trim()
      const item = this.items.find((c) => c.id === id)
      if (!t || !item || t === item.title) return false
      const before = item.title
      item.title = t
      const failed = (err: Error) => {
        item.title = before
        return i18nT('sidebar.errors.rename', { error: err.message })
      }
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        const res = await useTransport().updateConversation({ id, title: t })
        if (res && res.id) Object.assign(item, summaryOf(res))
      })
      return done.ok
    },

    async setPinned(id: string, pinned: boolean): Promise<boolean> {
      const item = this.items.find((c) => c.id === id)
      if (!item) return false
      const before = !!item.pinned
      item.pinned = pinned
      const failed = (err: Error) => {
        item.pinned = before
        return t(pinned ? 'sidebar.errors.pin' : 'sidebar.errors.unpin', { error: err.message })
      }
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        const res = await useTransport().updateConversation({ id, pinned })
        if (res && res.id) Object.assign(item, summaryOf(res))
      })
      return done.ok
    },

    /** Switches the conversation's assistant profile; its next run uses it. */
    async setAssistant(id: string, assistant: string): Promise<boolean> {
      const item = this.byId(id)
      if (!item || (item.assistant || DEFAULT_PROFILE) === assistant) return false
      return this.change(item, 'assistant', assistant, () => useTransport().updateConversation({ id, assistant }))
    },

    /** Chooses the conversation's model ('' = its profile's or the default); its next run uses it. */
    async setModel(id: string, model: string): Promise<boolean> {
      const item = this.byId(id)
      if (!item || (item.model ?? '') === model) return false
      return this.change(item, 'model', model, () => useTransport().updateConversation({ id, model }))
    },

    /** Chooses how much the conversation's model thinks ('' = its profile's setting); its next run uses it. */
    async setThinking(id: string, thinking: string): Promise<boolean> {
      const item = this.byId(id)
      if (!item || (item.thinking ?? '') === thinking) return false
      return this.change(item, 'thinking', thinking, () => useTransport().updateConversation({ id, thinking }))
    },

    /**
     * Shows a field's new value at once and asks the backend for it; a
     * refusal puts the old value back and says why (actionError, from the
     * catalogue's sidebar.errors.<field>).
     */
    async change<K extends 'assistant' | 'model' | 'thinking'>(
      item: Conversation,
      key: K,
      value: string,
      send: () => Promise<Conversation>,
    ): Promise<boolean> {
      const before = item[key]
      item[key] = value
      const failed = (err: Error) => {
        item[key] = before as Conversation[K]
        return t(`sidebar.errors.${key}`, { error: err.message })
      }
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        const res = await send()
        if (res && res.id) Object.assign(item, summaryOf(res))
      })
      return done.ok
    },

    /** Attaches knowledge collections to a conversation (the composer's picker, SPEC §11). */
    async setKnowledge(id: string, collections: string[]): Promise<boolean> {
      const item = this.byId(id)
      if (!item) return false
      const before = item.knowledge
      item.knowledge = collections.length ? [...collections] : undefined
      const failed = (err: Error) => {
        item.knowledge = before
        return t('knowledge.attachFailed', { error: err.message })
      }
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        await useTransport().updateConversation({ id, knowledge: collections })
      })
      return done.ok
    },

    /** Opens a search result on the branch of its matching message (SPEC §7). */
    async openMatch(c: Conversation): Promise<void> {
      const messageId = c.match?.message_id
      this.setCurrent(c.id)
      if (messageId) {
        try {
          useChatStore().applyDetail(await useTransport().selectBranch({ id: c.id, message_id: messageId, last: OPEN_WINDOW }))
        } catch {
          // a running reply keeps its branch: open it as it is
        }
      }
      await this.reload(c.id)
    },

    async remove(id: string): Promise<boolean> {
      const failed = (err: Error) => t('sidebar.errors.delete', { error: err.message })
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        await useTransport().deleteConversation({ id })
      })
      if (done.ok) this.forgetDeleted(id)
      return done.ok
    },

    /**
     * Exports a conversation. The caller saves `content` results (a download
     * in the browser); the desktop app saved the file already, which the
     * notice says. Errors go to `actionError` and resolve null.
     */
    async exportConversation(id: string, format: ExportFormat): Promise<ExportResult | null> {
      this.notice = null
      const failed = (err: Error) => t('sidebar.errors.export', { error: err.message })
      const done = await attempt(this, { error: 'actionError', failed }, async () => {
        const transport = useTransport()
        const res = await transport.saveFile(await transport.exportConversation({ id, format }), 'conversation')
        if (res.kind === 'saved') this.notice = t('sidebar.exported', { path: res.path })
        return res
      })
      return done.ok ? done.value : null
    },

    /**
     * Imports a conversation exported as JSON and opens it. `json` is the
     * file's text (browser); the desktop app asks for the file itself.
     * Errors go to `importError` and nothing changes.
     */
    async importConversation(json?: string, fileName?: string): Promise<Conversation | null> {
      this.notice = null
      const what = fileName ? t('sidebar.quotedFile', { name: fileName }) : t('sidebar.theFile')
      if (json !== undefined) {
        try {
          JSON.parse(json)
        } catch {
          this.importError = t('sidebar.errors.importJson', { what })
          return null
        }
      }
      const failed = (err: Error) => t('sidebar.errors.import', { what, error: err.message })
      const done = await attempt(this, { busy: 'importing', error: 'importError', failed }, async () => {
        const transport = useTransport()
        // The desktop app asks for the file itself.
        const data = json ?? (await transport.chooseConversationFile())
        if (data === null) return null // the desktop dialog was cancelled
        const res = await transport.importConversation({ data })
        const c = summaryOf(res)
        delete this.deleted[c.id]
        if (this.query) {
          this.query = ''
          void this.load()
        }
        const item = this.items.find((x) => x.id === c.id)
        if (item) Object.assign(item, c)
        else this.items = [c, ...this.items]
        this.remember()
        this.actionError = null
        this.notice = t('sidebar.imported', { title: shownTitle(c.title) })
        await this.select(c.id)
        return c
      })
      return done.ok ? done.value : null
    },

    /** Drops a deleted conversation everywhere; if it was open, shows a new chat. */
    forgetDeleted(id: string): void {
      this.deleted[id] = true
      this.items = this.items.filter((c) => c.id !== id)
      delete this.known[id]
      useQuestionsStore().forgetConversation(id)
      useChatStore().forget(id)
      if (this.currentId === id) this.currentId = null
    },

    /** Adds or updates a conversation from a detail or summary. */
    upsertSummary(c: Conversation): void {
      if (this.deleted[c.id]) return
      const item = this.items.find((x) => x.id === c.id)
      if (item) {
        Object.assign(item, summaryOf({ ...item, ...c, title: c.title ?? item.title }))
        return
      }
      const seen = this.known[c.id]
      const next = summaryOf({ ...seen, ...c, title: c.title ?? seen?.title ?? '' })
      if (!this.query) this.items.unshift(next)
      this.known[c.id] = next // the same object as in items
    },

    /** Points `known` at the objects in `items` (after the list changed). */
    remember(): void {
      for (const c of this.items) this.known[c.id] = c
    },

    // ---- events --------------------------------------------------------------

    /** conversation:updated: a new title (e.g. auto-title) or pin state. */
    onUpdated(p: ConversationUpdatedEvent): void {
      const id = p?.conversationId
      if (!id || this.deleted[id]) return
      const patch: Partial<Conversation> = {}
      if (typeof p.title === 'string') patch.title = p.title
      if (typeof p.pinned === 'boolean') patch.pinned = p.pinned
      if (typeof p.assistant === 'string') patch.assistant = p.assistant
      if (typeof p.model === 'string') patch.model = p.model
      if (typeof p.thinking === 'string') patch.thinking = p.thinking
      if (Array.isArray(p.knowledge)) patch.knowledge = p.knowledge.length ? [...p.knowledge] : undefined
      const targets = new Set([this.items.find((c) => c.id === id), this.known[id]].filter((c): c is Conversation => !!c))
      for (const c of targets) {
        Object.assign(c, patch)
        // "" when it left its project (SPEC §14).
        if (typeof p.project_id === 'string') {
          if (p.project_id) c.project_id = p.project_id
          else delete c.project_id
        }
      }
      // Not listed yet (e.g. imported, or created by another client).
      if (!targets.size) void this.ensureKnown(id)
    },

    /** conversation:deleted: whoever deleted it, it goes away here too. */
    onDeleted(p: ConversationDeletedEvent): void {
      if (p?.conversationId) this.forgetDeleted(p.conversationId)
    },

    /** Marks a conversation as just active (moves it up the list). */
    touch(id: string): void {
      const item = this.items.find((c) => c.id === id)
      if (!item) return
      const now = new Date()
      // Already the newest of the list, and of today: the new time moves
      // nothing, so it is not set (each message of a run touches; a change
      // would sort and render the sidebar again while a card arrives).
      const last = item.updated_at ? new Date(item.updated_at) : null
      if (last && last.toDateString() === now.toDateString() && newestOf(toRaw(this.items), toRaw(item))) return
      item.updated_at = now.toISOString()
    },

    /** Fetches a conversation we heard of through an event but do not list. */
    async ensureKnown(id: string): Promise<void> {
      if (!id || this.deleted[id] || this.items.some((c) => c.id === id) || this.query) return
      try {
        // The summary, not the path: one message is read.
        const d = await useTransport().getConversation({ id, last: 1 })
        this.upsertSummary(d)
      } catch {
        // it may have been deleted meanwhile
      }
    },

    /** After a run, refresh the title the backend may have generated. */
    async onState(p: ConversationStateEvent): Promise<void> {
      if (!p?.conversationId) return
      if (!this.items.some((c) => c.id === p.conversationId)) {
        await this.ensureKnown(p.conversationId)
        return
      }
      const item = this.items.find((c) => c.id === p.conversationId)
      if (p.state === 'idle' && item && (!item.title || item.title === DEFAULT_TITLE)) {
        try {
          const d = await useTransport().getConversation({ id: p.conversationId, last: 1 })
          if (d.title) item.title = d.title
        } catch {
          // keep the old title
        }
      }
    },
  },
})
