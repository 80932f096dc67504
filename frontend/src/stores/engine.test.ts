import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setupEnv, settle, type TestEnv } from '../test-utils'
import { connectEvents } from './events'
import { setEngineClock, useEngineStore } from './engine'
import { downloadPercent, estimateRam, machineMemory, mayLoad, recommended, speedOf, addSample, timeLeftMs, tooBigFor } from '../lib/engine'

let env: TestEnv
let off: (() => void) | null = null
let now = 0
beforeEach(() => {
  env = setupEnv()
  off = connectEvents()
  now = 1_000_000
  setEngineClock(() => now)
})
afterEach(() => {
  off?.()
  off = null
  setEngineClock(() => Date.now())
})

describe('engine store (the model library, SPEC §12)', () => {
  it('loads the engine, the installed models, the catalogue and the downloads', async () => {
    const engine = useEngineStore()
    await engine.load()
    expect(engine.loaded).toBe(true)
    expect(engine.status?.state).toBe('stopped')
    expect(engine.catalog.map((e) => e.id)).toEqual(['qwen3-1.7b', 'nomic-embed-text-v1.5'])
    expect(engine.models).toEqual([])
    expect(engine.activeDownloads).toEqual([])
  })

  it('follows a download by its events: bytes, speed and time left, then the installed model', async () => {
    const engine = useEngineStore()
    await engine.load()
    const started = await engine.startDownload({ catalog_id: 'qwen3-1.7b' })
    expect(started.ok).toBe(true)
    const id = started.ok ? started.value.id : ''
    expect(engine.activeDownloads.map((d) => d.id)).toEqual([id])
    expect(engine.speed(id)).toBeNull()
    const total = engine.downloads[id]!.total
    now += 1000
    env.fake.engineLibrary.progress(id, 10_000_000)
    now += 1000
    env.fake.engineLibrary.progress(id, 30_000_000)
    // 30 MB in 2 s since the start.
    expect(engine.downloads[id]!.bytes).toBe(30_000_000)
    expect(engine.speed(id)).toBe(15_000_000)
    expect(timeLeftMs(engine.downloads[id]!, engine.speed(id))).toBeCloseTo(((total - 30_000_000) / 15_000_000) * 1000)
    expect(downloadPercent(engine.downloads[id]!)).toBe(2)

    env.fake.engineLibrary.complete(id)
    await settle()
    expect(engine.activeDownloads).toEqual([])
    expect(engine.models.map((m) => m.id)).toEqual(['Qwen3-1.7B-Q4_K_M'])
    expect(engine.catalog.find((e) => e.id === 'qwen3-1.7b')).toMatchObject({ installed: true, model: 'Qwen3-1.7B-Q4_K_M' })
  })

  it('pauses (no speed while paused), resumes (the speed starts anew) and cancels', async () => {
    const engine = useEngineStore()
    await engine.load()
    const started = await engine.startDownload({ catalog_id: 'nomic-embed-text-v1.5' })
    const id = started.ok ? started.value.id : ''
    now += 1000
    env.fake.engineLibrary.progress(id, 5_000_000)
    expect(engine.speed(id)).toBe(5_000_000)
    expect((await engine.pause(id)).ok).toBe(true)
    expect(engine.downloads[id]!.state).toBe('paused')
    expect(engine.speed(id)).toBeNull()
    expect((await engine.resume(id)).ok).toBe(true)
    expect(engine.downloads[id]!.state).toBe('downloading')
    now += 1000
    env.fake.engineLibrary.progress(id, 6_000_000)
    expect(engine.speed(id)).toBe(1_000_000)
    expect((await engine.cancel(id)).ok).toBe(true)
    expect(engine.activeDownloads).toEqual([])
    // A second pause of a cancelled one is refused, said on that download.
    expect((await engine.pause(id)).ok).toBe(false)
    expect(engine.actionError[id]).toMatch(/cannot be paused/)
  })

  it('keeps a failed download with its reason, and says why a start was refused', async () => {
    const engine = useEngineStore()
    await engine.load()
    const refused = await engine.startDownload({ repo: 'acme/tiny-GGUF', file: 'README.md' })
    expect(refused.ok).toBe(false)
    expect(engine.startError).toMatch(/Only GGUF/)
    env.fake.engineLibrary.hub.set('acme/tiny-GGUF/tiny.gguf', 1000)
    const started = await engine.startDownload({ repo: 'acme/tiny-GGUF', file: 'tiny.gguf' })
    expect(engine.startError).toBeNull()
    const id = started.ok ? started.value.id : ''
    env.fake.engineLibrary.fail(id, 'The downloaded tiny.gguf does not match the sha256 checksum.')
    expect(engine.activeDownloads.map((d) => [d.state, d.error])).toEqual([['error', 'The downloaded tiny.gguf does not match the sha256 checksum.']])
  })

  it('imports by path and deletes a model', async () => {
    const engine = useEngineStore()
    await engine.load()
    expect((await engine.importModel('relative.gguf')).ok).toBe(false)
    expect(engine.importError).toMatch(/full path/)
    env.fake.engineLibrary.files.set('/models/mine.gguf', true)
    expect((await engine.importModel(' /models/mine.gguf ')).ok).toBe(true)
    expect(engine.models.map((m) => m.id)).toEqual(['mine'])
    expect(await engine.deleteModel('mine')).toBe(true)
    expect(engine.models).toEqual([])
    expect(await engine.deleteModel('mine')).toBe(false)
    expect(engine.actionError.mine).toMatch(/No model/)
  })
})

describe('lib/engine', () => {
  const entry = (id: string, ram: number, capabilities: string[]) => ({ id, name: id, repo: 'r/x', file: `${id}.gguf`, size: ram / 2, ram, capabilities, description: '', installed: false })
  const GB = 1024 ** 3
  const catalog = [entry('big', 6 * GB, ['tools']), entry('small', 1 * GB, ['tools']), entry('mid', 2 * GB, ['tools']), entry('nt', 0.5 * GB, []), entry('emb', 0.1 * GB, ['embedding'])]

  it('suggests the smallest chat model with tools, or the largest using a quarter of a known memory', () => {
    expect(recommended(catalog, null)?.id).toBe('small')
    expect(recommended(catalog, 8 * GB)?.id).toBe('mid')
    expect(recommended(catalog, 2 * GB)?.id).toBe('small')
    expect(recommended([entry('emb', 1, ['embedding'])], null)).toBeNull()
  })

  it('marks a model too big only for a memory known to be smaller', () => {
    expect(tooBigFor(6 * GB, null)).toBe(false)
    expect(tooBigFor(6 * GB, 4 * GB)).toBe(true)
    expect(tooBigFor(6 * GB, 8 * GB)).toBe(false)
    expect(mayLoad({ ram: 6 * GB, allow_large: false }, 4 * GB)).toBe(false)
    expect(mayLoad({ ram: 6 * GB, allow_large: true }, 4 * GB)).toBe(true)
    expect(mayLoad({ ram: 2 * GB, allow_large: false }, 4 * GB)).toBe(true)
  })

  it("takes the machine's memory from the engine's status (Go's figure), unknown when it says none", () => {
    expect(machineMemory({ memory: { total: 8 * GB, available: 3 * GB } })).toBe(8 * GB)
    expect(machineMemory({ memory: { total: 0, available: 0 } })).toBeNull()
    expect(machineMemory(null)).toBeNull()
  })

  it('suggests nothing when even the smallest chat model needs more than the machine has', () => {
    expect(recommended(catalog, 0.75 * GB)).toBeNull()
    expect(recommended(catalog, 1 * GB)?.id).toBe('small')
  })

  it('estimates a file\'s memory need as the Go side does (size + a fifth + 512 MB)', () => {
    expect(estimateRam(0)).toBe(0)
    expect(estimateRam(5 * GB)).toBe(6 * GB + 512 * 1024 ** 2)
  })

  it('measures speed over the last seconds and starts anew when bytes go back', () => {
    let s = addSample([], { at: 0, bytes: 0 })
    s = addSample(s, { at: 1000, bytes: 1000 })
    expect(speedOf(s)).toBe(1000)
    s = addSample(s, { at: 5000, bytes: 5000 })
    s = addSample(s, { at: 7000, bytes: 9000 })
    expect(s.map((x) => x.at)).toEqual([5000, 7000])
    expect(speedOf(s)).toBe(2000)
    expect(addSample(s, { at: 8000, bytes: 10 })).toEqual([{ at: 8000, bytes: 10 }])
  })
})
