// Numbers, durations and days the current language's way, through Intl
// (the locale is vue-i18n's, so a switch re-renders whatever uses these).
import { language, t } from './index'

const cache = new Map<string, Intl.NumberFormat>()
function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const locale = language()
  const id = `${locale}|${JSON.stringify(options)}`
  let f = cache.get(id)
  if (!f) {
    f = new Intl.NumberFormat(locale, options)
    cache.set(id, f)
  }
  return f
}

/** A number, e.g. 1,234.5 in English and 1.234,5 in German. */
export function formatNumber(n: number, options: Intl.NumberFormatOptions = {}): string {
  return numberFormat(options).format(n)
}

/** A number with at most `digits` decimals (a fixed count with `fixed`). */
export function formatDecimal(n: number, digits: number, fixed = false): string {
  return numberFormat({ maximumFractionDigits: digits, minimumFractionDigits: fixed ? digits : 0 }).format(n)
}

/** A percentage of 0..100, e.g. "42%" ("42 %" in German and French). */
export function formatPercent(pct: number, digits = 0): string {
  return numberFormat({ style: 'percent', maximumFractionDigits: digits }).format(pct / 100)
}

/**
 * A short duration: milliseconds under a second ("340 ms"), then seconds
 * with one decimal under ten ("1.2 s"), whole seconds under a minute, then
 * minutes and seconds ("2 min 5 s"), each unit the language's.
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return durationUnit(Math.round(ms), 'millisecond')
  if (ms < 10_000) return durationUnit(Math.round(ms / 100) / 10, 'second', 1)
  return formatSeconds(ms)
}

function durationUnit(value: number, unit: string, digits = 0): string {
  return numberFormat({ style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: digits }).format(value)
}

/** A duration in whole seconds, then minutes and seconds ("12 sec", "2 min 5 sec"), each unit the language's. */
export function formatSeconds(ms: number): string {
  const s = Math.round(Math.max(0, ms) / 1000)
  if (s < 60) return durationUnit(s, 'second')
  const m = Math.floor(s / 60)
  return s % 60 ? `${durationUnit(m, 'minute')} ${durationUnit(s % 60, 'second')}` : durationUnit(m, 'minute')
}

/** A countdown as m:ss (or h:mm:ss), the digits the language's. */
export function formatClock(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds))
  const two = (n: number) => formatNumber(n, { minimumIntegerDigits: 2, useGrouping: false })
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  return h ? `${formatNumber(h)}:${two(m)}:${two(sec)}` : `${formatNumber(m, { useGrouping: false })}:${two(sec)}`
}

/** A file size in bytes, kB or MB (units of 1024 bytes, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return numberFormat({ style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(bytes)
  if (bytes < 1024 * 1024) {
    return numberFormat({ style: 'unit', unit: 'kilobyte', unitDisplay: 'short', maximumFractionDigits: 0 }).format(Math.max(1, Math.round(bytes / 1024)))
  }
  return numberFormat({ style: 'unit', unit: 'megabyte', unitDisplay: 'short', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(bytes / (1024 * 1024))
}

function capitalized(s: string): string {
  return s ? s.charAt(0).toLocaleUpperCase(language()) + s.slice(1) : s
}

/** "Today" or "Yesterday" in the language (Intl's relative days), capitalized as a heading. */
export function relativeDay(daysAgo: 0 | 1): string {
  const lang = language()
  let format = relativeDayFormats.get(lang)
  if (!format) relativeDayFormats.set(lang, (format = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' })))
  return capitalized(format.format(-daysAgo, 'day'))
}
/** One formatter per language: making one costs more than the sidebar's whole grouping. */
const relativeDayFormats = new Map<string, Intl.RelativeTimeFormat>()

/** A date and time, e.g. for when something was made or last used. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  return new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

/** The sidebar's day-group heading for group 0 Today … 3 Older. */
export function dayGroupLabel(index: number): string {
  switch (index) {
    case 0:
      return relativeDay(0)
    case 1:
      return relativeDay(1)
    case 2:
      return t('sidebar.previousDays', { count: 7 })
    default:
      return t('sidebar.older')
  }
}
