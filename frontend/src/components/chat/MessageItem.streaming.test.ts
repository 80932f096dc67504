import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { defineComponent, h } from 'vue'
import MessageItem from './MessageItem.vue'
import MessageList from './MessageList.vue'
import { fakeScrollLayout, setupEnv, settle, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useChatStore } from '../../stores/chat'
import { STREAM_RENDER_GAP_MS, flushFrame, framePending } from '../../lib/frame'
import { renderMarkdown } from '../../lib/markdown'

let env: TestEnv
let w: VueWrapper | null = null
// The page's clock, as the stream's pace reads it (STREAM_RENDER_GAP_MS):
// it moves when the test says (streamFrame).
let clock = 0
beforeEach(() => {
  env = setupEnv()
  clock = 1000
  vi.spyOn(performance, 'now').mockImplementation(() => clock)
})
afterEach(async () => {
  await flushFrame()
  vi.mocked(performance.now).mockRestore()
  w?.unmount()
  w = null
  document.body.innerHTML = ''
})

/** The streaming entry (MessageItem, streaming) of conversation c1's reply a1, counting its renders. */
function mountStream(): { wrapper: VueWrapper; renders: () => number } {
  let renders = 0
  const message = { id: 'a1', conversationId: 'c1', role: 'assistant' as const, content: '', created_at: '', parent_id: '', siblings: 1, sibling_index: 0 }
  const Host = defineComponent({
    render: () => h(MessageItem, { message, conversationId: 'c1', streaming: true, onVnodeUpdated: () => renders++ }),
  })
  w = mount(Host, { global: { plugins: [env.pinia] }, attachTo: document.body })
  return { wrapper: w, renders: () => renders }
}

/** The frames until the stream may render again (StreamPace: not in the frame after a render, and STREAM_RENDER_GAP_MS on). */
async function streamFrame(): Promise<void> {
  await flushFrame()
  clock += STREAM_RENDER_GAP_MS
  await flushFrame()
}

const delta = (text: string) => useChatStore().onDelta({ conversationId: 'c1', delta: text, messageId: 'a1' })
const shownHtml = (root: Element) => Array.from(root.querySelectorAll('.md-block')).map((b) => b.innerHTML).join('')

function inert(root: Element): void {
  expect(root.querySelector('img, script, iframe, svg:not([aria-hidden="true"])')).toBeNull()
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name.startsWith('on'), `${el.tagName} has ${attr.name}`).toBe(false)
      expect(/^\s*javascript:/i.test(attr.value), `${el.tagName}[${attr.name}]=${attr.value}`).toBe(false)
    }
  }
}

describe('MessageItem while its reply streams', () => {
  it('shows many deltas that arrive within one frame with one render', async () => {
    // The frame comes when the test says (flushFrame): on a loaded machine a
    // real animation frame or the fallback timer could fire mid-loop.
    // (settle() waits with setImmediate, which stays real.)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame'] })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    delta('Hello')
    const { wrapper, renders } = mountStream()
    await settle()
    await streamFrame()
    expect(wrapper.text()).toBe('Hello')
    const first = renders()
    const deltas = Array.from({ length: 200 }, (_, i) => ` w${i}`)
    for (let i = 0; i < deltas.length; i++) {
      delta(deltas[i]!)
      if (i % 20 === 0) await settle() // events arrive in separate tasks
    }
    await settle()
    expect(renders() - first).toBe(0)
    expect(wrapper.text()).toBe('Hello')
    await streamFrame()
    expect(renders() - first).toBe(1)
    expect(wrapper.text()).toBe('Hello' + deltas.join(''))
    // nothing new: the next frame does not render again
    await streamFrame()
    expect(renders() - first).toBe(1)
  })

  it('renders at the stream\'s pace: not in the frame after a render, nor sooner than STREAM_RENDER_GAP_MS; the text waits for a later frame', async () => {
    useFakeFrames()
    delta('One')
    const { wrapper, renders } = mountStream()
    await settle()
    await streamFrame()
    expect(wrapper.text()).toBe('One')
    const first = renders()
    delta(' two')
    await settle()
    clock += 100
    await flushFrame()
    expect(wrapper.text()).toBe('One two')
    expect(renders() - first).toBe(1)
    // The next frames of a 60 Hz screen: the one right after the render shows nothing new.
    delta(' three')
    await settle()
    clock += 16.7
    await flushFrame()
    expect(wrapper.text()).toBe('One two')
    expect(renders() - first).toBe(1)
    // The text still waits for a frame, and the frame after shows it (33.4 ms after the last render).
    expect(framePending()).toBe(true)
    clock += 16.7
    await flushFrame()
    expect(wrapper.text()).toBe('One two three')
    expect(renders() - first).toBe(2)
    expect(framePending()).toBe(false)
    // That frame ran long: the next one, however late, has nothing of the stream; the one after shows it.
    delta(' four')
    await settle()
    clock += 80
    await flushFrame()
    expect(wrapper.text()).toBe('One two three')
    clock += 16.7
    await flushFrame()
    expect(wrapper.text()).toBe('One two three four')
  })

  it('ends with the concatenated text, rendered as the whole Markdown would be', async () => {
    const doc = [
      '# Plan',
      'Some **bold** text with `code` and a [link](https://example.com).',
      '- one\n- two\n\n- three, loose',
      '```go\nfunc main() {\n\n\tfmt.Println("<b>")\n}\n```',
      '> quoted\n\n1. first\n2. second',
      'The end.',
    ].join('\n\n')
    delta(doc.slice(0, 3))
    const { wrapper } = mountStream()
    let pos = 3
    let seed = 1
    while (pos < doc.length) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      const n = 1 + (seed % 9)
      delta(doc.slice(pos, pos + n))
      pos += n
      if (seed % 3 === 0) await streamFrame()
    }
    await streamFrame()
    expect(useChatStore().streams.c1!.text).toBe(doc)
    const md = wrapper.find('.markdown').element
    expect(shownHtml(md)).toBe(renderMarkdown(doc))
    expect(md.querySelectorAll('.md-block').length).toBeGreaterThan(3)
  })

  it('re-renders only the last block: finished blocks keep their elements untouched', async () => {
    delta('First paragraph.\n\nSecond')
    const { wrapper } = mountStream()
    await settle()
    const first = wrapper.find('.md-block').element
    const changes: MutationRecord[] = []
    const mo = new MutationObserver((records) => changes.push(...records))
    mo.observe(first, { subtree: true, childList: true, characterData: true, attributes: true })
    for (const d of [' paragraph', ' grows.\n\nThird', ' one.']) {
      delta(d)
      await streamFrame()
    }
    await settle()
    mo.disconnect()
    expect(changes).toEqual([])
    expect(wrapper.find('.md-block').element).toBe(first)
    expect(wrapper.findAll('.md-block').map((b) => b.text())).toEqual(['First paragraph.', 'Second paragraph grows.', 'Third one.'])
  })

  it('keeps streamed HTML and script links inert, even split across deltas', async () => {
    delta('Look: <im')
    const { wrapper } = mountStream()
    for (const d of ['g src=x oner', 'ror=alert(1)> and [x](java', 'script:alert(1)) ', '<svg onl', 'oad=alert(1)>\n\n<scr', 'ipt>alert(1)</script>']) {
      delta(d)
      await streamFrame()
      inert(wrapper.element)
    }
    expect(wrapper.text()).toContain('<img src=x onerror=alert(1)>')
    expect(wrapper.find('a').exists() ? wrapper.find('a').attributes('href') : undefined).toBeUndefined()
  })
})

describe('MessageList while text streams', () => {
  it('scrolls once a frame, reading layout before writing, and only while the user is at the bottom', async () => {
    env.fake.addConversation({ id: 'c1' })
    env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'tell me a story' })
    connectEvents()
    await useChatStore().open('c1')
    w = mount(MessageList, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    // From here the frame comes when the test says (flushFrame), as in the
    // first test: on a loaded machine the frame's fallback timer could fire
    // in the middle of the deltas and scroll before the frame under test.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame'] })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const layout = fakeScrollLayout(w.find('[data-testid="message-list"]').element as HTMLElement)
    env.fake.emit('message:delta', { conversationId: 'c1', delta: 'Once', messageId: 'a1', runId: 'r1' })
    await settle()
    await streamFrame()
    layout.ops.length = 0

    for (let i = 0; i < 40; i++) {
      env.fake.emit('message:delta', { conversationId: 'c1', delta: ` upon ${i}`, messageId: 'a1', runId: 'r1' })
      if (i % 10 === 0) await settle()
    }
    await settle()
    expect(layout.ops).toEqual([])
    layout.height.scroll = 1400
    await streamFrame()
    expect(layout.ops).toEqual(['read', 'write'])
    expect(w.find('[data-testid="streaming-message"]').text()).toContain('upon 39')

    // The content grows before the event of that scroll comes (a fast stream, blocks laid
    // out at their real size): that event is the list's own, and it keeps following.
    layout.height.scroll = 1700
    w.find('[data-testid="message-list"]').element.dispatchEvent(new Event('scroll'))
    layout.ops.length = 0
    env.fake.emit('message:delta', { conversationId: 'c1', delta: ' and on', messageId: 'a1', runId: 'r1' })
    await settle()
    await streamFrame()
    expect(layout.ops.filter((o) => o === 'write')).toEqual(['write'])

    // the user scrolls up to read: the list stays where it is
    layout.userScrollsTo(300)
    layout.ops.length = 0
    env.fake.emit('message:delta', { conversationId: 'c1', delta: ' a time', messageId: 'a1', runId: 'r1' })
    await settle()
    await streamFrame()
    expect(layout.ops.filter((o) => o === 'write')).toEqual([])

    // back at the bottom: following again
    layout.userScrollsTo(1490)
    layout.ops.length = 0
    env.fake.emit('message:delta', { conversationId: 'c1', delta: ' there was', messageId: 'a1', runId: 'r1' })
    await settle()
    await streamFrame()
    expect(layout.ops).toEqual(['read', 'write'])
  })
})

describe('MessageList when a stream ends', () => {
  it('shows the stored reply in the entry that streamed it, with the same elements: only what changed is rendered again', async () => {
    env.fake.addConversation({ id: 'c1' })
    env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'tell me' })
    connectEvents()
    await useChatStore().open('c1')
    w = mount(MessageList, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
    const text = 'First paragraph.\n\nSecond **one**.\n\nThird, still growing'
    env.fake.emit('message:delta', { conversationId: 'c1', delta: text, messageId: 'a1', runId: 'r1' })
    await settle()
    await streamFrame()
    await settle()
    const entry = w.find('[data-testid="streaming-message"]').element
    const streamed = Array.from(w.findAll('[data-testid="streaming-message"] .md-block')).map((b) => b.element)
    expect(streamed.map((b) => b.textContent!.trim())).toEqual(['First paragraph.', 'Second one.', 'Third, still growing'])
    const changes: MutationRecord[] = []
    const mo = new MutationObserver((records) => changes.push(...records))
    for (const b of streamed.slice(0, 2)) mo.observe(b, { subtree: true, childList: true, characterData: true })

    env.fake.emit('message:done', {
      conversationId: 'c1',
      message: { id: 'a1', conversationId: 'c1', role: 'assistant', content: text + ' and done.', created_at: 'x', parent_id: 'u1', siblings: 1, sibling_index: 0 },
    })
    await settle()
    expect(w.find('[data-testid="streaming-message"]').exists()).toBe(false)
    const stored = Array.from(w.findAll('[data-testid="assistant-message"] .md-block')).map((b) => b.element)
    expect(stored.map((b) => b.textContent!.trim())).toEqual(['First paragraph.', 'Second one.', 'Third, still growing and done.'])
    // The same entry and the stream's own elements; only the last block, which changed, was written.
    expect(w.find('[data-testid="assistant-message"]').element).toBe(entry)
    expect(stored).toEqual(streamed)
    stored.forEach((b, i) => expect(b).toBe(streamed[i]))
    mo.disconnect()
    expect(changes).toEqual([])
    expect(stored.slice(0, 2).every((b) => b.classList.contains('md-streamed'))).toBe(true)
    expect(stored[2]!.classList.contains('md-streamed')).toBe(false)
    expect(entry.getAttribute('aria-busy')).toBeNull()
    expect(entry.querySelector('.caret')).toBeNull()
    expect(w.find('[data-testid="assistant-message"]').element.closest('.msg-item')!.querySelector('.msg-actions')).not.toBeNull()
    expect(w.find('[data-testid="assistant-message"] .markdown').html()).toContain('<strong>one</strong>')
  })
})

/** Frames come when the test says (flushFrame). */
function useFakeFrames(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame'] })
  onTestFinished(() => {
    vi.useRealTimers()
  })
}

const think = (text: string, moved = false) =>
  useChatStore().onReasoning({ conversationId: 'c1', delta: text, messageId: 'a1', runId: 'r1', ...(moved ? { moved } : {}) })
describe('thinking while it streams (SPEC §9)', () => {
  it('shows "Thinking…" with the text growing at the stream\'s pace, without rendering the bubble again', async () => {
    useFakeFrames()
    think('The user')
    const { wrapper, renders } = mountStream()
    await settle()
    await streamFrame()
    expect(wrapper.find('[data-testid="thinking-live"]').text()).toContain('Thinking…')
    const area = wrapper.find('[data-testid="thinking-live-text"]')
    expect(area.text()).toBe('The user')
    expect(area.attributes('role')).toBe('region')
    const before = renders()
    const firstPiece = area.element.firstElementChild
    for (let i = 0; i < 300; i++) {
      think(` wants ${i}`)
      if (i === 150) think('\n\nA new paragraph')
      if (i % 30 === 0) await settle()
    }
    await settle()
    await streamFrame()
    expect(renders() - before).toBe(0) // the bubble itself never rendered again
    expect(area.element.firstElementChild).toBe(firstPiece) // earlier pieces are kept, not rebuilt
    expect(area.element.children.length).toBe(2)
    expect(area.text()).toContain('wants 299')
    // At the stream's pace (StreamPace), as the reply: not in the frame right after a render.
    think(' more')
    await settle()
    clock += 100
    await flushFrame()
    expect(area.text()).toContain('wants 299 more')
    think(' and more')
    await settle()
    clock += 40
    await flushFrame()
    expect(area.text()).not.toContain('and more')
    clock += 16.7
    await flushFrame()
    expect(area.text()).toContain('wants 299 more and more')
    expect(wrapper.find('[data-testid="thinking-toggle"]').exists()).toBe(false)
    expect(wrapper.find('.caret').exists()).toBe(false)

    // The answer starts: the thinking folds away with its duration, the reply streams.
    delta('Hello')
    await settle()
    await streamFrame()
    expect(wrapper.find('[data-testid="thinking-live"]').exists()).toBe(false)
    const toggle = wrapper.find('[data-testid="thinking-toggle"]')
    expect(toggle.text()).toMatch(/^Thought for /)
    expect(toggle.attributes('aria-expanded')).toBe('false')
    expect(wrapper.find('.markdown').text()).toBe('Hello')
    expect(wrapper.text()).not.toContain('wants')
  })

  it('moves the text shown so far into the thinking when a bare </think> came (moved)', async () => {
    useFakeFrames()
    delta('I should ')
    delta('greet them')
    const { wrapper } = mountStream()
    await settle()
    await streamFrame()
    expect(wrapper.find('.markdown').text()).toBe('I should greet them')
    think('I should greet them', true)
    delta('Hi!')
    await settle()
    await streamFrame()
    const chat = useChatStore()
    expect(chat.streams.c1!.reasoning).toBe('I should greet them')
    expect(chat.streams.c1!.text).toBe('Hi!')
    expect(wrapper.find('.markdown').text()).toBe('Hi!')
    expect(wrapper.find('[data-testid="thinking-toggle"]').exists()).toBe(true)
  })

  it('keeps the thinking of a stream that never got message:done', async () => {
    env.fake.addConversation({ id: 'c1' })
    const chat = useChatStore()
    await chat.open('c1')
    think('half a thought')
    chat.onState({ conversationId: 'c1', state: 'error', error: 'dropped' })
    const kept = chat.messagesFor('c1').at(-1)!
    expect(kept).toMatchObject({ role: 'assistant', content: '', reasoning: 'half a thought' })
  })
})
