// Knowledge collections (SPEC §11): the list with each collection's
// progress, kept live by `knowledge:progress` events, and the actions of
// Settings → Knowledge and the composer's picker.
import { defineStore } from 'pinia'
import type { Collection, KnowledgeProgressEvent } from '../types'
import { useTransport } from '../transport'
import { t } from '../i18n'
import { eventsDuringLoadsPerStore } from '../lib/eventsDuringLoads'
import { attempt, loadInto } from './asyncState'

/** The figures a `knowledge:progress` event brings. */
type Progress = Pick<Collection, 'files' | 'indexed_files' | 'chunks' | 'status'>

/**
 * The progress events (and refreshed collections) brought while a load (the
 * list, or one collection) was on its way: its answer, read before, must not
 * overwrite them (a finished collection would read "indexing" until its next
 * change, or lose the errors its refresh brought).
 */
const progressDuringLoads = eventsDuringLoadsPerStore<string, Partial<Collection>>()

/** `c` with what events and refreshes brought while it was on its way. */
function withNewerProgress(c: Collection, newer: ReadonlyMap<string, Partial<Collection>>): Collection {
  const progress = newer.get(c.id)
  return progress ? { ...c, ...progress } : c
}

interface State {
  collections: Collection[]
  loaded: boolean
  loading: boolean
  loadError: string | null
  /** The last error of an action, per collection id ('' = creating one). */
  errors: Record<string, string | null>
  busy: Record<string, boolean>
}

export const useKnowledgeStore = defineStore('knowledge', {
  state: (): State => ({ collections: [], loaded: false, loading: false, loadError: null, errors: {}, busy: {} }),

  getters: {
    byId(state): (id: string) => Collection | undefined {
      return (id) => state.collections.find((c) => c.id === id)
    },
  },

  actions: {
    load(): Promise<void> {
      return loadInto(this, { loading: 'loading', loaded: 'loaded', error: 'loadError' }, () =>
        progressDuringLoads(this).load(
          () => useTransport().collections(),
          (list, newer) => {
            this.collections = list.map((c) => withNewerProgress(c, newer))
          },
        ),
      )
    },

    put(c: Collection): void {
      const i = this.collections.findIndex((x) => x.id === c.id)
      if (i >= 0) this.collections[i] = c
      else this.collections.push(c)
    },

    /** A `knowledge:progress` event: the figures now; the errors once it settles. */
    async onProgress(p: KnowledgeProgressEvent | null | undefined): Promise<void> {
      if (!p || typeof p !== 'object' || !p.id) return
      const progress: Progress = { files: p.files, indexed_files: p.indexed_files, chunks: p.chunks, status: p.status }
      progressDuringLoads(this).record(p.id, progress)
      const c = this.byId(p.id)
      if (!c) {
        if (this.loaded) await this.refresh(p.id)
        return
      }
      Object.assign(c, progress)
      if (p.status !== 'indexing') await this.refresh(p.id)
    },

    async refresh(id: string): Promise<void> {
      const loads = progressDuringLoads(this)
      const intoEarlierLoads = loads.recordIntoLoadsOpenNow()
      try {
        await loads.load(
          () => useTransport().getCollection({ id }),
          (c, newer) => {
            const fresh = withNewerProgress(c, newer)
            this.put(fresh)
            intoEarlierLoads(id, fresh)
          },
        )
      } catch {
        // deleted meanwhile
      }
    },

    /** Runs an action on one collection, keeping its error; resolves true when it worked. */
    async act(id: string, fn: () => Promise<Collection | void>): Promise<boolean> {
      const done = await attempt(this, { key: id, busy: 'busy', error: 'errors' }, async () => {
        const c = await fn()
        if (c) this.put(c)
      })
      return done.ok
    },

    create(name: string, paths: string[]): Promise<boolean> {
      return this.act('', () => useTransport().createCollection({ name, paths }))
    },

    rename(id: string, name: string): Promise<boolean> {
      return this.act(id, () => useTransport().updateCollection({ id, name }))
    },

    setPaths(id: string, paths: string[]): Promise<boolean> {
      return this.act(id, () => useTransport().updateCollection({ id, paths }))
    },

    reindex(id: string): Promise<boolean> {
      return this.act(id, async () => {
        await useTransport().reindexCollection({ id })
        await this.refresh(id)
      })
    },

    cancel(id: string): Promise<boolean> {
      return this.act(id, () => useTransport().cancelCollection({ id }))
    },

    /** Whether the system's folder and file pickers exist here (the desktop app). */
    pickerAvailable(): boolean {
      return useTransport().choosePaths !== null
    },

    /** Asks for folders or files with the system's picker: absolute paths, none when cancelled. */
    async pick(kind: 'folder' | 'files'): Promise<string[]> {
      const done = await attempt(this, {}, async () => (await useTransport().choosePaths?.(kind)) ?? [])
      if (done.ok) return done.value
      this.errors[''] = done.error
      return []
    },

    /**
     * Opens a cited file (the desktop app), else copies its path: 'opened',
     * 'copied', or the reason it failed.
     */
    async openSource(path: string): Promise<string> {
      const transport = useTransport()
      const done = await attempt(this, {}, async () => {
        if (await transport.openSource(path)) return 'opened'
        return (await transport.copyText(path)) ? 'copied' : t('knowledge.source.copyFailed')
      })
      return done.ok ? done.value : done.error
    },

    async remove(id: string): Promise<boolean> {
      const ok = await this.act(id, async () => {
        await useTransport().deleteCollection({ id })
      })
      if (ok) this.collections = this.collections.filter((c) => c.id !== id)
      return ok
    },
  },
})
