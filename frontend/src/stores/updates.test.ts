// The updates store (SPEC §13) against the fake transport: the phases About
// shows, nothing said of an automatic check that could not reach the feed,
// the notice once per ready version (remembered across windows), the
// update:state events, "Restart to update" waiting for the new version.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { settle, setupEnv, type TestEnv } from '../test-utils'
import { NOTICE_KEY, RESTART_POLL_MS, setUpdateReload, useUpdatesStore } from './updates'
import { connectEvents } from './events'
import type { UpdateStatus } from '../types'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
  localStorage.clear()
})
afterEach(() => {
  vi.useRealTimers()
  localStorage.clear()
})

const offered = { version: '1.1.0', notes: 'Faster answers.', published: '2026-11-28T10:00:00Z', size: 6_400_000 }
const status = (s: Partial<UpdateStatus>): UpdateStatus => ({ current: '1.0.0', kind: 'tar', auto: true, state: 'idle', available: null, ...s })

describe('updates store', () => {
  it('a build without an install kind never updates itself', async () => {
    const u = useUpdatesStore()
    await u.load()
    expect(u.phase).toBe('unsupported')
  })

  it('says nothing of an automatic check that could not reach the feed, but says it after the user checks', async () => {
    env.fake.updateStatus = status({ state: 'error', error: 'cannot reach the update feed', checked_at: '2026-11-29T08:00:00Z' })
    const u = useUpdatesStore()
    await u.load()
    expect(u.phase).toBe('idle')
    expect(u.notice).toBeNull()

    await u.check()
    expect(env.fake.callsOf('checkUpdate')).toHaveLength(1)
    expect(u.phase).toBe('error')
    expect(u.reason).toBe('cannot reach the update feed')
  })

  it('a check that finds nothing newer is "up to date"; a refusal is said with its reason', async () => {
    env.fake.updateStatus = status({})
    const u = useUpdatesStore()
    await u.load()
    expect(u.phase).toBe('idle')
    await u.check()
    expect(u.phase).toBe('upToDate')

    env.fake.nextCheck = status({ state: 'refused', error: 'the feed is signed by an unknown key (ABC)' })
    await u.check()
    expect(u.phase).toBe('refused')
    expect(u.reason).toContain('unknown key')
  })

  it('follows update:state from available to downloading to ready, and announces a ready version once', async () => {
    const off = connectEvents()
    try {
      const u = useUpdatesStore()
      env.fake.setUpdate(status({ available: offered }))
      expect(u.phase).toBe('available')
      env.fake.setUpdate({ state: 'downloading' })
      expect(u.phase).toBe('downloading')
      expect(u.notice).toBeNull()
      env.fake.setUpdate({ state: 'ready' })
      expect(u.phase).toBe('ready')
      expect(u.notice).toBe('1.1.0')
      expect(localStorage.getItem(NOTICE_KEY)).toBe('1.1.0')

      u.dismissNotice()
      env.fake.setUpdate({ state: 'ready' })
      expect(u.notice).toBeNull()
    } finally {
      off()
    }
  })

  it('does not announce again in a new window a version already announced', async () => {
    localStorage.setItem(NOTICE_KEY, '1.1.0')
    env.fake.updateStatus = status({ state: 'ready', available: offered })
    const u = useUpdatesStore()
    await u.load()
    expect(u.phase).toBe('ready')
    expect(u.notice).toBeNull()

    env.fake.updateStatus = status({ state: 'ready', available: { ...offered, version: '1.2.0' } })
    await u.load()
    expect(u.notice).toBe('1.2.0')
  })

  it('"Restart to update" with nothing ready says why', async () => {
    env.fake.updateStatus = status({})
    const u = useUpdatesStore()
    await u.load()
    expect(await u.apply()).toBe(false)
    expect(u.applyError).toBe('The update could not be installed: no update is ready to install')
    expect(u.restarting).toBeNull()
  })

  it('"Restart to update" waits for the new version to answer, then reloads the page', async () => {
    vi.useFakeTimers()
    const reload = vi.fn()
    setUpdateReload(reload)
    env.fake.updateStatus = status({ state: 'ready', available: offered })
    const u = useUpdatesStore()
    await u.load()
    const health = vi.spyOn(env.fake, 'health')
    health.mockRejectedValueOnce(new Error('connection refused'))
    expect(await u.apply()).toBe(true)
    expect(u.phase).toBe('restarting')
    expect(u.restarting).toBe('1.1.0')
    expect(u.notice).toBeNull()

    await vi.advanceTimersByTimeAsync(RESTART_POLL_MS) // not answering
    expect(reload).not.toHaveBeenCalled()
    health.mockResolvedValueOnce({ status: 'ok', version: '1.0.0' }) // the old one, still stopping
    await vi.advanceTimersByTimeAsync(RESTART_POLL_MS)
    expect(reload).not.toHaveBeenCalled()
    health.mockResolvedValue({ status: 'ok', version: '1.1.0' })
    await vi.advanceTimersByTimeAsync(RESTART_POLL_MS)
    await settle()
    expect(reload).toHaveBeenCalledOnce()
  })
})
