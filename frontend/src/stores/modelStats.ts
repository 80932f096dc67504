// How well each model asks (Settings → Models): the statistics the Go side
// keeps per model, resetting them, and exporting settings with them.
import { formatDuration } from '../i18n/format'
import { defineStore } from 'pinia'
import type { ExportResult, ModelStats, SettingsExport } from '../types'
import { toError, useTransport } from '../transport'

interface State {
  stats: ModelStats[]
  loaded: boolean
  loading: boolean
  error: string | null
}

export const useModelStatsStore = defineStore('modelStats', {
  state: (): State => ({ stats: [], loaded: false, loading: false, error: null }),
  actions: {
    async load(): Promise<void> {
      this.loading = true
      try {
        this.stats = await useTransport().modelStats()
        this.loaded = true
        this.error = null
      } catch (err) {
        this.error = toError(err).message
      } finally {
        this.loading = false
      }
    },

    /** Forgets every model's statistics; resolves with an error message or null. */
    async reset(): Promise<string | null> {
      try {
        await useTransport().resetModelStats()
      } catch (err) {
        return toError(err).message
      }
      this.stats = []
      return null
    },

    /** Settings, profiles and statistics (never the API key), or the error message. */
    async exportSettings(): Promise<SettingsExport | string> {
      try {
        return await useTransport().exportSettings()
      } catch (err) {
        return toError(err).message
      }
    },

    /** Saves the export as a file (see Transport.saveSettingsExport), or the error message. */
    async saveSettingsExport(): Promise<ExportResult | string> {
      try {
        return await useTransport().saveSettingsExport()
      } catch (err) {
        return toError(err).message
      }
    },
  },
})

/** "1.2 sec", "45 sec", "3 min 20 sec" in the current language; an em dash when nothing was answered. */
export function formatAnswerTime(ms: number): string {
  if (!ms || ms <= 0) return '—'
  return formatDuration(ms < 1000 ? 1000 : ms)
}
