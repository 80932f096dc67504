// The send's table (issue #42): the page's steps after the send and the
// card's event, whatever their order, as times since the send.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SEND_HOPS, enterFigures, formatSinceTable, hopTable } from './trace-table.mjs'

test('the page from the send: every hop as its time since the send, in path order, whatever order they came in', () => {
  const send = 1_700_000_000_000
  // One round whose card event came during the send's frame, one whose came before it.
  const records = [
    { marks: { page_send: send, page_enter_done: send + 8, page_frame_start: send + 10, page_frame_end: send + 27, wails_sent: send + 13, page_received: send + 30, page_dom: send + 34, page_paint: send + 59 } },
    { marks: { page_send: send, page_enter_done: send + 6, page_frame_start: send + 20, page_frame_end: send + 36, wails_sent: send + 5, page_received: send + 7, page_dom: send + 12, page_paint: send + 37 } },
  ]
  const rows = hopTable(records, SEND_HOPS)
  // sse_written is in no record: left out.
  assert.deepEqual(rows.map((r) => r.hop), ['page_send', 'page_enter_done', 'page_frame_start', 'page_frame_end', 'wails_sent', 'page_received', 'page_dom', 'page_paint'])
  const received = rows.find((r) => r.hop === 'page_received')
  assert.equal(received.n, 2)
  assert.ok(received.cum.p50 >= 7 && received.cum.p95 <= 30)
  const table = formatSinceTable('title', rows).split('\n')
  assert.equal(table[0], 'title')
  assert.match(table[1], /^hop\s+n\s+p50\s+p95$/)
  assert.match(table.find((l) => l.startsWith('page_frame_end')), /^page_frame_end\s+2\s+\S+ ms\s+36\.00 ms$/)
})

test('Enter -> card: the send table\'s card in the DOM and painted as figures, each surface its own ids; absent hops give none', () => {
  const send = 1_700_000_000_000
  const records = [10, 20, 30].map((d) => ({ marks: { page_send: send, page_received: send + d, page_dom: send + d + 4, page_paint: send + d + 20 } }))
  const figs = enterFigures(hopTable(records, SEND_HOPS), 'window.', 'Wails window')
  assert.deepEqual(figs.map((f) => f.id), ['window.card.enter.dom.p95', 'window.card.enter.paint.p95'])
  assert.equal(figs[0].unit, 'ms')
  assert.match(figs[0].label, /^Enter -> card in the DOM, p95 \(Wails window\)$/)
  // Times since the Enter, not since the hop before: 14-34 ms in the DOM, 30-50 painted.
  assert.ok(figs[0].value > 30 && figs[0].value <= 34, `dom p95 ${figs[0].value}`)
  assert.ok(figs[1].value > 46 && figs[1].value <= 50, `paint p95 ${figs[1].value}`)
  assert.match(figs[1].note, /^p50 40\.0 ms, n=3;/)
  // No card painted in any round (a trace without the page's marks): no figures.
  assert.deepEqual(enterFigures(hopTable([{ marks: { page_send: send, sse_written: send + 5 } }], SEND_HOPS), '', 'Chromium'), [])
})
