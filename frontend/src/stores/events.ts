// Wires the transport's events to the stores, once, and loads the first
// state. Reconnecting after a loss reloads what may have been missed. Cards
// that arrive while the window is in the background ask for attention
// (../lib/attention: a notification and a "(N) " title prefix).
import { watch } from 'vue'
import { useTransport } from '../transport'
import { useAppStore, applyTheme } from './app'
import { useChatStore } from './chat'
import { useConversationsStore } from './conversations'
import { useQuestionsStore } from './questions'
import { useSettingsStore } from './settings'
import { useMcpStore } from './mcp'
import { useKnowledgeStore } from './knowledge'
import { useProjectsStore } from './projects'
import { useMemoryStore } from './memory'
import { useEngineStore } from './engine'
import { useUpdatesStore } from './updates'
import { cardFromEvent } from '../lib/cards'
import { cardTrace } from '../lib/cardTrace'
import { createAttention, type AttentionEnv } from '../lib/attention'
import { afterShownPaint } from '../lib/frame'
import type { Card } from '../types'

export interface ConnectOptions {
  /** Replaces the page's document / window / Notification (tests). */
  attention?: Partial<AttentionEnv>
}

/** Opens a card's conversation and moves focus to the card. */
async function showCard(card: Card): Promise<void> {
  const conversations = useConversationsStore()
  if (conversations.currentId !== card.conversationId) await conversations.select(card.conversationId)
  useQuestionsStore().requestFocus(card.question_id)
}

export function connectEvents(options: ConnectOptions = {}): () => void {
  const t = useTransport()
  const app = useAppStore()
  const chat = useChatStore()
  const conversations = useConversationsStore()
  const questions = useQuestionsStore()
  const settings = useSettingsStore()
  const attention = createAttention({
    env: options.attention,
    pendingCount: () => questions.inboxCount,
    openCard: (card) => void showCard(card),
  })
  const stopCountWatch = watch(
    () => questions.inboxCount,
    () => attention.refresh(),
    { flush: 'sync' },
  )

  const offs = [
    t.on('conversation:state', (p) => {
      chat.onState(p)
      void conversations.onState(p)
    }),
    t.on('conversation:updated', (p) => conversations.onUpdated(p)),
    t.on('conversation:deleted', (p) => conversations.onDeleted(p)),
    t.on('message:delta', (p) => chat.onDelta(p)),
    t.on('message:reasoning', (p) => chat.onReasoning(p)),
    t.on('message:done', (p) => {
      chat.onDone(p)
      if (p?.conversationId) conversations.touch(p.conversationId)
    }),
    t.on('question:ask', (p) => {
      const trace = cardTrace()
      const card = cardFromEvent(p)
      if (trace.enabled && card) trace.received(card.question_id)
      questions.onQuestionEvent(p)
      if (!card) return
      if (trace.enabled) trace.stored(card.question_id)
      void conversations.ensureKnown(card.conversationId)
      // The stored card: one already resolved (or of a deleted conversation) does not notify.
      const stored = questions.cards[card.question_id]
      // The title's count and the notification wait until the card is painted.
      if (stored) afterShownPaint(() => attention.cardArrived(stored))
    }),
    t.on('question:resolved', (p) => {
      questions.onQuestionEvent(p)
      const card = cardFromEvent(p)
      if (card) attention.cardResolved(card)
    }),
    t.on('run:error', (p) => chat.onRunError(p)),
    t.on('model:pull', (p) => settings.onPull(p)),
    t.on('mcp:server', (p) => useMcpStore().onServerEvent(p)),
    t.on('knowledge:progress', (p) => void useKnowledgeStore().onProgress(p)),
    t.on('project:changed', (p) => useProjectsStore().onChanged(p)),
    t.on('memory:changed', (p) => useMemoryStore().onChanged(p)),
    t.on('engine:download', (p) => useEngineStore().onDownload(p)),
    t.on('engine:state', (p) => useEngineStore().onState(p)),
    t.on('update:state', (p) => useUpdatesStore().onState(p)),
    t.on('agent:notice', (p) => {
      if (p?.conversationId) void conversations.ensureKnown(p.conversationId)
      if (p?.message) attention.noticeArrived(p.agent, p.message)
    }),
    t.on('transport:connection', (p) => {
      app.connected = p.connected
      if (p.reconnected) void resync()
    }),
  ]
  return () => {
    offs.forEach((off) => off())
    stopCountWatch()
    attention.dispose()
  }
}

/** Reloads the list, the inbox and the open conversation. */
export async function resync(): Promise<void> {
  const conversations = useConversationsStore()
  const jobs: Promise<unknown>[] = [conversations.load(), useProjectsStore().load(), useQuestionsStore().loadPending(), useSettingsStore().check(), useUpdatesStore().load()]
  const mcp = useMcpStore()
  if (mcp.loaded) jobs.push(mcp.load())
  const knowledge = useKnowledgeStore()
  if (knowledge.loaded) jobs.push(knowledge.load())
  const memory = useMemoryStore()
  if (memory.loaded) jobs.push(memory.load())
  const engine = useEngineStore()
  if (engine.loaded) jobs.push(engine.load())
  if (conversations.currentId) jobs.push(conversations.reload(conversations.currentId))
  await Promise.all(jobs)
}

/** Starts the app: events first (nothing is missed), then the first data. */
export async function startApp(options: ConnectOptions = {}): Promise<() => void> {
  const app = useAppStore()
  applyTheme(app.theme)
  const t = useTransport()
  const off = connectEvents(options)
  // The first data is read once events flow: what happened before is in it,
  // what happens after comes as events (over HTTP, an agent's card filed
  // while the stream was still opening was in neither). A stream slow to
  // open does not hold the page: it loads, and reloads once the stream is open.
  let open = false
  let loadedBeforeOpen = false
  const opened = t.eventsOpen().then(() => {
    open = true
    if (loadedBeforeOpen) void resync()
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([opened, new Promise<void>((resolve) => (timer = setTimeout(resolve, EVENTS_OPEN_WAIT_MS)))])
  clearTimeout(timer)
  loadedBeforeOpen = !open
  await Promise.all([useConversationsStore().load(), useProjectsStore().load(), useQuestionsStore().loadPending(), app.checkHealth(), useSettingsStore().init(), useUpdatesStore().load()])
  return off
}

/** How long the first load waits for the event stream to open. */
export const EVENTS_OPEN_WAIT_MS = 2000
