// App-wide UI state: theme, connection to the backend, version.
import { defineStore } from 'pinia'
import { nextTick } from 'vue'
import { useTransport } from '../transport'
import { enableCardTrace } from '../lib/cardTrace'
import { loadInto } from './asyncState'

export type Theme = 'system' | 'light' | 'dark'
const THEME_KEY = 'parley.theme'

function readTheme(): Theme {
  try {
    const v = localStorage.getItem(THEME_KEY)
    return v === 'light' || v === 'dark' ? v : 'system'
  } catch {
    return 'system'
  }
}

const SYSTEM_DARK = '(prefers-color-scheme: dark)'
let stopFollowingSystem: (() => void) | null = null

/**
 * Shows a theme. <html data-theme> is the choice ('light' or 'dark'; none for
 * the system's) and data-color-scheme the palette in use (style.css has the
 * dark one once, for data-color-scheme="dark"). "system" follows the OS
 * setting live.
 */
export function applyTheme(theme: Theme): void {
  if (typeof document === 'undefined') return
  stopFollowingSystem?.()
  stopFollowingSystem = null
  const root = document.documentElement
  if (theme === 'system') root.removeAttribute('data-theme')
  else root.setAttribute('data-theme', theme)
  const show = (dark: boolean) => root.setAttribute('data-color-scheme', dark ? 'dark' : 'light')
  if (theme === 'system' && typeof window !== 'undefined' && typeof window.matchMedia === 'function') {
    const system = window.matchMedia(SYSTEM_DARK)
    const follow = () => show(system.matches)
    system.addEventListener('change', follow)
    stopFollowingSystem = () => system.removeEventListener('change', follow)
    follow()
    return
  }
  show(theme === 'dark')
}

export const useAppStore = defineStore('app', {
  state: () => ({
    theme: readTheme() as Theme,
    /** False while the event stream is down (HTTP transport). */
    connected: true,
    version: '' as string,
    healthError: null as string | null,
  }),
  actions: {
    setTheme(theme: Theme): void {
      this.theme = theme
      applyTheme(theme)
      try {
        if (theme === 'system') localStorage.removeItem(THEME_KEY)
        else localStorage.setItem(THEME_KEY, theme)
      } catch {
        // storage may be unavailable; the choice still applies to this window
      }
    },
    cycleTheme(): void {
      const order: Theme[] = ['system', 'light', 'dark']
      this.setTheme(order[(order.indexOf(this.theme) + 1) % order.length]!)
    },
    checkHealth(): Promise<void> {
      return loadInto(this, { error: 'healthError' }, async () => {
        const h = await useTransport().health()
        this.version = h.version ?? ''
        if (h.trace) enableCardTrace((marks) => useTransport().reportTrace(marks), nextTick)
      })
    },
  },
})
