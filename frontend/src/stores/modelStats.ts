// How well each model asks (Settings → Models): the statistics the Go side
// keeps per model, resetting them, and exporting settings with them.
import { formatDuration } from '../i18n/format'
import { defineStore } from 'pinia'
import type { ExportResult, ModelStats, SettingsExport } from '../types'
import { useTransport } from '../transport'
import { attempt, loadInto } from './asyncState'

/** The settings export's file name. */
export const SETTINGS_FILE = 'parley-settings.json'

interface State {
  stats: ModelStats[]
  loaded: boolean
  loading: boolean
  error: string | null
}

export const useModelStatsStore = defineStore('modelStats', {
  state: (): State => ({ stats: [], loaded: false, loading: false, error: null }),
  actions: {
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'error' }, async () => {
        this.stats = await useTransport().modelStats()
      })
    },

    /** Forgets every model's statistics; resolves with an error message or null. */
    async reset(): Promise<string | null> {
      const done = await attempt(this, {}, () => useTransport().resetModelStats())
      if (!done.ok) return done.error
      this.stats = []
      return null
    },

    /** Settings, profiles and statistics (never the API key), or the error message. */
    async exportSettings(): Promise<SettingsExport | string> {
      const done = await attempt(this, {}, () => useTransport().exportSettings())
      return done.ok ? done.value : done.error
    },

    /** Saves the export as a file (see Transport.saveFile), or the error message. */
    async saveSettingsExport(): Promise<ExportResult | string> {
      const done = await attempt(this, {}, async () => {
        const transport = useTransport()
        const content = JSON.stringify(await transport.exportSettings(), null, 2) + '\n'
        return transport.saveFile({ name: SETTINGS_FILE, mime_type: 'application/json', content }, 'settings')
      })
      return done.ok ? done.value : done.error
    },
  },
})

/** "1.2 sec", "45 sec", "3 min 20 sec" in the current language; an em dash when nothing was answered. */
export function formatAnswerTime(ms: number): string {
  if (!ms || ms <= 0) return '—'
  return formatDuration(ms < 1000 ? 1000 : ms)
}
