import { afterEach, describe, expect, it, vi } from 'vitest'
import { nextTick, reactive, watch } from 'vue'
import { createEventBatch, eventBatch, immediate, useEventBatch, type Schedule } from './eventBatch'
import { HttpTransport } from './http'
import { WailsTransport } from './wails'

/** A schedule the test runs by hand: the batch's task. */
function manual(): { schedule: Schedule; run: () => void; pending: () => number } {
  const tasks: (() => void)[] = []
  return {
    schedule: (fn) => void tasks.push(fn),
    run: () => tasks.splice(0).forEach((fn) => fn()),
    pending: () => tasks.length,
  }
}

describe('event batch', () => {
  it('applies the events queued before its task in one go, in order', () => {
    const task = manual()
    const batch = createEventBatch(task.schedule)
    const got: string[] = []
    batch.push(() => got.push('message:done'))
    batch.push(() => got.push('question:ask'))
    batch.push(() => got.push('conversation:state'))
    expect(got).toEqual([])
    expect(task.pending()).toBe(1) // one task for the three
    task.run()
    expect(got).toEqual(['message:done', 'question:ask', 'conversation:state'])
    batch.push(() => got.push('later'))
    expect(task.pending()).toBe(1) // the next event starts the next batch
    task.run()
    expect(got.at(-1)).toBe('later')
  })

  it('applies a card at once, after the events queued before it; the next events wait for the next task', () => {
    const task = manual()
    const batch = createEventBatch(task.schedule)
    const got: string[] = []
    batch.push(() => got.push('conversation:state'))
    batch.push(() => got.push('message:done'))
    batch.push(() => got.push('question:ask'), true)
    expect(got).toEqual(['conversation:state', 'message:done', 'question:ask'])
    batch.push(() => got.push('conversation:state again'))
    expect(got).toHaveLength(3)
    task.run()
    expect(got.at(-1)).toBe('conversation:state again')
    task.run()
    expect(got).toHaveLength(4) // each applied once
  })

  it('delivers at once, in order, while the page is hidden (its timers are held back)', () => {
    const task = manual()
    let hidden = false
    const batch = createEventBatch(task.schedule, () => hidden)
    const got: string[] = []
    batch.push(() => got.push('message:done'))
    expect(got).toEqual([])
    hidden = true
    batch.push(() => got.push('question:ask'))
    expect(got).toEqual(['message:done', 'question:ask'])
    task.run() // the task scheduled before finds nothing left
    expect(got).toEqual(['message:done', 'question:ask'])
  })

  it('makes Vue patch once for the whole batch', async () => {
    const task = manual()
    const batch = createEventBatch(task.schedule)
    const state = reactive({ messages: 0, cards: 0, run: 'idle' })
    const seen: string[] = []
    watch(
      () => `${state.messages}/${state.cards}/${state.run}`,
      (v) => seen.push(v),
    )
    batch.push(() => state.messages++)
    batch.push(() => state.cards++)
    batch.push(() => (state.run = 'awaiting_user_response'))
    task.run()
    await nextTick()
    expect(seen).toEqual(['1/1/awaiting_user_response'])
  })

  it('goes on after a handler that throws', () => {
    const task = manual()
    const batch = createEventBatch(task.schedule)
    const got: number[] = []
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    batch.push(() => got.push(1))
    batch.push(() => {
      throw new Error('boom')
    })
    batch.push(() => got.push(3))
    task.run()
    expect(got).toEqual([1, 3])
    expect(err).toHaveBeenCalledOnce()
    err.mockRestore()
  })

  it('runs its task on a zero timer by default', () => {
    vi.useFakeTimers()
    try {
      const batch = createEventBatch()
      const got: number[] = []
      batch.push(() => got.push(1))
      batch.push(() => got.push(2))
      expect(got).toEqual([])
      vi.advanceTimersByTime(0)
      expect(got).toEqual([1, 2])
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('the transports deliver events through the page batch', () => {
  afterEach(() => useEventBatch(immediate)) // test-setup's

  it('the window: events of one burst reach the handlers in one task', () => {
    const task = manual()
    useEventBatch(createEventBatch(task.schedule))
    const handlers = new Map<string, (...d: unknown[]) => void>()
    const win = { runtime: { EventsOn: (name: string, cb: (...d: unknown[]) => void) => (handlers.set(name, cb), () => {}) } } as unknown as Window
    const t = new WailsTransport(win)
    const got: string[] = []
    t.on('message:done', () => got.push('done'))
    t.on('question:ask', () => got.push('ask'))
    t.on('conversation:state', () => got.push('state'))
    handlers.get('message:done')!({ conversationId: 'c' })
    expect(got).toEqual([])
    // A card: applied in its own task, with what came before it.
    handlers.get('question:ask')!({ conversationId: 'c', question_id: 'q' })
    expect(got).toEqual(['done', 'ask'])
    handlers.get('conversation:state')!({ conversationId: 'c', state: 'awaiting_user_response' })
    expect(got).toEqual(['done', 'ask'])
    task.run()
    expect(got).toEqual(['done', 'ask', 'state'])
  })

  it('a browser: events of the stream reach the handlers in one task', () => {
    const task = manual()
    useEventBatch(createEventBatch(task.schedule))
    const sources: FakeES[] = []
    class FakeES {
      listeners = new Map<string, (ev: Event) => void>()
      onopen: (() => void) | null = null
      onerror: (() => void) | null = null
      readyState = 1
      constructor() {
        sources.push(this)
      }
      addEventListener(name: string, fn: (ev: Event) => void) {
        this.listeners.set(name, fn)
      }
      close() {}
    }
    const t = new HttpTransport({ EventSource: FakeES as unknown as typeof EventSource, fetch: (() => Promise.reject(new Error('no'))) as typeof fetch })
    const got: string[] = []
    t.on('message:done', () => got.push('done'))
    t.on('question:ask', () => got.push('ask'))
    const es = sources[0]!
    t.on('conversation:state', () => got.push('state'))
    es.listeners.get('message:done')!({ data: '{"conversationId":"c"}' } as MessageEvent)
    expect(got).toEqual([])
    // A card: applied in its own task, with what came before it.
    es.listeners.get('question:ask')!({ data: '{"conversationId":"c","question_id":"q"}' } as MessageEvent)
    expect(got).toEqual(['done', 'ask'])
    es.listeners.get('conversation:state')!({ data: '{"conversationId":"c","state":"awaiting_user_response"}' } as MessageEvent)
    expect(got).toEqual(['done', 'ask'])
    task.run()
    expect(got).toEqual(['done', 'ask', 'state'])
    expect(eventBatch()).not.toBe(immediate)
  })
})
