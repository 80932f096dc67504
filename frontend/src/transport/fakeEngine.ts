// The fake transport's model library (SPEC §12): installed models, the
// catalogue and downloads, kept in memory with the Go side's checks (a
// .gguf file on the hub, size + 1 GB free, absolute import paths, a
// readable GGUF). Tests move downloads on with progress(), complete() and
// fail(); every change is sent as an engine:download event.
import type * as W from '../api/wire.gen'
import { TransportError } from './transport'
import { clone } from './fakeData'
import { estimateRam } from '../lib/engine'

/** The space a download must leave free, as the Go side. */
export const RESERVE_BYTES = 2 ** 30

export class FakeEngineLibrary {
  catalog: W.EngineCatalogEntry[] = [
    {
      id: 'qwen3-1.7b', name: 'Qwen3 1.7B', repo: 'unsloth/Qwen3-1.7B-GGUF', file: 'Qwen3-1.7B-Q4_K_M.gguf',
      size: 1_110_000_000, ram: 2_000_000_000, capabilities: ['tools', 'thinking'], description: 'Small, calls tools and thinks.', installed: false,
    },
    {
      id: 'nomic-embed-text-v1.5', name: 'Nomic Embed Text v1.5', repo: 'nomic-ai/nomic-embed-text-v1.5-GGUF', file: 'nomic-embed-text-v1.5.Q8_0.gguf',
      size: 146_000_000, ram: 300_000_000, capabilities: ['embedding'], description: 'Embeddings for Knowledge.', installed: false,
    },
  ]
  models: W.EngineModel[] = []
  downloads: W.EngineDownload[] = []
  /** Other files the fake hub has ("repo/file" → size in bytes); the catalogue's are there too. */
  hub = new Map<string, number>()
  /** Files on the fake disk, for import: path → whether it is a readable GGUF. */
  files = new Map<string, boolean>()
  /** Free disk space in bytes. */
  freeBytes = 100e9
  /** The machine's memory, as the engine's status says it (16 GB). */
  memory: W.MachineMemory = { total: 16 * 2 ** 30, available: 8 * 2 ** 30 }
  /** The models folder the status names. */
  dir = '/home/me/.local/share/parley/models'
  /** The default models folder (the setting engine_models_dir "" means it). */
  readonly defaultDir = '/home/me/.local/share/parley/models'
  /** The folder is --models-dir / PARLEY_MODELS_DIR's: the setting cannot change it. */
  dirByFlag = false
  /** Other folders on the fake disk and the models they hold (the models folder's are `models`). */
  folders = new Map<string, W.EngineModel[]>()
  /** The hub cannot be reached. */
  hubDown = false

  constructor(private readonly emit: (d: W.EngineDownload) => void) {}

  list(): W.EngineModel[] {
    return clone(this.models)
  }

  listCatalog(): W.EngineCatalogEntry[] {
    return this.catalog.map((e) => {
      const m = this.models.find((x) => x.source.repo === e.repo && x.source.file === e.file)
      return m ? { ...clone(e), installed: true, model: m.id } : { ...clone(e), installed: false, model: undefined }
    })
  }

  listDownloads(): W.EngineDownload[] {
    return clone(this.downloads)
  }

  private download(id: string): W.EngineDownload {
    const d = this.downloads.find((x) => x.id === id)
    if (!d) throw new TransportError(`There is no download "${id}".`, 404)
    return d
  }

  private changed(d: W.EngineDownload): W.EngineDownload {
    this.emit(clone(d))
    return clone(d)
  }

  start(req: W.EngineDownloadRequest): W.EngineDownload {
    let { repo = '', file = '' } = req
    const revision = req.revision || 'main'
    let size: number | undefined
    if (req.catalog_id) {
      const e = this.catalog.find((x) => x.id === req.catalog_id)
      if (!e) throw new TransportError(`The catalogue has no model "${req.catalog_id}".`, 404)
      ;({ repo, file, size } = e)
    }
    if (!repo.trim() || !file.trim()) throw new TransportError('give "catalog_id", or "repo" and "file"', 400)
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new TransportError(`"${repo}" is not a Hugging Face repository (owner/name).`, 400)
    if (!file.toLowerCase().endsWith('.gguf')) throw new TransportError(`Only GGUF model files (.gguf) can be downloaded, not ${file}.`, 422)
    const active = this.downloads.find((d) => d.repo === repo && d.file === file && ['queued', 'downloading', 'paused', 'verifying'].includes(d.state))
    if (active) return clone(active)
    const installed = this.models.find((m) => m.source.repo === repo && m.source.file === file)
    if (installed) throw new TransportError(`${file} is already installed (as ${installed.id}).`, 409)
    size ??= this.hub.get(`${repo}/${file}`)
    if (size === undefined) throw new TransportError(`${repo} has no file ${file} on the Hugging Face hub.`, 422)
    if (this.freeBytes < size + RESERVE_BYTES) throw new TransportError('Not enough free disk space.', 507)
    const running = this.downloads.some((d) => d.state === 'downloading')
    const d: W.EngineDownload = {
      id: `dl-${this.downloads.length + 1}`, repo, file, revision, catalog_id: req.catalog_id || undefined,
      state: running ? 'queued' : 'downloading', bytes: 0, total: size, sha256: 'f'.repeat(64),
    }
    this.downloads = [...this.downloads.filter((x) => !(x.repo === repo && x.file === file)), d]
    return this.changed(d)
  }

  /** What a hub file would take, before it downloads (the Go side's CheckHubFile, same refusals as start). */
  check(req: W.HubFileArgs): W.HubFile {
    const repo = req.repo.trim()
    const file = req.file.trim()
    const revision = req.revision || 'main'
    if (!repo || !file) throw new TransportError('give "repo" and "file"', 400)
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new TransportError(`"${repo}" is not a Hugging Face repository (owner/name).`, 400)
    if (!file.toLowerCase().endsWith('.gguf')) throw new TransportError(`Only GGUF model files (.gguf) can be downloaded, not ${file}.`, 422)
    if (this.hubDown) throw new TransportError('The Hugging Face hub (https://huggingface.co) cannot be reached. Check the internet connection; the installed models still work.', 502)
    const size = this.catalog.find((e) => e.repo === repo && e.file === file)?.size ?? this.hub.get(`${repo}/${file}`)
    if (size === undefined) throw new TransportError(`${repo} has no file ${file} on the Hugging Face hub.`, 422)
    const ram = estimateRam(size)
    const installed = this.models.find((m) => m.source.repo === repo && m.source.file === file)
    return {
      repo, file, revision, size, ram, memory: this.memory.total, fits: !this.memory.total || ram <= this.memory.total,
      free_disk: this.freeBytes, disk_fits: this.freeBytes >= size + RESERVE_BYTES, installed: installed?.id,
    }
  }

  /** Downloads with work to do (paused ones too): the models folder does not change under them. */
  busy(): W.EngineDownload[] {
    return this.downloads.filter((d) => ['queued', 'downloading', 'paused', 'verifying'].includes(d.state))
  }

  /** Reopens the library on another folder: its models are listed, the old folder's stay there (kept in `folders`). */
  setDir(dir: string): void {
    const next = dir || this.defaultDir
    if (next === this.dir) return
    this.folders.set(this.dir, this.models)
    this.models = this.folders.get(next) ?? []
    this.folders.delete(next)
    this.dir = next
  }

  pause(id: string): W.EngineDownload {
    const d = this.download(id)
    if (d.state === 'paused') return clone(d)
    if (d.state !== 'queued' && d.state !== 'downloading') throw new TransportError(`A download that is ${d.state} cannot be paused.`, 409)
    d.state = 'paused'
    return this.changed(d)
  }

  resume(id: string): W.EngineDownload {
    const d = this.download(id)
    if (d.state === 'queued' || d.state === 'downloading' || d.state === 'verifying') return clone(d)
    if (d.state !== 'paused' && d.state !== 'error') throw new TransportError(`A download that is ${d.state} cannot be resumed.`, 409)
    d.state = this.downloads.some((x) => x.state === 'downloading') ? 'queued' : 'downloading'
    d.error = undefined
    return this.changed(d)
  }

  cancel(id: string): W.EngineDownload {
    const d = this.download(id)
    if (d.state === 'done') throw new TransportError('A download that is done cannot be cancelled.', 409)
    if (d.state === 'cancelled') return clone(d)
    d.state = 'cancelled'
    d.bytes = 0
    d.error = undefined
    return this.changed(d)
  }

  import(path: string): W.EngineModel {
    if (!path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(path)) throw new TransportError(`Give the model file's full path ("${path}" is not one).`, 400)
    const readable = this.files.get(path)
    if (readable === undefined) throw new TransportError(`There is no file at ${path}.`, 422)
    if (!readable) throw new TransportError(`${path} is not a readable GGUF model file.`, 422)
    const existing = this.models.find((m) => m.source.path === path)
    if (existing) return clone(existing)
    const file = path.split(/[\\/]/).pop()!
    const m: W.EngineModel = {
      id: this.freeId(file.replace(/\.gguf$/i, '')), name: file.replace(/\.gguf$/i, ''), file, size: 1_000_000, sha256: '',
      capabilities: [], source: { path }, state: 'ready', ram: estimateRam(1_000_000), allow_large: false,
    }
    this.models.push(m)
    return clone(m)
  }

  /** "Load anyway": remembers that the model may load despite its memory need. */
  setAllowLarge(id: string, allow: boolean | undefined): W.EngineModel {
    const m = this.models.find((x) => x.id === id)
    if (!m) throw new TransportError(`No model "${id}" is installed.`, 404)
    if (allow !== undefined) m.allow_large = allow
    return clone(m)
  }

  /** As the Go side's check: the sentence refusing a model too big for the machine, or null. */
  tooBig(id: string): string | null {
    const m = this.models.find((x) => x.id === id)
    if (!m || m.allow_large || !this.memory.total || m.ram <= this.memory.total) return null
    const gb = (n: number) => `${(n / 2 ** 30).toFixed(1)} GB`
    return `${m.id} needs about ${gb(m.ram)} of memory; this computer has ${gb(this.memory.total)}. Choose a smaller model, or allow it in Settings → Models.`
  }

  remove(id: string): void {
    if (!this.models.some((m) => m.id === id)) throw new TransportError(`No model "${id}" is installed.`, 404)
    this.models = this.models.filter((m) => m.id !== id)
  }

  private freeId(base: string): string {
    let id = base
    for (let n = 2; this.models.some((m) => m.id.toLowerCase() === id.toLowerCase()); n++) id = `${base}-${n}`
    return id
  }

  /** Test control: the download has `bytes` on disk. */
  progress(id: string, bytes: number): void {
    const d = this.download(id)
    d.bytes = Math.min(bytes, d.total)
    this.changed(d)
  }

  /** Test control: the download is verified and its model installed. */
  complete(id: string, capabilities: string[] = []): W.EngineModel {
    const d = this.download(id)
    const e = this.catalog.find((x) => x.repo === d.repo && x.file === d.file)
    const stem = d.file.split('/').pop()!.replace(/\.gguf$/i, '')
    const m: W.EngineModel = {
      id: this.freeId(stem), name: e?.name ?? stem, file: d.file.split('/').pop()!, size: d.total, sha256: d.sha256,
      capabilities: e ? [...e.capabilities] : capabilities, source: { repo: d.repo, file: d.file, revision: d.revision }, state: 'ready',
      ram: e?.ram ?? estimateRam(d.total), allow_large: false,
    }
    this.models.push(m)
    Object.assign(d, { state: 'done', bytes: d.total, model: m.id })
    this.changed(d)
    this.next()
    return clone(m)
  }

  /** Test control: the download ends in error (a wrong checksum, say). */
  fail(id: string, error: string): void {
    const d = this.download(id)
    Object.assign(d, { state: 'error', error })
    this.changed(d)
    this.next()
  }

  /** Test control: a model's file went missing behind Parley's back. */
  breakModel(id: string, error = 'its file is missing'): void {
    const m = this.models.find((x) => x.id === id)
    if (m) Object.assign(m, { state: 'broken', error })
  }

  private next(): void {
    if (this.downloads.some((d) => d.state === 'downloading')) return
    const q = this.downloads.find((d) => d.state === 'queued')
    if (q) {
      q.state = 'downloading'
      this.changed(q)
    }
  }
}
