// Settings helpers: defaults (the Go DefaultSettings), endpoint presets,
// normalizing what the backend sends, and the checks the form does before
// saving (the Go side validates again and its message is shown as is).
import type { ModelInfo, Profile, Settings, ThemeSetting } from '../types'
import { isLanguage, t } from '../i18n'

export const OLLAMA_URL = 'http://127.0.0.1:11434/v1'

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  // A backend that does not send the setting predates the engine: a server.
  engine: 'server',
  base_url: OLLAMA_URL,
  api_key: '',
  model: '',
  question_timeout_seconds: 300,
  rate_limit_seconds: 5,
  max_pending_questions: 10,
  theme: 'system',
  demo_mode: false,
  api_enabled: false,
  onboarded: false,
  embedding_model: '',
  agents_enabled: true,
  agents_addr: '127.0.0.1:8765',
  language: '',
  memory: 'on',
  update_checks: 'on',
  engine_threads: 0,
  // "" is the default models folder (<data dir>/models).
  engine_models_dir: '',
})

export type PresetId = 'ollama' | 'llamacpp' | 'lmstudio' | 'custom'

export interface EndpointPreset {
  id: Exclude<PresetId, 'custom'>
  label: string
  url: string
  hint: string
}

export const ENDPOINT_PRESETS: readonly EndpointPreset[] = [
  { id: 'ollama', label: 'Ollama', url: OLLAMA_URL, hint: 'Runs models locally; Parley can download models for you.' },
  { id: 'llamacpp', label: 'llama.cpp server', url: 'http://127.0.0.1:8080/v1', hint: 'llama-server with --jinja for tool calls.' },
  { id: 'lmstudio', label: 'LM Studio', url: 'http://127.0.0.1:1234/v1', hint: "Start the server in LM Studio's Developer tab." },
]

function canonicalUrl(url: string): string {
  return url
    .trim()
    .replace(/\/+$/, '')
    .replace(/^(https?:\/\/)(localhost|\[::1\])(?=[:/]|$)/i, '$1127.0.0.1')
    .toLowerCase()
}

/** The preset a base URL belongs to ('custom' for anything else). */
export function presetFor(url: string): PresetId {
  const u = canonicalUrl(url)
  return ENDPOINT_PRESETS.find((p) => canonicalUrl(p.url) === u)?.id ?? 'custom'
}

const THEMES: ThemeSetting[] = ['system', 'light', 'dark']

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback
}

/** A complete Settings object from whatever the backend sent (missing fields get defaults). */
export function normalizeSettings(raw: Partial<Settings> | null | undefined): Settings {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Partial<Settings>
  const d = DEFAULT_SETTINGS
  return {
    engine: r.engine === 'builtin' || r.engine === 'server' ? r.engine : d.engine,
    base_url: typeof r.base_url === 'string' && r.base_url ? r.base_url : d.base_url,
    api_key: typeof r.api_key === 'string' ? r.api_key : d.api_key,
    model: typeof r.model === 'string' ? r.model : d.model,
    question_timeout_seconds: num(r.question_timeout_seconds, d.question_timeout_seconds),
    rate_limit_seconds: num(r.rate_limit_seconds, d.rate_limit_seconds),
    max_pending_questions: num(r.max_pending_questions, d.max_pending_questions),
    theme: THEMES.includes(r.theme as ThemeSetting) ? (r.theme as ThemeSetting) : d.theme,
    demo_mode: r.demo_mode === true,
    api_enabled: r.api_enabled === true,
    onboarded: r.onboarded === true,
    embedding_model: typeof r.embedding_model === 'string' ? r.embedding_model : d.embedding_model,
    agents_enabled: r.agents_enabled !== false,
    agents_addr: typeof r.agents_addr === 'string' && r.agents_addr ? r.agents_addr : d.agents_addr,
    language: isLanguage(r.language) ? r.language : '',
    memory: r.memory === 'off' ? 'off' : 'on',
    update_checks: r.update_checks === 'off' ? 'off' : 'on',
    engine_threads: isWhole(r.engine_threads) && r.engine_threads >= 0 ? r.engine_threads : d.engine_threads,
    engine_models_dir: typeof r.engine_models_dir === 'string' ? r.engine_models_dir : d.engine_models_dir,
  }
}

function isWhole(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v)
}

/**
 * The first problem the form can see before saving, in words, or null.
 * Mirrors the Go rules so the user hears about them without a round trip.
 */
export function settingsProblem(s: Settings): string | null {
  let u: URL | null = null
  try {
    u = new URL(s.base_url.trim())
  } catch {
    u = null
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.host) {
    return t('settings.problems.url', { example: OLLAMA_URL })
  }
  if (!isWhole(s.question_timeout_seconds) || s.question_timeout_seconds < 0 || s.question_timeout_seconds > 604800) {
    return t('settings.problems.timeout')
  }
  if (typeof s.rate_limit_seconds !== 'number' || !Number.isFinite(s.rate_limit_seconds) || s.rate_limit_seconds < 0 || s.rate_limit_seconds > 3600) {
    return t('settings.problems.rate')
  }
  if (!isWhole(s.max_pending_questions) || s.max_pending_questions < 1 || s.max_pending_questions > 1000) {
    return t('settings.problems.maxPending')
  }
  if (!isWhole(s.engine_threads) || s.engine_threads < 0 || s.engine_threads > 256) {
    return t('settings.problems.engineThreads')
  }
  return null
}

/** Percent done of a pull step, or null while the size is unknown. */
export function pullPercent(total?: number, completed?: number): number | null {
  if (!total || total <= 0 || typeof completed !== 'number') return null
  return Math.max(0, Math.min(100, Math.round((completed / total) * 100)))
}

/**
 * Whether two model names mean the same model. A name without a tag means
 * its ":latest", as in Ollama ("qwen3" is "qwen3:latest"). The tag is a
 * colon in the last path segment only, so a registry port is no tag. Names
 * are only compared, never rewritten: a llama.cpp path such as
 * "org/model.gguf" still matches itself exactly and is sent as typed.
 */
export function sameModel(a: string, b: string): boolean {
  if (a === b) return true
  if (!a || !b) return false
  return withDefaultTag(a) === withDefaultTag(b)
}

function withDefaultTag(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1).includes(':') ? name : `${name}:latest`
}

/** The models to offer: the server's list, plus the chosen one if the server lacks it. */
export function modelChoices(models: readonly ModelInfo[], current: string): (ModelInfo & { missing?: boolean })[] {
  const list: (ModelInfo & { missing?: boolean })[] = models.map((m) => ({ ...m }))
  if (current && !list.some((m) => sameModel(m.name, current))) list.unshift({ name: current, supports_tools: false, missing: true })
  return list
}

/** Fills fields Go may leave null (a profile without tools is `"tools": null`). */
export function normalizeProfile(p: Partial<Profile> | null | undefined): Profile {
  return {
    name: p?.name ?? '',
    system_prompt: p?.system_prompt ?? '',
    model: p?.model ?? '',
    tools: Array.isArray(p?.tools) ? [...p.tools] : [],
    // Left out when not given: the Go side reads it as "auto".
    ...(p?.tool_calling ? { tool_calling: p.tool_calling } : {}),
    ...(p?.thinking ? { thinking: p.thinking } : {}),
    ...(Array.isArray(p?.knowledge) && p.knowledge.length ? { knowledge: [...p.knowledge] } : {}),
  }
}
