// The conversation list of the sidebar: paging, search, new / rename /
// delete / pin, and which conversation is open.
import { defineStore } from 'pinia'
import type { Conversation, ConversationStateEvent } from '../types'
import { toError, useTransport } from '../transport'
import { useChatStore } from './chat'
import { useQuestionsStore } from './questions'

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
}

function newer(a: Conversation, b: Conversation): number {
  return (b.updated_at ?? b.created_at ?? '').localeCompare(a.updated_at ?? a.created_at ?? '')
}

function summaryOf(c: Conversation): Conversation {
  const out: Conversation = { id: c.id, title: c.title ?? '' }
  if (c.assistant !== undefined) out.assistant = c.assistant
  if (c.pinned !== undefined) out.pinned = c.pinned
  if (c.created_at) out.created_at = c.created_at
  if (c.updated_at) out.updated_at = c.updated_at
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
  }),

  getters: {
    pinned(state): Conversation[] {
      return state.items.filter((c) => c.pinned).sort(newer)
    },
    recent(state): Conversation[] {
      return state.items.filter((c) => !c.pinned).sort(newer)
    },
    current(state): Conversation | null {
      return state.items.find((c) => c.id === state.currentId) ?? null
    },
    byId(state) {
      return (id: string): Conversation | undefined => state.items.find((c) => c.id === id)
    },
  },

  actions: {
    /** Loads the first page (for the current search). */
    async load(): Promise<void> {
      this.loading = true
      const query = this.query
      try {
        const page = await useTransport().listConversations({ limit: PAGE_SIZE, q: query || undefined })
        if (query !== this.query) return // a newer search is on its way
        this.items = page.items.map(summaryOf)
        this.nextCursor = page.next_cursor || null
        this.error = null
        this.loaded = true
      } catch (err) {
        if (query === this.query) this.error = toError(err).message
      } finally {
        if (query === this.query) this.loading = false
      }
    },

    async loadMore(): Promise<void> {
      if (!this.nextCursor || this.loadingMore) return
      this.loadingMore = true
      const query = this.query
      try {
        const page = await useTransport().listConversations({ limit: PAGE_SIZE, cursor: this.nextCursor, q: query || undefined })
        if (query !== this.query) return
        const known = new Set(this.items.map((c) => c.id))
        this.items.push(...page.items.filter((c) => !known.has(c.id)).map(summaryOf))
        this.nextCursor = page.next_cursor || null
        this.error = null
      } catch (err) {
        this.error = toError(err).message
      } finally {
        this.loadingMore = false
      }
    },

    async search(q: string): Promise<void> {
      const query = q.trim()
      if (query === this.query && this.loaded) return
      this.query = query
      await this.load()
    },

    /** Creates a conversation and opens it. */
    async create(title?: string): Promise<Conversation | null> {
      try {
        const c = summaryOf(await useTransport().createConversation(title ? { title } : {}))
        if (this.query) {
          this.query = ''
          void this.load()
        }
        this.items = [c, ...this.items.filter((x) => x.id !== c.id)]
        this.currentId = c.id
        const chat = useChatStore()
        if (!chat.messages[c.id]) chat.messages[c.id] = []
        this.actionError = null
        return c
      } catch (err) {
        this.actionError = `Couldn't start a new chat: ${toError(err).message}`
        return null
      }
    },

    /** Opens a conversation (null shows the empty "new chat" screen). */
    async select(id: string | null): Promise<void> {
      this.currentId = id
      if (id) await useChatStore().open(id)
    },

    async rename(id: string, title: string): Promise<boolean> {
      const t = title.trim()
      const item = this.items.find((c) => c.id === id)
      if (!t || !item || t === item.title) return false
      const before = item.title
      item.title = t
      try {
        const res = await useTransport().renameConversation(id, t)
        if (res && res.id) Object.assign(item, summaryOf(res))
        this.actionError = null
        return true
      } catch (err) {
        item.title = before
        this.actionError = `Couldn't rename: ${toError(err).message}`
        return false
      }
    },

    async setPinned(id: string, pinned: boolean): Promise<boolean> {
      const item = this.items.find((c) => c.id === id)
      if (!item) return false
      const before = !!item.pinned
      item.pinned = pinned
      try {
        const res = await useTransport().setPinned(id, pinned)
        if (res && res.id) Object.assign(item, summaryOf(res))
        this.actionError = null
        return true
      } catch (err) {
        item.pinned = before
        this.actionError = `Couldn't ${pinned ? 'pin' : 'unpin'}: ${toError(err).message}`
        return false
      }
    },

    async remove(id: string): Promise<boolean> {
      try {
        await useTransport().deleteConversation(id)
      } catch (err) {
        this.actionError = `Couldn't delete: ${toError(err).message}`
        return false
      }
      this.items = this.items.filter((c) => c.id !== id)
      useQuestionsStore().forgetConversation(id)
      useChatStore().forget(id)
      if (this.currentId === id) this.currentId = null
      this.actionError = null
      return true
    },

    /** Adds or updates a conversation from a detail or summary. */
    upsertSummary(c: Conversation): void {
      const item = this.items.find((x) => x.id === c.id)
      if (item) Object.assign(item, summaryOf({ ...item, ...c, title: c.title ?? item.title }))
      else if (!this.query) this.items.unshift(summaryOf(c))
    },

    /** Marks a conversation as just active (moves it up the list). */
    touch(id: string): void {
      const item = this.items.find((c) => c.id === id)
      if (item) item.updated_at = new Date().toISOString()
    },

    /** Fetches a conversation we heard of through an event but do not list. */
    async ensureKnown(id: string): Promise<void> {
      if (!id || this.items.some((c) => c.id === id) || this.query) return
      try {
        const d = await useTransport().getConversation(id)
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
      if (p.state === 'idle' && item && (!item.title || item.title === 'New chat')) {
        try {
          const d = await useTransport().getConversation(p.conversationId)
          if (d.title) item.title = d.title
        } catch {
          // keep the old title
        }
      }
    },
  },
})
