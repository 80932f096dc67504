// node --test bench/: the bench summary reads the figures it is given and
// judges them against their targets (it never invents a figure).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { goFigures, parseGoBench, ratioFigures, readFigures, summarize, verdict } from './summary.mjs'

/** Figures in milliseconds, as the bench scripts record them: { id: value }. */
const msFigures = (values) => readFigures(Object.entries(values).map(([id, value]) => JSON.stringify({ id, label: 'x', value, unit: 'ms' })).join('\n'))

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
    JSON.stringify({ id: 'submit.next.p95', label: 'Submit -> next request p95', value: 20, unit: 'ms', target: 10, cmp: '<=' }),
    '{"id":"torn',
    JSON.stringify({ id: 'submit.next.p95', label: 'Submit -> next request p95', value: 8, unit: 'ms', target: 10, cmp: '<=' }),
    JSON.stringify({ id: 'soak.growth.rss', label: 'RSS growth', value: 12.5, unit: '%', target: 10, cmp: '<=' }),
  ].join('\n'))
  assert.equal(figs.get('submit.next.p95').value, 8)
  const text = summarize(figs)
  assert.match(text, /Submit click -> next model request, p95 \(Chromium\)\s+8 ms\s+<= 10 ms\s+met/)
  assert.match(text, /soak: RSS growth after warm-up\s+12\.5 %\s+<= 10 %\s+MISSED/)
  assert.match(text, /first open of 5,000 messages, click -> painted\s+-\s+<= 200 ms\s+not measured/)
})

test('a ratio just over its target is printed to three places, so it does not read as met', () => {
  const figs = readFigures(JSON.stringify({ id: 'go.loop.bare.ratio', label: 'loop / bare', value: 1.053, unit: '×', target: 1.05, cmp: '<=' }))
  assert.match(summarize(figs), /agent loop \/ bare langchaingo call, same server\s+1\.053×\s+<= 1\.050×\s+MISSED/)
})

test('the chat figures measured while a folder indexes are judged against the same figures with nothing indexing', () => {
  const figs = msFigures({ 'card.paint.p95': 20, 'indexing.card.paint.p95': 40, 'card.dom.p95': 10, 'indexing.card.dom.p95': 14 })
  for (const f of ratioFigures(figs)) figs.set(f.id, f)
  assert.equal(figs.get('indexing.card.paint.p95.vsidle').value, 2)
  const text = summarize(figs)
  assert.match(text, /while 20,000 files index: card painted, p95\s+40 ms\s+\n\s+the same \/ with nothing indexing\s+2\.000×\s+<= 1\.500×\s+MISSED/)
  assert.match(text, /while 20,000 files index: card in the DOM, p95\s+14 ms\s+\n\s+the same \/ with nothing indexing\s+1\.400×\s+<= 1\.500×\s+met/)
  assert.match(text, /while 20,000 files index: Submit -> next model request, p95\s+-\s+not measured/)
})

test('the card and Submit are judged against the bound (Go path + bare page), issue #42', () => {
  const figs = msFigures({ 'card.dom.p95': 30, 'card.dom.bound.p95': 15, 'card.paint.p95': 50, 'card.paint.bound.p95': 30, 'submit.next.p95': 12, 'submit.bound.p95': 8 })
  for (const f of ratioFigures(figs)) figs.set(f.id, f)
  const text = summarize(figs)
  assert.match(text, /card in the DOM \/ bound, p95 \(Chromium\)\s+2\.000×\s+<= 1\.500×\s+MISSED/)
  assert.match(text, /card painted \/ bound, p95 \(Chromium\)\s+1\.667×\s+<= 2\.000×\s+met/)
  assert.match(text, /Submit -> next request \/ bound, p95 \(Chromium\)\s+1\.500×\s+<= 2\.000×\s+met/)
  assert.match(text, /card in the DOM \/ bound, p95 \(Wails window\)\s+-\s+<= 1\.500×\s+not measured/)
})

test('the card is also judged against the second bound (Go path + bare chat page), beside the first, issue #42', () => {
  const figs = msFigures({ 'card.dom.p95': 30, 'card.dom.bound.p95': 10, 'card.dom.chatbound.p95': 24, 'card.paint.p95': 50, 'card.paint.bound.p95': 20 })
  for (const f of ratioFigures(figs)) figs.set(f.id, f)
  const text = summarize(figs)
  assert.match(text, /card in the DOM \/ bound, p95 \(Chromium\)\s+3\.000×\s+<= 1\.500×\s+MISSED/)
  assert.match(text, /second bound: Go path \+ bare chat page, in the DOM, p95\s+24 ms/)
  assert.match(text, /card in the DOM \/ second bound, p95 \(Chromium\)\s+1\.250×\s+<= 1\.500×\s+met/)
  assert.match(text, /card painted \/ second bound, p95 \(Chromium\)\s+-\s+<= 2\.000×\s+not measured/)
})

test('the window is judged against its own second bound (bench/windowfloor, FLOOR_MODE=chat), issue #42', () => {
  const figs = msFigures({ 'window.card.dom.p95': 21, 'window.card.dom.chatbound.p95': 12, 'window.card.paint.p95': 40, 'window.card.paint.chatbound.p95': 25 })
  for (const f of ratioFigures(figs)) figs.set(f.id, f)
  const text = summarize(figs)
  assert.match(text, /card in the DOM \/ second bound, p95 \(Wails window\)\s+1\.750×\s+<= 1\.500×\s+MISSED/)
  assert.match(text, /card painted \/ second bound, p95 \(Wails window\)\s+1\.600×\s+<= 2\.000×\s+met/)
  // Chromium's is not measured by the window's figures.
  assert.match(text, /card in the DOM \/ second bound, p95 \(Chromium\)\s+-\s+<= 1\.500×\s+not measured/)
})

test('the knowledge search figures come from BenchmarkSearch100k', () => {
  const figs = new Map(goFigures('BenchmarkSearch100k-2 \t 1\t 5000 ns/op\t 30.5 p95-ms\t 12.25 cpu-ms/query\t 9.1 p50-ms\n').map((f) => [f.id, f]))
  assert.equal(figs.get('kn.search.p95').value, 30.5)
  assert.equal(verdict(figs.get('kn.search.p95')), 'met')
  assert.equal(figs.get('kn.search.cpu').value, 12.25)
  assert.equal(figs.get('kn.search.p50').value, 9.1)
})

// Chromium against a bare page, the Wails window against a bare Wails app:
// the same judgement. The window's figures were once recorded with targets in
// milliseconds: the summary's (none) win.
for (const s of [
  { name: 'Chromium', prefix: '', where: 'Chromium', figure: 'tool-call chunk -> card in the DOM, p95 \\(Chromium\\)', floor: 'SSE event -> element painted, p95 \\(bare page\\)',
    dom: [26, 10, '2\\.600'], paint: [30, 20, '1\\.500'], recordedTargets: false },
  { name: 'the Wails window', prefix: 'window.', where: 'Wails window', figure: 'Wails window: chunk -> card in the DOM, p95', floor: 'Wails event -> element painted, p95 \\(bare app\\)',
    dom: [30, 12, '2\\.500'], paint: [45, 25, '1\\.800'], recordedTargets: true },
]) {
  test(`${s.name}: the card is judged as a ratio to the floor measured in the same run, its milliseconds not`, () => {
    const row = (id, value, target) => JSON.stringify({ id: s.prefix + id, label: 'x', value, unit: 'ms', ...(target && s.recordedTargets ? { target, cmp: '<=' } : {}) })
    const figs = readFigures([
      row('card.dom.p95', s.dom[0], 16), row('card.dom.floor.p95', s.dom[1]),
      row('card.paint.p95', s.paint[0], 33), row('card.paint.floor.p95', s.paint[1]),
    ].join('\n'))
    const ratios = new Map(ratioFigures(figs).map((f) => [f.id, f]))
    assert.equal(ratios.get(`${s.prefix}card.dom.ratio`).value, s.dom[0] / s.dom[1])
    assert.equal(verdict(ratios.get(`${s.prefix}card.dom.ratio`)), 'MISSED')
    assert.equal(ratios.get(`${s.prefix}card.paint.ratio`).value, s.paint[0] / s.paint[1])
    assert.equal(verdict(ratios.get(`${s.prefix}card.paint.ratio`)), 'met')
    for (const f of ratios.values()) figs.set(f.id, f)
    const text = summarize(figs)
    assert.match(text, new RegExp(`${s.figure}\\s+${s.dom[0]} ms\\s+$`, 'm'))
    assert.match(text, new RegExp(`floor: ${s.floor}\\s+${s.paint[1]} ms\\s+$`, 'm'))
    assert.match(text, new RegExp(`card in the DOM / floor, p95 \\(${s.where}\\)\\s+${s.dom[2]}×\\s+<= 2\\.000×\\s+MISSED`))
    assert.match(text, new RegExp(`card painted / floor, p95 \\(${s.where}\\)\\s+${s.paint[2]}×\\s+<= 2\\.000×\\s+met`))
    assert.match(summarize(new Map()), new RegExp(`card painted / floor, p95 \\(${s.where}\\)\\s+-\\s+<= 2\\.000×\\s+not measured`))
  })
}

test('no ratio without both figures, or with a floor of zero: the ratio reads not measured', () => {
  const onlyParley = readFigures(JSON.stringify({ id: 'card.dom.p95', label: 'card in the DOM', value: 26, unit: 'ms' }))
  assert.deepEqual(ratioFigures(onlyParley), [])
  assert.match(summarize(onlyParley), /card in the DOM \/ floor, p95 \(Chromium\)\s+-\s+<= 2\.000×\s+not measured/)
  const zeroFloor = readFigures([
    JSON.stringify({ id: 'card.paint.p95', label: 'card painted', value: 30, unit: 'ms' }),
    JSON.stringify({ id: 'card.paint.floor.p95', label: 'floor painted', value: 0, unit: 'ms' }),
  ].join('\n'))
  assert.deepEqual(ratioFigures(zeroFloor), [])
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

test("the engine's speed ratios must reach their target from below (>=), the next turn's stay under theirs", () => {
  const figs = readFigures([
    { id: 'engine.gen.ratio', value: 0.94 },
    { id: 'engine.prompt.ratio', value: 1.01 },
    { id: 'engine.ttft.ratio', value: 0.2 },
    { id: 'engine.idle.cpu', value: 0.1 },
  ].map((f) => JSON.stringify(f)).join('\n'))
  const out = summarize(figs)
  const line = (label) => out.split('\n').find((l) => l.includes(label))
  assert.match(line('engine / node-llama-cpp, generation'), /0\.940×\s+>= 0\.950×\s+MISSED/)
  assert.match(line('engine / node-llama-cpp, prompt'), /1\.010×\s+>= 0\.950×\s+met/)
  assert.match(line('next turn / first turn'), /0\.200×\s+<= 0\.150×\s+MISSED/)
  assert.match(line('engine CPU while idle'), /0\.10 % of a core\s+<= 1 % of a core\s+met/)
  assert.match(line('engine RSS / GGUF file size'), /not measured/)
})
