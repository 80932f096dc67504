// node --test bench/: the bench summary reads the figures it is given and
// judges them against their targets (it never invents a figure).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { goFigures, parseGoBench, readFigures, summarize, verdict } from './summary.mjs'

const goOut = `goos: linux
BenchmarkLoopVsBareLangchaingo/ratio-2   	      50	  2300000 ns/op	   2400000 loop-ns/op	   2300000 bare-ns/op	         1.04 ratio	  120 B/op
BenchmarkTenThousandPending-2      	       1	 900000000 ns/op	      1234 bytes/card	 140000000 ns-to-resolve-all
BenchmarkAppendMessage/batch-10-2 	     10	 1000 ns/op	     9000 msgs/s
BenchmarkAppendMessage/batch-100-2 	     10	 1000 ns/op	     25000 msgs/s
BenchmarkAgentAskOverMCP-2             	      30	   6204819 ns/op	         2.209 answer-ratio	       992.6 answer-to-result-p50-µs	         2.927 ask-ratio	      1315 ask-to-card-p50-µs	       449.4 bare-call-p50-µs
BenchmarkThousandAgentCardsPending-2   	      30	    727811 ns/op	      1675 heap-B/card	       164.5 respond-p50-µs	       484.7 respond-p95-µs
PASS`

test('Go benchmark lines give their metrics by unit', () => {
  const m = parseGoBench(goOut)
  assert.equal(m.get('BenchmarkLoopVsBareLangchaingo/ratio').get('ratio'), 1.04)
  assert.equal(m.get('BenchmarkAppendMessage/batch-100').get('msgs/s'), 25000)
  assert.equal(m.get('BenchmarkAppendMessage/batch-10').get('msgs/s'), 9000)
})

test('Go figures are scaled and judged against their targets', () => {
  const figs = new Map(goFigures(goOut).map((f) => [f.id, f]))
  assert.equal(verdict(figs.get('go.loop.bare.ratio')), 'met')
  assert.equal(figs.get('go.cards10k.resolve').value, 140)
  assert.equal(verdict(figs.get('go.cards10k.resolve')), 'MISSED')
  assert.equal(verdict(figs.get('go.append.batch100')), 'met')
  assert.equal(verdict(figs.get('go.append.batch10')), 'MISSED')
  assert.equal(figs.has('go.respond.next.p95'), false, 'absent from the output: not invented')
})

test('recorded figures: the last one wins, torn lines are skipped, absent ones say so', () => {
  const figs = readFigures([
    JSON.stringify({ id: 'card.dom.p95', label: 'card in the DOM p95', value: 20, unit: 'ms', target: 16, cmp: '<=' }),
    '{"id":"torn',
    JSON.stringify({ id: 'card.dom.p95', label: 'card in the DOM p95', value: 12, unit: 'ms', target: 16, cmp: '<=' }),
    JSON.stringify({ id: 'soak.growth.rss', label: 'RSS growth', value: 12.5, unit: '%', target: 10, cmp: '<=' }),
  ].join('\n'))
  assert.equal(figs.get('card.dom.p95').value, 12)
  const text = summarize(figs)
  assert.match(text, /card in the DOM, p95 \(Chromium\)\s+12 ms\s+<= 16 ms\s+met/)
  assert.match(text, /soak: RSS growth after warm-up\s+12\.5 %\s+<= 10 %\s+MISSED/)
  assert.match(text, /first open of 5,000 messages, click -> painted\s+-\s+<= 200 ms\s+not measured/)
})

test('a ratio just over its target is printed to three places, so it does not read as met', () => {
  const figs = readFigures(JSON.stringify({ id: 'go.loop.bare.ratio', label: 'loop / bare', value: 1.053, unit: '×', target: 1.05, cmp: '<=' }))
  assert.match(summarize(figs), /agent loop \/ bare langchaingo call, same server\s+1\.053×\s+<= 1\.050×\s+MISSED/)
})

test("issue #25's agent figures: ratios to the bare Go SDK call, and 1,000 pending cards", () => {
  const figs = new Map(goFigures(goOut).map((f) => [f.id, f]))
  assert.equal(figs.get('go.agent.ask.ratio').value, 2.927)
  assert.equal(figs.get('go.agent.answer.ratio').value, 2.209)
  assert.ok(Math.abs(figs.get('go.agent.bare.p50').value - 0.4494) < 1e-9, 'µs shown as ms')
  assert.ok(Math.abs(figs.get('go.agent.cards1k.respond.p95').value - 0.4847) < 1e-9)
  assert.equal(verdict(figs.get('go.agent.ask.ratio')), '', 'no target: shown, not judged')
  const text = summarize(figs)
  assert.match(text, /agent: ask over \/mcp -> card event \/ bare Go SDK tool call\s+2\.927×/)
  assert.match(text, /1,000 agent cards pending: Go heap per card\s+1\.64 KB/)
  assert.match(summarize(new Map()), /1,000 agent cards pending: respond, p50\s+-\s+not measured/)
})
