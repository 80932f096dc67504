// Prints the card trace's hop tables of the desktop window bench
// (tests/desktop/latency_bench_test.go, run by bench/desktop-latency.sh) from
// the records it wrote: node bench/window-trace-table.mjs <bench-window-trace.json>
import { readFileSync } from 'node:fs'
import { CARD_HOPS, SUBMIT_HOPS, formatHopTable, hopTable } from './trace-table.mjs'

const path = process.argv[2]
if (!path) {
  console.error('usage: node bench/window-trace-table.mjs <bench-window-trace.json>')
  process.exit(2)
}
const { records } = JSON.parse(readFileSync(path, 'utf8'))
if (!Array.isArray(records) || !records.length) {
  console.error(`${path}: no trace records`)
  process.exit(1)
}
console.log([
  '',
  formatHopTable('Desktop window (WebKitGTK): the card trace, hop by hop (+ = since the hop before, cum = since the model server wrote the first tool-call chunk):',
    hopTable(records, ['server_write', ...CARD_HOPS])),
  '',
  formatHopTable('Desktop window: Submit -> next model request, hop by hop (cum = since the Enter keydown in the page):',
    hopTable(records, [...SUBMIT_HOPS, 'server_request'])),
  '',
].join('\n'))
