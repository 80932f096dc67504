// Settings' sections and their URLs (#settings/<section>), so that each is
// reachable by a link in the browser build and by keyboard in its list.
// (Their names are the catalogue's settings.sections.<key>.)
export const SETTINGS_SECTIONS = [
  { key: 'server' },
  { key: 'models' },
  { key: 'assistants' },
  { key: 'tools' },
  { key: 'knowledge' },
  { key: 'agents' },
  { key: 'appearance' },
  { key: 'data' },
] as const

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
