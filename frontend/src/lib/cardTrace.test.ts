import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import ChatShell from '../components/layout/ChatShell.vue'
import { createCardTrace, disableCardTrace, cardTrace, type TraceEnv } from './cardTrace'
import { connectEvents } from '../stores/events'
import { useAppStore } from '../stores/app'
import { useConversationsStore } from '../stores/conversations'
import { useQuestionsStore } from '../stores/questions'
import { q, setupEnv, settle, type TestEnv } from '../test-utils'
import type { TraceMark } from '../api/wire.gen'

/** A hand-driven page: time, render and paint advance when the test says. */
function fakeEnv(shown: Set<string>) {
  let t = 1_700_000_000_000
  const renders: (() => void)[] = []
  const paints: (() => void)[] = []
  const frames: [() => void, () => void][] = []
  const cardFrames: (() => void)[] = []
  let input: ((id: string, at: number) => void) | null = null
  const env: TraceEnv = {
    now: () => t,
    afterRender: (fn) => renders.push(fn),
    afterPaint: (fn) => paints.push(fn),
    nextFrame: (start, end) => frames.push([start, end]),
    frame: (fn) => cardFrames.push(fn),
    inDOM: (id) => shown.has(id),
    onInput: (fn) => {
      input = fn
      return () => (input = null)
    },
  }
  return {
    env,
    advance: (ms: number) => (t += ms),
    render: () => renders.splice(0).forEach((f) => f()),
    paint: () => paints.splice(0).forEach((f) => f()),
    frameStart: () => frames.forEach(([start]) => start()),
    frameEnd: () => frames.splice(0).forEach(([, end]) => end()),
    cardFrame: () => cardFrames.splice(0).forEach((f) => f()),
    input: (id: string) => input?.(id, t),
  }
}

describe('the page recorder of the card trace', () => {
  it("reports received, store, DOM, the card's frame and paint of a shown card once it is painted", () => {
    const reports: TraceMark[][] = []
    const page = fakeEnv(new Set(['q1']))
    const trace = createCardTrace(async (m) => void reports.push(m), page.env)
    trace.received('q1')
    page.advance(1)
    trace.stored('q1')
    page.advance(2)
    page.render()
    page.advance(4)
    page.cardFrame() // the card's frame begins
    expect(reports).toEqual([]) // nothing before the paint
    page.advance(5)
    page.paint()
    expect(reports).toEqual([
      [
        { key: 'q1', hop: 'page_received', at: 1_700_000_000_000 },
        { key: 'q1', hop: 'page_store', at: 1_700_000_000_001 },
        { key: 'q1', hop: 'page_dom', at: 1_700_000_000_003 },
        { key: 'q1', hop: 'page_card_frame', at: 1_700_000_000_007 },
        { key: 'q1', hop: 'page_paint', at: 1_700_000_000_012 },
      ],
    ])
  })

  it('reports without DOM and paint a card that is not shown (another conversation is open)', () => {
    const reports: TraceMark[][] = []
    const page = fakeEnv(new Set())
    const trace = createCardTrace(async (m) => void reports.push(m), page.env)
    trace.received('q2')
    trace.stored('q2')
    page.render()
    page.paint()
    expect(reports.map((r) => r.map((m) => m.hop))).toEqual([['page_received', 'page_store']])
  })

  it('ignores a card it did not receive (loaded from the server)', () => {
    const reports: TraceMark[][] = []
    const page = fakeEnv(new Set(['q3']))
    const trace = createCardTrace(async (m) => void reports.push(m), page.env)
    trace.stored('q3')
    page.render()
    page.paint()
    expect(reports).toEqual([])
  })

  it("gives the first card received after a send the send's time and the page's steps after it, and a later one none", () => {
    const reports: TraceMark[][] = []
    const page = fakeEnv(new Set())
    const trace = createCardTrace(async (m) => void reports.push(m), page.env)
    trace.sent()
    const sentAt = page.env.now()
    page.advance(3)
    page.render() // the send's task is done
    page.advance(1)
    page.frameStart()
    page.advance(16)
    page.frameEnd()
    page.advance(2)
    trace.received('q1')
    trace.stored('q1')
    page.render()
    page.advance(4)
    trace.received('q2')
    trace.stored('q2')
    page.render()
    expect(reports).toEqual([
      [
        { key: 'q1', hop: 'page_send', at: sentAt },
        { key: 'q1', hop: 'page_enter_done', at: sentAt + 3 },
        { key: 'q1', hop: 'page_frame_start', at: sentAt + 4 },
        { key: 'q1', hop: 'page_frame_end', at: sentAt + 20 },
        { key: 'q1', hop: 'page_received', at: sentAt + 22 },
        { key: 'q1', hop: 'page_store', at: sentAt + 22 },
      ],
      [
        { key: 'q2', hop: 'page_received', at: sentAt + 26 },
        { key: 'q2', hop: 'page_store', at: sentAt + 26 },
      ],
    ])
  })

  it('marks Submit at the last Enter or click in the card, or at the respond call', () => {
    const reports: TraceMark[][] = []
    const page = fakeEnv(new Set())
    const trace = createCardTrace(async (m) => void reports.push(m), page.env)
    page.input('q1')
    const keydown = page.env.now()
    page.advance(3)
    trace.submitted('q1')
    page.advance(2000)
    trace.submitted('q1') // no input this time
    expect(reports).toEqual([
      [{ key: 'q1', hop: 'page_submit', at: keydown }],
      [{ key: 'q1', hop: 'page_submit', at: keydown + 2003 }],
    ])
    trace.dispose()
  })
})

describe('the card trace in the app', () => {
  let env: TestEnv
  let w: VueWrapper | null = null
  let off: (() => void) | null = null
  beforeEach(() => {
    env = setupEnv()
  })
  afterEach(() => {
    w?.unmount()
    off?.()
    disableCardTrace()
    document.body.innerHTML = ''
  })

  async function start() {
    env.fake.addConversation({ id: 'c1', title: 'Groceries' })
    off = connectEvents()
    const conversations = useConversationsStore()
    await Promise.all([conversations.load(), useQuestionsStore().loadPending(), useAppStore().checkHealth()])
    await conversations.select('c1')
    w = mount(ChatShell, { global: { plugins: [env.pinia] }, attachTo: document.body })
    await settle()
  }

  it('stays off, and reports nothing, when the backend does not trace', async () => {
    await start()
    expect(cardTrace().enabled).toBe(false)
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: [q({ question: 'Which shop?' })] }, true)
    await settle()
    await new Promise((r) => setTimeout(r, 50))
    expect(env.fake.traceMarks).toEqual([])
  })

  it('reports every page hop of a card that arrives in the open conversation, then its Submit', async () => {
    env.fake.traceOn = true
    await start()
    expect(cardTrace().enabled).toBe(true)
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: [q({ question: 'Which shop?' })] }, true)
    await settle()
    await vi.waitFor(() => expect(env.fake.traceMarks.map((m) => m.hop)).toContain('page_paint'), { timeout: 30_000 })
    const marks = env.fake.traceMarks
    expect(marks.map((m) => m.hop)).toEqual(['page_received', 'page_store', 'page_dom', 'page_card_frame', 'page_paint'])
    expect(marks.every((m) => m.key === 'q1')).toBe(true)
    const at = marks.map((m) => m.at)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(Math.abs(at[0]! - Date.now())).toBeLessThan(60_000) // epoch ms, like Go's
    expect(document.querySelector('[data-question-id="q1"]')).not.toBeNull()

    await useQuestionsStore().respond('c1', { question_id: 'q1', action: 'skip' })
    // Reported when the page is idle, not in the Submit's own task.
    await vi.waitFor(() => expect(env.fake.traceMarks.at(-1)).toMatchObject({ key: 'q1', hop: 'page_submit' }), { timeout: 30_000 })
  })

  it("reports when the user's message was sent with the card its run asked", async () => {
    env.fake.traceOn = true
    await start()
    expect(await useConversationsStore().send('Groceries for Sunday?')).toBe(true)
    env.fake.addCard({ question_id: 'q2', conversationId: 'c1', questions: [q({ question: 'Which shop?' })] }, true)
    await settle()
    await vi.waitFor(() => expect(env.fake.traceMarks.map((m) => m.hop)).toContain('page_paint'), { timeout: 30_000 })
    const marks = env.fake.traceMarks
    // The send's task and frame may come before or after the card's event.
    expect(marks.map((m) => m.hop).sort()).toEqual(
      ['page_send', 'page_enter_done', 'page_frame_start', 'page_frame_end', 'page_received', 'page_store', 'page_dom', 'page_card_frame', 'page_paint'].sort(),
    )
    expect(marks.every((m) => m.key === 'q2')).toBe(true)
    const at = Object.fromEntries(marks.map((m) => [m.hop, m.at]))
    const inOrder = (hops: string[]) => hops.every((h, i) => i === 0 || at[h]! >= at[hops[i - 1]!]!)
    expect(inOrder(['page_send', 'page_enter_done', 'page_frame_start', 'page_frame_end'])).toBe(true)
    expect(inOrder(['page_send', 'page_received', 'page_store', 'page_dom', 'page_card_frame', 'page_paint'])).toBe(true)
    expect(marks.map((m) => m.at)).toEqual([...marks.map((m) => m.at)].sort((a, b) => a - b)) // reported in time order
  })
})
