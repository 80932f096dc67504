// The app's keyboard shortcuts: one list for the key handler, the help
// overlay (`?`) and, by action name, the desktop app's native menu (which
// sends `menu:shortcut` with the action when one of its items is chosen).

export type ShortcutAction = 'new-chat' | 'search' | 'settings' | 'stop' | 'regenerate' | 'edit-last' | 'help'

export interface Shortcut {
  action: ShortcutAction
  /** Keys as shown, with "Mod" for Ctrl (Cmd on a Mac). */
  keys: string[]
  label: string
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'new-chat', keys: ['Mod', 'N'], label: 'New chat' },
  { action: 'search', keys: ['Mod', 'K'], label: 'Search conversations' },
  { action: 'settings', keys: ['Mod', ','], label: 'Settings' },
  { action: 'stop', keys: ['Escape'], label: 'Stop the reply' },
  { action: 'regenerate', keys: ['Mod', 'Shift', 'R'], label: 'Regenerate the last reply' },
  { action: 'edit-last', keys: ['↑'], label: 'Edit your last message (in an empty message box)' },
  { action: 'help', keys: ['?'], label: 'Show these shortcuts' },
]

export const MENU_EVENT = 'menu:shortcut'

export function isMac(): boolean {
  return typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || '')
}

/** How a key reads on this platform ("Ctrl" or "⌘"). */
export function keyLabel(key: string, mac = isMac()): string {
  if (key === 'Mod') return mac ? '⌘' : 'Ctrl'
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
