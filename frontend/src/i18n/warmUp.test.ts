import { afterEach, describe, expect, it, vi } from 'vitest'
import { i18n, precompile, setLanguage, t } from './index'
import { warmUpTexts, type IdleScheduler } from './warmUp'

/** Idle callbacks the test runs by hand, each with the time it says is left. */
function manualIdle() {
  const queue: Parameters<IdleScheduler>[0][] = []
  const idle: IdleScheduler = (fn) => queue.push(fn)
  return {
    idle,
    pending: () => queue.length,
    run: (remaining = 50) => queue.shift()!({ timeRemaining: () => remaining }),
  }
}

function flat(messages: unknown, prefix = ''): [string, string][] {
  return Object.entries(messages as Record<string, unknown>).flatMap(([k, v]) =>
    typeof v === 'string' ? [[prefix + k, v] as [string, string]] : flat(v, `${prefix}${k}.`),
  )
}

afterEach(async () => {
  vi.restoreAllMocks()
  await setLanguage('en')
})

describe('warmUpTexts', () => {
  it('translates every text of the language shown before it is used, in slices', async () => {
    await setLanguage('de')
    const texts = flat(i18n.global.getLocaleMessage('de'))
    const fixed = texts.filter(([, m]) => !m.includes('{'))
    const valued = texts.filter(([, m]) => m.includes('{'))
    expect(fixed.length).toBeGreaterThan(100)
    expect(valued.length).toBeGreaterThan(50)
    const m = manualIdle()
    const done = warmUpTexts(m.idle)
    // A slice with no time left does one text and asks for another.
    m.run(0)
    expect(m.pending()).toBe(1)
    let slices = 1
    while (m.pending()) {
      m.run()
      slices++
    }
    await done
    expect(slices).toBeGreaterThan(1)
    // Each fixed text is now kept: t no longer asks vue-i18n for it.
    const asked = vi.spyOn(i18n.global, 't')
    for (const [key] of fixed) expect(t(key)).toBe(i18n.global.tm(key))
    expect(asked).not.toHaveBeenCalled()
    // Each text with values is compiled.
    for (const [, message] of valued) expect(precompile(message, 'de')).toBe(true)
  })

  it('stops when the language changes, and a new call warms the new one', async () => {
    await setLanguage('fr')
    const m = manualIdle()
    const first = warmUpTexts(m.idle)
    m.run(0)
    await setLanguage('es')
    m.run()
    await first
    expect(m.pending()).toBe(0)
    const second = warmUpTexts(m.idle)
    while (m.pending()) m.run()
    await second
    const asked = vi.spyOn(i18n.global, 't')
    const fixed = flat(i18n.global.getLocaleMessage('es')).filter(([, msg]) => !msg.includes('{'))
    for (const [key] of fixed) t(key)
    expect(asked).not.toHaveBeenCalled()
  })
})
