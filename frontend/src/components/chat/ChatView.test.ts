import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import ChatView from './ChatView.vue'
import Composer from './Composer.vue'
import { makeCard, q, setupEnv, settle, type TestEnv } from '../../test-utils'
import { flushAfterPaint } from '../../lib/frame'
import { flushPromises } from '@vue/test-utils'
import { connectEvents } from '../../stores/events'
import { useConversationsStore } from '../../stores/conversations'
import { useQuestionsStore } from '../../stores/questions'
import { useAppStore } from '../../stores/app'
import { useSettingsStore } from '../../stores/settings'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
  document.documentElement.removeAttribute('data-theme')
  localStorage.clear()
})

async function mountView(open = true) {
  env.fake.addConversation({ id: 'c1', title: 'Groceries' })
  env.fake.addConversation({ id: 'c2', title: 'Taxes' })
  connectEvents()
  const conversations = useConversationsStore()
  await conversations.load()
  if (open) await conversations.select('c1')
  w = mount(ChatView, { global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const textbox = (w: VueWrapper) => w.find('textarea[aria-label="Message"]')

describe('ChatView and Composer', () => {
  it('Enter sends, Shift+Enter does not', async () => {
    const v = await mountView()
    await textbox(v).setValue('milk and eggs')
    await textbox(v).trigger('keydown', { key: 'Enter', shiftKey: true })
    expect(env.fake.callsOf('send')).toHaveLength(0)
    await textbox(v).trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'milk and eggs' }]])
    expect((textbox(v).element as HTMLTextAreaElement).value).toBe('')
    expect(v.find('[data-testid="user-message"]').text()).toBe('milk and eggs')
  })

  // Issue #42: in WebKitGTK without the GPU, script replacing the text of the
  // box that has the focus made the send's frame paint the whole window.
  it("a send empties the box while it does not have the focus, and the focus stays in the box", async () => {
    const v = await mountView()
    const box = textbox(v).element as HTMLTextAreaElement
    box.focus()
    await textbox(v).setValue('milk and eggs')
    // Every write of the box's text, and whether the box had the focus then.
    const writes: { value: string; focused: boolean }[] = []
    const own = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!
    Object.defineProperty(box, 'value', {
      configurable: true,
      get: () => own.get!.call(box),
      set: (value: string) => {
        writes.push({ value, focused: document.activeElement === box })
        own.set!.call(box, value)
      },
    })
    const focusMoves: string[] = []
    box.addEventListener('blur', () => focusMoves.push('blur'))
    box.addEventListener('focus', () => focusMoves.push('focus'))
    await textbox(v).trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'milk and eggs' }]])
    expect(box.value).toBe('')
    expect(writes).toEqual([{ value: '', focused: false }])
    expect(document.activeElement).toBe(box)
    expect(focusMoves).toEqual(['blur', 'focus'])
  })

  it('typing, sending and the run state re-render the box, the button and the hint, not the composer around them', async () => {
    const v = await mountView()
    // A render makes the component's tree anew; one that was not rendered again keeps it.
    const form = v.findComponent(Composer).vm.$
    const tree = form.subTree
    const send = () => v.find('[data-testid="send"]')
    const hint = () => v.find('#composer-hint').text()
    const idleHint = hint()
    expect(send().attributes('disabled')).toBeDefined()
    await textbox(v).setValue('m')
    await settle()
    expect(send().attributes('disabled')).toBeUndefined()
    await textbox(v).setValue('milk')
    await textbox(v).trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('send')).toHaveLength(1)
    expect((textbox(v).element as HTMLTextAreaElement).value).toBe('')
    expect(v.find('[data-testid="stop"]').exists()).toBe(true)
    expect(hint()).not.toBe(idleHint)
    env.fake.emit('conversation:state', { conversationId: 'c1', state: 'awaiting_user_response' })
    await settle()
    expect(hint()).toBe('Answer the question above, or skip it, to continue.')
    expect(form.subTree).toBe(tree)
  })

  it('shows the run state in words and Stop while running', async () => {
    const v = await mountView()
    const status = () => v.find('[data-testid="run-status"]').text()
    const cases = [
      ['requesting', 'Thinking…'],
      ['streaming', 'Writing…'],
      ['tool_executing', 'Running a tool…'],
      ['awaiting_user_response', 'Waiting for your answer'],
    ] as const
    for (const [state, label] of cases) {
      env.fake.emit('conversation:state', { conversationId: 'c1', state })
      await settle()
      expect(status()).toBe(label)
      expect(v.find('[data-testid="stop"]').exists()).toBe(true)
      expect(v.find('[data-testid="send"]').exists()).toBe(false)
    }
    await v.find('[data-testid="stop"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('cancel')).toEqual([[{ id: 'c1' }]])
    expect(status()).toBe('')
    expect(v.find('[data-testid="send"]').exists()).toBe(true)
  })

  it('streams deltas into one bubble', async () => {
    const v = await mountView()
    env.fake.emit('message:delta', { conversationId: 'c1', delta: '**Hel', runId: 'r1', messageId: '' })
    env.fake.emit('message:delta', { conversationId: 'c1', delta: 'lo**', runId: 'r1', messageId: '' })
    await settle()
    expect(v.findAll('[data-testid="streaming-message"]')).toHaveLength(1)
    expect(v.find('[data-testid="streaming-message"] strong').text()).toBe('Hello')
  })

  it('marks a message that could not be sent', async () => {
    const v = await mountView()
    env.fake.failNext('send', 'model server unreachable', 502)
    await textbox(v).setValue('compare prices')
    await v.find('form').trigger('submit')
    await settle()
    expect(v.find('[data-testid="user-message"]').text()).toContain('Not sent')
    expect(v.find('[data-testid="user-message"]').classes()).toContain('failed')
  })

  it('shows an error banner with Retry that reruns the assistant without resending the message', async () => {
    const v = await mountView()
    await textbox(v).setValue('compare prices')
    await v.find('form').trigger('submit')
    await settle()
    env.fake.setState('c1', 'error', 'model server unreachable')
    env.fake.emit('run:error', { conversationId: 'c1', error: 'model server unreachable', runId: 'r1' })
    await settle()
    const banner = v.find('[data-testid="error-banner"]')
    expect(banner.attributes('role')).toBe('alert')
    expect(banner.text()).toContain('model server unreachable')
    await v.find('[data-testid="retry"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('retry')).toEqual([[{ id: 'c1' }]])
    expect(env.fake.callsOf('send').map((c) => (c[0] as { content: string }).content)).toEqual(['compare prices'])
    expect(v.findAll('[data-testid="user-message"]').map((m) => m.text())).toEqual(['compare prices'])
    expect(v.find('[data-testid="error-banner"]').exists()).toBe(false)
  })

  it('with the model server unreachable, a failed send shows one error that names the cause', async () => {
    env.fake.reachable = false
    await useSettingsStore().check()
    const v = await mountView()
    await textbox(v).setValue('hello')
    await v.find('form').trigger('submit')
    await settle()
    expect(v.find('[data-testid="onboarding"]').attributes('data-compact')).toBe('true')
    const cause = 'Cannot reach the model server at http://127.0.0.1:9/v1. Is your model server running?'
    env.fake.setState('c1', 'error', cause)
    env.fake.emit('run:error', { conversationId: 'c1', error: cause, runId: 'r1' })
    await settle()
    expect(v.findAll('[data-testid="error-banner"]')).toHaveLength(1)
    expect(v.find('[data-testid="error-banner"]').text()).toContain(cause)
    expect(v.find('[data-testid="onboarding"]').exists()).toBe(false)
    expect(v.find('[data-testid="run-status"]').text()).toBe('')
    expect(v.findAll('[role="alert"]')).toHaveLength(1)
    // The way forward the onboarding banner offered is on the error.
    await v.find('[data-testid="error-settings"]').trigger('click')
    expect(useSettingsStore().panelOpen).toBe(true)

    // Dismissed, the standing state is back: the run failed, the server is unreachable.
    await v.find('[data-testid="error-banner"] [aria-label="Dismiss"]').trigger('click')
    await settle()
    expect(v.find('[data-testid="onboarding"]').exists()).toBe(true)
    expect(v.find('[data-testid="run-status"]').text()).toBe('Something went wrong')
  })

  it('a conversation that loaded in state error offers Retry, which reruns it through transport.retry', async () => {
    env.fake.addConversation({ id: 'c9', title: 'Interrupted', state: 'error', error: 'Parley was closed before the assistant finished. Retry to continue.' })
    env.fake.addMessage('c9', { role: 'user', content: 'Summarise my notes' })
    const v = await mountView(false)
    await useConversationsStore().select('c9')
    await settle()
    expect(v.find('[data-testid="error-banner"]').text()).toContain('Parley was closed before the assistant finished. Retry to continue.')
    await v.find('[data-testid="retry"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('retry')).toEqual([[{ id: 'c9' }]])
    expect(env.fake.callsOf('send')).toHaveLength(0)
    expect(v.findAll('[data-testid="user-message"]')).toHaveLength(1)
    expect(v.find('[data-testid="run-status"]').text()).toBe('Thinking…')
  })

  it('the inbox badge counts pending cards of all conversations and jumps to one', async () => {
    const v = await mountView()
    expect(v.find('[data-testid="inbox-badge"]').exists()).toBe(false)
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: makeCard().questions }, true)
    env.fake.addCard({ question_id: 'q2', conversationId: 'c2', questions: [{ question: 'Which year?', options: [], multiSelect: false, allowCustom: true }] }, true)
    await settle()
    expect(v.find('[data-testid="inbox-badge"]').text()).toBe('2')
    expect(v.find('[data-testid="inbox-button"]').attributes('aria-label')).toBe('Questions: 2 questions are waiting for you')

    await v.find('[data-testid="inbox-button"]').trigger('click')
    const items = v.findAll('[data-testid="inbox-item"]')
    expect(items).toHaveLength(2)
    expect(items[0]!.text()).toContain('Groceries')
    expect(items[0]!.text()).toContain('Which database?')
    expect(items[1]!.text()).toContain('Taxes')
    expect(items[1]!.text()).toContain('Which year?')
    await items[1]!.trigger('click')
    await settle()
    await settle()
    expect(useConversationsStore().currentId).toBe('c2')
    expect(v.find('[data-testid="inbox-panel"]').exists()).toBe(false)
    const card = v.find('[data-question-id="q2"]')
    expect(card.exists()).toBe(true)
    expect(card.element.contains(document.activeElement)).toBe(true)

    env.fake.emit('question:resolved', { ...makeCard({ question_id: 'q1', conversationId: 'c1', status: 'declined' }) })
    await settle()
    expect(v.find('[data-testid="inbox-badge"]').text()).toBe('1')
    expect(useQuestionsStore().inboxCount).toBe(1)
  })

  it("the inbox entry of an agent's card (SPEC §10) names the agent; the assistant's shows its conversation", async () => {
    const v = await mountView()
    env.fake.addCard({ question_id: 'm1', conversationId: 'c1', questions: makeCard().questions }, true)
    // The agent's conversation is not in the list (yet): the entry still names the agent.
    env.fake.addCard({ question_id: 'a1', conversationId: 'agent-conv', source: { type: 'agent', agent: 'parley ask' }, questions: [q({ question: 'Deploy to production?' })] }, true)
    env.fake.addCard(
      { question_id: 'a2', conversationId: 'agent-conv-2', source: { type: 'agent', agent: '<b>claude-code</b>' }, questions: [q({ question: 'Which branch?' }), q({ question: 'Squash?' })] },
      true,
    )
    await settle()
    await v.find('[data-testid="inbox-button"]').trigger('click')
    const items = v.findAll('[data-testid="inbox-item"]')
    expect(items.map((i) => i.find('.inbox-conv').text())).toEqual(['Groceries', 'parley ask has a question', '<b>claude-code</b> has 2 questions'])
    expect(items[1]!.text()).toContain('Deploy to production?')
    expect(items[2]!.find('b').exists()).toBe(false)
    expect(items[2]!.find('.inbox-more').text()).toBe('+1 more')
  })

  it('switches theme through data-theme on <html>', async () => {
    const v = await mountView(false)
    const app = useAppStore()
    expect(app.theme).toBe('system')
    await v.find('[data-testid="theme-toggle"]').trigger('click')
    expect(document.documentElement.getAttribute('data-theme')).toBe('light')
    await v.find('[data-testid="theme-toggle"]').trigger('click')
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark')
    expect(localStorage.getItem('parley.theme')).toBe('dark')
    await v.find('[data-testid="theme-toggle"]').trigger('click')
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false)
  })
})

describe('question card drafts', () => {
  it('keep selections, Other text, comments and the step while the user switches conversations and back', async () => {
    const v = await mountView()
    env.fake.addCard(
      {
        question_id: 'd1',
        conversationId: 'c1',
        questions: [
          makeCard().questions[0]!,
          q({ question: 'Which features?', header: 'Features', multiSelect: true, options: [{ label: 'Auth' }, { label: 'Search' }] }),
        ],
      },
      true,
    )
    await settle()
    const card = () => v.find('[data-question-id="d1"]')
    await card().findAll('input[type="radio"]')[1]!.setValue(true) // SQLite
    await card().find('[data-testid="primary"]').trigger('click')
    expect(card().find('legend').text()).toContain('Which features?')
    await card().findAll('input[type="checkbox"]')[0]!.setValue(true) // Auth
    await card().find('[data-other-input]').setValue('Audit log')
    await card().find('[data-testid="primary"]').trigger('click') // to the review
    await card().find('[data-testid="add-comment"]').trigger('click')
    await card().find('textarea[data-comments]').setValue('Keep it small')
    await card().findAll('[role="tab"]')[1]!.trigger('click') // back to step 2

    await useConversationsStore().select('c2')
    await settle()
    expect(card().exists()).toBe(false)
    expect(v.find('.chat-title').text()).toBe('Taxes')
    // A reconnect meanwhile reloads everything; the draft stays.
    env.fake.emit('transport:connection', { connected: true, reconnected: true })
    await settle()

    await useConversationsStore().select('c1')
    await settle()
    expect(card().exists()).toBe(true)
    expect(card().find('legend').text()).toContain('Which features?') // the step
    const boxes = card().findAll<HTMLInputElement>('input[type="checkbox"][data-option]')
    expect(boxes.map((b) => b.element.checked)).toEqual([true, false, true]) // Auth, Search, Other
    expect(card().find<HTMLInputElement>('[data-other-input]').element.value).toBe('Audit log')
    await card().findAll('[role="tab"]')[0]!.trigger('click')
    expect(card().findAll<HTMLInputElement>('input[type="radio"]').map((r) => r.element.checked)).toEqual([false, true, false, false])
    await card().findAll('[role="tab"]')[2]!.trigger('click')
    expect(card().find('.review').text()).toContain('SQLite')
    expect(card().find('.review').text()).toContain('Auth, Audit log')
    expect(card().find<HTMLTextAreaElement>('textarea[data-comments]').element.value).toBe('Keep it small')

    await card().find('[data-testid="primary"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('respond')).toEqual([
      [
        {
          id: 'c1',
          question_id: 'd1',
          action: 'submit',
          answers: { 'Which database?': { selected: ['SQLite'] }, 'Which features?': { selected: ['Auth'], custom: 'Audit log' } },
          comments: 'Keep it small',
        },
      ],
    ])
  })

  it('switches the open conversation to another assistant profile', async () => {
    await env.fake.saveProfile({ name: 'writer', system_prompt: 'Haiku.', model: '', tools: [] })
    const v = await mountView()
    const select = v.find('[data-testid="chat-assistant-select"]')
    expect(select.exists()).toBe(true)
    expect((select.element as HTMLSelectElement).value).toBe('default')
    await select.setValue('writer')
    await settle()
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: 'c1', assistant: 'writer' }]])
    expect(useConversationsStore().byId('c1')!.assistant).toBe('writer')
    expect((v.find('[data-testid="chat-assistant-select"]').element as HTMLSelectElement).value).toBe('writer')
  })

  it("a new chat's first send shows its message at once and the header's pickers in a task after that frame", async () => {
    const v = await mountView(false)
    const pickers = () => ['chat-model-select', 'chat-thinking-select'].filter((id) => v.find(`[data-testid="${id}"]`).exists())
    expect(pickers()).toEqual([])
    await textbox(v).setValue('plan a trip')
    await textbox(v).trigger('keydown', { key: 'Enter' })
    await flushPromises()
    const id = useConversationsStore().currentId
    expect(id).toBeTruthy()
    expect(v.find('[data-testid="user-message"]').text()).toBe('plan a trip')
    expect(pickers()).toEqual([])
    flushAfterPaint()
    await flushPromises()
    expect(pickers()).toEqual(['chat-model-select', 'chat-thinking-select'])
    // Between conversations they stay, for the one open.
    await useConversationsStore().select('c2')
    await flushPromises()
    expect(pickers()).toEqual(['chat-model-select', 'chat-thinking-select'])
    // A new chat has none, nor does the one it goes back to when the
    // conversation its send made is left before the paint.
    useConversationsStore().startNew()
    await flushPromises()
    expect(pickers()).toEqual([])
    await textbox(v).setValue('another')
    await textbox(v).trigger('keydown', { key: 'Enter' })
    await flushPromises()
    expect(useConversationsStore().currentId).not.toBe(id)
    useConversationsStore().startNew()
    await flushPromises()
    flushAfterPaint()
    await flushPromises()
    expect(pickers()).toEqual([])
    // Nor does a paint that comes after another conversation was opened take them from it.
    await textbox(v).setValue('a third')
    await textbox(v).trigger('keydown', { key: 'Enter' })
    await flushPromises()
    await useConversationsStore().select('c1')
    await flushPromises()
    flushAfterPaint()
    await flushPromises()
    expect(pickers()).toEqual(['chat-model-select', 'chat-thinking-select'])
  })

  it('shows no assistant picker when only the default profile exists', async () => {
    const v = await mountView()
    expect(v.find('[data-testid="chat-assistant-select"]').exists()).toBe(false)
  })
})
