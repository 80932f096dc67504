import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import ChatShell from '../components/layout/ChatShell.vue'
import { connectEvents, startApp, EVENTS_OPEN_WAIT_MS } from './events'
import { useConversationsStore } from './conversations'
import { useQuestionsStore } from './questions'
import { OPEN_WINDOW, useChatStore } from './chat'
import { fakePage, makeCard, q, setupEnv, settle, type FakePage, type TestEnv } from '../test-utils'

let env: TestEnv
let page: FakePage
let off: (() => void) | null = null
let w: VueWrapper | null = null

beforeEach(() => {
  env = setupEnv()
  page = fakePage()
})
afterEach(() => {
  w?.unmount()
  w = null
  off?.()
  off = null
  document.body.innerHTML = ''
})

async function start(opts: { open?: string | null; page?: FakePage } = {}) {
  const t = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString()
  env.fake.addConversation({ id: 'c1', title: 'Groceries', created_at: t(1), updated_at: t(1) })
  env.fake.addConversation({ id: 'c2', title: 'Taxes', created_at: t(2), updated_at: t(2) })
  env.fake.addConversation({ id: 'c3', title: 'New chat', created_at: t(3), updated_at: t(3) })
  off = connectEvents({ attention: opts.page ?? page })
  const conversations = useConversationsStore()
  await Promise.all([conversations.load(), useQuestionsStore().loadPending()])
  if (opts.open !== null) await conversations.select(opts.open ?? 'c1')
  w = mount(ChatShell, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const header = () => w!.find('.chat-title').text()
const listTitles = (sel = '[data-testid="recent-list"]') => w!.findAll(`${sel} .conv-title`).map((e) => e.text())
const pinnedTitles = () => listTitles('[data-testid="pinned-list"]')
const inboxCount = () => (w!.find('[data-testid="inbox-badge"]').exists() ? w!.find('[data-testid="inbox-badge"]').text() : '0')

describe('conversation:updated', () => {
  it('shows a new title (e.g. the auto-title) in the list and in the open conversation header', async () => {
    await start({ open: 'c3' })
    expect(header()).toBe('New chat')
    expect(listTitles()).toEqual(['New chat', 'Taxes', 'Groceries'])

    env.fake.emit('conversation:updated', { conversationId: 'c3', title: 'Plan a trip to Lisbon' })
    await settle()
    expect(header()).toBe('Plan a trip to Lisbon')
    expect(listTitles()).toEqual(['Plan a trip to Lisbon', 'Taxes', 'Groceries'])
    expect(env.fake.callsOf('getConversation')).toEqual([[{ id: 'c3', last: OPEN_WINDOW }]]) // no extra fetch needed
  })

  it('titles a new chat after its first message (the backend auto-titles and tells us)', async () => {
    await start({ open: null })
    const conversations = useConversationsStore()
    await conversations.create()
    await settle()
    expect(header()).toBe('New chat')
    await w!.find('textarea[aria-label="Message"]').setValue('What should I pack for a week in Lisbon?')
    await w!.find('[data-testid="composer"]').trigger('submit')
    await settle()
    expect(header()).toBe('What should I pack for a week in Lisbon?')
    expect(listTitles()[0]).toBe('What should I pack for a week in Lisbon?')
  })

  it('pins and unpins: the list puts pinned conversations first', async () => {
    await start()
    expect(w!.find('[data-testid="pinned-list"]').exists()).toBe(false)
    env.fake.emit('conversation:updated', { conversationId: 'c1', pinned: true })
    await settle()
    expect(pinnedTitles()).toEqual(['Groceries'])
    expect(listTitles()).toEqual(['New chat', 'Taxes'])
    expect(w!.find('[data-testid="pinned-list"] [data-testid="pin"]').attributes('aria-pressed')).toBe('true')

    // Only the fields sent change.
    env.fake.emit('conversation:updated', { conversationId: 'c1', title: 'Weekly groceries' })
    await settle()
    expect(pinnedTitles()).toEqual(['Weekly groceries'])
    expect(header()).toBe('Weekly groceries')

    env.fake.emit('conversation:updated', { conversationId: 'c1', pinned: false })
    await settle()
    expect(w!.find('[data-testid="pinned-list"]').exists()).toBe(false)
    expect(listTitles()).toEqual(['New chat', 'Taxes', 'Weekly groceries'])
  })

  it('fetches a conversation it does not list yet (e.g. imported elsewhere)', async () => {
    await start()
    env.fake.addConversation({ id: 'c9', title: 'Imported notes' })
    env.fake.emit('conversation:updated', { conversationId: 'c9', title: 'Imported notes' })
    await settle()
    expect(listTitles()).toContain('Imported notes')
  })

  it('keeps the header of the open conversation current while a search hides it from the list', async () => {
    await start({ open: 'c3' })
    await useConversationsStore().search('taxes')
    await settle()
    expect(listTitles()).toEqual(['Taxes'])
    env.fake.emit('conversation:updated', { conversationId: 'c3', title: 'Trip ideas' })
    await settle()
    expect(header()).toBe('Trip ideas')
    expect(listTitles()).toEqual(['Taxes'])
  })
})

describe('conversation:deleted', () => {
  it('removes the conversation and its pending cards from the inbox', async () => {
    await start()
    env.fake.addCard({ question_id: 'q2', conversationId: 'c2', questions: [q({ question: 'Which year?' })] }, true)
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: [q({ question: 'Which shop?' })] }, true)
    await settle()
    expect(inboxCount()).toBe('2')
    const questions = useQuestionsStore()
    questions.ensureDraft('q2', 1).comments = 'half done'

    env.fake.emit('conversation:deleted', { conversationId: 'c2' })
    await settle()
    expect(listTitles()).toEqual(['New chat', 'Groceries'])
    expect(inboxCount()).toBe('1')
    expect(questions.pendingCards.map((c) => c.question_id)).toEqual(['q1'])
    expect(questions.drafts.q2).toBeUndefined()
    expect(useConversationsStore().currentId).toBe('c1') // another one was open: it stays
    expect(header()).toBe('Groceries')
  })

  it('goes to an empty new chat when the open conversation is deleted', async () => {
    await start({ open: 'c2' })
    env.fake.addMessage('c2', { role: 'user', content: 'my tax question' })
    await useConversationsStore().select('c2')
    await settle()
    expect(w!.text()).toContain('my tax question')

    env.fake.emit('conversation:deleted', { conversationId: 'c2' })
    await settle()
    expect(useConversationsStore().currentId).toBeNull()
    expect(header()).toBe('New chat')
    expect(w!.find('.empty').exists()).toBe(true)
    expect(w!.text()).not.toContain('my tax question')
    expect(useChatStore().messages.c2).toBeUndefined()
    expect(listTitles()).not.toContain('Taxes')
  })

  it('late events of a deleted conversation do not bring it back', async () => {
    await start()
    env.fake.emit('conversation:deleted', { conversationId: 'c2' })
    env.fake.emit('conversation:state', { conversationId: 'c2', state: 'idle' })
    env.fake.emit('conversation:updated', { conversationId: 'c2', title: 'Taxes 2026' })
    env.fake.emit('question:ask', makeCard({ question_id: 'late', conversationId: 'c2' }))
    await settle()
    expect(listTitles()).toEqual(['New chat', 'Groceries'])
    expect(inboxCount()).toBe('0')
    expect(env.fake.callsOf('getConversation')).toEqual([[{ id: 'c1', last: OPEN_WINDOW }]])
    expect(page.Notification.created).toHaveLength(0)
  })

  it('deleting from this window (the backend also sends the event) removes it once', async () => {
    await start({ open: 'c1' })
    expect(await useConversationsStore().remove('c1')).toBe(true)
    await settle()
    expect(listTitles()).toEqual(['New chat', 'Taxes'])
    expect(useConversationsStore().currentId).toBeNull()
  })
})

describe('attention when a card arrives in the background', () => {
  const ask = (id: string, conversationId: string, question: string) =>
    env.fake.addCard({ question_id: id, conversationId, questions: [q({ question }), q({ question: 'And then?' })] }, true)

  it('notifies once per card only while the window is not focused, and counts pending cards in the title', async () => {
    await start()
    ask('q0', 'c1', 'Seen while here?')
    await settle()
    expect(page.Notification.created).toHaveLength(0)
    expect(page.document.title).toBe('Parley')

    page.document.blur()
    ask('q1', 'c2', 'Which tax year?')
    await settle()
    expect(page.Notification.created).toHaveLength(1)
    expect(page.Notification.created[0]!.title).toBe('Parley has a question')
    expect(page.Notification.created[0]!.options?.body).toBe('Which tax year?')
    expect(page.document.title).toBe('(2) Parley')

    // The same card again (e.g. a repeated event): no second notification.
    env.fake.emit('question:ask', { ...env.fake.cards.get('q1')! })
    await settle()
    expect(page.Notification.created).toHaveLength(1)

    ask('q2', 'c3', 'Shall I go on?')
    await settle()
    expect(page.Notification.created).toHaveLength(2)
    expect(page.document.title).toBe('(3) Parley')

    env.fake.emit('question:resolved', { ...env.fake.cards.get('q2')!, status: 'answered' })
    await settle()
    expect(page.document.title).toBe('(2) Parley')
    expect(page.Notification.created[1]!.closed).toBe(true)

    page.window.userFocus()
    expect(page.document.title).toBe('Parley')
    expect(page.Notification.created[0]!.closed).toBe(true)
  })

  it("an agent's card (SPEC §10) notifies with the agent's name as the title", async () => {
    await start()
    page.document.blur()
    env.fake.addCard({ question_id: 'a1', conversationId: 'c2', source: { type: 'agent', agent: 'parley ask' }, questions: [q({ question: 'Deploy to production?' })] }, true)
    env.fake.addCard({ question_id: 'a2', conversationId: 'c3', source: { type: 'agent', agent: 'claude-code' }, questions: [q({ question: 'Which branch?' }), q({ question: 'And then?' })] }, true)
    ask('m1', 'c1', 'Which tax year?')
    await settle()
    expect(page.Notification.created.map((n) => [n.title, n.options?.body])).toEqual([
      ['parley ask has a question', 'parley ask: Deploy to production?'],
      ['claude-code has 2 questions', 'claude-code: Which branch?'],
      ['Parley has a question', 'Which tax year?'],
    ])
  })

  it('a click on the notification opens the card in its conversation', async () => {
    await start()
    page.document.blur()
    ask('q1', 'c2', 'Which tax year?')
    await settle()
    page.Notification.created[0]!.click()
    await settle()
    await settle()
    expect(page.window.focusCalls).toBe(1)
    expect(useConversationsStore().currentId).toBe('c2')
    expect(header()).toBe('Taxes')
    expect(useQuestionsStore().focusRequest?.questionId).toBe('q1')
    const card = w!.find('[data-question-id="q1"]')
    expect(card.exists()).toBe(true)
    expect(card.element.contains(document.activeElement)).toBe(true)
    expect(page.document.title).toBe('Parley')
  })

  it('asks for notification permission on the first card, not before', async () => {
    const asking = fakePage({ permission: 'default', answer: 'granted' })
    await start({ page: asking })
    expect(asking.Notification.requests).toBe(0)
    asking.document.blur()
    ask('q1', 'c2', 'Which tax year?')
    await settle()
    expect(asking.Notification.requests).toBe(1)
    expect(asking.Notification.created).toHaveLength(1)
    ask('q2', 'c3', 'Shall I go on?')
    await settle()
    expect(asking.Notification.requests).toBe(1)
    expect(asking.Notification.created).toHaveLength(2)
  })

  it('never asks when notifications are denied, and still marks the title', async () => {
    const denied = fakePage({ permission: 'denied' })
    await start({ page: denied })
    denied.document.blur()
    ask('q1', 'c2', 'Which tax year?')
    await settle()
    expect(denied.Notification.requests).toBe(0)
    expect(denied.Notification.created).toHaveLength(0)
    expect(denied.document.title).toBe('(1) Parley')
  })

  it('stops listening and removes the prefix when disconnected', async () => {
    await start()
    page.document.blur()
    ask('q1', 'c2', 'Which tax year?')
    await settle()
    expect(page.document.title).toBe('(1) Parley')
    off!()
    off = null
    expect(page.document.title).toBe('Parley')
    expect(page.window.count() + page.document.count()).toBe(0)
    ask('q2', 'c3', 'Another?')
    await settle()
    expect(page.Notification.created).toHaveLength(1)
  })
})

describe('startApp', () => {
  it('reads the first data once events flow, so a conversation made while the stream opened is listed', async () => {
    const open = env.fake.holdEventsOpen()
    const started = startApp({ attention: page })
    await settle()
    // Filed by an agent before the stream was open: its event was never sent.
    env.fake.addConversation({ id: 'agent-a', title: 'deploy-bot', agent: 'deploy-bot' })
    open()
    off = await started
    expect(useConversationsStore().items.map((c) => c.id)).toContain('agent-a')
  })

  it('does not wait for a stream that is slow to open, and reloads once it is open', async () => {
    vi.useFakeTimers()
    try {
      const open = env.fake.holdEventsOpen()
      const started = startApp({ attention: page })
      await vi.advanceTimersByTimeAsync(EVENTS_OPEN_WAIT_MS)
      off = await started
      expect(useConversationsStore().loaded).toBe(true)
      env.fake.addConversation({ id: 'agent-b', title: 'deploy-bot', agent: 'deploy-bot' })
      open()
      await vi.waitFor(() => expect(useConversationsStore().items.map((c) => c.id)).toContain('agent-b'))
    } finally {
      vi.useRealTimers()
    }
  })
})
