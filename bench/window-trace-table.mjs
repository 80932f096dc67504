// Prints the card trace's hop tables of the desktop window bench
// (tests/desktop/latency_bench_test.go, run by bench/desktop-latency.sh) from
// the records it wrote: node bench/window-trace-table.mjs <bench-window-trace.json>
// It also records the bounds bench/summary.mjs judges the window's figures
// against (issue #42): the Go path of each round (model chunk -> card event
// sent to the window) with each round of the bare Wails app on top, in the
// DOM and painted; the second bound, the same Go path with each round of the
// bare Wails app as a bare chat page on top (FLOOR_MODE=chat: its event comes
// as long after its Enter as Parley's card came after the send); and
// Submit's bound: its Go path (answer received -> next model request) with
// each of the bare chat page's calls to Go (its Enter -> Go received the
// call) on top, as in Chromium a bare page's POST.
import { readFileSync } from 'node:fs'
import { recordFigure } from './figures.mjs'
import { submitBound } from './bounds.mjs'
import { ms, stats } from './stats.mjs'
import { CARD_HOPS, SEND_HOPS, SUBMIT_HOPS, enterFigures, formatHopTable, formatSinceTable, hopTable } from './trace-table.mjs'

const path = process.argv[2]
if (!path) {
  console.error('usage: node bench/window-trace-table.mjs <bench-window-trace.json>')
  process.exit(2)
}
const { records, floor, chatFloor } = JSON.parse(readFileSync(path, 'utf8'))
if (!Array.isArray(records) || !records.length) {
  console.error(`${path}: no trace records`)
  process.exit(1)
}
console.log([
  '',
  formatHopTable('Desktop window (WebKitGTK): the card trace, hop by hop (+ = since the hop before, cum = since the model server wrote the first tool-call chunk):',
    hopTable(records, ['server_write', ...CARD_HOPS])),
  '',
  formatSinceTable('Desktop window: the page from the send (ms since the Enter in the page; WebKitGTK paints a frame in the page\'s thread, and an event that comes meanwhile waits for it):',
    hopTable(records, SEND_HOPS)),
  '',
  formatHopTable('Desktop window: Submit -> next model request, hop by hop (cum = since the Enter keydown in the page):',
    hopTable(records, [...SUBMIT_HOPS, 'server_request'])),
  '',
].join('\n'))

for (const f of enterFigures(hopTable(records, SEND_HOPS), 'window.', 'Wails window')) recordFigure(f)

// Where the window's Go path ends: the event handed to the window (wails_sent), else emitted.
const goPath = records.map((r) => (r.marks.wails_sent ?? r.marks.emitted) - r.marks.server_write).filter(Number.isFinite)
const pairs = (xs) => stats(goPath.flatMap((g) => xs.map((x) => g + x)))
const lines = []
// recordBound records a bound: each round's Go path with each round of a
// bare app (its dom and paint times) on top; returns the two sums, or null
// when either side was not measured.
function recordBound(rounds, kind, what, note) {
  if (!goPath.length || !rounds?.dom?.length || !rounds?.paint?.length) return null
  const dom = pairs(rounds.dom)
  const paint = pairs(rounds.paint)
  const full = `Go path p95 ${ms(stats(goPath).p95)} with the ${what}'s every round on top${note}`
  recordFigure({ id: `window.card.dom.${kind}.p95`, label: `Wails window: Go path + ${what}, card in the DOM, p95`, value: dom.p95, unit: 'ms', note: full })
  recordFigure({ id: `window.card.paint.${kind}.p95`, label: `Wails window: Go path + ${what}, card painted, p95`, value: paint.p95, unit: 'ms', note: full })
  return { dom, paint }
}
const first = recordBound(floor, 'bound', 'bare Wails app', '')
if (first) lines.push(`Desktop window: the best a page could do here: Go path p95 ${ms(stats(goPath).p95)}; with the bare app on top p95 ${ms(first.dom.p95)} in the DOM, ${ms(first.paint.p95)} painted`)
const after = stats(chatFloor?.afterEnter ?? [])
const second = recordBound(chatFloor, 'chatbound', 'bare chat app', ` (its event ${ms(after.p50)} p50 after its Enter, as Parley's cards after their send)`)
if (second) {
  lines.push(`Desktop window: second bound, a bare chat page (Enter draws the user's message; its event comes p50 ${ms(after.p50)} after the Enter, as Parley's card came after the send): its element in the DOM p95 ${ms(stats(chatFloor.dom).p95)}, painted ${ms(stats(chatFloor.paint).p95)}; with Parley's Go path under it p95 ${ms(second.dom.p95)} in the DOM, ${ms(second.paint.p95)} painted`)
}
const submit = submitBound(records, chatFloor?.call)
if (submit) {
  const { goPath: st, post: call, sum } = submit
  recordFigure({ id: 'window.submit.bound.p95', label: 'Wails window: Go respond -> next model request + a bare window\'s call to Go, p95', value: sum.p95, unit: 'ms',
    note: `Go path p95 ${ms(st.p95)}; the bare chat app's Enter -> Go received its call p50 ${ms(call.p50)}, p95 ${ms(call.p95)}, every pair` })
  lines.push(`Desktop window: Submit's Go path (answer received -> next model request) p50 ${ms(st.p50)}, p95 ${ms(st.p95)}; a bare window's call (Enter -> Go) p95 ${ms(call.p95)}; both p95 ${ms(sum.p95)}`)
}
if (lines.length) console.log(lines.join('\n'))
