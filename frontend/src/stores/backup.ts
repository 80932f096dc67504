// The full backup (SPEC §14, Settings → Data): every project and
// conversation in one file, and importing such a file, which adds only what
// is not here yet (so importing twice adds nothing twice).
import { defineStore } from 'pinia'
import type { BackupImported, ExportResult } from '../types'
import { useTransport } from '../transport'
import { useConversationsStore } from './conversations'
import { useProjectsStore } from './projects'
import { attempt } from './asyncState'
import { language, t } from '../i18n'

interface State {
  exporting: boolean
  importing: boolean
  /** Why the last export or import failed. */
  error: string | null
  /** Where the desktop app saved the last export. */
  savedPath: string | null
  /** What the last import added and left. */
  result: BackupImported | null
}

/** An export to download in a browser: the file's name, text and type. */
export interface BackupDownload {
  name: string
  content: string
  mimeType: string
}

export const useBackupStore = defineStore('backup', {
  state: (): State => ({ exporting: false, importing: false, error: null, savedPath: null, result: null }),

  actions: {
    /**
     * Exports everything. The desktop app saves the file through its dialog
     * (savedPath says where); a browser gets the file back to download.
     * Null when cancelled or failed (error says why).
     */
    async exportAll(): Promise<BackupDownload | null> {
      this.savedPath = null
      this.result = null
      const failed = (err: Error) => t('backup.errors.export', { error: err.message })
      const done = await attempt(this, { busy: 'exporting', error: 'error', failed }, async () => {
        const transport = useTransport()
        const file = await transport.exportBackup()
        const res: ExportResult = await transport.saveFile(file, 'backup')
        if (res.kind === 'saved') this.savedPath = res.path
        return res.kind === 'content' ? { name: file.name, content: res.content, mimeType: res.mimeType } : null
      })
      return done.ok ? done.value : null
    },

    /**
     * Imports a backup: `data` is the file's text (a browser); the desktop
     * app asks for the file itself. The lists are loaded again after it.
     */
    async importAll(data?: string): Promise<BackupImported | null> {
      this.savedPath = null
      this.result = null
      const failed = (err: Error) => t('backup.errors.import', { error: err.message })
      const done = await attempt(this, { busy: 'importing', error: 'error', failed }, async () => {
        const transport = useTransport()
        const text = data ?? (await transport.chooseBackupFile())
        if (text === null) return null // the dialog was cancelled
        const res = await transport.importBackup({ data: text })
        this.result = res
        await Promise.all([useProjectsStore().load(), useConversationsStore().load()])
        return res
      })
      return done.ok ? done.value : null
    },
  },
})

/** A backup's sections the UI names, in the order it names them. */
const KNOWN_SECTIONS = ['projects', 'conversations', 'memories']

/** The counts of a backup's sections: "2 projects, 5 conversations" (known sections by name, others as they come). */
export function describeCounts(counts: Record<string, number>): string {
  const parts: string[] = []
  const rank = (section: string) => (KNOWN_SECTIONS.indexOf(section) + KNOWN_SECTIONS.length + 1) % (KNOWN_SECTIONS.length + 1)
  const sections = Object.keys(counts).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  for (const section of sections) {
    const n = counts[section]
    if (!n) continue
    const known = KNOWN_SECTIONS.includes(section)
    parts.push(known ? t(`backup.count.${section}`, { count: n }) : t('backup.count.other', { section, count: n }))
  }
  return parts.length ? new Intl.ListFormat(language(), { style: 'long', type: 'conjunction' }).format(parts) : t('backup.count.nothing')
}
