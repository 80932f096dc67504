// (e) of the UI latency bench (bench/ui-latency.mjs): opening a
// conversation of MESSAGES messages (imported), click -> last message
// painted, the first time and again; then sending in it, Enter -> the
// user's message painted, beside the same in a conversation of two messages
// (what a send costs the page must not grow with the conversation).
import { recordFigure } from './figures.mjs'
import { ms, stats } from './stats.mjs'
import { MESSAGES, now } from './ui-knobs.mjs'
import { waitUntil } from '../frontend/e2e/util.mjs'
import { conversationIdle, newChatPage, startProfile, traceTaskCpu } from './ui-page.mjs'

// Sends in each conversation: blocks of sends, alternating, the first of
// each block not measured.
const SEND_BLOCKS = 3
const SEND_PER_BLOCK = 6

// (e)
export async function bigConversation(browser, server) {
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
    // Called on every mutation, inside the page's own tasks: textContent,
    // which needs no layout (innerText forced one on each call, a cost the
    // bench added to the open it measures).
    const done = () => {
      const list = document.querySelector('[data-testid=message-list]')
      const msgs = list ? list.querySelectorAll('[data-testid=user-message], [data-testid=assistant-message]') : []
      const last = msgs[msgs.length - 1]
      return last && last.textContent.includes(marker) ? msgs.length : 0
    }
    let t0 = 0
    const shown = await new Promise((resolve, reject) => {
      const mo = new MutationObserver(() => {
        const n = done()
        if (n) { mo.disconnect(); resolve(n) }
      })
      mo.observe(document, { childList: true, subtree: true, characterData: true })
      // The click in a task of its own: the task of this evaluate also runs
      // DevTools' side of the call (in a trace, ~40 ms of V8 interrupt
      // callbacks on the first open), which is the bench's, not the page's.
      setTimeout(() => {
        t0 = performance.now()
        btn.click()
      }, 0)
      setTimeout(() => { mo.disconnect(); reject(new Error('last message not shown in 30 s')) }, 30000)
    })
    const tDom = performance.now()
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))
    const lt = window.__open.longtasks.filter((x) => x.start >= t0)
    return { dom: tDom - t0, paint: performance.now() - t0, rendered: shown, longMax: Math.max(0, ...lt.map((x) => x.duration)) }
  }, { name, marker })

  const cpu = await traceTaskCpu(page, 'open')
  const runs = []
  for (let i = 0; i < 6; i++) {
    runs.push(await open(title, `msg ${MESSAGES}`))
    await open('Small one', 'Short reply')
  }
  const { cpuLong, cpuMax } = await cpu.stop()

  // Sending: Enter -> the user's message painted, in the long conversation
  // and in the small one, in alternating blocks.
  await page.evaluate(() => {
    const b = (window.__send = { enters: [], seen: {} })
    document.addEventListener('keydown', (e) => { if (e.key === 'Enter') b.enters.push(performance.now()) }, true)
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid=user-message]')) {
        const m = /^send (\d+)$/.exec(el.textContent.trim())
        if (!m || b.seen[m[1]]) continue
        const rec = (b.seen[m[1]] = { dom: performance.now(), at: b.enters.length - 1 })
        requestAnimationFrame(() => setTimeout(() => { rec.paint = performance.now() }, 0))
      }
    }).observe(document, { childList: true, subtree: true, characterData: true })
  })
  const composer = page.getByRole('textbox', { name: 'Message' })
  const sent = { long: [], small: [] }
  const shownCount = () => page.evaluate(() => document.querySelectorAll('[data-testid=message-list] [data-testid$=-message]').length)
  let n = 0
  // BENCH_SEND_PROFILE=file: a Chromium trace of the sends (bench/profile-tasks.mjs
  // prints each send's tasks: the keydowns are its rounds, blocks of SEND_PER_BLOCK).
  const prof = process.env.BENCH_SEND_PROFILE ? await startProfile(page) : null
  for (let block = 0; block < 2 * SEND_BLOCKS; block++) {
    const side = block % 2 ? 'small' : 'long'
    await open(side === 'long' ? title : 'Small one', side === 'long' && block === 0 ? `msg ${MESSAGES}` : 'Short reply')
    // The long one renders its window a chunk at a time once idle: sends
    // start when it has stopped growing.
    let last = -1
    await waitUntil(async () => { const c = await shownCount(); const same = c === last; last = c; return same }, { interval: 150, timeout: 15000, what: 'the list done growing' })
    for (let k = 0; k < SEND_PER_BLOCK; k++, n++) {
      await composer.fill(`send ${n}`)
      await composer.press('Enter')
      const rec = await waitUntil(() => page.evaluate((i) => (window.__send.seen[i]?.paint ? window.__send.seen[i] : null), n), {
        interval: 10, timeout: 15000, what: `message ${n} painted`,
      })
      const enter = await page.evaluate((at) => window.__send.enters[at], rec.at)
      await conversationIdle(server, side === 'long' ? imp.body.id : small)
      if (k > 0) sent[side].push(rec.paint - enter) // the block's first send warms up
    }
  }
  if (prof) await prof.stop(process.env.BENCH_SEND_PROFILE)
  await page.close()
  const sendLong = stats(sent.long)
  const sendSmall = stats(sent.small)
  recordFigure({ id: 'send.long.paint', label: `Enter in a ${MESSAGES}-message conversation -> the message painted, p95 (Chromium)`,
    value: sendLong.p95, unit: 'ms', note: `p50 ${ms(sendLong.p50)}, n=${sendLong.n}; in a conversation of two messages p95 ${ms(sendSmall.p95)}, p50 ${ms(sendSmall.p50)}` })
  recordFigure({ id: 'send.long.ratio', label: `the same / in a conversation of two messages, p95 (Chromium)`,
    value: sendLong.p95 / sendSmall.p95, unit: '×', note: `${ms(sendLong.p95)} / ${ms(sendSmall.p95)}` })
  const again = stats(runs.slice(1).map((r) => r.paint))
  recordFigure({ id: 'open5000.first', label: `first open of a ${MESSAGES}-message conversation, click -> painted (Chromium)`,
    value: runs[0].paint, unit: 'ms', target: 200, cmp: '<=', note: `DOM ${ms(runs[0].dom)}; opened again p50 ${ms(again.p50)}` })
  recordFigure({ id: 'open5000.longtask.max', label: `longest task while opening a ${MESSAGES}-message conversation (Chromium)`,
    value: Math.max(...runs.map((r) => r.longMax)), unit: 'ms', target: 50, cmp: '<=', note: `first open ${ms(runs[0].longMax)}; ${runs.length} opens; main-thread CPU: ${cpuLong} tasks over 50 ms, longest ${ms(cpuMax)}` })
  return { importMs, first: runs[0], again, rendered: runs[0].rendered, longMax: Math.max(...runs.map((r) => r.longMax)), runs, cpuLong, cpuMax, sendLong, sendSmall }
}
