import { describe, expect, it } from 'vitest'
import type { EngineDownload } from '../api/wire.gen'
import { FakeTransport } from './fake'

describe('FakeTransport model library', () => {
  it('downloads a catalogue model, telling each change, then lists it as installed', async () => {
    const t = new FakeTransport()
    const seen: EngineDownload[] = []
    t.emitter.on('engine:download', (d) => seen.push(d as EngineDownload))
    const d = await t.startEngineDownload({ catalog_id: 'qwen3-1.7b' })
    expect(d).toMatchObject({ repo: 'unsloth/Qwen3-1.7B-GGUF', state: 'downloading', bytes: 0, revision: 'main' })
    expect((await t.startEngineDownload({ repo: d.repo, file: d.file })).id).toBe(d.id)
    t.engineLibrary.progress(d.id, 500)
    const m = t.engineLibrary.complete(d.id)
    expect(seen.map((x) => x.state)).toEqual(['downloading', 'downloading', 'done'])
    expect(seen[1].bytes).toBe(500)
    expect(await t.engineModels()).toEqual([m])
    expect(m).toMatchObject({ id: 'Qwen3-1.7B-Q4_K_M', state: 'ready', capabilities: ['tools', 'thinking'], source: { repo: d.repo, file: d.file } })
    const entry = (await t.engineCatalog()).find((e) => e.id === 'qwen3-1.7b')!
    expect(entry).toMatchObject({ installed: true, model: m.id })
    await expect(t.startEngineDownload({ catalog_id: 'qwen3-1.7b' })).rejects.toMatchObject({ status: 409 })
    await t.deleteEngineModel({ id: m.id })
    expect(await t.engineModels()).toEqual([])
    await expect(t.deleteEngineModel({ id: m.id })).rejects.toMatchObject({ status: 404 })
  })

  it('pauses, resumes, cancels and queues downloads', async () => {
    const t = new FakeTransport()
    t.engineLibrary.hub.set('acme/tiny-GGUF/tiny.gguf', 1000)
    const first = await t.startEngineDownload({ catalog_id: 'nomic-embed-text-v1.5' })
    const second = await t.startEngineDownload({ repo: 'acme/tiny-GGUF', file: 'tiny.gguf' })
    expect(second.state).toBe('queued')
    expect((await t.pauseEngineDownload({ id: first.id })).state).toBe('paused')
    expect((await t.resumeEngineDownload({ id: first.id })).state).toBe('downloading')
    expect((await t.cancelEngineDownload({ id: first.id })).state).toBe('cancelled')
    await expect(t.resumeEngineDownload({ id: first.id })).rejects.toMatchObject({ status: 409 })
    await expect(t.pauseEngineDownload({ id: 'nope' })).rejects.toMatchObject({ status: 404 })
    t.engineLibrary.fail(second.id, 'The downloaded tiny.gguf does not match the sha256 checksum.')
    expect((await t.engineDownloads()).map((d) => d.state)).toEqual(['cancelled', 'error'])
    expect((await t.resumeEngineDownload({ id: second.id })).state).toBe('downloading')
  })

  it('refuses what the Go side refuses: 422, 507, 400', async () => {
    const t = new FakeTransport()
    await expect(t.startEngineDownload({ repo: 'acme/tiny-GGUF', file: 'README.md' })).rejects.toMatchObject({ status: 422 })
    await expect(t.startEngineDownload({ repo: 'acme/tiny-GGUF', file: 'missing.gguf' })).rejects.toMatchObject({ status: 422 })
    await expect(t.startEngineDownload({ repo: 'not a repo', file: 'x.gguf' })).rejects.toMatchObject({ status: 400 })
    await expect(t.startEngineDownload({ catalog_id: 'nope' })).rejects.toMatchObject({ status: 404 })
    t.engineLibrary.freeBytes = 1e9
    await expect(t.startEngineDownload({ catalog_id: 'qwen3-1.7b' })).rejects.toMatchObject({ status: 507 })
  })

  it('imports a GGUF in place and refuses what is not one', async () => {
    const t = new FakeTransport()
    t.engineLibrary.files.set('/home/user/models/mine.gguf', true)
    t.engineLibrary.files.set('/home/user/notes.gguf', false)
    const m = await t.importEngineModel({ path: '/home/user/models/mine.gguf' })
    expect(m).toMatchObject({ id: 'mine', source: { path: '/home/user/models/mine.gguf' }, state: 'ready' })
    expect((await t.importEngineModel({ path: '/home/user/models/mine.gguf' })).id).toBe('mine')
    await expect(t.importEngineModel({ path: '/home/user/notes.gguf' })).rejects.toMatchObject({ status: 422 })
    await expect(t.importEngineModel({ path: 'mine.gguf' })).rejects.toMatchObject({ status: 400 })
    t.engineLibrary.breakModel('mine')
    expect((await t.engineModels())[0]).toMatchObject({ state: 'broken', error: 'its file is missing' })
  })
})
