// The send's table (issue #42): the page's steps after the send and the
// card's event, whatever their order, as times since the send.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SEND_HOPS, formatSinceTable, hopTable } from './trace-table.mjs'

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
