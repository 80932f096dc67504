// Times as the backend writes them: RFC 3339 with as many fractional digits
// as Go needs ("…:05Z", "…:05.12Z", "…:05.123456789Z"). Compared as text
// (or with localeCompare) those sort wrongly within a second whose fractions
// differ in length; compared as times they sort to the digit.

/** A time as numbers: milliseconds (NaN when unknown) and the digits below them. */
export interface TimeKey {
  ms: number
  below: string
}

/** The digits after the millisecond of an RFC 3339 time ("…:05.120000001Z" -> "000001"). */
function belowMs(time: string): string {
  return (/\.(\d+)/.exec(time)?.[1] ?? '').padEnd(9, '0').slice(3)
}

const UNKNOWN: TimeKey = Object.freeze({ ms: NaN, below: '' })
// Lists are sorted again whenever one item changes, with the others' times
// unchanged: each text is parsed once (a conversation's new time adds one).
const keys = new Map<string, TimeKey>()
const KEYS_MAX = 20_000

/** A time's key (parsed once per text). */
export function timeKey(time: string | undefined | null): TimeKey {
  if (!time) return UNKNOWN
  let key = keys.get(time)
  if (key) return key
  const ms = Date.parse(time)
  key = { ms, below: Number.isNaN(ms) ? '' : belowMs(time) }
  if (keys.size >= KEYS_MAX) keys.clear()
  keys.set(time, key)
  return key
}

/** Orders keys oldest first, to the digit, unknown times last (for Array.prototype.sort). */
export function olderFirst(a: TimeKey, b: TimeKey): number {
  const x = Number.isNaN(a.ms)
  const y = Number.isNaN(b.ms)
  if (x || y) return Number(x) - Number(y)
  if (a.ms !== b.ms) return a.ms - b.ms
  return a.below < b.below ? -1 : a.below > b.below ? 1 : 0
}

/** Orders keys newest first, to the digit, unknown times last (still). */
export function newerFirst(a: TimeKey, b: TimeKey): number {
  if (Number.isNaN(a.ms) || Number.isNaN(b.ms)) return olderFirst(a, b)
  return olderFirst(b, a)
}
