// The hop table of the card trace (backend/trace): for each hop of a card's
// path, the p50/p95 of its increment over the hop before it and of the time
// since the path's start. Records come from GET /api/v1/debug/trace (or the
// desktop app's PARLEY_TRACE_FILE); hops no record has are left out.
import { quantile } from './stats.mjs'

export const CARD_HOPS = ['chunk', 'call_complete', 'stream_end', 'parsed', 'validated', 'stored', 'emitted', 'sse_written', 'wails_sent',
  'page_received', 'page_store', 'page_dom', 'page_card_frame', 'page_paint']
export const SUBMIT_HOPS = ['page_submit', 'answer_received', 'resumed', 'next_request']
// The page from the user's send on (issue #42: where the card waited): the
// send's task done, its first frame begun and done, and the card's event
// written (sse_written, or wails_sent in the window) and through the page.
// The event and the send's steps come in either order, so their table has
// only the times since the send.
export const SEND_HOPS = ['page_send', 'page_enter_done', 'page_frame_start', 'page_frame_end', 'sse_written', 'wails_sent',
  'page_received', 'page_dom', 'page_card_frame', 'page_paint']

/**
 * rows for records (each { marks: {hop: epochMs} }) along hops; `extra`
 * (optional) adds per record the marks the bench measured itself (e.g. the
 * model server's write time as 'server_write', placed first).
 */
export function hopTable(records, hops) {
  const present = hops.filter((h) => records.some((r) => r.marks[h] !== undefined))
  return present.map((hop, i) => {
    const inc = []
    const cum = []
    for (const r of records) {
      const at = r.marks[hop]
      if (at === undefined) continue
      const start = r.marks[present[0]]
      let prev
      for (let j = i - 1; j >= 0; j--) {
        if (r.marks[present[j]] !== undefined) { prev = r.marks[present[j]]; break }
      }
      if (prev !== undefined) inc.push(at - prev)
      if (start !== undefined) cum.push(at - start)
    }
    return { hop, n: cum.length, inc: { p50: quantile(inc, 0.5), p95: quantile(inc, 0.95) }, cum: { p50: quantile(cum, 0.5), p95: quantile(cum, 0.95) } }
  })
}

const fmt = (x) => (x === undefined ? '-' : x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(2)} ms`)

export function formatHopTable(title, rows) {
  const lines = [title, `${'hop'.padEnd(18)} ${'n'.padStart(4)} ${'+p50'.padStart(10)} ${'+p95'.padStart(10)} ${'cum p50'.padStart(10)} ${'cum p95'.padStart(10)}`]
  for (const r of rows) {
    lines.push(`${r.hop.padEnd(18)} ${String(r.n).padStart(4)} ${fmt(r.inc.p50).padStart(10)} ${fmt(r.inc.p95).padStart(10)} ${fmt(r.cum.p50).padStart(10)} ${fmt(r.cum.p95).padStart(10)}`)
  }
  return lines.join('\n')
}

/** A table of rows (hopTable) with only the times since the first hop. */
export function formatSinceTable(title, rows) {
  const lines = [title, `${'hop'.padEnd(18)} ${'n'.padStart(4)} ${'p50'.padStart(10)} ${'p95'.padStart(10)}`]
  for (const r of rows) lines.push(`${r.hop.padEnd(18)} ${String(r.n).padStart(4)} ${fmt(r.cum.p50).padStart(10)} ${fmt(r.cum.p95).padStart(10)}`)
  return lines.join('\n')
}

// The card as the user waits for it, from their Enter (the page's send
// table: page_dom and page_paint since page_send), model time included (the
// bench's model answers at once). No target: read beside the ratios to the
// bounds, which start at the model server's write. A page that sent its
// request later in the Enter's task would start that clock later and read
// better there while the user waited as long or longer; these figures show
// it. prefix: '' (Chromium) or 'window.'; where: the surface's name.
export function enterFigures(sendRows, prefix, where) {
  const out = []
  for (const [hop, stage, text] of [['page_dom', 'dom', 'in the DOM'], ['page_paint', 'paint', 'painted']]) {
    const r = sendRows.find((x) => x.hop === hop)
    if (!r?.n || !Number.isFinite(r.cum.p95)) continue
    out.push({ id: `${prefix}card.enter.${stage}.p95`, label: `Enter -> card ${text}, p95 (${where})`, value: r.cum.p95, unit: 'ms',
      note: `p50 ${r.cum.p50.toFixed(1)} ms, n=${r.n}; the user's send to the card, the model answering at once` })
  }
  return out
}

/** The records of the given card ids (a record is keyed by its tool call's and its card's ids). */
export function recordsOf(records, cardIds) {
  const byKey = new Map()
  for (const r of records) for (const k of r.keys) byKey.set(k, r)
  return cardIds.map((id) => byKey.get(id)).filter(Boolean)
}
