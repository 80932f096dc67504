// Wires the transport's events to the stores, once, and loads the first
// state. Reconnecting after a loss reloads what may have been missed.
import { useTransport } from '../transport'
import { useAppStore, applyTheme } from './app'
import { useChatStore } from './chat'
import { useConversationsStore } from './conversations'
import { useQuestionsStore } from './questions'
import { useSettingsStore } from './settings'
import { cardFromEvent } from '../lib/cards'

export function connectEvents(): () => void {
  const t = useTransport()
  const app = useAppStore()
  const chat = useChatStore()
  const conversations = useConversationsStore()
  const questions = useQuestionsStore()
  const settings = useSettingsStore()

  const offs = [
    t.on('conversation:state', (p) => {
      chat.onState(p)
      void conversations.onState(p)
    }),
    t.on('message:delta', (p) => chat.onDelta(p)),
    t.on('message:done', (p) => {
      chat.onDone(p)
      if (p?.conversationId) conversations.touch(p.conversationId)
    }),
    t.on('question:ask', (p) => {
      questions.onQuestionEvent(p)
      const card = cardFromEvent(p)
      if (card) void conversations.ensureKnown(card.conversationId)
    }),
    t.on('question:resolved', (p) => questions.onQuestionEvent(p)),
    t.on('run:error', (p) => chat.onRunError(p)),
    t.on('model:pull', (p) => settings.onPull(p)),
    t.on('transport:connection', (p) => {
      app.connected = p.connected
      if (p.reconnected) void resync()
    }),
  ]
  return () => offs.forEach((off) => off())
}

/** Reloads the list, the inbox and the open conversation. */
export async function resync(): Promise<void> {
  const conversations = useConversationsStore()
  const jobs: Promise<unknown>[] = [conversations.load(), useQuestionsStore().loadPending(), useSettingsStore().check()]
  if (conversations.currentId) jobs.push(useChatStore().open(conversations.currentId))
  await Promise.all(jobs)
}

/** Starts the app: events first (nothing is missed), then the first data. */
export async function startApp(): Promise<() => void> {
  const app = useAppStore()
  applyTheme(app.theme)
  const off = connectEvents()
  await Promise.all([useConversationsStore().load(), useQuestionsStore().loadPending(), app.checkHealth(), useSettingsStore().init()])
  return off
}
