// The built-in engine and its model library (SPEC §12): the engine's state,
// the installed models, the curated catalogue and the downloads, with each
// download's speed and time left worked out here from the engine:download
// events (events.ts hands them to onDownload).
import { defineStore } from 'pinia'
import type { EngineCatalogEntry, EngineDownload, EngineDownloadRequest, EngineModel, EngineStatus, HubFile, HubFileArgs } from '../types'
import { useTransport } from '../transport'
import { addSample, downloadShown, speedOf, type Sample } from '../lib/engine'
import { attempt, loadInto, type Outcome } from './asyncState'

interface State {
  status: EngineStatus | null
  models: EngineModel[]
  catalog: EngineCatalogEntry[]
  /** Every download the backend told of, by id. */
  downloads: Record<string, EngineDownload>
  /** Each download's recent progress, for its speed. */
  samples: Record<string, Sample[]>
  loading: boolean
  loaded: boolean
  loadError: string | null
  /** A download being asked for (by catalogue id, or "repo/file"). */
  starting: Record<string, boolean>
  startError: string | null
  /** A download's or a model's action on its way, by its id. */
  busy: Record<string, boolean>
  /** What went wrong with a download's or a model's action, by its id. */
  actionError: Record<string, string | null>
  importing: boolean
  importError: string | null
}

/** The clock the speeds are measured with (tests set their own). */
let clock: () => number = () => Date.now()
export function setEngineClock(fn: () => number): void {
  clock = fn
}

export const useEngineStore = defineStore('engine', {
  state: (): State => ({
    status: null,
    models: [],
    catalog: [],
    downloads: {},
    samples: {},
    loading: false,
    loaded: false,
    loadError: null,
    starting: {},
    startError: null,
    busy: {},
    actionError: {},
    importing: false,
    importError: null,
  }),

  getters: {
    /** The downloads still under way (or stopped by an error), oldest first. */
    activeDownloads(state): EngineDownload[] {
      return Object.values(state.downloads).filter(downloadShown)
    },
    /** The download under way for a catalogue entry, if any. */
    downloadFor(state) {
      return (e: Pick<EngineCatalogEntry, 'repo' | 'file'>): EngineDownload | undefined =>
        Object.values(state.downloads).find((d) => d.repo === e.repo && d.file === e.file && downloadShown(d))
    },
    /** The system's folder dialog can be shown (in the window; not in a browser). */
    canChooseFolder(): boolean {
      return useTransport().choosePaths !== null
    },
    /** Bytes per second of a download, null while unknown. */
    speed(state) {
      return (id: string): number | null => (state.downloads[id]?.state === 'downloading' ? speedOf(state.samples[id] ?? []) : null)
    },
  },

  actions: {
    /** Loads the engine's state, the installed models, the catalogue and the downloads. */
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'loadError' }, async () => {
        const t = useTransport()
        const [status, models, catalog, downloads] = await Promise.all([t.engineStatus(), t.engineModels(), t.engineCatalog(), t.engineDownloads()])
        this.status = status
        this.models = models
        this.catalog = catalog
        this.downloads = Object.fromEntries(downloads.map((d) => [d.id, d]))
      })
    },

    /** Reloads the installed models and the catalogue (after a download or a change on disk). */
    async loadModels(): Promise<void> {
      await loadInto(this, { error: 'loadError' }, async () => {
        const t = useTransport()
        const [models, catalog] = await Promise.all([t.engineModels(), t.engineCatalog()])
        this.models = models
        this.catalog = catalog
      })
    },

    /** An engine:download event, or a download an action returned. */
    onDownload(d: EngineDownload): void {
      if (!d || typeof d.id !== 'string') return
      const before = this.downloads[d.id]
      this.downloads[d.id] = d
      if (d.state === 'downloading') this.samples[d.id] = addSample(this.samples[d.id] ?? [], { at: clock(), bytes: d.bytes })
      else delete this.samples[d.id]
      if (d.state === 'done' && before?.state !== 'done') void this.loadModels()
    },

    onState(s: EngineStatus): void {
      if (s && typeof s.state === 'string') this.status = s
    },

    /** Starts a download: a catalogue entry's, or a file of a hub repository. */
    async startDownload(req: EngineDownloadRequest): Promise<Outcome<EngineDownload>> {
      const key = req.catalog_id || `${req.repo ?? ''}/${req.file ?? ''}`
      const done = await attempt(this, { key, busy: 'starting' }, () => useTransport().startEngineDownload(req))
      this.startError = done.ok ? null : done.error
      if (done.ok) this.onDownload(done.value)
      return done
    },

    /** Asks the hub what a file would take before it downloads: size, memory against this machine's, disk. */
    checkHubFile(args: HubFileArgs): Promise<Outcome<HubFile>> {
      return attempt(this, {}, () => useTransport().checkHubFile({ repo: args.repo.trim(), file: args.file.trim(), revision: args.revision }))
    },

    /** The system's folder dialog (the window only): the folder chosen, or null. */
    async chooseFolder(): Promise<string | null> {
      const picked = await useTransport().choosePaths?.('folder')
      return picked?.[0] || null
    },

    pause(id: string): Promise<Outcome<EngineDownload>> {
      return this.downloadAction(id, () => useTransport().pauseEngineDownload({ id }))
    },
    resume(id: string): Promise<Outcome<EngineDownload>> {
      return this.downloadAction(id, () => useTransport().resumeEngineDownload({ id }))
    },
    cancel(id: string): Promise<Outcome<EngineDownload>> {
      return this.downloadAction(id, () => useTransport().cancelEngineDownload({ id }))
    },

    async downloadAction(id: string, fn: () => Promise<EngineDownload>): Promise<Outcome<EngineDownload>> {
      const done = await attempt(this, { key: id, busy: 'busy', error: 'actionError' }, fn)
      if (done.ok) this.onDownload(done.value)
      return done
    },

    /** Adds a GGUF from the disk by its full path. */
    async importModel(path: string): Promise<Outcome<EngineModel>> {
      const done = await attempt(this, { busy: 'importing', error: 'importError' }, () => useTransport().importEngineModel({ path: path.trim() }))
      if (done.ok) await this.loadModels()
      return done
    },

    /** "Load anyway": lets a model that needs more memory than the machine has load (remembered per model), or no longer. */
    async setAllowLarge(id: string, allow: boolean): Promise<Outcome<EngineModel>> {
      const done = await attempt(this, { key: id, busy: 'busy', error: 'actionError' }, () => useTransport().updateEngineModel({ id, allow_large: allow }))
      if (done.ok) this.models = this.models.map((m) => (m.id === id ? done.value : m))
      return done
    },

    /** Deletes a model (a downloaded file is deleted, an imported one forgotten). */
    async deleteModel(id: string): Promise<boolean> {
      const done = await attempt(this, { key: id, busy: 'busy', error: 'actionError' }, () => useTransport().deleteEngineModel({ id }))
      if (done.ok) {
        this.models = this.models.filter((m) => m.id !== id)
        await this.loadModels()
      }
      return done.ok
    },
  },
})
