import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { nextTick } from 'vue'
import MessageItem from './MessageItem.vue'
import MessageList from './MessageList.vue'
import ThinkingPicker from './ThinkingPicker.vue'
import RunStatus from './RunStatus.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useChatStore } from '../../stores/chat'
import { useConversationsStore } from '../../stores/conversations'
import { useSettingsStore } from '../../stores/settings'
import { flushFrame } from '../../lib/frame'
import type { Message } from '../../types'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(async () => {
  await flushFrame()
  w?.unmount()
  w = null
  document.body.innerHTML = ''
})

const reply = (over: Partial<Message>): Message => ({
  id: 'a1',
  conversationId: 'c1',
  role: 'assistant',
  content: 'The answer is 42.',
  created_at: '2026-01-01T00:00:00Z',
  parent_id: 'u1',
  siblings: 1,
  sibling_index: 0,
  ...over,
})

function mountItem(message: Message): VueWrapper {
  w = mount(MessageItem, { props: { message, conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
  return w
}

describe('a reply that thought', () => {
  it('folds its thinking away as "Thought for 12 s", opened and closed by the toggle, as text only', async () => {
    const item = mountItem(reply({ reasoning: 'Six times seven.\n\n<img src=x onerror=alert(1)> is text', reasoning_ms: 12_400 }))
    const toggle = item.find('[data-testid="thinking-toggle"]')
    expect(toggle.element.tagName).toBe('BUTTON') // Enter and Space open it
    expect(toggle.text()).toBe('Thought for 12 sec')
    expect(toggle.attributes('aria-expanded')).toBe('false')
    expect(item.find('[data-testid="thinking-body"]').exists()).toBe(false)
    expect(item.text()).not.toContain('Six times')
    await toggle.trigger('click')
    const body = item.find('[data-testid="thinking-body"]')
    expect(toggle.attributes('aria-expanded')).toBe('true')
    expect(toggle.attributes('aria-controls')).toBe(body.attributes('id'))
    expect(body.findAll('p').map((p) => p.text())).toEqual(['Six times seven.', '<img src=x onerror=alert(1)> is text'])
    expect(body.find('img').exists()).toBe(false)
    await toggle.trigger('click')
    expect(item.find('[data-testid="thinking-body"]').exists()).toBe(false)
  })

  it('says so when it only thought, and offers no copy of an empty reply', () => {
    const item = mountItem(reply({ content: '', reasoning: 'Hmm.', reasoning_ms: 900 }))
    expect(item.find('[data-testid="thought-without-answer"]').text()).toContain('only thought and gave no answer')
    expect(item.find('.markdown').exists()).toBe(false)
    expect(item.find('[aria-label="Copy reply"]').exists()).toBe(false)
  })

  it('shows the thinking time apart from the answer time, and the refused setting once', () => {
    const item = mountItem(
      reply({
        reasoning: 'Plan.',
        reasoning_ms: 12_000,
        stats: { time_to_first_token_ms: 300, duration_ms: 15_500, tokens_per_second: 40, prompt_tokens: 10, completion_tokens: 500,
          answer_ms: 3_400, thinking_note: 'The server refused thinking "low" for this model; it was asked again without the setting.' },
      }),
    )
    const figures = item.find('[data-testid="reply-figures"]')
    expect(figures.find('[data-figure="thought"]').text()).toBe('thought 12 sec')
    expect(figures.find('[data-figure="answer"]').text()).toBe('answered in 3.4 sec')
    expect(item.find('[data-testid="thinking-note"]').text()).toContain('refused thinking "low"')
  })

  it('is shown in the list even when it only called a tool (its thinking is)', async () => {
    env.fake.addConversation({ id: 'c1' })
    env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'compute' })
    env.fake.addMessage('c1', { id: 'a0', role: 'assistant', content: '', reasoning: 'Use the calculator.', reasoning_ms: 300,
      tool_calls: [{ id: 'call_1', name: 'calculator', arguments: '{}' }] })
    env.fake.addMessage('c1', { id: 't1', role: 'tool', content: '42', tool_call_id: 'call_1', tool_name: 'calculator' })
    connectEvents()
    await useChatStore().open('c1')
    w = mount(MessageList, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    const msgs = w.findAll('[data-testid="assistant-message"]')
    expect(msgs).toHaveLength(1)
    expect(msgs[0]!.find('[data-testid="thinking-toggle"]').text()).toBe('Thought for less than a second')
    expect(w.find('[data-testid="thought-without-answer"]').exists()).toBe(false) // it called a tool
  })
})

describe('the run status while a reply thinks', () => {
  it('stays "Thinking…" until the answer streams', async () => {
    const chat = useChatStore()
    chat.onReasoning({ conversationId: 'c1', delta: 'Let me see.' })
    w = mount(RunStatus, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] } })
    expect(w.text()).toBe('Thinking…')
    chat.onDelta({ conversationId: 'c1', delta: 'The answer' })
    await nextTick()
    expect(w.text()).toBe('Writing…')
  })
})

describe('the thinking menu of the chat header', () => {
  it('offers the profile\'s setting and the five, and sets the conversation\'s', async () => {
    env.fake.addConversation({ id: 'c1' })
    env.fake.storedProfiles.set('default', { name: 'default', system_prompt: '', model: '', tools: [], thinking: 'off' })
    const conversations = useConversationsStore()
    await conversations.load()
    await useSettingsStore().loadProfiles()
    w = mount(ThinkingPicker, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    const select = w.find('[data-testid="chat-thinking-select"]')
    expect(select.attributes('aria-label')).toBe('Thinking for this conversation')
    expect(select.findAll('option').map((o) => o.text())).toEqual([
      'Thinking: default (off)', 'Thinking: automatic', 'Thinking: off', 'Thinking: low', 'Thinking: medium', 'Thinking: high',
    ])
    await select.setValue('high')
    await settle()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c1', thinking: 'high' }]])
    expect(conversations.byId('c1')?.thinking).toBe('high')
    await select.setValue('')
    await settle()
    expect(env.fake.callsOf('updateConversation').at(-1)).toEqual([{ id: 'c1', thinking: '' }])
    expect(conversations.byId('c1')?.thinking ?? '').toBe('')
  })

  it('keeps the old setting when the backend refuses the new one', async () => {
    env.fake.addConversation({ id: 'c1', thinking: 'low' })
    const conversations = useConversationsStore()
    await conversations.load()
    expect(await conversations.setThinking('c1', 'extreme')).toBe(false)
    expect(conversations.byId('c1')?.thinking).toBe('low')
    expect(conversations.actionError).toContain('thinking must be')
  })
})
