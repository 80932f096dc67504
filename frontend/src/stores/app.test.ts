import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { applyTheme } from './app'

/** A stand-in for the OS colour setting: matchMedia('(prefers-color-scheme: dark)'). */
function fakeSystem(dark: boolean) {
  const listeners = new Set<() => void>()
  const query = {
    get matches() {
      return dark
    },
    addEventListener: (_: string, fn: () => void) => listeners.add(fn),
    removeEventListener: (_: string, fn: () => void) => listeners.delete(fn),
  }
  vi.stubGlobal('matchMedia', (q: string) => {
    expect(q).toBe('(prefers-color-scheme: dark)')
    return query
  })
  return {
    listeners,
    set(next: boolean) {
      dark = next
      listeners.forEach((fn) => fn())
    },
  }
}

const root = () => document.documentElement

describe('applyTheme', () => {
  beforeEach(() => {
    root().removeAttribute('data-theme')
    root().removeAttribute('data-color-scheme')
  })
  afterEach(() => {
    applyTheme('light') // stops following the fake system
    vi.unstubAllGlobals()
  })

  it('shows the chosen palette whatever the system uses', () => {
    fakeSystem(true)
    applyTheme('light')
    expect(root().dataset.theme).toBe('light')
    expect(root().dataset.colorScheme).toBe('light')
    applyTheme('dark')
    expect(root().dataset.theme).toBe('dark')
    expect(root().dataset.colorScheme).toBe('dark')
  })

  it('"system" has no data-theme and follows the OS setting live', () => {
    const system = fakeSystem(false)
    applyTheme('system')
    expect(root().hasAttribute('data-theme')).toBe(false)
    expect(root().dataset.colorScheme).toBe('light')
    system.set(true)
    expect(root().dataset.colorScheme).toBe('dark')
    system.set(false)
    expect(root().dataset.colorScheme).toBe('light')
  })

  it('stops following the OS once a theme is chosen', () => {
    const system = fakeSystem(true)
    applyTheme('system')
    expect(root().dataset.colorScheme).toBe('dark')
    applyTheme('light')
    expect(system.listeners.size).toBe(0)
    system.set(true)
    expect(root().dataset.colorScheme).toBe('light')
  })
})
