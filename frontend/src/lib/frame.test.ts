import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { nextTick, ref } from 'vue'
import { FRAME_FALLBACK_MS, STREAM_RENDER_GAP_MS, StreamPace, afterPaint, afterPaintLater, afterShownPaint, cancelFrameTask, flushAfterPaint, flushFrame, framePending, onNextFrame, trueAfterPaint } from './frame'

afterEach(async () => {
  await flushFrame()
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

/** Fake timers, and animation frames that come when the test calls them. */
function fakeFrames(): FrameRequestCallback[] {
  vi.useFakeTimers()
  const frames: FrameRequestCallback[] = []
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb))
  vi.stubGlobal('cancelAnimationFrame', () => {})
  return frames
}

/** The frames still asked for, and the fallback timers, come (after a flush: they must run nothing again). */
function comeAnyway(frames: FrameRequestCallback[]): void {
  frames.splice(0).forEach((f) => f(0))
  vi.advanceTimersByTime(FRAME_FALLBACK_MS)
}

describe('frame tasks', () => {
  it('runs a task once per frame however often it is scheduled, updates before measures', async () => {
    const log: string[] = []
    for (let i = 0; i < 50; i++) {
      onNextFrame('a', () => log.push(`a${i}`))
      onNextFrame('m', () => log.push(`m${i}`), 'measure')
      onNextFrame('b', () => log.push(`b${i}`))
    }
    expect(log).toEqual([])
    await flushFrame()
    expect(log).toEqual(['a49', 'b49', 'm49'])
    expect(framePending()).toBe(false)
  })

  it('measures see the DOM Vue updated in the same frame', async () => {
    const text = ref('old')
    const el = document.createElement('p')
    const { createApp, h } = await import('vue')
    const app = createApp({ render: () => h('span', text.value) })
    app.mount(el)
    let seen = ''
    onNextFrame('u', () => {
      text.value = 'new'
      onNextFrame('m', () => (seen = el.textContent ?? ''), 'measure')
    })
    await flushFrame()
    expect(seen).toBe('new')
    app.unmount()
  })

  it('runs in an animation frame, and on a timer where frames do not come (hidden tab)', async () => {
    let ran = 0
    onNextFrame('x', () => ran++)
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    expect(ran).toBe(1)

    vi.useFakeTimers()
    vi.stubGlobal('requestAnimationFrame', () => 1)
    vi.stubGlobal('cancelAnimationFrame', () => {})
    onNextFrame('x', () => ran++)
    vi.advanceTimersByTime(FRAME_FALLBACK_MS - 1)
    expect(ran).toBe(1)
    vi.advanceTimersByTime(1)
    expect(ran).toBe(2)
  })

  it('a cancelled task does not run', async () => {
    let ran = false
    onNextFrame('gone', () => (ran = true))
    cancelFrameTask('gone')
    await flushFrame()
    await nextTick()
    expect(ran).toBe(false)
  })

  it('after-paint tasks run in a task after the next animation frame, in order, or on a timer without frames', () => {
    const frames = fakeFrames()
    const log: string[] = []
    afterPaint(() => log.push('a'))
    afterPaint(() => log.push('b'))
    vi.advanceTimersByTime(0)
    expect(log).toEqual([])
    expect(frames).toHaveLength(1)
    frames.shift()!(0)
    expect(log).toEqual([]) // not in the frame itself: after it, once it is painted
    vi.advanceTimersByTime(0)
    expect(log).toEqual(['a', 'b'])
    vi.advanceTimersByTime(FRAME_FALLBACK_MS)
    expect(log).toEqual(['a', 'b'])

    afterPaint(() => log.push('hidden')) // no frame comes
    vi.advanceTimersByTime(FRAME_FALLBACK_MS - 1)
    expect(log).toEqual(['a', 'b'])
    vi.advanceTimersByTime(1)
    expect(log).toEqual(['a', 'b', 'hidden'])
    afterPaint(() => log.push('flushed'))
    flushAfterPaint()
    expect(log).toEqual(['a', 'b', 'hidden', 'flushed'])
    comeAnyway(frames)
    expect(log).toEqual(['a', 'b', 'hidden', 'flushed'])
  })

  it('later tasks run in a task of their own after the after-paint task, after what was queued before it', () => {
    const frames = fakeFrames()
    const log: string[] = []
    afterPaintLater(() => log.push('later'))
    afterPaint(() => log.push('after paint'))
    frames.shift()!(0)
    // Queued after the frame, before the after-paint task ran (a card's mark, an event).
    setTimeout(() => log.push('queued'), 0)
    vi.advanceTimersByTime(0)
    expect(log).toEqual(['after paint', 'queued'])
    vi.advanceTimersByTime(1) // the task the after-paint task queued (fake timers count a timer set in a timer as 1 ms)
    expect(log).toEqual(['after paint', 'queued', 'later'])
    afterPaintLater(() => log.push('flushed'))
    flushAfterPaint()
    expect(log).toEqual(['after paint', 'queued', 'later', 'flushed'])
    comeAnyway(frames)
    expect(log).toEqual(['after paint', 'queued', 'later', 'flushed'])
  })
})

describe('afterShownPaint', () => {
  it('waits for a frame that begins after it was asked for, then runs after what that frame posted', () => {
    const frames = fakeFrames()
    const log: string[] = []
    // The send's after-paint work: its frame begins, its task has not run yet.
    afterPaint(() => log.push('send after paint'))
    frames.shift()!(0)
    // Now the card mounts: its focus must not join the send's batch.
    afterShownPaint(() => log.push('card focus'))
    vi.advanceTimersByTime(0)
    expect(log).toEqual(['send after paint'])
    vi.advanceTimersByTime(FRAME_FALLBACK_MS - 1)
    expect(log).toEqual(['send after paint']) // not before the card's frame
    expect(frames).toHaveLength(1) // one frame asked for: the card's (which its change asks for anyway)
    frames.shift()!(0) // the card's frame
    setTimeout(() => log.push('posted by the frame'), 0) // e.g. a paint mark, the user's first key
    expect(log).toEqual(['send after paint'])
    vi.advanceTimersByTime(0)
    expect(log).toEqual(['send after paint', 'posted by the frame'])
    vi.advanceTimersByTime(1) // the second task (fake timers count a timer set in a timer as 1 ms)
    expect(log).toEqual(['send after paint', 'posted by the frame', 'card focus'])

    afterShownPaint(() => log.push('hidden')) // no frame comes
    vi.advanceTimersByTime(FRAME_FALLBACK_MS + 2)
    expect(log.at(-1)).toBe('hidden')
    afterShownPaint(() => log.push('flushed'))
    flushAfterPaint()
    expect(log.at(-1)).toBe('flushed')
    const n = log.length
    comeAnyway(frames)
    vi.advanceTimersByTime(2)
    expect(log).toHaveLength(n) // nothing runs twice
  })
})

describe('trueAfterPaint', () => {
  it('turns true only after the next paint, false at once, and is true from the start when asked', async () => {
    const on = ref(true)
    const later = trueAfterPaint(() => on.value)
    expect(later.value).toBe(false)
    flushAfterPaint()
    expect(later.value).toBe(true)
    on.value = false
    await nextTick()
    expect(later.value).toBe(false)
    on.value = true
    await nextTick()
    expect(later.value).toBe(false)
    // Off again before the paint: the paint does not turn it on.
    on.value = false
    await nextTick()
    flushAfterPaint()
    expect(later.value).toBe(false)
    expect(trueAfterPaint(() => true, true).value).toBe(true)
    expect(trueAfterPaint(() => false, true).value).toBe(false)
  })
})

describe('StreamPace', () => {
  it('allows a render at most every STREAM_RENDER_GAP_MS and never in two frames in a row', async () => {
    let now = 5000
    vi.spyOn(performance, 'now').mockImplementation(() => now)
    onTestFinished(() => vi.mocked(performance.now).mockRestore())
    const pace = new StreamPace()
    const frame = async (ms: number): Promise<boolean> => {
      now += ms
      let took = false
      onNextFrame('pace', () => (took = pace.take()))
      await flushFrame()
      return took
    }
    expect(await frame(0)).toBe(true) // the first at once
    // 60 Hz: every other frame.
    expect(await frame(16.7)).toBe(false)
    expect(await frame(16.7)).toBe(true)
    expect(await frame(16.7)).toBe(false)
    expect(await frame(16.7)).toBe(true)
    // A frame that ran long (a busy machine): the one right after it has nothing, however late it comes.
    expect(await frame(60)).toBe(false)
    expect(await frame(16.7)).toBe(true)
    // 120 Hz: two frames are not enough time, the third is.
    expect(await frame(8.3)).toBe(false)
    expect(await frame(8.3)).toBe(false)
    expect(await frame(8.4)).toBe(true)
    // Asked twice in one frame: once.
    now += STREAM_RENDER_GAP_MS
    await flushFrame()
    await flushFrame()
    expect(pace.take()).toBe(true)
    expect(pace.take()).toBe(false)
  })
})
