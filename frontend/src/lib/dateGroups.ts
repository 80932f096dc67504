// The sidebar's date groups, by the conversation's last activity in the
// user's local time: Today, Yesterday, Previous 7 days, Older (the headings
// in the current language: i18n/format dayGroupLabel).
import type { Conversation } from '../types'
import { SNIPPET_CLOSE, SNIPPET_OPEN } from '../api/wire.gen'
import { dayGroupLabel } from '../i18n/format'

export interface DateGroup {
  label: string
  items: Conversation[]
}

function startOfDay(d: Date): number {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime()
}

/** Which group a time falls in (0 Today … 3 Older). */
export function groupIndex(iso: string, now: Date): number {
  const t = Date.parse(iso)
  if (!Number.isFinite(t)) return 3
  const today = startOfDay(now)
  if (t >= today) return 0
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1).getTime()
  if (t >= yesterday) return 1
  const week = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 7).getTime()
  return t >= week ? 2 : 3
}

/** Non-empty groups in order, each keeping the given order of its items. */
export function groupByDate(items: Conversation[], now = new Date()): DateGroup[] {
  const buckets: Conversation[][] = [[], [], [], []]
  for (const c of items) buckets[groupIndex(c.updated_at || c.created_at, now)]!.push(c)
  // Headings only for the groups shown (each is a translation).
  return buckets.flatMap((list, i) => (list.length ? [{ label: dayGroupLabel(i), items: list }] : []))
}

/** A search snippet as text parts, `mark` where the search words matched. */
export function snippetParts(snippet: string): { text: string; mark: boolean }[] {
  const out: { text: string; mark: boolean }[] = []
  let rest = snippet
  while (rest) {
    const open = rest.indexOf(SNIPPET_OPEN)
    const close = open < 0 ? -1 : rest.indexOf(SNIPPET_CLOSE, open + SNIPPET_OPEN.length)
    if (open < 0 || close < 0) {
      out.push({ text: rest, mark: false })
      break
    }
    if (open > 0) out.push({ text: rest.slice(0, open), mark: false })
    const marked = rest.slice(open + SNIPPET_OPEN.length, close)
    if (marked) out.push({ text: marked, mark: true })
    rest = rest.slice(close + SNIPPET_CLOSE.length)
  }
  return out
}
