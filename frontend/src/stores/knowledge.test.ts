// The knowledge store against the fake transport: progress events that come
// while a load is on its way are newer than its answer.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { setupEnv, settle, type TestEnv } from '../test-utils'
import { useKnowledgeStore } from './knowledge'
import { connectEvents } from './events'
import type { Collection } from '../types'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

const passages = [{ path: '/home/me/docs/a.md', locator: 'A', text: 'alpha' }]

describe('knowledge store', () => {
  it('a collection that finished indexing while the list was loading is not shown indexing again', async () => {
    const created = env.fake.knowledge.create({ name: 'Docs', paths: ['/home/me/docs'] })
    const stop = connectEvents()
    const kn = useKnowledgeStore()
    const before = env.fake.knowledge.list()
    let answer!: (list: Collection[]) => void
    vi.spyOn(env.fake, 'collections').mockImplementationOnce(() => new Promise((r) => (answer = r)))
    const loading = kn.load()
    // Indexing ends after the list was read, before it arrives.
    env.fake.knowledge.index(created.id, passages)
    await settle()
    answer(before)
    await loading
    expect(kn.byId(created.id)).toMatchObject({ status: 'ready', files: 1, indexed_files: 1, chunks: 1 })

    // A later load, with no event meanwhile, takes the list as it is.
    vi.mocked(env.fake.collections).mockResolvedValueOnce(before)
    await kn.load()
    expect(kn.byId(created.id)!.status).toBe('indexing')
    stop()
  })

  it('a collection refreshed while it finished indexing keeps the finished figures', async () => {
    const created = env.fake.knowledge.create({ name: 'Docs', paths: ['/home/me/docs'] })
    const stop = connectEvents()
    const kn = useKnowledgeStore()
    await kn.load()
    const before = env.fake.knowledge.get(created.id)
    const stale = { ...before }
    let answer!: (c: Collection) => void
    vi.spyOn(env.fake, 'getCollection').mockImplementationOnce(() => new Promise((r) => (answer = r)))
    const refreshing = kn.refresh(created.id)
    env.fake.knowledge.index(created.id, passages)
    await settle()
    answer(stale)
    await refreshing
    expect(kn.byId(created.id)).toMatchObject({ status: 'ready', files: 1, indexed_files: 1, chunks: 1 })
    stop()
  })

  it("a collection refreshed while the list was loading keeps what the refresh brought (the errors too); a list asked for later is taken as it is", async () => {
    const created = env.fake.knowledge.create({ name: 'Docs', paths: ['/home/me/docs'] })
    const kn = useKnowledgeStore()
    await kn.load()
    const listed = env.fake.knowledge.list()
    let answerList!: (list: Collection[]) => void
    vi.spyOn(env.fake, 'collections').mockImplementationOnce(() => new Promise((r) => (answerList = r)))
    const loading = kn.load()
    // The refresh is asked and answered while the list (read before it) is on its way.
    const settled: Collection = { ...env.fake.knowledge.get(created.id), status: 'ready', files: 2, indexed_files: 1, errors: [{ path: '/home/me/docs/b.pdf', error: 'not a PDF' }] }
    vi.spyOn(env.fake, 'getCollection').mockResolvedValueOnce(settled)
    await kn.refresh(created.id)
    expect(kn.byId(created.id)!.errors).toEqual(settled.errors)
    answerList(listed)
    await loading
    expect(kn.byId(created.id)).toMatchObject({ status: 'ready', files: 2, indexed_files: 1, errors: settled.errors })

    // A load started after the refresh may answer newer data: it is taken as it is.
    let answerLater!: (list: Collection[]) => void
    vi.mocked(env.fake.getCollection).mockResolvedValueOnce({ ...settled, name: 'Old name' })
    const refreshing = kn.refresh(created.id)
    vi.mocked(env.fake.collections).mockImplementationOnce(() => new Promise((r) => (answerLater = r)))
    const later = kn.load()
    await refreshing
    answerLater([{ ...settled, name: 'New name', errors: [] }])
    await later
    expect(kn.byId(created.id)).toMatchObject({ name: 'New name', errors: [] })
  })
})
