// UI latency benchmarks of Parley: the real `parley serve` (build/bin/parley)
// talking to a tiny scripted OpenAI-compatible model server in this process
// (streaming like llama.cpp), with the built UI in Chromium.
//
//   (a) model's first tool-call chunk -> question card painted in Chromium
//   (b) Submit click in Chromium -> the next request at the model server
//   (c) SSE fan-out with 20 connected clients: model chunk -> event at all 20
//   (d) 500 streamed tokens/s for BENCH_STREAM_SECONDS (default 30): long
//       tasks (PerformanceObserver 'longtask') and frame gaps in Chromium
//   (e) opening a conversation of 5,000 messages: click -> last message shown
//   (f) a thinking model (SPEC §9): 500 thinking tokens/s for
//       BENCH_THINK_STREAM_SECONDS (default 60) in Ollama's `reasoning`
//       field, then 500 answer tokens/s for BENCH_THINK_ANSWER_SECONDS (30):
//       long tasks, and the page's JS heap after a forced garbage collection
//       10 s into the thinking, at its end and after the answer (flat: the
//       thinking block does not render the whole message per token)
//   (g) (a), (b) and (d) again while Parley indexes a folder of
//       BENCH_INDEX_FILES (20,000) Markdown files of BENCH_INDEX_FILE_BYTES
//       (4,000) bytes each (SPEC §11: the chat stays responsive while a
//       collection indexes): a collection of the folder, made again each
//       time it is done, so the indexing goes on all along
//
// Prints figures; asserts nothing about timings. Knobs: BENCH_ROUNDS (50),
// BENCH_THINK_MS (150: a second set of card rounds where the model thinks that
// long before its call; 0 skips it), BENCH_WARMUP (3), BENCH_CLIENTS (20), BENCH_STREAM_SECONDS (30),
// BENCH_STREAM_RATE (500), BENCH_MESSAGES (5000), BENCH_PROFILE (a file: a Chromium
// trace of the card rounds, for bench/profile-tasks.mjs), PARLEY_BIN, CHROMIUM_PATH,
// PARLEY_ARTIFACTS (results JSON goes there).
import { createServer } from 'node:http'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { randomBytes } from 'node:crypto'
import { launchChromium } from '../frontend/e2e/helpers.mjs'
import { token, login } from '../frontend/e2e/serve.mjs'
import { waitUntil, sleep, saveArtifact, startTempServe } from '../frontend/e2e/util.mjs'
import { recordFigure } from './figures.mjs'
import { floorRounds } from './floor.mjs'
import { CARD_HOPS, SUBMIT_HOPS, formatHopTable, hopTable, recordsOf } from './trace-table.mjs'

const env = (k, d) => (process.env[k] ? Number(process.env[k]) : d)
const ROUNDS = env('BENCH_ROUNDS', 50)
const WARMUP = env('BENCH_WARMUP', 3)
const CLIENTS = env('BENCH_CLIENTS', 20)
const STREAM_SECONDS = env('BENCH_STREAM_SECONDS', 30)
const STREAM_RATE = env('BENCH_STREAM_RATE', 500)
const FANOUT_CHUNKS = env('BENCH_FANOUT_CHUNKS', 300)
const MESSAGES = env('BENCH_MESSAGES', 5000)
const CATCHUP_SECONDS = env('BENCH_CATCHUP_SECONDS', 60)
const THINK_MS = env('BENCH_THINK_MS', 150)
const THINK_STREAM_SECONDS = env('BENCH_THINK_STREAM_SECONDS', 60)
const THINK_ANSWER_SECONDS = env('BENCH_THINK_ANSWER_SECONDS', 30)
const INDEX_FILES = env('BENCH_INDEX_FILES', 20000)
const INDEX_FILE_BYTES = env('BENCH_INDEX_FILE_BYTES', 4000)
const ONLY = (process.env.BENCH_ONLY || 'a,c,d,e,f,g').split(',') // a covers (a) and (b)

const now = () => performance.timeOrigin + performance.now()
const log = (...a) => console.error('[bench]', ...a)

// ---------------------------------------------------------------------------
// The scripted model server.

function startModel() {
  const state = {
    requests: [], // { t, last }
    toolCallAt: new Map(), // round -> time the first tool-call chunk was written
    toolResultAt: new Map(), // round -> arrival of the request carrying its tool result
    waiters: [],
    fanoutSent: [], // chunk index -> write time
    fanoutDone: null,
    stream: null, // { sent, start, end }
    thinking: null, // { start, thinkEnd?, end?, sent }
    unexpected: [],
    thinkMs: 0,
  }
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta, finish = null) => ({
    id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'bench',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
  const usage = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'bench', choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }

  const sse = (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
    return (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`)
  }
  const finishText = (res, send) => {
    send(chunk({}, 'stop'))
    send(usage)
    res.end('data: [DONE]\n\n')
  }
  const text = (res, parts) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: '' }))
    for (const p of parts) send(chunk({ content: p }))
    finishText(res, send)
  }

  // Like llama.cpp: role chunk, the call's id/type/name with empty
  // arguments, the arguments in pieces, finish_reason, usage, [DONE].
  // state.thinkMs: the time a real model spends on the prompt before its
  // first token (0: the call is written at once).
  const toolCall = async (res, round, args) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: null }))
    if (state.thinkMs > 0) await sleep(state.thinkMs)
    const id = 'call_' + randomBytes(12).toString('hex')
    state.toolCallAt.set(round, now())
    send(chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'ask_user_question', arguments: '' } }] }))
    const n = Math.ceil(args.length / 3)
    for (let i = 0; i < args.length; i += n) send(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + n) } }] }))
    send(chunk({}, 'tool_calls'))
    send(usage)
    res.end('data: [DONE]\n\n')
  }

  const fanout = async (res) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: '' }))
    for (let k = 0; k < FANOUT_CHUNKS; k++) {
      state.fanoutSent[k] = now()
      send(chunk({ content: `t${k} ` }))
      await sleep(10)
    }
    finishText(res, send)
    state.fanoutDone = now()
  }

  const WORDS = ['the', 'quick', 'answer', 'is', 'a', 'local', 'model', 'streams', '**bold**', 'text', 'with', '`code`', 'and', 'lists', 'of', 'items']
  // Sends STREAM_RATE tokens a second for `seconds`, each as the delta
  // delta(token) makes; resolves with how many were sent.
  const paced = async (send, seconds, delta) => {
    const total = STREAM_RATE * seconds
    const start = now()
    let sent = 0
    while (sent < total) {
      const due = Math.min(total, Math.floor(((now() - start) / 1000) * STREAM_RATE))
      for (; sent < due; sent++) {
        let tok = WORDS[sent % WORDS.length] + ' '
        if (sent % 97 === 96) tok += '\n\n'
        else if (sent % 41 === 40) tok = '\n- ' + tok
        send(chunk(delta(tok)))
      }
      await sleep(4)
    }
    return total
  }
  const longStream = async (res) => {
    const send = sse(res)
    send(chunk({ role: 'assistant', content: '' }))
    const start = now()
    const sent = await paced(send, STREAM_SECONDS, (tok) => ({ content: tok }))
    send(chunk({ content: 'END-OF-STREAM' }))
    state.stream = { sent, start, end: now() }
    finishText(res, send)
  }

  // (f) Thinking as Ollama's /v1 streams it (openai/openai.go: the
  // thinking in delta.reasoning with an empty content), then the answer.
  const thinkStream = async (res) => {
    const send = sse(res)
    const t = (state.thinking = { start: now(), sent: 0 })
    t.sent += await paced(send, THINK_STREAM_SECONDS, (tok) => ({ role: 'assistant', content: '', reasoning: tok }))
    t.thinkEnd = now()
    t.sent += await paced(send, THINK_ANSWER_SECONDS, (tok) => ({ role: 'assistant', content: tok }))
    send(chunk({ content: 'END-OF-STREAM' }))
    t.end = now()
    finishText(res, send)
  }

  const server = createServer({ noDelay: true }, (req, res) => {
    const t = now()
    let body = ''
    req.on('data', (d) => { body += d })
    req.on('end', () => {
      const url = req.url.split('?')[0]
      if (req.method === 'GET' && url.endsWith('/models')) {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model', owned_by: 'bench' }] }))
      }
      if (req.method === 'GET' && url === '/api/tags') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ models: [{ name: 'bench', model: 'bench', size: 1 }] }))
      }
      if (req.method === 'GET' && url === '/api/version') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end('{"version":"0.0.0-bench"}')
      }
      if (req.method === 'POST' && url === '/api/show') {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end('{"capabilities":["completion","tools"]}')
      }
      if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
        state.unexpected.push(`${req.method} ${req.url}`)
        res.writeHead(404, { 'Content-Type': 'application/json' })
        return res.end('{"error":{"message":"not found"}}')
      }
      const r = JSON.parse(body)
      const last = r.messages.at(-1)
      state.requests.push({ t, last })
      if (!r.stream) {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created, model: 'bench',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: usage.usage }))
      }
      if (last.role === 'tool') {
        const round = Number(/Round (\d+) /.exec(JSON.stringify(r.messages.slice(-3)))?.[1] ?? -1)
        state.toolResultAt.set(round, t)
        for (const w of state.waiters.splice(0)) w()
        return text(res, ['Noted', ` ${round}.`])
      }
      const content = String(last.content)
      let m
      if ((m = /^card (\d+)$/.exec(content))) {
        const round = Number(m[1])
        const args = JSON.stringify({ questions: [{ question: `Round ${round} of the bench: which one?`, header: 'Bench',
          options: [{ label: 'Alpha', description: 'the first' }, { label: 'Beta', description: 'the second' }] }] })
        return void toolCall(res, round, args)
      }
      if (content === 'fanout') return void fanout(res)
      if (content === 'stream') return void longStream(res)
      if (content === 'think-stream') return void thinkStream(res)
      return text(res, ['Short', ' reply.'])
    })
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({
    port: server.address().port,
    state,
    nextToolResult: () => new Promise((resolve) => state.waiters.push(resolve)),
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }),
  })))
}

// ---------------------------------------------------------------------------

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]
  return { n: s.length, p50: q(0.5), p95: q(0.95), min: s[0], max: s.at(-1), mean: s.reduce((a, b) => a + b, 0) / s.length }
}
const ms = (x) => (x === undefined || Number.isNaN(x) ? '-' : x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`)

async function conversationIdle(server, id) {
  await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${id}`)).body.state === 'idle', {
    interval: 20, timeout: 15000, what: `conversation ${id} idle`,
  })
}

async function newChatPage(browser, server) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  page.on('pageerror', (e) => log('page error:', e.message))
  await login(page, server)
  return page
}

// (a) + (b)
async function cardRounds(browser, server, model, base = 0) {
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
    document.addEventListener('click', (e) => {
      if (e.target instanceof Element && e.target.closest('[data-testid=question-card] [data-testid=primary]')) b.clicks.push(now())
    }, true)
  })
  const composer = page.getByRole('textbox', { name: 'Message' })
  const profile = process.env.BENCH_PROFILE ? await startProfile(page) : null
  const a = []
  const aDom = []
  const bLat = []
  const measured = [] // { id, serverWrite, serverRequest } of the rounds after the warm-up
  let convId = null
  for (let i = base; i < base + WARMUP + ROUNDS; i++) {
    await composer.fill(`card ${i}`)
    await composer.press('Enter')
    // Polled as the floor is (bench/floor.mjs), not with a locator: a
    // locator's wait queries the page every frame, work that races the card.
    const [qid, rec] = await waitUntil(() => page.evaluate((round) => Object.entries(window.__bench.cards).find(([, r]) => r.round === round && r.paint) ?? null, i), {
      interval: 10, timeout: 15000, what: `the card of round ${i} painted`,
    })
    const card = page.locator(`[data-testid=question-card][data-question-id="${qid}"]`)
    const tTool = model.state.toolCallAt.get(i)
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
    if (i >= base + WARMUP) {
      a.push(rec.paint - tTool)
      aDom.push(rec.dom - tTool)
      bLat.push(tNext - tClick)
      measured.push({ id: qid, serverWrite: tTool, serverRequest: tNext })
    }
  }
  if (profile) await profile.stop(process.env.BENCH_PROFILE + (base ? '.' + base : ''))
  await page.close()
  return { a: stats(a), aDom: stats(aDom), b: stats(bLat), rawA: a, rawB: bLat, measured }
}

// BENCH_PROFILE=file: a Chromium trace of the card rounds (timeline and JS
// samples), written as JSON; bench/profile-tasks.mjs prints its tasks.
async function startProfile(page) {
  const cdp = await page.context().newCDPSession(page)
  const events = []
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value))
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r))
  await cdp.send('Tracing.start', {
    categories: 'toplevel,devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,disabled-by-default-v8.cpu_profiler,blink.user_timing',
    transferMode: 'ReportEvents',
  })
  return {
    async stop(file) {
      await cdp.send('Tracing.end')
      await complete
      const { writeFile } = await import('node:fs/promises')
      await writeFile(file, JSON.stringify(events))
      log('profile written to', file, events.length, 'events')
    },
  }
}

// (c)
async function fanout(server, model) {
  const worker = new Worker(new URL('./sse-clients.mjs', import.meta.url), { workerData: { url: server.url, token, clients: CLIENTS } })
  const errors = []
  let ready
  const readyP = new Promise((r) => { ready = r })
  let collected
  const recordsP = new Promise((r) => { collected = r })
  worker.on('message', (m) => {
    if (m.type === 'ready') ready()
    else if (m.type === 'error') errors.push(m.message)
    else if (m.type === 'records') collected(m.records)
  })
  worker.on('error', (e) => errors.push(String(e)))
  try {
    await Promise.race([readyP, sleep(10000).then(() => { throw new Error('SSE clients did not connect: ' + errors.join('; ')) })])
    const id = (await server.api('POST', '/api/v1/conversations', { title: 'fan-out' })).body.id
    const sent = await server.api('POST', `/api/v1/conversations/${id}/messages`, { content: 'fanout' })
    if (sent.status !== 202) throw new Error('fanout send: ' + JSON.stringify(sent))
    await waitUntil(() => model.state.fanoutDone, { timeout: 30000, what: 'the fan-out stream to end' })
    await conversationIdle(server, id)
    await sleep(300)
    worker.postMessage('collect')
    const records = await recordsP
    // Per chunk k: when each client saw the delta carrying marker t<k>.
    const arrivals = Array.from({ length: FANOUT_CHUNKS }, () => [])
    let events = 0
    records.forEach((recs) => {
      for (const r of recs) {
        if (r.delta === undefined) continue
        events++
        for (const m of r.delta.matchAll(/t(\d+) /g)) arrivals[Number(m[1])].push(r.t)
      }
    })
    const all = []
    const first = []
    const spread = []
    let incomplete = 0
    arrivals.forEach((ts, k) => {
      if (ts.length !== CLIENTS) { incomplete++; return }
      const lo = Math.min(...ts)
      const hi = Math.max(...ts)
      all.push(hi - model.state.fanoutSent[k])
      first.push(lo - model.state.fanoutSent[k])
      spread.push(hi - lo)
    })
    return { all: stats(all), first: stats(first), spread: stats(spread), incomplete, events, errors }
  } finally {
    worker.postMessage('stop')
    await sleep(100)
    await worker.terminate()
  }
}

// How much of its main thread's CPU each task of the page took (a Chromium
// trace of top-level tasks). A task can be long on a busy machine only
// because the renderer waited for a core: CPU time tells work from waiting.
// Tasks between the page's performance marks `bench-skip-start` and
// `bench-skip-end` (a forced garbage collection) are left out.
async function traceTaskCpu(page) {
  const cdp = await page.context().newCDPSession(page)
  const events = []
  cdp.on('Tracing.dataCollected', (d) => { for (const e of d.value) if (e.ph === 'M' || /RunTask$/.test(e.name) || /^bench-skip-/.test(e.name)) events.push(e) })
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r))
  await cdp.send('Tracing.start', { categories: 'toplevel,blink.user_timing', transferMode: 'ReportEvents' })
  return {
    async stop() {
      await cdp.send('Tracing.end')
      await complete
      const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`))
      const starts = events.filter((e) => e.name === 'bench-skip-start').map((e) => e.ts).sort((a, b) => a - b)
      const ends = events.filter((e) => e.name === 'bench-skip-end').map((e) => e.ts).sort((a, b) => a - b)
      const skipped = (e) => starts.some((s, i) => e.ts + (e.dur ?? 0) >= s && e.ts <= (ends[i] ?? Infinity))
      const cpu = events.filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`) && !skipped(e)).map((e) => (e.tdur ?? 0) / 1000)
      return { cpuLong: cpu.filter((t) => t > 50).length, cpuMax: cpu.reduce((a, b) => Math.max(a, b), 0) }
    },
  }
}

// (d) In its own Chromium: a renderer that cannot keep up may stay blocked
// long after the stream, and is then simply killed.
// record: whether the figures go to the summary (not for the run of (g)).
async function longStream(server, model, record = true) {
  const browser = await launchChromium()
  try {
    const page = await newChatPage(browser, server)
    await page.evaluate(() => {
      const now = () => performance.timeOrigin + performance.now()
      const b = (window.__stream = { longtasks: [], gaps: [], frames: 0, running: true, shownAt: null, updates: 0, firstUpdate: null, lastUpdate: null })
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) b.longtasks.push({ start: e.startTime, duration: e.duration })
      }).observe({ type: 'longtask', buffered: true })
      let last = performance.now()
      const frame = (t) => {
        b.frames++
        if (t - last > 50) b.gaps.push(t - last)
        last = t
        if (b.running) requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
      const mo = new MutationObserver(() => {
        const el = [...document.querySelectorAll('[data-testid=assistant-message], [data-testid=streaming-message]')].at(-1)
        if (el && el.textContent.includes('END-OF-STREAM')) {
          b.shownAt = now()
          mo.disconnect()
        }
      })
      mo.observe(document, { childList: true, subtree: true, characterData: true })
      // How often the streaming bubble changed (one observer callback per DOM update batch).
      const updates = new MutationObserver((records) => {
        if (!b.running || !records.some((r) => r.target instanceof Node && (r.target.parentElement ?? r.target).closest?.('[data-testid=streaming-message]'))) return
        b.updates++
        b.firstUpdate ??= performance.now()
        b.lastUpdate = performance.now()
      })
      updates.observe(document, { childList: true, subtree: true, characterData: true })
    })
    const startPerf = await page.evaluate(() => performance.now())
    const cpu = await traceTaskCpu(page)

    // Responsiveness probe: one evaluate at a time; how long each waits for the main thread.
    const probe = { max: 0, pendingSince: null, stop: false }
    const prober = (async () => {
      while (!probe.stop) {
        probe.pendingSince = now()
        await page.evaluate(() => 0).catch(() => {})
        probe.max = Math.max(probe.max, now() - probe.pendingSince)
        probe.pendingSince = null
        await sleep(200)
      }
    })()

    model.state.stream = null // a stream of an earlier run is not this one's
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('stream')
    await composer.press('Enter')
    await waitUntil(() => model.state.stream, { timeout: (STREAM_SECONDS + 30) * 1000, interval: 200, what: 'the model stream to end' })
    const tEnd = model.state.stream.end
    const caughtUp = await waitUntil(async () => {
      if (probe.pendingSince !== null) return null // main thread busy: cannot ask
      return Promise.race([page.evaluate(() => window.__stream.shownAt), sleep(1000).then(() => null)])
    }, { timeout: CATCHUP_SECONDS * 1000, interval: 250, what: 'the UI to show the last token' }).catch(() => null)
    const blockedNow = probe.pendingSince !== null ? now() - probe.pendingSince : 0
    let r = { responsive: false }
    if (caughtUp) {
      await sleep(500)
      r = await page.evaluate((since) => {
        const b = window.__stream
        b.running = false
        const lts = b.longtasks.filter((x) => x.start >= since)
        return {
          responsive: true,
          longtasks: lts.length,
          longMax: Math.max(0, ...lts.map((x) => x.duration)),
          longTotal: lts.reduce((s, x) => s + x.duration, 0),
          over100: lts.filter((x) => x.duration > 100).length,
          detail: lts.map((x) => ({ at: Math.round(x.start - since), ms: Math.round(x.duration) })),
          gaps: b.gaps.length,
          gapMax: Math.max(0, ...b.gaps),
          frames: b.frames,
          updates: b.updates,
          updateSeconds: b.lastUpdate && b.firstUpdate ? (b.lastUpdate - b.firstUpdate) / 1000 : 0,
          textLength: [...document.querySelectorAll('[data-testid=assistant-message]')].at(-1)?.innerText.length ?? 0,
        }
      }, startPerf)
    }
    probe.stop = true
    Object.assign(r, await cpu.stop())
    const s = model.state.stream
    const note = r.responsive
      ? `${r.longtasks} long tasks, ${r.gaps} frame gaps > 50 ms (max ${ms(r.gapMax)}), ${STREAM_RATE} tokens/s for ${STREAM_SECONDS} s; ` +
        `main-thread CPU: ${r.cpuLong} tasks over 50 ms, longest ${ms(r.cpuMax)}`
      : `the UI had not caught up ${CATCHUP_SECONDS} s after the stream`
    if (record) recordFigure({ id: 'stream500.longtask.max', label: `longest task while streaming ${STREAM_RATE} tokens/s (Chromium)`,
      value: r.responsive ? r.longMax : null, unit: 'ms', target: 50, cmp: '<=', note })
    if (record) recordFigure({ id: 'stream500.longtasks', label: `long tasks (> 50 ms) while streaming ${STREAM_RATE} tokens/s (Chromium)`,
      value: r.responsive ? r.longtasks : null, unit: 'tasks', target: 0, cmp: '<=', note })
    return {
      ...r, tokens: s.sent, seconds: (s.end - s.start) / 1000, rate: s.sent / ((s.end - s.start) / 1000),
      endLag: caughtUp ? caughtUp - tEnd : null, probeMax: Math.max(probe.max, blockedNow), stillBlocked: blockedNow,
    }
  } finally {
    await browser.close()
  }
}

// (f) In its own Chromium too.
async function thinkingStream(server, model) {
  const browser = await launchChromium()
  try {
    const page = await newChatPage(browser, server)
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable')
    await page.evaluate(() => {
      const now = () => performance.timeOrigin + performance.now()
      const b = (window.__think = { longtasks: [], shownAt: null, thinkingShown: false })
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) b.longtasks.push({ start: e.startTime, duration: e.duration })
      }).observe({ type: 'longtask', buffered: true })
      const mo = new MutationObserver(() => {
        b.thinkingShown ||= !!document.querySelector('[data-testid=thinking-live-text] .thinking-piece')
        const el = [...document.querySelectorAll('[data-testid=assistant-message], [data-testid=streaming-message]')].at(-1)
        if (el && el.textContent.includes('END-OF-STREAM')) {
          b.shownAt = now()
          mo.disconnect()
        }
      })
      mo.observe(document, { childList: true, subtree: true, characterData: true })
    })
    const startPerf = await page.evaluate(() => performance.now())
    const cpu = await traceTaskCpu(page)
    // A forced collection is a long task of its own: the tasks inside one are left out.
    const gcWindows = []
    const heap = async () => {
      const a = await page.evaluate(() => (performance.mark('bench-skip-start'), performance.now()))
      await cdp.send('HeapProfiler.collectGarbage')
      const { metrics } = await cdp.send('Performance.getMetrics')
      const b = await page.evaluate(() => (performance.mark('bench-skip-end'), performance.now()))
      gcWindows.push([a, b])
      const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]))
      return { mb: m.JSHeapUsedSize / 1048576, nodes: m.Nodes }
    }

    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('think-stream')
    await composer.press('Enter')
    await waitUntil(() => model.state.thinking, { timeout: 30000, what: 'the thinking stream to start' })
    await sleep(Math.max(0, model.state.thinking.start + 10000 - now()))
    const at10 = await heap()
    await waitUntil(() => model.state.thinking.thinkEnd, { timeout: (THINK_STREAM_SECONDS + 30) * 1000, interval: 200, what: 'the thinking to end' })
    const thinkEndPerf = (await page.evaluate(() => performance.now())) - startPerf
    const atThinkEnd = await heap()
    await waitUntil(() => model.state.thinking.end, { timeout: (THINK_ANSWER_SECONDS + 30) * 1000, interval: 200, what: 'the answer to end' })
    const caughtUp = await waitUntil(() => Promise.race([page.evaluate(() => window.__think.shownAt), sleep(1000).then(() => null)]),
      { timeout: CATCHUP_SECONDS * 1000, interval: 250, what: 'the UI to show the last token' }).catch(() => null)
    await sleep(500)
    const atEnd = await heap()
    const r = await page.evaluate(({ since, windows }) => {
      const b = window.__think
      const inGc = (x) => windows.some(([a, z]) => x.start + x.duration >= a && x.start <= z)
      const lts = b.longtasks.filter((x) => x.start >= since && !inGc(x))
      return { longtasks: lts.length, longMax: Math.max(0, ...lts.map((x) => x.duration)), thinkingShown: b.thinkingShown,
        detail: lts.map((x) => ({ at: Math.round(x.start - since), ms: Math.round(x.duration) })) }
    }, { since: startPerf, windows: gcWindows })
    Object.assign(r, await cpu.stop())
    const t = model.state.thinking
    const growth = atThinkEnd.mb - at10.mb
    const note = `${STREAM_RATE} thinking tokens/s for ${THINK_STREAM_SECONDS} s, then answer tokens for ${THINK_ANSWER_SECONDS} s; ` +
      `JS heap after GC ${at10.mb.toFixed(1)} MB at 10 s, ${atThinkEnd.mb.toFixed(1)} MB at the end of the thinking, ${atEnd.mb.toFixed(1)} MB after the answer; ` +
      `DOM nodes ${at10.nodes} / ${atThinkEnd.nodes} / ${atEnd.nodes}; main-thread CPU: ${r.cpuLong} tasks over 50 ms, longest ${ms(r.cpuMax)}` +
      (caughtUp ? '' : '; the UI had not caught up')
    recordFigure({ id: 'think500.longtask.max', label: `longest task while a model thinks then answers at ${STREAM_RATE} tokens/s (Chromium)`,
      value: caughtUp ? r.longMax : null, unit: 'ms', target: 50, cmp: '<=', note })
    recordFigure({ id: 'think500.longtasks', label: `long tasks (> 50 ms) while a model thinks then answers (Chromium)`,
      value: caughtUp ? r.longtasks : null, unit: 'tasks', target: 0, cmp: '<=', note })
    recordFigure({ id: 'think500.heap.growth', label: `JS heap growth over ${THINK_STREAM_SECONDS - 10} s of thinking (after GC, Chromium)`,
      value: growth, unit: 'MB', target: 2, cmp: '<=', note })
    return { ...r, caughtUp: !!caughtUp, at10, atThinkEnd, atEnd, growth, tokens: t.sent, endLag: caughtUp ? caughtUp - t.end : null,
      thinkEndAt: Math.round(thinkEndPerf), gcWindows: gcWindows.map(([a, z]) => [Math.round(a - startPerf), Math.round(z - startPerf)]) }
  } finally {
    await browser.close()
  }
}

// (e)
async function bigConversation(browser, server) {
  const t0 = new Date(Date.now() - MESSAGES * 1000)
  const messages = []
  for (let i = 1; i <= MESSAGES; i++) {
    messages.push({
      role: i % 2 ? 'user' : 'assistant',
      content: i % 2 ? `Question number ${i}: what about item ${i}? msg ${i}` : `Answer ${i}: here is a **short** reply with a [link](https://example.com/${i}) and \`code\`. msg ${i}`,
      created_at: new Date(t0.getTime() + i * 1000).toISOString(),
    })
  }
  const title = `Bench ${MESSAGES} messages`
  const doc = { format: 'parley.conversation', version: 1, exported_at: new Date().toISOString(),
    conversation: { title, assistant: 'default', pinned: false, created_at: t0.toISOString(), updated_at: new Date().toISOString() },
    messages, runs: [], cards: [] }
  const tImport = now()
  const imp = await server.api('POST', '/api/v1/conversations/import', doc)
  if (imp.status !== 201) throw new Error('import: ' + JSON.stringify(imp))
  const importMs = now() - tImport
  const small = (await server.api('POST', '/api/v1/conversations', { title: 'Small one' })).body.id
  await server.api('POST', `/api/v1/conversations/${small}/messages`, { content: 'hello' })
  await conversationIdle(server, small)

  const page = await newChatPage(browser, server)
  await page.evaluate(() => {
    window.__open = { longtasks: [] }
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__open.longtasks.push({ start: e.startTime, duration: e.duration }) }).observe({ type: 'longtask' })
  })
  const open = (name, marker) => page.evaluate(async ({ name, marker }) => {
    const btn = [...document.querySelectorAll('[data-testid=conversation-open]')].find((b) => b.innerText.includes(name))
    if (!btn) throw new Error('no sidebar entry ' + name + ': ' + document.querySelector('[data-testid=sidebar]')?.innerText)
    const done = () => {
      const list = document.querySelector('[data-testid=message-list]')
      const msgs = list ? list.querySelectorAll('[data-testid=user-message], [data-testid=assistant-message]') : []
      const last = msgs[msgs.length - 1]
      return last && last.innerText.includes(marker) ? msgs.length : 0
    }
    const t0 = performance.now()
    const shown = await new Promise((resolve, reject) => {
      const mo = new MutationObserver(() => {
        const n = done()
        if (n) { mo.disconnect(); resolve(n) }
      })
      mo.observe(document, { childList: true, subtree: true, characterData: true })
      btn.click()
      setTimeout(() => { mo.disconnect(); reject(new Error('last message not shown in 30 s')) }, 30000)
    })
    const tDom = performance.now()
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    const lt = window.__open.longtasks.filter((x) => x.start >= t0)
    return { dom: tDom - t0, paint: performance.now() - t0, rendered: shown, longMax: Math.max(0, ...lt.map((x) => x.duration)) }
  }, { name, marker })

  const runs = []
  for (let i = 0; i < 6; i++) {
    runs.push(await open(title, `msg ${MESSAGES}`))
    await open('Small one', 'Short reply')
  }
  await page.close()
  const again = stats(runs.slice(1).map((r) => r.paint))
  recordFigure({ id: 'open5000.first', label: `first open of a ${MESSAGES}-message conversation, click -> painted (Chromium)`,
    value: runs[0].paint, unit: 'ms', target: 200, cmp: '<=', note: `DOM ${ms(runs[0].dom)}; opened again p50 ${ms(again.p50)}` })
  recordFigure({ id: 'open5000.longtask.max', label: `longest task while opening a ${MESSAGES}-message conversation (Chromium)`,
    value: Math.max(...runs.map((r) => r.longMax)), unit: 'ms', target: 50, cmp: '<=', note: `first open ${ms(runs[0].longMax)}; ${runs.length} opens` })
  return { importMs, first: runs[0], again, rendered: runs[0].rendered, longMax: Math.max(...runs.map((r) => r.longMax)) }
}

// ---------------------------------------------------------------------------

// The card trace of the measured rounds (parley serve runs with PARLEY_TRACE=1):
// the hop tables of card -> page and Submit -> next request, with the model
// server's own times as the first and last hops.
async function traceTables(server, measured) {
  const res = await server.api('GET', '/api/v1/debug/trace')
  if (res.status !== 200) throw new Error('trace: ' + JSON.stringify(res))
  const recs = recordsOf(res.body.records, measured.map((m) => m.id))
  const byId = new Map(measured.map((m) => [m.id, m]))
  const withServer = recs.map((r) => {
    const m = byId.get(r.keys.find((k) => byId.has(k)))
    return { keys: r.keys, marks: { ...r.marks, server_write: m.serverWrite, server_request: m.serverRequest } }
  })
  return {
    card: hopTable(withServer, ['server_write', ...CARD_HOPS]),
    submit: hopTable(withServer, [...SUBMIT_HOPS, 'server_request']),
    records: withServer,
  }
}

// The best ratio a page could reach on this machine: each measured round's
// Go path (the model server's write -> the card's event written to the SSE
// stream, from the trace) with the floor's page on top (each floor round:
// SSE write -> element in the DOM), every pair, so that the spread of both
// is kept. A page that cost no more than the bare one would be at this ratio.
function pageBound(records, floorDom) {
  const goPath = records.map((r) => r.marks.sse_written - r.marks.server_write).filter(Number.isFinite)
  if (!goPath.length || !floorDom.length) return null
  const sums = goPath.flatMap((g) => floorDom.map((f) => g + f))
  const floor = stats(floorDom)
  const sum = stats(sums)
  return { goPath: stats(goPath), sum, ratio: sum.p95 / floor.p95 }
}

// (g) A folder of Markdown files with headings and paragraphs, for indexing.
function writeIndexFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-index-'))
  const words = 'install configure server client network storage backup restore invoice payment refund customer account password security update release version feature error warning request response latency database index search query'.split(' ')
  let seed = 1
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  for (let i = 0; i < INDEX_FILES; i++) {
    const sub = join(dir, `d${String(i % 100).padStart(3, '0')}`)
    if (i < 100) mkdirSync(sub)
    let text = `# Document ${i}\n\n`
    for (let sec = 0; text.length < INDEX_FILE_BYTES; sec++) {
      text += `## Section ${sec}\n\n`
      for (let p = 0; p < 3 && text.length < INDEX_FILE_BYTES; p++) {
        text += Array.from({ length: 40 }, () => words[rnd(words.length)]).join(' ') + '.\n\n'
      }
    }
    writeFileSync(join(sub, `f${String(i).padStart(5, '0')}.md`), text)
  }
  return dir
}

// keepIndexing indexes dir until stopped: a collection of it, and when
// that one is done, deleted and made again (each indexes from scratch).
// stop() says how many collections were made and files indexed.
function keepIndexing(server, dir) {
  let stopped = false
  let made = 0
  let files = 0
  let current = null
  const loop = (async () => {
    while (!stopped) {
      const res = await server.api('POST', '/api/v1/knowledge', { name: `bench ${made}`, paths: [dir] })
      if (res.status !== 201) throw new Error('create collection: ' + JSON.stringify(res.body))
      current = res.body.id
      made++
      for (;;) {
        await sleep(250)
        const { body } = await server.api('GET', `/api/v1/knowledge/${current}`)
        if (body.status !== 'indexing' || stopped) {
          files += body.indexed_files
          break
        }
      }
      await server.api('DELETE', `/api/v1/knowledge/${current}`)
    }
  })()
  return async () => {
    stopped = true
    await loop
    return { collections: made, indexed: files }
  }
}

async function duringIndexing(browser, server, model) {
  log(`(g) writing ${INDEX_FILES} Markdown files of ${INDEX_FILE_BYTES} bytes`)
  const dir = writeIndexFolder()
  const out = { files: INDEX_FILES, fileBytes: INDEX_FILE_BYTES }
  try {
    let stop = keepIndexing(server, dir)
    log(`(g) card rounds while ${INDEX_FILES} files index`)
    out.cards = await cardRounds(browser, server, model, 20000)
    out.cardsIndexing = await stop()
    stop = keepIndexing(server, dir)
    log(`(g) streaming while ${INDEX_FILES} files index`)
    out.stream = await longStream(server, model, false)
    out.streamIndexing = await stop()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

async function main() {
  const model = await startModel()
  if (process.env.BENCH_TRACE !== '0') process.env.PARLEY_TRACE = '1' // inherited by parley serve
  const server = await startTempServe({
    extraArgs: ['--base-url', `http://127.0.0.1:${model.port}/v1`, '--model', 'bench', '--question-timeout', '0'],
  })
  let browser
  const results = { rounds: ROUNDS, clients: CLIENTS, streamSeconds: STREAM_SECONDS, streamRate: STREAM_RATE, messages: MESSAGES }
  try {
    const { body } = await server.api('GET', '/api/v1/settings')
    const put = await server.api('PUT', '/api/v1/settings', { ...body, rate_limit_seconds: 0, onboarded: true, demo_mode: false })
    if (put.status !== 200) throw new Error('settings: ' + JSON.stringify(put.body))
    browser = await launchChromium()
    results.chromium = browser.version()

    if (ONLY.includes('a')) {
      log(`(a)+(b) ${WARMUP} warm-up + ${ROUNDS} card rounds`)
      results.cards = await cardRounds(browser, server, model)
      // The floor on this machine, now: a bare page in the same Chromium
      // appending one element per SSE event (bench/floor.mjs).
      log(`(a) floor: ${WARMUP} warm-up + ${ROUNDS} events to a bare page`)
      const fl = await floorRounds(browser, { rounds: ROUNDS, warmup: WARMUP })
      results.floor = { a: stats(fl.paint), aDom: stats(fl.dom) }
      if (process.env.PARLEY_TRACE === '1') {
        results.trace = await traceTables(server, results.cards.measured)
        results.bound = pageBound(results.trace.records, fl.dom)
      }
      // The same with a model that thinks before its first token, as real
      // ones do: the card then does not arrive while the page is still
      // showing the user's own message (see the trace's page_received hop).
      if (THINK_MS > 0) {
        log(`(a') ${WARMUP} warm-up + ${ROUNDS} card rounds, the model thinking ${THINK_MS} ms before the call`)
        model.state.thinkMs = THINK_MS
        results.cardsThinking = await cardRounds(browser, server, model, 10000)
        model.state.thinkMs = 0
      }
    }
    if (ONLY.includes('c')) {
      log(`(c) SSE fan-out to ${CLIENTS} clients, ${FANOUT_CHUNKS} chunks`)
      results.fanout = await fanout(server, model)
    }
    if (ONLY.includes('d')) {
      log(`(d) streaming ${STREAM_RATE} tokens/s for ${STREAM_SECONDS} s`)
      results.stream = await longStream(server, model)
    }
    if (ONLY.includes('e')) {
      log(`(e) opening a ${MESSAGES}-message conversation`)
      results.big = await bigConversation(browser, server)
    }
    if (ONLY.includes('f')) {
      log(`(f) a model thinking ${THINK_STREAM_SECONDS} s then answering ${THINK_ANSWER_SECONDS} s at ${STREAM_RATE} tokens/s`)
      results.thinking = await thinkingStream(server, model)
    }
    if (ONLY.includes('g')) {
      results.indexing = await duringIndexing(browser, server, model)
    }
  } finally {
    await browser?.close()
    await server.stop()
    await model.close()
  }
  if (model.state.unexpected.length) log('unexpected model server requests:', model.state.unexpected.join(', '))

  const { cards, fanout: f, stream: s, big, thinking: th } = results
  const row = (name, st) => `${name.padEnd(52)} ${String(st.n).padStart(5)} ${ms(st.p50).padStart(9)} ${ms(st.p95).padStart(9)} ${ms(st.max).padStart(9)}`
  const lines = [
    '',
    `Parley UI latency — parley serve + Chromium ${results.chromium}, scripted model server (llama.cpp-style SSE)`,
    `${'measure'.padEnd(52)} ${'n'.padStart(5)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'max'.padStart(9)}`,
  ]
  if (cards) {
    lines.push(row('(a) tool-call chunk -> card painted', cards.a), row('    tool-call chunk -> card in the DOM', cards.aDom))
    if (results.floor) {
      lines.push(row('    floor (bare page, SSE event -> element): painted', results.floor.a),
        row('    floor: in the DOM', results.floor.aDom))
    }
    lines.push(row('(b) Submit click -> next model request', cards.b))
    if (results.cardsThinking) {
      const ct = results.cardsThinking
      lines.push(row(`(a') the model thinks ${THINK_MS} ms: card painted`, ct.a), row('     ... card in the DOM', ct.aDom))
    }
  }
  if (f) {
    lines.push(row(`(c) SSE: model chunk -> delta at all ${CLIENTS} clients`, f.all), row('    SSE: model chunk -> delta at first client', f.first),
      row(`    SSE: spread first..last of ${CLIENTS} clients`, f.spread), '',
      `(c) ${f.events} delta events received in all; chunks not seen by every client: ${f.incomplete}${f.errors.length ? '; errors: ' + f.errors.join('; ') : ''}`)
  }
  if (s) {
    const head = `(d) streamed ${s.tokens} tokens in ${s.seconds.toFixed(1)} s (${s.rate.toFixed(0)} tokens/s); longest wait for the page's main thread ${ms(s.probeMax)}`
    if (s.responsive) {
      lines.push(head + `; long tasks ${s.longtasks} (max ${ms(s.longMax)}, total ${ms(s.longTotal)}, over 100 ms: ${s.over100}); ` +
        `frame gaps > 50 ms: ${s.gaps} (max ${ms(s.gapMax)}) of ${s.frames} frames; last token shown ${ms(s.endLag)} after the model sent it; ` +
        `main-thread CPU: ${s.cpuLong} tasks over 50 ms, longest ${ms(s.cpuMax)}; the streaming bubble changed ${s.updates} times (${s.updateSeconds ? (s.updates / s.updateSeconds).toFixed(0) : '-'}/s); final message ${s.textLength} characters`)
    } else {
      lines.push(head + `; the UI had not shown the last token ${CATCHUP_SECONDS} s after the stream ended ` +
        `(main thread blocked for ${ms(s.stillBlocked)} at that point): long tasks could not be read`)
    }
  }
  if (big) {
    lines.push(`(e) ${MESSAGES}-message conversation: imported in ${ms(big.importMs)}; click -> last message painted: first ${ms(big.first.paint)} ` +
      `(DOM ${ms(big.first.dom)}), again p50 ${ms(big.again.p50)} / max ${ms(big.again.max)} (n=${big.again.n}); ` +
      `${big.rendered} messages rendered (windowed); longest task while opening ${ms(big.longMax)}`)
  }
  if (th) {
    lines.push(`(f) thinking ${THINK_STREAM_SECONDS} s then answering ${THINK_ANSWER_SECONDS} s at ${STREAM_RATE} tokens/s (${th.tokens} tokens): ` +
      (th.caughtUp ? `long tasks ${th.longtasks} (max ${ms(th.longMax)}); last token shown ${ms(th.endLag)} after the model sent it; ` : 'the UI had not caught up; ') +
      `main-thread CPU (forced collections left out): ${th.cpuLong} tasks over 50 ms, longest ${ms(th.cpuMax)}; ` +
      `JS heap after GC ${th.at10.mb.toFixed(1)} MB at 10 s, ${th.atThinkEnd.mb.toFixed(1)} MB when the thinking ended (growth ${th.growth.toFixed(2)} MB), ` +
      `${th.atEnd.mb.toFixed(1)} MB after the answer; DOM nodes ${th.at10.nodes} / ${th.atThinkEnd.nodes} / ${th.atEnd.nodes}` +
      (th.thinkingShown ? '' : '; the thinking block never showed text'))
  }
  const ix = results.indexing
  if (ix) {
    const still = (p) => `indexing all along: ${p.indexed} files indexed by ${p.collections} collection(s) made one after another`
    lines.push('', `(g) while a folder of ${ix.files} Markdown files (${ix.fileBytes} bytes each) indexes:`)
    if (ix.cards) {
      lines.push(row('(g) tool-call chunk -> card painted', ix.cards.a), row('    tool-call chunk -> card in the DOM', ix.cards.aDom),
        row('    Submit click -> next model request', ix.cards.b), `    cards: ${still(ix.cardsIndexing)}`)
    }
    if (ix.stream) {
      const st = ix.stream
      lines.push(`(g) streamed ${st.tokens} tokens (${st.rate.toFixed(0)} tokens/s): ` + (st.responsive
        ? `long tasks ${st.longtasks} (max ${ms(st.longMax)}); last token shown ${ms(st.endLag)} after the model sent it`
        : 'the UI had not caught up') + `; ${still(ix.streamIndexing)}`)
    }
  }
  if (results.trace) {
    lines.push('', formatHopTable('(a) the card trace, hop by hop (+ = since the hop before, cum = since the model server wrote the first tool-call chunk):', results.trace.card),
      '', formatHopTable('(b) Submit -> next model request, hop by hop (cum = since the Submit click in the page):', results.trace.submit))
  }
  if (results.bound) {
    const b = results.bound
    lines.push('', `(a) the best a page could do here: Parley's Go path (model server's write -> card event written) p50 ${ms(b.goPath.p50)}, p95 ${ms(b.goPath.p95)}; ` +
      `with the bare page on top p95 ${ms(b.sum.p95)} = ${b.ratio.toFixed(2)}× the floor in the DOM (the page's own share is what Parley's figure adds beyond it)`)
  }
  lines.push('')
  console.log(lines.join('\n'))
  if (cards) {
    const note = (st) => `p50 ${st.p50.toFixed(1)} ms, n=${st.n}; Chromium ${results.chromium}`
    // No millisecond targets: bench/summary.mjs judges these as ratios to the floor.
    recordFigure({ id: 'card.dom.p95', label: 'tool-call chunk -> card in the DOM, p95 (Chromium)', value: cards.aDom.p95, unit: 'ms', note: note(cards.aDom) })
    recordFigure({ id: 'card.paint.p95', label: 'tool-call chunk -> card painted, p95 (Chromium)', value: cards.a.p95, unit: 'ms', note: note(cards.a) })
    if (results.floor) {
      const fl = results.floor
      recordFigure({ id: 'card.dom.floor.p95', label: 'floor: SSE event -> element in the DOM, p95 (bare page, Chromium)', value: fl.aDom.p95, unit: 'ms', note: note(fl.aDom) })
      recordFigure({ id: 'card.paint.floor.p95', label: 'floor: SSE event -> element painted, p95 (bare page, Chromium)', value: fl.a.p95, unit: 'ms', note: note(fl.a) })
    }
    if (results.cardsThinking) {
      const ct = results.cardsThinking
      recordFigure({ id: 'card.dom.p95.thinking', label: `card in the DOM, p95, model thinking ${THINK_MS} ms (Chromium)`, value: ct.aDom.p95, unit: 'ms', note: note(ct.aDom) })
      recordFigure({ id: 'card.paint.p95.thinking', label: `card painted, p95, model thinking ${THINK_MS} ms (Chromium)`, value: ct.a.p95, unit: 'ms', note: note(ct.a) })
    }
    if (results.bound) {
      recordFigure({ id: 'card.dom.bound.ratio', label: 'card in the DOM: Go path + bare page / floor, p95 (the best ratio a page can reach, Chromium)', value: results.bound.ratio, unit: '×',
        note: `Go path p95 ${results.bound.goPath.p95.toFixed(1)} ms; with the bare page on top p95 ${results.bound.sum.p95.toFixed(1)} ms` })
    }
    recordFigure({ id: 'submit.next.p95', label: 'Submit click -> next model request, p95 (Chromium)', value: cards.b.p95, unit: 'ms', target: 10, cmp: '<=', note: note(cards.b) })
  }
  if (ix?.cards) {
    const note = (st, p) => `p50 ${st.p50.toFixed(1)} ms, n=${st.n}; ${p.indexed} files indexed meanwhile`
    recordFigure({ id: 'indexing.card.dom.p95', label: `while ${ix.files} files index: card in the DOM, p95`, value: ix.cards.aDom.p95, unit: 'ms', target: 16, cmp: '<=', note: note(ix.cards.aDom, ix.cardsIndexing) })
    recordFigure({ id: 'indexing.card.paint.p95', label: `while ${ix.files} files index: card painted, p95`, value: ix.cards.a.p95, unit: 'ms', target: 33, cmp: '<=', note: note(ix.cards.a, ix.cardsIndexing) })
    recordFigure({ id: 'indexing.submit.next.p95', label: `while ${ix.files} files index: Submit -> next model request, p95`, value: ix.cards.b.p95, unit: 'ms', target: 10, cmp: '<=', note: note(ix.cards.b, ix.cardsIndexing) })
  }
  if (ix?.stream?.responsive) {
    const p = ix.streamIndexing
    recordFigure({ id: 'indexing.stream.longtask.max', label: `while ${ix.files} files index: streaming, longest task`, value: ix.stream.longMax, unit: 'ms', target: 50, cmp: '<=', note: `${ix.stream.longtasks} long tasks; ${p.indexed} files indexed meanwhile` })
  }
  const path = await saveArtifact('bench-ui-latency.json', JSON.stringify(results, null, 2))
  log('results saved to', path)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
