import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import ChatView from './ChatView.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useConversationsStore } from '../../stores/conversations'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
})

async function mountView(): Promise<VueWrapper> {
  env.fake.addConversation({ id: 'c1', title: 'Groceries' })
  env.fake.addMessage('c1', { id: 'h1', role: 'user', content: 'What do we need?' })
  env.fake.addMessage('c1', { id: 'h2', role: 'assistant', content: 'Apples and pears.' })
  env.fake.addConversation({ id: 'c2', title: 'Taxes' })
  env.fake.addMessage('c2', { id: 'h3', role: 'assistant', content: 'Your taxes are due in May.' })
  connectEvents()
  const conversations = useConversationsStore()
  await conversations.load()
  await conversations.select('c1')
  w = mount(ChatView, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const log = () => document.querySelector<HTMLElement>('[role="log"]')!
/** How often `text` occurs in the whole document (hidden elements included). */
const occurrences = (text: string) => (document.body.textContent ?? '').split(text).length - 1

const reply = (conversationId: string, id: string, content: string) =>
  env.fake.emit('message:done', { conversationId, message: { id, conversationId, role: 'assistant', content, created_at: '2025-01-01T00:00:00Z', parent_id: '', siblings: 1, sibling_index: 0 } })

describe('announcing finished replies to screen readers (the log pattern)', () => {
  it('the log is polite for additions, busy while a reply streams, and the finished reply is in the document once', async () => {
    await mountView()
    expect(log().getAttribute('aria-relevant')).toBe('additions')
    // The history just opened is not read out.
    expect(log().getAttribute('aria-live')).toBe('off')

    await useConversationsStore().send('Anything else?')
    await settle()
    expect(log().getAttribute('aria-live')).toBe('polite')
    expect(log().getAttribute('aria-busy')).toBe('false')

    env.fake.emit('message:delta', { conversationId: 'c1', messageId: 'm1', runId: 'r1', delta: 'Buy **milk**' })
    await settle()
    expect(log().getAttribute('aria-busy')).toBe('true')

    reply('c1', 'm1', 'Buy **milk** and a loaf of rye bread.')
    await settle()
    expect(log().getAttribute('aria-busy')).toBe('false')
    expect(log().getAttribute('aria-live')).toBe('polite')
    expect(log().textContent).toContain('Buy milk and a loaf of rye bread.')
    expect(occurrences('a loaf of rye bread')).toBe(1)
  })

  it('switching conversations and "Show earlier" turn announcing off until something starts in the conversation', async () => {
    await mountView()
    await useConversationsStore().send('Anything else?')
    await settle()
    expect(log().getAttribute('aria-live')).toBe('polite')

    // Another conversation's reply streams in the background: the open log is not busy.
    env.fake.emit('message:delta', { conversationId: 'c2', messageId: 'm-stream', runId: 'r1', delta: 'Also' })
    await settle()
    expect(log().getAttribute('aria-busy')).toBe('false')
    reply('c2', 'm2', 'Also file the receipts.')
    await settle()

    await useConversationsStore().select('c2')
    await settle()
    expect(log().textContent).toContain('Your taxes are due in May.')
    expect(log().getAttribute('aria-live')).toBe('off')

    // A stream starting (e.g. after the user answered a card) turns it on again.
    env.fake.emit('message:delta', { conversationId: 'c2', messageId: 'm-stream', runId: 'r1', delta: 'And' })
    await settle()
    expect(log().getAttribute('aria-live')).toBe('polite')
    expect(log().getAttribute('aria-busy')).toBe('true')
    reply('c2', 'm3', 'And keep copies.')
    await settle()
    expect(log().getAttribute('aria-busy')).toBe('false')

    // Back to c1, with a long history: its earlier messages are added without being read.
    for (let i = 0; i < 200; i++) env.fake.addMessage('c1', { id: `x${i}`, role: 'user', content: `later ${i}` })
    await useConversationsStore().select('c1')
    await settle()
    expect(log().getAttribute('aria-live')).toBe('off')
    env.fake.emit('message:delta', { conversationId: 'c1', messageId: 'm-stream', runId: 'r1', delta: 'Also' })
    await settle()
    expect(log().getAttribute('aria-live')).toBe('polite')
    document.querySelector<HTMLButtonElement>('[data-testid="show-earlier"]')!.click()
    await settle()
    expect(log().getAttribute('aria-live')).toBe('off')
  })
})
