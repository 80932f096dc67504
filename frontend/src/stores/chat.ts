// Messages of the open conversation (and of any left while still running:
// conversations.setCurrent releases the others), the text being streamed,
// and the run state and error of every conversation. Deltas go to a
// per-conversation stream buffer, not into the message list, so appending
// text re-renders only the streaming bubble (which shows it once a frame).
//
// Message lists are shallow: a conversation of thousands of messages gets no
// proxy per message, so building the timeline stays cheap. Messages are
// therefore never changed in place: a changed message replaces the old one in
// its list.
//
// The store knows no conversation list: the conversations store (above it)
// opens conversations here, and sends to the open or a new conversation.
import { defineStore } from 'pinia'
import { isShallow, shallowReactive } from 'vue'
import type {
  Attachment,
  ConversationDetail,
  ConversationStateEvent,
  Message,
  MessageDeltaEvent,
  MessageDoneEvent,
  MessageReasoningEvent,
  Role,
  RunErrorEvent,
  RunState,
} from '../types'
import { isRunActive, RUN_STATES } from '../types'
import { useTransport, type TransportError } from '../transport'
import { useQuestionsStore } from './questions'
import { branchActions, branchState, type BranchState } from './chatBranches'
import { t } from '../i18n'
import { attempt, loadInto } from './asyncState'
import { cardTrace } from '../lib/cardTrace'
import { EARLIER_PAGE, OPEN_WINDOW } from './conversationWindow'

/** Messages from which an open shows the conversation a task after reading it. */
const LONG_CONVERSATION = 500

export { OPEN_WINDOW, EARLIER_PAGE } from './conversationWindow'

/** Resolves in a task of its own (after what the browser has queued). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/** A message list as the store keeps it: reactive itself, its messages plain. */
function messageList(list: Message[]): Message[] {
  return shallowReactive(list)
}

export interface StreamBuffer {
  text: string
  messageId?: string
  /** The reply's thinking so far (SPEC §9); '' when it did not think. */
  reasoning: string
  /** When its first and its last piece of thinking arrived (Date.now()). */
  thoughtFrom?: number
  thoughtUntil?: number
  /** When the reply's first text arrived (thinking moved out of it began then). */
  firstTextAt?: number
}

interface State extends BranchState {
  messages: Record<string, Message[]>
  /** How many messages of the visible path come before those in `messages` (not read yet). */
  earlier: Record<string, number>
  /** The read of earlier messages under way, per conversation. */
  readingEarlier: Record<string, boolean>
  /** Why the last read of earlier messages failed (shown by "Show earlier"). */
  earlierErrors: Record<string, string | null>
  loading: Record<string, boolean>
  loadErrors: Record<string, string | null>
  streams: Record<string, StreamBuffer>
  runStates: Record<string, RunState>
  /** The error banner of a conversation (a failed run or a failed send). */
  errors: Record<string, string | null>
  /** The last text the user sent, for Retry. */
  lastUserText: Record<string, string>
  stopping: Record<string, boolean>
  /** Unsent composer text per conversation ('' key: the new-chat screen). */
  composerDrafts: Record<string, string>
  /** The message the composer's text replaces when sent (Up in an empty composer). */
}

let localSeq = 0
/** Ids of assistant messages kept from a stream that never got message:done. */
const partialIds = new Set<string>()
const ROLES: Role[] = ['system', 'user', 'assistant', 'tool']

/**
 * The messages of a read with their conversation's id. Copied only where the
 * id is missing: they are fresh from the wire, and copying 5,000 of them
 * costs the open's task.
 */
function ownedBy(conversationId: string, messages: Message[]): Message[] {
  return messages.map((m) => (m.conversationId ? m : { ...m, conversationId }))
}

/** A message:done payload as a Message (top-level fields or nested `message`). */
export function messageFromDone(p: MessageDoneEvent | (Partial<Message> & { conversationId: string })): Message | null {
  const raw = ('message' in p && p.message && typeof p.message === 'object' ? p.message : p) as Partial<Message> & { message_id?: string }
  const role = raw.role
  if (!role || !ROLES.includes(role)) return null
  return {
    id: raw.id || raw.message_id || `evt-${++localSeq}`,
    conversationId: raw.conversationId || p.conversationId,
    role,
    content: typeof raw.content === 'string' ? raw.content : '',
    created_at: raw.created_at || new Date().toISOString(),
    parent_id: raw.parent_id ?? '',
    siblings: raw.siblings ?? 1,
    sibling_index: raw.sibling_index ?? 0,
    ...(raw.sibling_ids?.length ? { sibling_ids: raw.sibling_ids } : {}),
    ...(raw.stats ? { stats: raw.stats } : {}),
    ...(raw.reasoning ? { reasoning: raw.reasoning, reasoning_ms: raw.reasoning_ms ?? 0 } : {}),
    ...(raw.reasoning_source ? { reasoning_source: raw.reasoning_source } : {}),
    ...(raw.sources?.length ? { sources: raw.sources } : {}),
    ...(raw.attachments?.length ? { attachments: raw.attachments } : {}),
    ...(raw.run_id ? { run_id: raw.run_id } : {}),
    ...(raw.tool_calls?.length ? { tool_calls: raw.tool_calls } : {}),
    ...(raw.tool_call_id ? { tool_call_id: raw.tool_call_id } : {}),
    ...(raw.tool_name ? { tool_name: raw.tool_name } : {}),
  }
}

export const useChatStore = defineStore('chat', {
  state: (): State => ({
    messages: {},
    earlier: {},
    readingEarlier: {},
    earlierErrors: {},
    loading: {},
    loadErrors: {},
    streams: {},
    runStates: {},
    errors: {},
    lastUserText: {},
    stopping: {},
    composerDrafts: {},
    ...branchState(),
  }),

  getters: {
    messagesFor(state) {
      return (conversationId: string | null | undefined): Message[] => (conversationId ? state.messages[conversationId] ?? [] : [])
    },
    earlierOf(state) {
      return (conversationId: string | null | undefined): number => (conversationId ? state.earlier[conversationId] ?? 0 : 0)
    },
    stateOf(state) {
      return (conversationId: string | null | undefined): RunState => (conversationId ? state.runStates[conversationId] ?? 'idle' : 'idle')
    },
    isBusy(state) {
      return (conversationId: string | null | undefined): boolean => !!conversationId && isRunActive(state.runStates[conversationId])
    },
    hasStream(state) {
      return (conversationId: string | null | undefined): boolean => !!conversationId && !!state.streams[conversationId]
    },
    /** Whether the composer can send: some text (or files) and no run going. */
    canSend(): (conversationId: string | null, hasFiles: boolean) => boolean {
      return (conversationId, hasFiles) => (!!this.composerDrafts[conversationId ?? '']?.trim() || hasFiles) && !this.isBusy(conversationId)
    },
  },

  actions: {
    /**
     * Loads a conversation's messages, state and pending card. Resolves with
     * the conversation (null when it could not be loaded).
     */
    async open(conversationId: string): Promise<ConversationDetail | null> {
      const cardsLoaded = useQuestionsStore().loadForConversation(conversationId)
      let detail: ConversationDetail | null = null
      await loadInto(this, { key: conversationId, loading: 'loading', error: 'loadErrors' }, async () => {
        const d = await useTransport().getConversation({ id: conversationId, last: OPEN_WINDOW })
        detail = d
        // A long conversation is read (its JSON parsed) in one task and shown
        // in the next: together they made one task too long for a frame.
        if (d.messages.length > LONG_CONVERSATION) await nextTask()
        this.applyDetail(d)
      })
      await cardsLoaded
      return detail
    },

    applyDetail(d: ConversationDetail): void {
      const id = d.id
      const current = this.messages[id] ?? []
      const unsent = current.filter((m) => m.local === 'failed' || m.local === 'sending')
      const serverMsgs = ownedBy(id, d.messages)
      const stillLocal = unsent.filter((m) => !serverMsgs.some((s) => s.role === 'user' && s.content === m.content))
      // A window of the path (d.earlier): the earlier messages already read
      // are kept when the window starts where the list had it (the same
      // message at the same place on the path, so the same ones before it).
      let earlier = d.earlier ?? 0
      let before: Message[] = []
      const first = serverMsgs[0]
      if (earlier > 0 && first) {
        const at = current.findIndex((m) => m.id === first.id)
        const had = this.earlier[id] ?? 0
        if (at > 0 && had + at === earlier) {
          before = current.slice(0, at)
          earlier = had
        }
      }
      this.earlier[id] = earlier
      this.messages[id] = messageList(before.length ? [...before, ...serverMsgs, ...stillLocal] : [...serverMsgs, ...stillLocal])
      const state = RUN_STATES.includes(d.state) ? d.state : 'idle'
      this.runStates[id] = state
      if (state === 'error') this.errors[id] = d.error || t('chat.errors.problem')
      else if (!stillLocal.some((m) => m.local === 'failed')) this.errors[id] = null
      if (state !== 'streaming') delete this.streams[id]
      if (d.pending_question) useQuestionsStore().upsert({ ...d.pending_question, conversationId: d.pending_question.conversationId || id })
    },

    /**
     * Sends a user message to a conversation. Resolves true once the backend
     * took it (conversations.send also creates the conversation if need be).
     */
    async send(content: string, id: string, attachments: Attachment[] = [], parentId?: string): Promise<boolean> {
      const text = content.trim()
      if (!text && !attachments.length) return false
      if (this.isBusy(id)) {
        this.errors[id] = t('chat.errors.busy')
        return false
      }
      delete this.retryRegenerate[id]
      cardTrace().sent()
      const local: Message = {
        id: `local-${Date.now().toString(36)}-${++localSeq}`,
        conversationId: id,
        role: 'user',
        content: text,
        created_at: new Date().toISOString(),
        parent_id: parentId ?? this.listOf(id).at(-1)?.id ?? '',
        siblings: 1,
        sibling_index: 0,
        local: 'sending',
        ...(attachments.length ? { attachments } : {}),
      }
      this.listOf(id).push(local)
      this.lastUserText[id] = text
      const before = this.runStates[id] ?? 'idle'
      this.runStates[id] = 'requesting'
      const failed = (e: TransportError) => {
        this.updateMessage(id, local.id, { local: 'failed' })
        if (this.runStates[id] === 'requesting') this.runStates[id] = before === 'error' ? 'idle' : before
        return e.status === 409 ? t('chat.errors.busy') : t('chat.errors.sendFailed', { error: e.message })
      }
      const done = await attempt(this, { key: id, error: 'errors', failed }, async () => {
        const transport = useTransport()
        if (parentId !== undefined) {
          // An edit: the new message is a sibling of the old one, whose
          // branch leaves the visible path.
          await transport.send({ id, content: text, parent_id: parentId, ...(attachments.length ? { attachments } : {}) })
          this.updateMessage(id, local.id, { local: 'sent' })
          this.applyDetail(await transport.getConversation({ id, last: OPEN_WINDOW }))
          return
        }
        await transport.send({ id, content: text, ...(attachments.length ? { attachments } : {}) })
        this.updateMessage(id, local.id, { local: 'sent' })
      })
      return done.ok
    },

    /**
     * Retry after an error. A message that never reached the backend (failed
     * send) is sent again; otherwise the backend runs the assistant again on
     * the saved history (transport.retry), so the user message is not repeated.
     */
    async retry(conversationId: string): Promise<boolean> {
      const id = conversationId
      const list = this.messages[id] ?? []
      const failed = list.filter((m) => m.role === 'user' && m.local === 'failed')
      if (failed.length) {
        const last = failed[failed.length - 1]!
        this.messages[id] = messageList(list.filter((m) => m.local !== 'failed'))
        return this.send(last.content, id, last.attachments ?? [])
      }
      if (this.isBusy(id)) {
        this.errors[id] = t('chat.errors.busy')
        return false
      }
      // A regenerated reply that never came: regenerate it again (the old reply is shown).
      const again = this.retryRegenerate[id]
      if (again) {
        delete this.retryRegenerate[id]
        return this.regenerate(id, again.messageId, again.model)
      }
      // Text kept from a broken stream is replaced by the new run's answer.
      const lastUser = list.map((m) => m.role).lastIndexOf('user')
      const kept = list.filter((m, i) => !(i > lastUser && partialIds.has(m.id)))
      if (kept.length !== list.length) this.messages[id] = messageList(kept)
      const before = this.runStates[id] ?? 'idle'
      this.runStates[id] = 'requesting'
      const retryFailed = (e: TransportError) => {
        if (this.runStates[id] === 'requesting') this.runStates[id] = before
        return e.status === 409 ? t('chat.errors.busy') : t('chat.errors.retryFailed', { error: e.message })
      }
      const done = await attempt(this, { key: id, error: 'errors', failed: retryFailed }, () => useTransport().retry({ id }))
      return done.ok
    },


    /** Stops the active run (a pending card is cancelled by the backend). */
    async stop(conversationId: string): Promise<void> {
      // The conversation's error banner stays while it stops: only a failure changes it.
      const done = await attempt(this, { key: conversationId, busy: 'stopping' }, () => useTransport().cancel({ id: conversationId }))
      if (!done.ok) this.errors[conversationId] = t('chat.errors.stopFailed', { error: done.error })
    },

    /** The conversation's message list, made shallow if it was set from elsewhere. */
    listOf(conversationId: string): Message[] {
      const list = this.messages[conversationId]
      if (list && isShallow(list)) return list
      return (this.messages[conversationId] = messageList(list ? [...list] : []))
    },

    /** Replaces a message of a conversation with a changed copy. */
    updateMessage(conversationId: string, messageId: string, patch: Partial<Message>): void {
      if (!this.messages[conversationId]) return
      const list = this.listOf(conversationId)
      const i = list.findIndex((m) => m.id === messageId)
      if (i >= 0) list[i] = { ...list[i]!, ...patch }
    },

    /**
     * Reads again the error of every conversation whose run failed: the
     * backend says it in the language chosen now (after Settings change it).
     */
    async refreshErrors(): Promise<void> {
      const failed = Object.keys(this.runStates).filter((id) => this.runStates[id] === 'error' && this.errors[id])
      await Promise.all(
        failed.map(async (id) => {
          try {
            // Only the state and its error are needed: one message, not the whole path.
            const d = await useTransport().getConversation({ id, last: 1 })
            // Unless the state moved on meanwhile (a retry): then the old text stays as it was handled.
            if (d.state === 'error' && d.error && this.runStates[id] === 'error' && this.errors[id]) this.errors[id] = d.error
          } catch {
            // The text of before stays; nothing else depends on it.
          }
        }),
      )
    },

    ...branchActions,

    dismissError(conversationId: string): void {
      this.errors[conversationId] = null
    },

    /**
     * Lets go of a conversation the user left: its messages (loaded again
     * when it is opened) go, so a long session does not keep every
     * conversation ever opened. A conversation still running, with a
     * stream, an unsent message or a message being edited is kept whole.
     * Its run state, error, composer draft and Retry text stay.
     */
    release(conversationId: string): boolean {
      const id = conversationId
      const list = this.messages[id]
      if (!list) return false
      if (this.isBusy(id) || this.streams[id] || this.editing[id] || list.some((m) => m.local === 'sending' || m.local === 'failed')) return false
      for (const m of list) partialIds.delete(m.id)
      delete this.messages[id]
      delete this.earlier[id]
      delete this.earlierErrors[id]
      delete this.loading[id]
      delete this.loadErrors[id]
      return true
    },

    /**
     * Reads the `count` messages of the path before those the list has
     * ("Show earlier" at the start of what was read). Resolves true when
     * messages were added. Should the path have changed meanwhile (another
     * branch made visible elsewhere), the whole path is read again.
     */
    async loadEarlier(conversationId: string, count = EARLIER_PAGE): Promise<boolean> {
      const id = conversationId
      const list = this.messages[id]
      const first = list?.find((m) => !m.local)
      if (!list || !first || !(this.earlier[id] ?? 0) || this.readingEarlier[id]) return false
      this.readingEarlier[id] = true
      this.earlierErrors[id] = null
      try {
        const transport = useTransport()
        let d: ConversationDetail
        try {
          d = await transport.getConversation({ id, last: count, before: first.id })
        } catch (e) {
          if ((e as TransportError).status !== 409 && (e as TransportError).status !== 404) throw e
          this.applyDetail(await transport.getConversation({ id }))
          return true
        }
        const now = this.messages[id]
        // Only when the list still starts with that message (not replaced meanwhile).
        if (!now || now.find((m) => !m.local) !== first || !d.messages.length) return false
        this.messages[id] = messageList([...ownedBy(id, d.messages), ...now])
        this.earlier[id] = d.earlier ?? 0
        return true
      } catch (e) {
        this.earlierErrors[id] = t('chat.list.earlierFailed', { error: (e as TransportError).message })
        return false
      } finally {
        delete this.readingEarlier[id]
      }
    },

    forget(conversationId: string): void {
      delete this.messages[conversationId]
      delete this.earlier[conversationId]
      delete this.earlierErrors[conversationId]
      delete this.streams[conversationId]
      delete this.runStates[conversationId]
      delete this.errors[conversationId]
      delete this.loadErrors[conversationId]
      delete this.lastUserText[conversationId]
      delete this.stopping[conversationId]
      delete this.loading[conversationId]
      delete this.composerDrafts[conversationId]
      delete this.editing[conversationId]
      delete this.regenerating[conversationId]
      delete this.retryRegenerate[conversationId]
    },

    // ---- events --------------------------------------------------------------

    onState(p: ConversationStateEvent): void {
      if (!p?.conversationId || !RUN_STATES.includes(p.state)) return
      const id = p.conversationId
      this.runStates[id] = p.state
      if (p.state === 'error') {
        this.errors[id] = p.error || this.errors[id] || t('chat.errors.problem')
        if (this.regenerateUnstored(id, p.runId, true)) delete this.streams[id]
        this.flushStream(id)
      } else if (p.state === 'requesting') {
        this.errors[id] = null
      } else if (p.state === 'idle' || p.state === 'awaiting_user_response') {
        if (p.state === 'idle' && this.regenerateUnstored(id, p.runId, false)) delete this.streams[id]
        this.flushStream(id)
      }
    },

    /** Go always sends runId and messageId; the store copes without them. */
    onDelta(p: Pick<MessageDeltaEvent, 'conversationId' | 'delta'> & Partial<MessageDeltaEvent>): void {
      if (!p?.conversationId) return
      const delta = typeof p.delta === 'string' ? p.delta : typeof (p as { content?: unknown }).content === 'string' ? (p as unknown as { content: string }).content : ''
      if (!delta) return
      const id = p.conversationId
      const messageId = p.messageId || undefined
      const buf = this.bufferFor(id, messageId)
      buf.firstTextAt ??= Date.now()
      buf.text += delta
      const st = this.runStates[id]
      if (st !== 'streaming') this.runStates[id] = 'streaming'
    },

    /**
     * A piece of the reply's thinking (SPEC §9). `moved`: the reply's text
     * so far was thinking (a `</think>` came without a `<think>`): it is
     * the delta, and the reply starts again empty.
     */
    onReasoning(p: Pick<MessageReasoningEvent, 'conversationId' | 'delta'> & Partial<MessageReasoningEvent>): void {
      if (!p?.conversationId || typeof p.delta !== 'string' || !p.delta) return
      const buf = this.bufferFor(p.conversationId, p.messageId || undefined)
      const now = Date.now()
      if (p.moved) {
        buf.text = ''
        buf.thoughtFrom ??= buf.firstTextAt ?? now
      }
      buf.reasoning += p.delta
      buf.thoughtFrom ??= now
      buf.thoughtUntil = now
      if (this.runStates[p.conversationId] !== 'streaming') this.runStates[p.conversationId] = 'streaming'
    },

    /** The conversation's stream buffer for messageId (a new one for another message). */
    bufferFor(id: string, messageId: string | undefined): StreamBuffer {
      const buf = this.streams[id]
      if (buf && (!messageId || !buf.messageId || buf.messageId === messageId)) {
        if (messageId && !buf.messageId) buf.messageId = messageId
        return buf
      }
      if (buf) this.flushStream(id)
      return (this.streams[id] = { text: '', reasoning: '', messageId })
    },

    /** Go nests the message; the message at the top level is accepted too. */
    onDone(p: MessageDoneEvent | (Partial<Message> & { conversationId: string })): void {
      if (!p?.conversationId) return
      const msg = messageFromDone(p)
      if (!msg) return
      const id = p.conversationId
      if (msg.role === 'assistant') delete this.streams[id]
      this.regenerateStored(id, msg.run_id || (p as Partial<MessageDoneEvent>).runId)
      if (!this.messages[id]) return // not opened: loaded from the server on open
      const list = this.listOf(id)
      const same = list.findIndex((m) => m.id === msg.id)
      if (same >= 0) {
        partialIds.delete(msg.id)
        const viewKey = list[same]!.viewKey
        list[same] = viewKey ? { ...msg, viewKey } : msg
        return
      }
      if (msg.role === 'assistant') {
        // A stream flushed early (state changed first) is replaced by the real message.
        const partial = list.findIndex((m) => partialIds.has(m.id))
        if (partial >= 0 && !list.slice(partial).some((m) => m.role === 'user')) {
          partialIds.delete(list[partial]!.id)
          list[partial] = msg
          return
        }
      }
      if (msg.role === 'user') {
        const local = list.findIndex((m) => m.local && m.local !== 'failed' && m.content === msg.content)
        if (local >= 0) {
          // Under the optimistic message's key: the list patches it, not draws it again
          // (right after Enter, while the run's first events and its card come in).
          const was = list[local]!
          list[local] = { ...msg, viewKey: was.viewKey ?? was.id }
          return
        }
      }
      list.push(msg)
    },

    onRunError(p: Pick<RunErrorEvent, 'conversationId' | 'error'> & Partial<RunErrorEvent>): void {
      if (!p?.conversationId) return
      const id = p.conversationId
      this.errors[id] = p.error || (p as { message?: string }).message || t('chat.errors.problem')
      this.runStates[id] = 'error'
      if (this.regenerateUnstored(id, p.runId, true)) delete this.streams[id]
      this.flushStream(id)
    },

    /** Keeps streamed text that never got its message:done as a message. */
    flushStream(conversationId: string): void {
      const buf = this.streams[conversationId]
      if (!buf) return
      delete this.streams[conversationId]
      if (!this.messages[conversationId] || (!buf.text.trim() && !buf.reasoning)) return
      const list = this.listOf(conversationId)
      if (buf.messageId && list.some((m) => m.id === buf.messageId)) return
      const id = buf.messageId || `partial-${++localSeq}`
      partialIds.add(id)
      list.push({
        id,
        conversationId,
        role: 'assistant',
        content: buf.text,
        created_at: new Date().toISOString(),
        parent_id: list.at(-1)?.id ?? '',
        siblings: 1,
        sibling_index: 0,
        ...(buf.reasoning ? { reasoning: buf.reasoning, reasoning_ms: (buf.thoughtUntil ?? 0) - (buf.thoughtFrom ?? 0) } : {}),
      })
    },
  },
})
