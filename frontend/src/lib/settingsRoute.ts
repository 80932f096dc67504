// Settings' sections and their URLs (#settings/<section>), so that each is
// reachable by a link in the browser build and by keyboard in its list.
export const SETTINGS_SECTIONS = [
  { key: 'server', label: 'Model server' },
  { key: 'models', label: 'Models' },
  { key: 'assistants', label: 'Assistants' },
  { key: 'tools', label: 'Tools' },
  { key: 'knowledge', label: 'Knowledge' },
  { key: 'agents', label: 'Agents' },
  { key: 'appearance', label: 'Appearance' },
  { key: 'data', label: 'Data' },
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
