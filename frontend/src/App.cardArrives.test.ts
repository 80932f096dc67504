// Issue #42: a question card reaches the screen without unrelated reactive
// work: what renders again when it arrives is the list that shows it and the
// inbox that counts it, not the chat header, the composer or the other
// messages; the sidebar's dot counts it after the card's frame.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import { getCurrentInstance, type ComponentOptions } from 'vue'
import App from './App.vue'
import { makeCard, setupEnv, settle, type TestEnv } from './test-utils'
import { useConversationsStore } from './stores/conversations'
import { flushAfterPaint, flushFrame } from './lib/frame'

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

/** Names of the components that rendered again (updated) since the last take. */
function updatesRecorder() {
  let names: string[] = []
  const mixin: ComponentOptions = {
    updated() {
      const type = getCurrentInstance()?.type as { __name?: string; name?: string } | undefined
      names.push(type?.__name ?? type?.name ?? '?')
    },
  }
  return {
    mixin,
    take(): string[] {
      const got = [...new Set(names)].sort()
      names = []
      return got
    },
  }
}

/**
 * The app with conversation c1 (a question and its answer) open, the newest
 * of two (a send then leaves the sidebar's order as it is), its renders recorded.
 */
async function mountAppWithChat(): Promise<{ app: VueWrapper; updates: ReturnType<typeof updatesRecorder> }> {
  const now = Date.now()
  env.fake.addConversation({ id: 'c2', title: 'Taxes', updated_at: new Date(now - 60_000).toISOString() })
  env.fake.addConversation({ id: 'c1', title: 'Charts', updated_at: new Date(now).toISOString() })
  env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'make me a chart' })
  env.fake.addMessage('c1', { id: 'a1', role: 'assistant', content: 'Sure.' })
  const updates = updatesRecorder()
  const app = mount(App, { global: { plugins: [env.pinia], mixins: [updates.mixin] }, attachTo: document.body })
  w = app
  await settle()
  await useConversationsStore().select('c1')
  await settle()
  return { app, updates }
}

describe('a card arriving', () => {
  it('renders the list that shows it and the waiting counts, nothing else', async () => {
    const { app: w, updates } = await mountAppWithChat()
    env.fake.emit('conversation:state', { conversationId: 'c1', state: 'tool_executing' })
    await settle()
    await flushFrame()
    updates.take()

    env.fake.emit('question:ask', makeCard({ question_id: 'q1', conversationId: 'c1' }))
    await flushPromises()
    await flushFrame()
    expect(w.find('[data-testid="question-card"][data-question-id="q1"]').exists()).toBe(true)
    expect(w.find('[data-testid="inbox-badge"]').text()).toBe('1')
    // The list (it shows the card) and the inbox (it counts it); not the
    // conversation's row, nor yet its dot: in the window that would widen
    // what the card's frame paints to the whole window.
    expect(updates.take()).toEqual(['InboxButton', 'MessageList'])
    expect(w.find('[data-testid="conversation-waiting"]').exists()).toBe(false)
    flushAfterPaint()
    await flushPromises()
    expect(w.find('[data-testid="conversation-waiting"]').exists()).toBe(true)
    expect(updates.take()).toContain('ConversationActivity')
  })
})

describe('a message sent', () => {
  it("renders the list, the composer's box, button and hint and the run status, nothing else", async () => {
    const { app: w, updates } = await mountAppWithChat()
    await flushFrame()
    const box = w.find('textarea[aria-label="Message"]')
    await box.setValue('and a table')
    await settle()
    await flushFrame()
    updates.take()

    await box.trigger('keydown', { key: 'Enter' })
    env.fake.emit('conversation:state', { conversationId: 'c1', state: 'requesting' })
    await settle()
    await flushFrame()
    expect(w.findAll('[data-testid="user-message"]').map((m) => m.text())).toEqual(['make me a chart', 'and a table'])
    expect(w.find('[data-testid="run-status"]').text()).toBe('Thinking…')
    // The message itself too (sending, then sent); not the chat view, its
    // header, the composer's form, the conversation's row or its dot (it
    // shows once the run has gone on for a second).
    expect(w.find('[data-testid="conversation-busy"]').exists()).toBe(false)
    expect(updates.take()).toEqual(['ComposerAction', 'ComposerHint', 'ComposerInput', 'MessageItem', 'MessageList', 'RunStatus'])
  })
})
