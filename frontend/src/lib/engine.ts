// The built-in engine's model library (SPEC §12), as plain helpers: sizes
// in the language's units, a download's speed and time left from the
// engine:download events it has seen, the machine's memory (as the Go side
// reads it: the engine's status), which models fit, and the catalogue entry
// to suggest first.
import type { EngineCatalogEntry, EngineDownload, EngineModel, EngineStatus } from '../types'
import { formatNumber, formatPercent, formatSeconds } from '../i18n/format'

const GB = 1024 ** 3
const MB = 1024 ** 2

/** A model-sized amount of bytes: "397 MB", "1.1 GB" (units of 1024, as file managers show them). */
export function formatSize(bytes: number): string {
  const n = Math.max(0, bytes || 0)
  if (n >= GB) return formatNumber(n / GB, { style: 'unit', unit: 'gigabyte', unitDisplay: 'short', maximumFractionDigits: 1 })
  return formatNumber(Math.max(n / MB, n ? 0.1 : 0), { style: 'unit', unit: 'megabyte', unitDisplay: 'short', maximumFractionDigits: n < 10 * MB ? 1 : 0 })
}

/** The states in which a download is still under way (shown with its controls). */
export const ACTIVE_DOWNLOAD_STATES: readonly string[] = ['queued', 'downloading', 'paused', 'verifying', 'error']

/** Whether a download is shown in the library (not done, not cancelled). */
export function downloadShown(d: EngineDownload): boolean {
  return ACTIVE_DOWNLOAD_STATES.includes(d.state)
}

/** Percent done, 0..100, or null while the size is unknown. */
export function downloadPercent(d: Pick<EngineDownload, 'bytes' | 'total'>): number | null {
  if (!d.total || d.total <= 0) return null
  return Math.max(0, Math.min(100, Math.floor((d.bytes / d.total) * 100)))
}

/** One point of a download's progress: when (ms) and how many bytes. */
export interface Sample {
  at: number
  bytes: number
}

/** How far back the speed looks (ms). */
export const SPEED_WINDOW_MS = 5000

/**
 * Adds a sample to a download's recent ones (a copy): samples older than
 * the window go, and bytes going back (a restart from zero) start anew.
 */
export function addSample(samples: readonly Sample[], s: Sample): Sample[] {
  const last = samples[samples.length - 1]
  if (last && (s.bytes < last.bytes || s.at < last.at)) return [s]
  return [...samples.filter((x) => s.at - x.at <= SPEED_WINDOW_MS), s]
}

/** Bytes per second over the samples, or null with too little to say. */
export function speedOf(samples: readonly Sample[]): number | null {
  if (samples.length < 2) return null
  const first = samples[0]!
  const last = samples[samples.length - 1]!
  const dt = last.at - first.at
  if (dt < 200) return null
  return ((last.bytes - first.bytes) * 1000) / dt
}

/** Milliseconds left at `speed` (bytes/s), or null when it cannot be said. */
export function timeLeftMs(d: Pick<EngineDownload, 'bytes' | 'total'>, speed: number | null): number | null {
  if (!speed || speed <= 0 || !d.total) return null
  return (Math.max(0, d.total - d.bytes) / speed) * 1000
}

/** "1.2 MB/s"-style speed. */
export function formatSpeed(bps: number): string {
  return `${formatSize(bps)}/s`
}

export { formatPercent, formatSeconds }

/**
 * The machine's memory in bytes, as the engine's status says it (Go reads
 * the system's: /proc/meminfo, GlobalMemoryStatusEx, sysctl hw.memsize;
 * the browser's navigator.deviceMemory is capped at 8 GB and missing in
 * WebKit), else null while unknown.
 */
export function machineMemory(status: Pick<EngineStatus, 'memory'> | null | undefined): number | null {
  const total = status?.memory?.total
  return typeof total === 'number' && total > 0 ? total : null
}

/**
 * The memory a model whose file has `size` bytes needs, as the Go side
 * estimates it (library.EstimateRAM) for a hub file or an imported one: the
 * weights, plus the context's KV cache and compute buffers at the engine's
 * context, about a fifth of the file and half a gigabyte.
 */
export function estimateRam(size: number): number {
  return size > 0 ? size + Math.floor(size / 5) + 512 * MB : 0
}

/** Whether a model may need more memory than the machine is known to have (never when unknown). */
export function tooBigFor(ram: number, memory: number | null): boolean {
  return memory !== null && ram > memory
}

/** Whether an installed model may be loaded: it fits, or the user chose "Load anyway". */
export function mayLoad(m: Pick<EngineModel, 'ram' | 'allow_large'>, memory: number | null): boolean {
  return m.allow_large || !tooBigFor(m.ram, memory)
}

/** A chat model (not an embedding one). */
export function isChat(e: Pick<EngineCatalogEntry, 'capabilities'>): boolean {
  return !e.capabilities.includes('embedding')
}

/**
 * The catalogue entry to suggest first: chat models with tools (any chat
 * model if none has them), the largest needing at most a quarter of the
 * machine's memory when it is known, else the smallest, and none when even
 * the smallest needs more than the machine has.
 */
export function recommended(catalog: readonly EngineCatalogEntry[], memory: number | null): EngineCatalogEntry | null {
  const chat = catalog.filter(isChat)
  const withTools = chat.filter((e) => e.capabilities.includes('tools'))
  const pool = [...(withTools.length ? withTools : chat)].sort((a, b) => a.ram - b.ram || a.size - b.size)
  if (!pool.length) return null
  if (memory !== null) {
    const fits = pool.filter((e) => e.ram <= memory / 4)
    if (fits.length) return fits[fits.length - 1]!
    if (tooBigFor(pool[0]!.ram, memory)) return null
  }
  return pool[0]!
}
