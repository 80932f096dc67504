import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import MessageList from './MessageList.vue'
import { setupEnv, settle, type TestEnv } from '../../test-utils'
import { flushFrame } from '../../lib/frame'
import { nextTick } from 'vue'
import { connectEvents } from '../../stores/events'
import { EARLIER_PAGE, OPEN_WINDOW, useChatStore } from '../../stores/chat'

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

  it('reads the earlier messages of a long conversation from the backend as "Show earlier" reaches them, up to the first', async () => {
    env.fake.addConversation({ id: 'long' })
    for (let i = 0; i < 1000; i++) env.fake.addMessage('long', { id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })
    connectEvents()
    const chat = useChatStore()
    await chat.open('long')
    expect(chat.messagesFor('long')).toHaveLength(OPEN_WINDOW)
    w = mount(MessageList, { props: { conversationId: 'long' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    const texts = () => w!.findAll('[data-testid="user-message"], [data-testid="assistant-message"]').map((e) => e.text())
    await settle()
    const more = () => w!.find('[data-testid="show-earlier"]')
    // What it stands for counts the messages not read yet.
    expect(more().text()).toContain(`of ${1000 - 150}`)
    const reads = () => env.fake.callsOf('getConversation').length
    let clicks = 0
    while (more().exists() && clicks < 10) {
      const before = reads()
      await more().trigger('click')
      await settle()
      clicks++
      expect(reads() - before).toBeLessThanOrEqual(1)
    }
    expect(more().exists()).toBe(false)
    expect(chat.earlierOf('long')).toBe(0)
    const shown = texts()
    expect(shown).toHaveLength(1000)
    expect(shown[0]).toContain('message 0')
    expect(shown.at(-1)).toContain('message 999')
    expect(new Set(shown).size).toBe(1000)
    // Each read asked for a page before the first message read until then.
    const pages = env.fake.callsOf('getConversation').slice(1) as [{ last: number; before: string }][]
    expect(pages.length).toBe(Math.ceil((1000 - OPEN_WINDOW) / EARLIER_PAGE))
    expect(pages[0]![0]).toEqual({ id: 'long', last: EARLIER_PAGE, before: `m${1000 - OPEN_WINDOW}` })
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
