import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import ConversationSidebar from './ConversationSidebar.vue'
import ConversationItem from './ConversationItem.vue'
import { makeCard, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { flushAfterPaint } from '../../lib/frame'
import { PAGE_SIZE, useConversationsStore } from '../../stores/conversations'
import { OPEN_WINDOW } from '../../stores/chat'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
  vi.useRealTimers()
})

async function mountSidebar(n = 3) {
  for (let i = 0; i < n; i++) {
    const t = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()
    env.fake.addConversation({ id: `c${i}`, title: `Chat ${i}`, created_at: t, updated_at: t })
  }
  await useConversationsStore().load()
  w = mount(ConversationSidebar, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const titles = (w: VueWrapper) => w.findAll('.conv-title').map((t) => t.text())

describe('ConversationSidebar', () => {
  it('shows the brand and the conversations, newest first', async () => {
    const s = await mountSidebar()
    expect(s.text()).toContain('Parley')
    expect(titles(s)).toEqual(['Chat 2', 'Chat 1', 'Chat 0'])
  })

  // Issue #42: the send and the card each rendered the whole row again (its
  // title, its labelled buttons) for the dot, in the tasks the card waited
  // behind; and the dot changing in the card's frame widened what the window
  // paints in it to the whole window.
  it("shows a run's dot and a waiting card's count on the row without rendering the row again, not in the send's or the card's frame", async () => {
    const s = await mountSidebar(2)
    connectEvents()
    flushAfterPaint()
    await settle()
    const row = s.findAllComponents(ConversationItem).find((r) => r.props('conversation').id === 'c1')!
    const tree = row.vm.$.subTree
    const busy = () => row.find('[data-testid="conversation-busy"]').exists()
    const waiting = () => row.find('[data-testid="conversation-waiting"]').exists()
    expect(busy()).toBe(false)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    env.fake.emit('conversation:state', { conversationId: 'c1', state: 'requesting' })
    await settle()
    // Once the run has gone on for a second (the header says at once).
    expect(busy()).toBe(false)
    vi.advanceTimersByTime(999)
    await flushPromises()
    expect(busy()).toBe(false)
    vi.advanceTimersByTime(1)
    await flushPromises()
    expect(busy()).toBe(true)
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: makeCard().questions }, true)
    env.fake.emit('conversation:state', { conversationId: 'c1', state: 'awaiting_user_response' })
    await flushPromises()
    // The card's count: after the frame that shows the card.
    expect(waiting()).toBe(false)
    expect(busy()).toBe(true)
    flushAfterPaint()
    await flushPromises()
    expect(waiting()).toBe(true)
    expect(busy()).toBe(false)
    expect(row.find('[data-testid="conversation-waiting"]').attributes('title')).toBe('1 question waiting')
    expect(row.find('[data-testid="conversation-waiting"]').text()).toBe(', 1 question waiting')
    // The other row shows neither.
    const other = s.findAllComponents(ConversationItem).find((r) => r.props('conversation').id === 'c0')!
    expect(other.find('[data-testid="conversation-waiting"], [data-testid="conversation-busy"]').exists()).toBe(false)
    expect(row.vm.$.subTree).toBe(tree)
  })

  it("makes a row's buttons in a task after the frame that shows it, a new row's too", async () => {
    env.fake.addConversation({ id: 'c0', title: 'Chat 0' })
    const conversations = useConversationsStore()
    await conversations.load()
    w = mount(ConversationSidebar, { global: { plugins: [env.pinia] }, attachTo: document.body })
    await flushPromises()
    const buttons = (id: string) => w!.findAll('[data-testid="conversation-item"]').find((r) => r.text().includes(id))!.findAll('.conv-actions button[data-testid]').map((b) => b.attributes('data-testid'))
    expect(titles(w)).toEqual(['Chat 0'])
    expect(buttons('Chat 0')).toEqual([])
    flushAfterPaint()
    await flushPromises()
    expect(buttons('Chat 0')).toEqual(['rename', 'pin', 'delete', 'more'])
    await conversations.create('Chat 1')
    await flushPromises()
    expect(titles(w)).toEqual(['Chat 1', 'Chat 0'])
    expect(buttons('Chat 1')).toEqual([])
    flushAfterPaint()
    await flushPromises()
    expect(buttons('Chat 1')).toEqual(['rename', 'pin', 'delete', 'more'])
  })

  it('opens a conversation on click and marks it current', async () => {
    const s = await mountSidebar()
    await s.findAll('[data-testid="conversation-open"]')[1]!.trigger('click')
    await settle()
    expect(useConversationsStore().currentId).toBe('c1')
    expect(s.findAll('[data-testid="conversation-open"]')[1]!.attributes('aria-current')).toBe('page')
    expect(env.fake.callsOf('getConversation')).toContainEqual([{ id: 'c1', last: OPEN_WINDOW }])
  })

  it('"New chat" goes to the empty screen', async () => {
    const s = await mountSidebar()
    await useConversationsStore().select('c1')
    await s.find('[data-testid="new-chat"]').trigger('click')
    expect(useConversationsStore().currentId).toBeNull()
    expect(s.emitted('new-chat')).toHaveLength(1)
  })

  it('renames inline: Enter saves, Esc cancels', async () => {
    const s = await mountSidebar(1)
    await s.find('[data-testid="rename"]').trigger('click')
    const input = s.find('[data-testid="rename-input"]')
    expect(document.activeElement).toBe(input.element)
    await input.setValue('Holiday plans')
    await input.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c0', title: 'Holiday plans' }]])
    expect(titles(s)).toEqual(['Holiday plans'])

    await s.find('[data-testid="rename"]').trigger('click')
    await s.find('[data-testid="rename-input"]').setValue('Discarded')
    await s.find('[data-testid="rename-input"]').trigger('keydown', { key: 'Escape' })
    await settle()
    expect(titles(s)).toEqual(['Holiday plans'])
    expect(env.fake.callsOf('updateConversation')).toHaveLength(1)
  })

  it('deletes only after confirming', async () => {
    const s = await mountSidebar(2)
    await s.findAll('[data-testid="delete"]')[0]!.trigger('click')
    expect(s.find('[role="alertdialog"]').text()).toContain('Delete “Chat 1”?')
    await s.find('[data-testid="cancel-delete"]').trigger('click')
    expect(env.fake.callsOf('deleteConversation')).toHaveLength(0)
    await s.findAll('[data-testid="delete"]')[0]!.trigger('click')
    await s.find('[data-testid="confirm-delete"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteConversation')).toEqual([[{ id: 'c1' }]])
    expect(titles(s)).toEqual(['Chat 0'])
  })

  it('pins into a Pinned group', async () => {
    const s = await mountSidebar(2)
    const pin = s.findAll('[data-testid="pin"]')[1]!
    expect(pin.attributes('aria-label')).toBe('Pin Chat 0')
    await pin.trigger('click')
    await settle()
    expect(s.find('[data-testid="pinned-list"]').text()).toContain('Chat 0')
    expect(s.find('[data-testid="recent-list"]').text()).not.toContain('Chat 0')
  })

  it('searches after a short pause, and pages with "Load more"', async () => {
    vi.useFakeTimers()
    const s = await mountSidebar(PAGE_SIZE + 2)
    expect(s.findAll('[data-testid="conversation-item"]')).toHaveLength(PAGE_SIZE)
    await s.find('[data-testid="load-more"]').trigger('click')
    await settle()
    expect(s.findAll('[data-testid="conversation-item"]')).toHaveLength(PAGE_SIZE + 2)
    expect(s.find('[data-testid="load-more"]').exists()).toBe(false)

    await s.find('[data-testid="search"]').setValue('Chat 3')
    expect(env.fake.callsOf('listConversations').some((c) => (c[0] as { q?: string }).q)).toBe(false)
    await vi.advanceTimersByTimeAsync(300)
    await settle()
    expect(env.fake.callsOf('listConversations').at(-1)).toEqual([{ limit: PAGE_SIZE, q: 'Chat 3' }])
    expect(titles(s)).toEqual(['Chat 31', 'Chat 30', 'Chat 3'])
    await s.find('[data-testid="search"]').setValue('zzz')
    await vi.advanceTimersByTimeAsync(300)
    await settle()
    expect(s.text()).toContain('No conversations match “zzz”.')
  })
})
