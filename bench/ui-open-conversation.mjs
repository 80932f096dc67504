// (e) of the UI latency bench (bench/ui-latency.mjs): opening a
// conversation of MESSAGES messages (imported), click -> last message
// painted, the first time and again.
import { recordFigure } from './figures.mjs'
import { ms, stats } from './stats.mjs'
import { MESSAGES, now } from './ui-knobs.mjs'
import { conversationIdle, newChatPage, traceTaskCpu } from './ui-page.mjs'

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

  const cpu = await traceTaskCpu(page, 'open')
  const runs = []
  for (let i = 0; i < 6; i++) {
    runs.push(await open(title, `msg ${MESSAGES}`))
    await open('Small one', 'Short reply')
  }
  const { cpuLong, cpuMax } = await cpu.stop()
  await page.close()
  const again = stats(runs.slice(1).map((r) => r.paint))
  recordFigure({ id: 'open5000.first', label: `first open of a ${MESSAGES}-message conversation, click -> painted (Chromium)`,
    value: runs[0].paint, unit: 'ms', target: 200, cmp: '<=', note: `DOM ${ms(runs[0].dom)}; opened again p50 ${ms(again.p50)}` })
  recordFigure({ id: 'open5000.longtask.max', label: `longest task while opening a ${MESSAGES}-message conversation (Chromium)`,
    value: Math.max(...runs.map((r) => r.longMax)), unit: 'ms', target: 50, cmp: '<=', note: `first open ${ms(runs[0].longMax)}; ${runs.length} opens; main-thread CPU: ${cpuLong} tasks over 50 ms, longest ${ms(cpuMax)}` })
  return { importMs, first: runs[0], again, rendered: runs[0].rendered, longMax: Math.max(...runs.map((r) => r.longMax)), runs, cpuLong, cpuMax }
}
