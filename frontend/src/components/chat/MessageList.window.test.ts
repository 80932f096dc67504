import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import MessageList from './MessageList.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { flushFrame } from '../../lib/frame'
import { nextTick } from 'vue'
import { connectEvents } from '../../stores/events'
import { useChatStore } from '../../stores/chat'

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

describe('MessageList windowing', () => {
  it('renders only the newest messages of a long conversation and shows earlier ones on request', async () => {
    env.fake.addConversation({ id: 'long' })
    for (let i = 0; i < 5000; i++) {
      env.fake.addMessage('long', { id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })
    }
    connectEvents()
    await useChatStore().open('long')
    w = mount(MessageList, { props: { conversationId: 'long' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    const rendered = () => w!.findAll('[data-testid="user-message"], [data-testid="assistant-message"]').length
    // Opening renders what fills the window; the rest of the newest 150 follows a chunk per frame.
    expect(rendered()).toBe(20)
    expect(w.text()).toContain('message 4999')
    // Each DOM update (one per frame) adds at most a chunk.
    const steps: number[] = []
    const mo = new MutationObserver(() => steps.push(rendered()))
    mo.observe(w.element, { childList: true, subtree: true })
    // The next frame paints only these: the next chunk comes in a task after it.
    await flushFrame()
    await nextTick()
    expect(rendered()).toBe(20)
    for (let i = 0; i < 10 && rendered() < 150; i++) {
      await flushFrame()
      await new Promise((r) => setTimeout(r, 0))
      await settle()
    }
    mo.disconnect()
    expect(steps.filter((n, i) => n !== steps[i - 1])).toEqual([50, 80, 110, 140, 150])
    expect(rendered()).toBe(150)
    expect(w.text()).toContain('message 4999')
    expect(w.text()).not.toContain('message 4849')
    const more = w.find('[data-testid="show-earlier"]')
    expect(more.text()).toContain('of 4850')
    await more.trigger('click')
    await settle()
    expect(rendered()).toBe(450)
    expect(w.text()).toContain('message 4550')
  })

  it('renders short conversations whole, without the button', async () => {
    env.fake.addConversation({ id: 'short' })
    for (let i = 0; i < 10; i++) env.fake.addMessage('short', { id: `s${i}`, role: 'user', content: `hi ${i}` })
    connectEvents()
    await useChatStore().open('short')
    w = mount(MessageList, { props: { conversationId: 'short' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    expect(w.findAll('[data-testid="user-message"]').length).toBe(10)
    expect(w.find('[data-testid="show-earlier"]').exists()).toBe(false)
  })
})
