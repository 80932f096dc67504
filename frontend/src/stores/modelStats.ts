// How well each model asks (Settings → Models): the statistics the Go side
// keeps per model, resetting them, and exporting settings with them.
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

/** "1.2 s", "45 s", "3 min 20 s"; an em dash when nothing was answered. */
export function formatAnswerTime(ms: number): string {
  if (!ms || ms <= 0) return '—'
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  return s % 60 ? `${m} min ${s % 60} s` : `${m} min`
}
