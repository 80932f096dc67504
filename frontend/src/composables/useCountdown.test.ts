// The card's countdown on its own: seconds left to expires_at, ticking once a
// second only while running, and the two announcements (one minute left, time up).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { effectScope, nextTick, ref } from 'vue'
import { ONE_MINUTE_LEFT as ONE_MINUTE_KEY, TIME_IS_UP as TIME_IS_UP_KEY, useCountdown, type CountdownOptions } from './useCountdown'
import { t } from '../i18n'

const ONE_MINUTE_LEFT = t(ONE_MINUTE_KEY)
const TIME_IS_UP = t(TIME_IS_UP_KEY)

const START = new Date('2026-03-01T12:00:00.000Z')
const IN_3_MIN = '2026-03-01T12:03:00.000Z'

let scope = effectScope()
beforeEach(() => {
  vi.useFakeTimers()
  vi.setSystemTime(START)
  scope = effectScope()
})
afterEach(() => {
  scope.stop()
  vi.useRealTimers()
})

function start(opts: Partial<CountdownOptions> = {}) {
  const said: string[] = []
  const countdown = scope.run(() =>
    useCountdown({ expiresAt: IN_3_MIN, running: true, speaking: true, announce: (t) => said.push(t), ...opts }),
  )!
  return { countdown, said }
}

describe('useCountdown', () => {
  it('counts the seconds left down once a second and says it as "m:ss left"', async () => {
    const { countdown } = start()
    expect(countdown.remaining.value).toBe(180)
    expect(countdown.text.value).toBe('3:00 left')
    expect(countdown.urgent.value).toBe(false)
    await vi.advanceTimersByTimeAsync(1000)
    expect(countdown.remaining.value).toBe(179)
    expect(countdown.text.value).toBe('2:59 left')
    await vi.advanceTimersByTimeAsync(119_000)
    expect(countdown.remaining.value).toBe(60)
    expect(countdown.text.value).toBe('1:00 left')
    expect(countdown.urgent.value).toBe(true)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(countdown.remaining.value).toBe(0)
    expect(countdown.text.value).toBe('')
  })

  it('announces once at one minute left and once when time is up, nothing else', async () => {
    const { said } = start()
    await vi.advanceTimersByTimeAsync(119_000)
    expect(said).toEqual([])
    await vi.advanceTimersByTimeAsync(1000)
    expect(said).toEqual([ONE_MINUTE_LEFT])
    await vi.advanceTimersByTimeAsync(59_000)
    expect(said).toEqual([ONE_MINUTE_LEFT])
    await vi.advanceTimersByTimeAsync(1000)
    expect(said).toEqual([ONE_MINUTE_LEFT, TIME_IS_UP])
    await vi.advanceTimersByTimeAsync(5000)
    expect(said).toEqual([ONE_MINUTE_LEFT, TIME_IS_UP])
  })

  it('says nothing while not speaking, though it still counts', async () => {
    const { countdown, said } = start({ speaking: false })
    await vi.advanceTimersByTimeAsync(180_000)
    expect(countdown.remaining.value).toBe(0)
    expect(said).toEqual([])
  })

  it('does not tick or show text while not running, and catches up when it runs again', async () => {
    const running = ref(false)
    const { countdown } = start({ running })
    expect(vi.getTimerCount()).toBe(0)
    expect(countdown.text.value).toBe('')
    await vi.advanceTimersByTimeAsync(30_000)
    expect(countdown.remaining.value).toBe(180)
    running.value = true
    await nextTick()
    expect(countdown.remaining.value).toBe(150)
    expect(countdown.text.value).toBe('2:30 left')
    expect(vi.getTimerCount()).toBe(1)
    running.value = false
    await nextTick()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('has no countdown without expires_at', () => {
    const { countdown } = start({ expiresAt: null })
    expect(countdown.remaining.value).toBeNull()
    expect(countdown.text.value).toBe('')
    expect(countdown.urgent.value).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('stops its timer when its owner goes away', () => {
    start()
    expect(vi.getTimerCount()).toBe(1)
    scope.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})
