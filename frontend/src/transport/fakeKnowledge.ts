// The fake transport's knowledge collections (SPEC §11): kept in memory,
// "indexed" when a test says so (index()), searched by words, with the
// Go side's checks (a name, absolute paths).
import type { Collection, CollectionRequest, KnowledgeProgressEvent, KnowledgeResult } from '../types'
import { LIMITS } from '../types'
import { TransportError } from './transport'
import { clone, fakeId } from './fakeData'

/** A passage the fake search can find. */
export interface FakePassage {
  path: string
  locator: string
  text: string
}

export class FakeKnowledge {
  collections = new Map<string, Collection>()
  /** The passages of each collection once indexed (set by tests). */
  passages = new Map<string, FakePassage[]>()

  constructor(private readonly progress: (e: KnowledgeProgressEvent) => void) {}

  list(): Collection[] {
    return [...this.collections.values()].map(clone)
  }

  get(id: string): Collection {
    const c = this.collections.get(id)
    if (!c) throw new TransportError('collection not found', 404)
    return c
  }

  private check(name: string | undefined, paths: string[] | undefined): void {
    if (name !== undefined && (!name.trim() || name.trim().length > LIMITS.maxCollectionName)) {
      throw new TransportError(`a collection's name must be 1 to ${LIMITS.maxCollectionName} characters`, 422)
    }
    for (const p of paths ?? []) {
      if (!p.startsWith('/')) throw new TransportError(`path "${p}" is not absolute`, 422)
    }
  }

  create(req: CollectionRequest): Collection {
    this.check(req.name ?? '', req.paths ?? [])
    if (!req.paths?.length) throw new TransportError('a collection lists 1 to 100 files or folders', 422)
    const c: Collection = {
      id: fakeId('kn'), name: req.name!.trim(), paths: [...req.paths], status: 'indexing', files: 0, indexed_files: 0, chunks: 0,
      embedding_model: null, embedded_chunks: 0, errors: [], cancelled: false, created_at: new Date().toISOString(),
    }
    this.collections.set(c.id, c)
    return clone(c)
  }

  update(id: string, req: CollectionRequest): Collection {
    const c = this.get(id)
    this.check(req.name, req.paths)
    if (req.name !== undefined) c.name = req.name.trim()
    if (req.paths) Object.assign(c, { paths: [...req.paths], status: 'indexing', cancelled: false })
    return clone(c)
  }

  /** Finishes indexing: the passages become searchable, progress is announced. */
  index(id: string, passages: FakePassage[], errors: { path: string; error: string }[] = []): void {
    const c = this.get(id)
    const files = new Set(passages.map((p) => p.path))
    Object.assign(c, { status: 'ready', files: files.size + errors.length, indexed_files: files.size, chunks: passages.length, errors })
    this.passages.set(id, passages)
    this.progress({ id, indexed_files: c.indexed_files, files: c.files, chunks: c.chunks, status: c.status })
  }

  cancel(id: string): Collection {
    const c = this.get(id)
    Object.assign(c, { cancelled: true, status: 'ready' })
    return clone(c)
  }

  reindex(id: string): void {
    Object.assign(this.get(id), { cancelled: false, status: 'indexing' })
  }

  remove(id: string): void {
    this.get(id)
    this.collections.delete(id)
    this.passages.delete(id)
  }

  search(id: string, query: string, topK = 8): KnowledgeResult[] {
    this.get(id)
    const words = query.toLowerCase().split(/\W+/).filter(Boolean)
    return (this.passages.get(id) ?? [])
      .map((p) => ({ ...p, score: words.filter((w) => p.text.toLowerCase().includes(w)).length }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, topK)
  }
}
