// The app's keyboard shortcuts: one list for the key handler, the help
// overlay (`?`) and, by action name, the desktop app's native menu (which
// sends `menu:shortcut` with the action when one of its items is chosen).

import { t } from '../i18n'

export type ShortcutAction
 = 'new-chat' | 'search' | 'settings' | 'stop' | 'regenerate' | 'edit-last' | 'help'

/** A shortcut; its label is the catalogue's layout.shortcuts.actions.<action>. */
export interface Shortcut {
  action: ShortcutAction
  /** Keys as shown, with "Mod" for Ctrl (Cmd on a Mac). */
  keys: string[]
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'new-chat', keys: ['Mod', 'N'] },
  { action: 'search', keys: ['Mod', 'K'] },
  { action: 'settings', keys: ['Mod', ','] },
  { action: 'stop', keys: ['Escape'] },
  { action: 'regenerate', keys: ['Mod', 'Shift', 'R'] },
  { action: 'edit-last', keys: ['↑'] },
  { action: 'help', keys: ['?'] },
]


export const MENU_EVENT = 'menu:shortcut'

export function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '')
}

/** How a key reads on this platform and keyboard ("Ctrl", "Strg" or "⌘"). */
export function keyLabel(key: string, mac = isMac()): string {
  if (key === 'Mod') return mac ? '⌘' : t('layout.shortcuts.ctrlKey')
  if (key === 'Shift') return mac ? '⇧' : t('layout.shortcuts.shiftKey')
  if (key === 'Escape') return t('layout.shortcuts.escapeKey')
  return key
}

/** Whether the user is typing somewhere (then `?` is a question mark). */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el || typeof el.closest !== 'function') return false
  return !!el.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')
}

/** The action a key press asks for, or null. Escape and Up are handled where they apply. */
export function actionFor(e: KeyboardEvent, mac = isMac()): ShortcutAction | null {
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key
  if (mod && !e.altKey) {
    if (e.shiftKey && key === 'r') return 'regenerate'
    if (e.shiftKey) return null
    if (key === 'n') return 'new-chat'
    if (key === 'k') return 'search'
    if (key === ',') return 'settings'
    return null
  }
  if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target)) return 'help'
  return null
}
