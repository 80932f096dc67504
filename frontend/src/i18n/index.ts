// The interface's language: vue-i18n with one catalogue per language
// (locales/<code>.json, English the source and the fallback), messages in
// ICU MessageFormat ("{count, plural, one {# question} other {# questions}}")
// compiled by intl-messageformat, so plurals follow each language's CLDR
// rules. The language is the one chosen in Settings, else the system's
// (navigator.languages; the desktop window's WebKitGTK derives it from
// LANG); it switches live, and <html lang> follows it. The catalogues other
// than English load on demand. The Go side has the same languages
// (backend/i18n).
import type { App, Plugin } from 'vue'
import { createI18n, type MessageCompiler } from 'vue-i18n'
import { IntlMessageFormat } from 'intl-messageformat'
import en from './locales/en.json'

/** The languages of the interface, by code, with their own names. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'zh-CN', name: '简体中文' },
  { code: 'de', name: 'Deutsch' },
  { code: 'es', name: 'Español' },
  { code: 'fr', name: 'Français' },
  { code: 'ja', name: '日本語' },
  { code: 'pt-BR', name: 'Português (Brasil)' },
] as const

export type Language = (typeof LANGUAGES)[number]['code']
export type MessageSchema = typeof en

const CODES: readonly string[] = LANGUAGES.map((l) => l.code)

export function isLanguage(code: unknown): code is Language {
  return typeof code === 'string' && CODES.includes(code)
}

// Each message is compiled once per language, the first time it is used.
const compiled = new Map<string, IntlMessageFormat>()
const icuCompiler: MessageCompiler = (message, ctx) => {
  if (typeof message !== 'string') throw new TypeError(`message ${ctx.key} is not a string`)
  const id = `${ctx.locale}\u0000${message}`
  let format = compiled.get(id)
  if (!format) {
    format = new IntlMessageFormat(message, ctx.locale, undefined, { ignoreTag: true })
    compiled.set(id, format)
  }
  const f = format
  return (mc: { values: Record<string, unknown> }) => f.format(mc.values as Record<string, string | number>) as string
}

/**
 * Compiles a message ahead of its first use (lib: warmUpTexts); true when
 * it was compiled already.
 */
export function precompile(message: string, locale: string): boolean {
  const id = `${locale}\u0000${message}`
  if (compiled.has(id)) return true
  compiled.set(id, new IntlMessageFormat(message, locale, undefined, { ignoreTag: true }))
  return false
}

export const i18n = createI18n({
  legacy: false,
  locale: 'en',
  fallbackLocale: 'en',
  messages: { en } as Record<string, MessageSchema>,
  messageCompiler: icuCompiler,
  missingWarn: false,
  fallbackWarn: false,
})

/**
 * The texts without values, per language and key. The interface asks for the
 * same fixed texts on every render (a question card's labels and hints, the
 * header's), and vue-i18n resolves, compiles and formats each one again each
 * time: ~2 ms of a card's mount. A catalogue is loaded before its language is
 * shown and never changes after, so a text once translated stays right.
 */
const fixedTexts = new Map<string, string>()

/**
 * The texts with values, by language, key and values: a card's "Question 1
 * of 2", a badge's count, are asked for again on every render of the same
 * values (about 5 % of a card's mount, issue #42). Only plain values (text,
 * numbers, true/false) are kept; the cache starts again when it is full, so
 * counts that keep changing cannot make it grow without end.
 */
const valueTexts = new Map<string, string>()
export const VALUE_TEXTS_MAX = 2000

/** The cache id of a text with these values; null when a value is not plain. */
function valuesId(locale: string, key: string, values: Record<string, unknown>): string | null {
  let id = `${locale}\u0000${key}`
  for (const name in values) {
    const v = values[name]
    const type = typeof v
    if (type !== 'string' && type !== 'number' && type !== 'boolean') return null
    // The type too: 1 and "1" may format differently (plural, number).
    id += `\u0000${name}\u0001${type[0]}${String(v)}`
  }
  return id
}

/**
 * key's text from `cache` under `id`, translated and kept on first use; a
 * cache at `max` entries starts again.
 */
function cachedText(cache: Map<string, string>, id: string, key: string, values?: Record<string, unknown>, max = Infinity): string {
  let text = cache.get(id)
  if (text === undefined) {
    text = values ? i18n.global.t(key, values) : i18n.global.t(key)
    if (cache.size >= max) cache.clear()
    cache.set(id, text)
  }
  return text
}

/** Translates a key of the catalogue in the current language (templates' $t too: i18nPlugin). */
export function t(key: string, values?: Record<string, unknown>): string {
  // Reading the language keeps a rendering that asked reactive to a switch.
  const locale = i18n.global.locale.value
  if (!values) return cachedText(fixedTexts, `${locale}\u0000${key}`, key)
  const id = valuesId(locale, key, values)
  return id === null ? i18n.global.t(key, values) : cachedText(valueTexts, id, key, values, VALUE_TEXTS_MAX)
}

/** vue-i18n, with templates' $t the cached t above. */
export const i18nPlugin: Plugin = {
  install(app: App) {
    app.use(i18n)
    app.config.globalProperties.$t = t as typeof app.config.globalProperties.$t
  },
}

/** The current language. */
export function language(): Language {
  return i18n.global.locale.value as Language
}

/**
 * The language of the interface for a list of preferences (navigator.languages):
 * the first that one of LANGUAGES fits, by exact tag, then by its base
 * language (de-AT → de, pt-PT → pt-BR, zh-Hans-SG → zh-CN; Traditional
 * Chinese is not Simplified Chinese, so zh-TW goes on to the next choice);
 * English when none does.
 */
export function matchLanguage(prefs: readonly string[]): Language {
  for (const raw of prefs) {
    const tag = raw.trim().replace(/_/g, '-').toLowerCase()
    if (!tag) continue
    const exact = LANGUAGES.find((l) => l.code.toLowerCase() === tag)
    if (exact) return exact.code
    const [base, ...rest] = tag.split('-')
    if (base === 'zh') {
      if (rest.some((p) => p === 'hant' || p === 'tw' || p === 'hk' || p === 'mo')) continue
      return 'zh-CN'
    }
    const byBase = LANGUAGES.find((l) => l.code.toLowerCase().split('-')[0] === base)
    if (byBase) return byBase.code
  }
  return 'en'
}

/** The system's language: the browser's (the desktop window's) preferences. */
export function systemLanguage(): Language {
  if (typeof navigator === 'undefined') return 'en'
  const prefs = navigator.languages?.length ? navigator.languages : [navigator.language ?? 'en']
  return matchLanguage(prefs)
}

/** The language for a Settings value ("" follows the system). */
export function resolveLanguage(setting: string | null | undefined): Language {
  return isLanguage(setting) ? setting : systemLanguage()
}

const loaders = import.meta.glob<{ default: MessageSchema }>(['./locales/*.json', '!./locales/en.json'])

async function loadCatalogue(code: Language): Promise<void> {
  if (i18n.global.availableLocales.includes(code)) return
  const load = loaders[`./locales/${code}.json`]
  if (!load) throw new Error(`no catalogue for ${code}`)
  i18n.global.setLocaleMessage(code, (await load()).default)
}

// The last language shown, so that the next start paints in it before the
// settings arrive.
const STORAGE_KEY = 'parley.language'
let switching: Promise<void> = Promise.resolve()

/** Shows the interface in a language (loading its catalogue first). */
export function setLanguage(code: Language): Promise<void> {
  switching = switching.then(async () => {
    try {
      await loadCatalogue(code)
    } catch {
      code = 'en' // a catalogue that does not load leaves English, never keys
    }
    i18n.global.locale.value = code
    if (typeof document !== 'undefined') document.documentElement.lang = code
  })
  return switching
}

/** Remembers the Settings choice ("" = the system's) for the next start. */
export function rememberLanguage(setting: string): void {
  try {
    if (isLanguage(setting)) localStorage.setItem(STORAGE_KEY, setting)
    else localStorage.removeItem(STORAGE_KEY)
  } catch {
    // storage may be unavailable: the settings still bring the language
  }
}

/** The language to start in: the remembered choice, else the system's. */
export function startLanguage(): Language {
  let saved: string | null = null
  try {
    saved = localStorage.getItem(STORAGE_KEY)
  } catch {
    saved = null
  }
  return resolveLanguage(saved)
}
