// (a) + (b) of the UI latency bench (bench/ui-latency.mjs): rounds of a
// question card (model's tool-call chunk -> card in the DOM and painted) and
// its answer (Submit click -> the next model request); the card trace of the
// measured rounds, hop by hop; and the best ratio a page could reach here.
import { waitUntil } from '../frontend/e2e/util.mjs'
import { stats } from './stats.mjs'
import { CARD_HOPS, SEND_HOPS, SUBMIT_HOPS, hopTable, recordsOf } from './trace-table.mjs'
import { ROUNDS, WARMUP } from './ui-knobs.mjs'
import { conversationIdle, newChatPage, startProfile } from './ui-page.mjs'

// (a) + (b). rounds / warmup: how many (BENCH_ROUNDS / BENCH_WARMUP unless given).
export async function cardRounds(browser, server, model, base = 0, { rounds = ROUNDS, warmup = WARMUP } = {}) {
  const page = await newChatPage(browser, server)
  await page.evaluate(() => {
    const now = () => performance.timeOrigin + performance.now()
    const b = (window.__bench = { cards: {}, clicks: [] })
    b.observer = new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid=question-card][data-status=pending]')) {
        const id = el.dataset.questionId
        if (!id || b.cards[id] || !el.querySelector('[data-testid=primary]')) continue
        const rec = (b.cards[id] = { dom: now(), round: Number(/Round (\d+) of the bench/.exec(el.textContent)?.[1]) })
        // After the next frame: the card has been painted.
        requestAnimationFrame(() => setTimeout(() => { rec.paint = now() }, 0))
      }
    })
    b.observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-status'] })
    // When each Enter was pressed: the second bound (bench/floor.mjs
    // chatFloorRounds) sends its card as long after its own Enter.
    b.enters = []
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') b.enters.push(now())
    }, true)
    document.addEventListener('click', (e) => {
      if (e.target instanceof Element && e.target.closest('[data-testid=question-card] [data-testid=primary]')) b.clicks.push(now())
    }, true)
  })
  const composer = page.getByRole('textbox', { name: 'Message' })
  const profile = process.env.BENCH_PROFILE ? await startProfile(page) : null
  const a = []
  const aDom = []
  const bLat = []
  const measured = [] // { id, serverWrite, serverRequest, enter } of the rounds after the warm-up
  let convId = null
  for (let i = base; i < base + warmup + rounds; i++) {
    await composer.fill(`card ${i}`)
    await composer.press('Enter')
    // Polled as the floor is (bench/floor.mjs), not with a locator: a
    // locator's wait queries the page every frame, work that races the card.
    const [qid, rec] = await waitUntil(() => page.evaluate((round) => Object.entries(window.__bench.cards).find(([, r]) => r.round === round && r.paint) ?? null, i), {
      interval: 10, timeout: 15000, what: `the card of round ${i} painted`,
    })
    const card = page.locator(`[data-testid=question-card][data-question-id="${qid}"]`)
    const tTool = model.state.toolCallAt.get(i)
    const tEnter = await page.evaluate((n) => window.__bench.enters[n], i - base)
    await card.getByText('Alpha', { exact: true }).click()
    const next = model.nextToolResult()
    const clicksBefore = await page.evaluate(() => window.__bench.clicks.length)
    await card.getByTestId('primary').click()
    await next
    const tClick = await waitUntil(() => page.evaluate((n) => window.__bench.clicks[n], clicksBefore), { what: 'the Submit click timestamp' })
    const tNext = model.state.toolResultAt.get(i)
    convId ??= (await server.api('GET', '/api/v1/conversations')).body.items[0].id
    await conversationIdle(server, convId)
    await page.getByTestId('message-list').getByText(`Noted ${i}.`).waitFor()
    if (i >= base + warmup) {
      a.push(rec.paint - tTool)
      aDom.push(rec.dom - tTool)
      bLat.push(tNext - tClick)
      measured.push({ id: qid, serverWrite: tTool, serverRequest: tNext, enter: tEnter })
    }
  }
  if (profile) await profile.stop(process.env.BENCH_PROFILE + (base ? '.' + base : ''))
  await page.close()
  return { a: stats(a), aDom: stats(aDom), b: stats(bLat), rawA: a, rawDom: aDom, rawB: bLat, measured }
}

// The card trace of the measured rounds (parley serve runs with PARLEY_TRACE=1):
// the hop tables of card -> page and Submit -> next request, with the model
// server's own times as the first and last hops.
export async function traceTables(server, measured) {
  const res = await server.api('GET', '/api/v1/debug/trace')
  if (res.status !== 200) throw new Error('trace: ' + JSON.stringify(res))
  const recs = recordsOf(res.body.records, measured.map((m) => m.id))
  const byId = new Map(measured.map((m) => [m.id, m]))
  const withServer = recs.map((r) => {
    const m = byId.get(r.keys.find((k) => byId.has(k)))
    return { keys: r.keys, enter: m.enter, marks: { ...r.marks, server_write: m.serverWrite, server_request: m.serverRequest } }
  })
  return {
    card: hopTable(withServer, ['server_write', ...CARD_HOPS]),
    send: hopTable(withServer, SEND_HOPS),
    submit: hopTable(withServer, [...SUBMIT_HOPS, 'server_request']),
    records: withServer,
  }
}

// The best a page could reach on this machine: each measured round's Go
// path (the model server's write -> the card's event written to the SSE
// stream, from the trace) with the floor's page on top (each floor round:
// SSE write -> element in the DOM, or painted), every pair, so that the
// spread of both is kept. A page that cost no more than the bare one would
// be at `sum`; `ratio` is that bound over the floor alone.
export function pageBound(records, floorDom, floorPaint = []) {
  const goPath = records.map((r) => r.marks.sse_written - r.marks.server_write).filter(Number.isFinite)
  if (!goPath.length || !floorDom.length) return null
  const pairs = (floor) => stats(goPath.flatMap((g) => floor.map((f) => g + f)))
  const sum = pairs(floorDom)
  return { goPath: stats(goPath), sum, ratio: sum.p95 / stats(floorDom).p95, paintSum: floorPaint.length ? pairs(floorPaint) : null }
}

// The milliseconds from each measured round's Enter to its card event
// written to the SSE stream (the second bound's card comes as long after
// its Enter: bench/floor.mjs chatFloorRounds).
export function enterToEvent(records) {
  return records.map((r) => r.marks.sse_written - r.enter).filter(Number.isFinite)
}

