// node --test bench/: the ratios of (g) — each figure while indexing over
// the same figure idle — and their `target:` lines against the 1.5× limit.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { INDEXING_LIMIT, indexingRatioLines, indexingRatios } from './ui-indexing.mjs'

const st = (p95) => ({ p95, p50: p95 / 2, n: 50 })
const stream = (longMax, longtasks, gapMax, gaps) => ({ responsive: true, longMax, longtasks, gapMax, gaps })
const results = {
  files: 20000,
  cardsIdle: { a: st(40), aDom: st(20), b: st(10) },
  cards: { a: st(59), aDom: st(31), b: st(30) },
  streamIdle: stream(80, 0, 60, 2),
  stream: stream(100, 1, 60, 4),
}

test('each figure is judged as a ratio to the same figure idle', () => {
  const byId = new Map(indexingRatios(results).map((r) => [r.id, r]))
  assert.equal(INDEXING_LIMIT, 1.5)
  assert.equal(byId.get('card.paint.p95').ratio, 59 / 40)
  assert.equal(byId.get('card.paint.p95').met, true)
  assert.equal(byId.get('card.dom.p95').met, false, '31 / 20 is over 1.5')
  assert.equal(byId.get('submit.next.p95').ratio, 3)
  assert.equal(byId.get('stream.longtask.max').ratio, 1.25)
  assert.equal(byId.get('stream.longtasks').ratio, 1, 'counts are compared against at least 1: 0 idle and 1 while indexing is not infinitely worse')
  assert.equal(byId.get('stream.gaps').ratio, 2)
})

test('one target line per figure, met or MISSED', () => {
  const lines = indexingRatioLines(results)
  assert.equal(lines.length, 7)
  for (const l of lines) assert.match(l, /^target: indexing\/idle .+ [0-9.]+× <= 1\.5× (met|MISSED) \(/)
  assert.ok(lines.some((l) => l.startsWith('target: indexing/idle card painted, p95 1.475× <= 1.5× met (59.0 ms while indexing, 40.0 ms idle)')), lines.join('\n'))
  assert.ok(lines.some((l) => l.startsWith('target: indexing/idle streaming, frame gaps > 50 ms 2.000× <= 1.5× MISSED (4 while indexing, 2 idle)')), lines.join('\n'))
})

test('the longest task is compared against at least 50 ms: none idle and one of 57 ms while indexing is not infinitely worse', () => {
  const none = indexingRatios({ ...results, streamIdle: stream(0, 0, 60, 2), stream: stream(57, 1, 60, 2) })
  assert.equal(none.find((r) => r.id === 'stream.longtask.max').ratio, 57 / 50)
  const both = indexingRatios({ ...results, streamIdle: stream(60, 1, 60, 2), stream: stream(120, 2, 60, 2) })
  assert.equal(both.find((r) => r.id === 'stream.longtask.max').ratio, 2)
  assert.equal(both.find((r) => r.id === 'stream.longtask.max').met, false)
})

test('a figure not measured on both sides is left out, never guessed', () => {
  assert.deepEqual(indexingRatios({ files: 1, cards: results.cards }), [])
  assert.equal(indexingRatios({ ...results, stream: { responsive: false } }).filter((r) => r.id.startsWith('stream')).length, 0)
})
