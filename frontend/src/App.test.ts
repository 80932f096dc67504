import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import App from './App.vue'
import { setupEnv, settle, type TestEnv } from './test-utils'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
})

describe('App', () => {
  it('shows the Parley chat shell with a disabled Send until text is typed', async () => {
    w = mount(App, { global: { plugins: [env.pinia] } })
    await settle()
    expect(w.find('[data-testid="chat-shell"]').exists()).toBe(true)
    expect(w.text()).toContain('Parley')
    const send = w.find('[data-testid="composer"] button[type="submit"]')
    expect(send.attributes('disabled')).toBeDefined()
    await w.find('textarea[aria-label="Message"]').setValue('hello')
    expect(send.attributes('disabled')).toBeUndefined()
  })

  it('loads conversations and the inbox on start, and listens to events', async () => {
    env.fake.addConversation({ id: 'c1', title: 'Earlier chat' })
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: [{ question: 'Ready?', options: [], multiSelect: false, allowCustom: true }] })
    w = mount(App, { global: { plugins: [env.pinia] } })
    await settle()
    expect(env.fake.callsOf('listConversations')).toHaveLength(1)
    expect(env.fake.callsOf('questions')).toHaveLength(1)
    expect(w.text()).toContain('Earlier chat')
    expect(w.find('[data-testid="inbox-badge"]').text()).toBe('1')
    expect(env.fake.emitter.count('question:ask')).toBe(1)
    w.unmount()
    w = null
    expect(env.fake.emitter.count()).toBe(0)
  })
})
