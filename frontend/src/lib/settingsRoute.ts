// Settings' sections and their URLs (#settings/<section>), so that each is
// reachable by a link in the browser build and by keyboard in its list.
// (Their names are the catalogue's settings.sections.<key>, or `label`.)
export const SETTINGS_SECTIONS = [
  { key: 'server' },
  { key: 'models' },
  { key: 'assistants' },
  { key: 'tools' },
  { key: 'knowledge' },
  { key: 'memory', label: 'memory.settings.title' },
  { key: 'agents' },
  { key: 'appearance' },
  { key: 'data' },
  { key: 'about', label: 'settings.about.title' },
] as const

/** The catalogue key of a section's name. */
export function sectionLabel(sec: { key: string; label?: string }): string {
  return sec.label ?? `settings.sections.${sec.key}`
}

export type SettingsSectionKey = (typeof SETTINGS_SECTIONS)[number]['key']

export function settingsHash(key: SettingsSectionKey): string {
  return `#settings/${key}`
}

/**
 * The section a URL hash opens: '#settings' opens the first, '#settings/x'
 * section x; null when the hash is not about settings (or names no section).
 */
export function sectionFromHash(hash: string): SettingsSectionKey | null {
  const m = /^#settings(?:\/([a-z]+))?$/.exec(hash)
  if (!m) return null
  const key = (m[1] ?? 'server') as SettingsSectionKey
  return SETTINGS_SECTIONS.some((s) => s.key === key) ? key : null
}
