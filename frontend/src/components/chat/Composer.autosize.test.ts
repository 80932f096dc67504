import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import ChatView from './ChatView.vue'
import { mountInBody, resetDom, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useConversationsStore } from '../../stores/conversations'
import { useSettingsStore } from '../../stores/settings'
import { flushFrame } from '../../lib/frame'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

/** The composer's textarea, its layout reads counted (scrollHeight is what a forced layout comes from). */
async function openComposer(): Promise<{ box: HTMLTextAreaElement; reads: () => number; submit: () => Promise<void> }> {
  env.fake.models = [{ name: 'qwen3', supports_tools: true }]
  env.fake.addConversation({ id: 'c1', title: 'Sizes' })
  connectEvents()
  await useSettingsStore().init()
  const conversations = useConversationsStore()
  await conversations.load()
  await conversations.select('c1')
  const w = await mountInBody(ChatView, env)
  await settle()
  const box = w.find('textarea').element as HTMLTextAreaElement
  let count = 0
  Object.defineProperty(box, 'scrollHeight', {
    configurable: true,
    get: () => {
      count++
      return 100
    },
  })
  return {
    box,
    reads: () => count,
    submit: async () => {
      await w.find('[data-testid="composer"]').trigger('submit')
      await settle()
    },
  }
}

describe('Composer size', () => {
  it('grows with its text, measured once in the next frame', async () => {
    const c = await openComposer()
    c.box.value = 'a\nb\nc'
    c.box.dispatchEvent(new Event('input'))
    c.box.value = 'a\nb\nc\nd'
    c.box.dispatchEvent(new Event('input'))
    // Not while typing: in the frame. Checked before anything awaits, since
    // on a busy machine the frame (an animation frame, or its 100 ms
    // fallback timer) may well run during an await.
    expect(c.reads()).toBe(0)
    await settle()
    await flushFrame()
    expect(c.reads()).toBe(1) // once for both inputs
    expect(c.box.style.height).toBe('100px')
  })

  it('sending shrinks it back without reading layout', async () => {
    const c = await openComposer()
    c.box.value = 'a\nb\nc'
    c.box.dispatchEvent(new Event('input'))
    await settle()
    await flushFrame()
    expect(c.box.style.height).toBe('100px')
    const before = c.reads()
    await c.submit()
    await flushFrame()
    expect(env.fake.callsOf('send')).toHaveLength(1)
    expect(c.box.value).toBe('')
    expect(c.box.style.height).toBe('')
    expect(c.reads()).toBe(before)
  })
})
