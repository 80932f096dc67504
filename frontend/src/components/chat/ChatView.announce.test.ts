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

async function mountView() {
  env.fake.addConversation({ id: 'c1', title: 'Groceries' })
  env.fake.addConversation({ id: 'c2', title: 'Taxes' })
  connectEvents()
  const conversations = useConversationsStore()
  await conversations.load()
  await conversations.select('c1')
  w = mount(ChatView, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const reply = (conversationId: string, id: string, content: string) =>
  env.fake.emit('message:done', { conversationId, message: { id, conversationId, role: 'assistant', content, created_at: '2025-01-01T00:00:00Z' } })

describe('announcing finished replies to screen readers', () => {
  it('puts a finished reply, as plain text, into a polite live region; streamed text is not announced', async () => {
    const v = await mountView()
    const region = v.find('[data-testid="reply-announcer"]')
    expect(region.attributes('aria-live')).toBe('polite')

    env.fake.emit('message:delta', { conversationId: 'c1', messageId: 'm1', runId: 'r1', delta: 'Buy **milk**' })
    await settle()
    expect(v.find('[role="log"]').attributes('aria-live')).toBe('off')
    expect(region.text()).toBe('')

    reply('c1', 'm1', 'Buy **milk** and:\n\n- eggs\n- bread\n\n```sh\necho hi\n```')
    await settle()
    expect(region.text()).toBe('Assistant replied: Buy milk and: eggs bread echo hi')
  })

  it('does not announce replies of other conversations, the same message twice, or a tool call without text', async () => {
    const v = await mountView()
    const region = v.find('[data-testid="reply-announcer"]')
    reply('c2', 'm2', 'Your taxes are done.')
    await settle()
    expect(region.text()).toBe('')

    reply('c1', 'm3', 'First answer.')
    await settle()
    expect(region.text()).toBe('Assistant replied: First answer.')
    const seen: string[] = []
    const observer = new MutationObserver(() => seen.push(region.element.textContent ?? ''))
    observer.observe(region.element, { childList: true, characterData: true, subtree: true })
    reply('c1', 'm3', 'First answer.') // the same event again
    env.fake.emit('message:done', { conversationId: 'c1', message: { id: 'm4', conversationId: 'c1', role: 'assistant', content: '', created_at: '2025-01-01T00:00:00Z', tool_calls: [{ id: 't', name: 'calc', arguments: '{}' }] } })
    await settle()
    observer.disconnect()
    expect(seen).toEqual([])

    // Switching conversations clears what was said.
    await useConversationsStore().select('c2')
    await settle()
    expect(region.text()).toBe('')
  })
})
