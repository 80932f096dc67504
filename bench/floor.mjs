// The floor of the card latency on this machine, in this run: a bare page
// in the same Chromium that appends one element per Server-Sent Event,
// measured exactly as Parley's card is (server write -> the element seen by
// a MutationObserver -> painted, i.e. the next frame and a task after it).
// Parley's figures are printed as a ratio to it (bench/summary.mjs), so a
// slow or busy machine does not read as a slow Parley.
import { createServer } from 'node:http'
import { sleep, waitUntil } from '../frontend/e2e/util.mjs'

const now = () => performance.timeOrigin + performance.now()

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head>
<body><button id="answer" type="button">Submit</button><main id="list"></main><script>
const now = () => performance.timeOrigin + performance.now()
const b = (window.__floor = { seen: {} })
new MutationObserver(() => {
  for (const el of document.querySelectorAll('#list > [data-i]')) {
    const i = el.dataset.i
    if (b.seen[i]) continue
    const rec = (b.seen[i] = { dom: now() })
    requestAnimationFrame(() => setTimeout(() => { rec.paint = now() }, 0))
  }
}).observe(document, { childList: true, subtree: true })
const list = document.getElementById('list')
// The bare page's answer: a click on the button POSTs, as a card's Submit does.
b.clicks = []
document.getElementById('answer').addEventListener('click', () => {
  b.clicks.push(now())
  fetch('/answer', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ answers: [['Alpha']] }) })
})
const es = new EventSource('/events')
es.onopen = () => { b.open = true }
es.onmessage = (e) => {
  const { i, text } = JSON.parse(e.data)
  const el = document.createElement('div')
  el.dataset.i = String(i)
  el.textContent = text
  list.append(el)
}
</script></body></html>`

// serveFloorPage serves html at / and one Server-Sent Event stream at
// /events on a random loopback port; a POST goes to onPost(req, res).
async function serveFloorPage(html, onPost) {
  let stream = null
  const server = createServer({ noDelay: true }, (req, res) => {
    if (req.method === 'POST') return onPost(req, res)
    if (req.url === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
      res.write(': open\n\n')
      stream = res
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
    res.end(html)
  })
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    stream: () => stream,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }),
  }
}

// startFloorServer serves the bare page and its event stream on a random
// loopback port; send(i) writes event i and returns when it was written.
async function startFloorServer() {
  const posts = [] // when each POST /answer arrived
  const srv = await serveFloorPage(PAGE, (req, res) => {
    posts.push(now())
    req.resume()
    req.on('end', () => res.writeHead(204).end())
  })
  return {
    url: srv.url,
    connected: () => srv.stream() !== null,
    posts,
    send(i) {
      const t = now()
      srv.stream().write(`data: ${JSON.stringify({ i, text: `Round ${i}: which one?` })}\n\n`)
      return t
    },
    close: srv.close,
  }
}

// paintedRounds runs warmup + rounds on a floor page: start(i) sets round i
// going, then its element is waited for until painted; writes holds when each
// round's event was written. Returns per measured round the milliseconds from
// that write to the element in the DOM and to it painted.
async function paintedRounds(page, { rounds, warmup, what, writes }, start) {
  const dom = []
  const paint = []
  for (let i = 0; i < warmup + rounds; i++) {
    await start(i)
    const rec = await waitUntil(() => page.evaluate((i) => (window.__floor.seen[i]?.paint ? window.__floor.seen[i] : null), i), {
      interval: 10, what: `${what} ${i} painted`,
    })
    if (i >= warmup) {
      const t = writes.get(i)
      dom.push(rec.dom - t)
      paint.push(rec.paint - t)
    }
    await sleep(50) // pacing between rounds, not a wait for a result
  }
  return { dom, paint }
}

// floorRounds measures warmup + rounds events, one at a time (the next once
// the last was painted and a short pause let the page go idle, as Parley's
// page is between two cards). It returns the per-round milliseconds from the
// server's write to the element in the DOM and to it painted.
export async function floorRounds(browser, { rounds, warmup }) {
  const srv = await startFloorServer()
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  try {
    await page.goto(srv.url)
    await waitUntil(() => srv.connected() && page.evaluate(() => window.__floor.open === true), { what: 'the floor page connected its event stream' })
    const writes = new Map() // round -> when its event was written
    return await paintedRounds(page, { rounds, warmup, what: 'floor event', writes }, (i) => writes.set(i, srv.send(i)))
  } finally {
    await page.close()
    await srv.close()
  }
}

// postRounds measures warmup + rounds answers of the bare page: a click on
// its button -> its POST at the server (what a card's Submit adds to the Go
// path, on a page that does nothing else). Returns the per-round milliseconds.
export async function postRounds(browser, { rounds, warmup }) {
  const srv = await startFloorServer()
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  try {
    await page.goto(srv.url)
    const out = []
    for (let i = 0; i < warmup + rounds; i++) {
      await page.click('#answer')
      await waitUntil(() => srv.posts.length > i, { interval: 5, what: `bare POST ${i} at the server` })
      const clicked = await waitUntil(() => page.evaluate((i) => window.__floor.clicks[i] ?? null, i), { what: `bare click ${i} time` })
      if (i >= warmup) out.push(srv.posts[i] - clicked)
      await sleep(50) // pacing between rounds, not a wait for a result
    }
    return out
  } finally {
    await page.close()
    await srv.close()
  }
}

// ---- the second bound: a bare chat page ----------------------------------------
// Issue #42. A chat page must show the user's message as Enter is pressed,
// and the card then comes a few milliseconds later, while that message's
// frame is still being drawn; a page that has just drawn a frame waits for
// the next refresh tick to draw another, where the idle bare page above gets
// one at once. This page does what any chat does and nothing else: Enter
// appends the user's message, scrolls to the bottom and POSTs it; the
// card's event then comes over SSE as long after that Enter as Parley's card
// event came after its Enter (round by round, from Parley's trace), and is
// appended (and scrolled to) as one element. Measured as the floor is.

const CHAT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>chat floor</title>
<style>html,body{margin:0;height:100%}body{display:flex;flex-direction:column;font:15px sans-serif}
#list{flex:1;overflow-y:auto;padding:24px}#list>div{margin:0 0 14px}.user{text-align:right}
textarea{margin:12px;height:3em}</style></head>
<body><main id="list"></main><textarea id="box" aria-label="Message"></textarea><script>
const now = () => performance.timeOrigin + performance.now()
const b = (window.__floor = { seen: {}, enters: [] })
new MutationObserver(() => {
  for (const el of document.querySelectorAll('#list > [data-i]')) {
    const i = el.dataset.i
    if (b.seen[i]) continue
    const rec = (b.seen[i] = { dom: now() })
    requestAnimationFrame(() => setTimeout(() => { rec.paint = now() }, 0))
  }
}).observe(document, { childList: true, subtree: true })
const list = document.getElementById('list')
const box = document.getElementById('box')
function append(el) {
  list.append(el)
  list.scrollTop = list.scrollHeight
}
box.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return
  e.preventDefault()
  const enter = now()
  b.enters.push(enter)
  const el = document.createElement('div')
  el.className = 'user'
  el.textContent = box.value
  box.value = ''
  append(el)
  fetch('/send', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ enter }) })
})
const es = new EventSource('/events')
es.onopen = () => { b.open = true }
es.onmessage = (e) => {
  const { i, text } = JSON.parse(e.data)
  const el = document.createElement('div')
  el.dataset.i = String(i)
  el.textContent = text
  append(el)
}
</script></body></html>`

// chatFloorRounds measures warmup + rounds of the bare chat page: Enter in
// its box, then its card event written afterEnter[i] ms after that Enter
// (cycling through the list). Returns per round the milliseconds from the
// event's write to the element in the DOM and to it painted.
export async function chatFloorRounds(browser, { rounds, warmup, afterEnter }) {
  let round = 0
  const writes = new Map() // round -> when its event was written
  const srv = await serveFloorPage(CHAT_PAGE, (req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      res.writeHead(204).end()
      const i = round++
      const { enter } = JSON.parse(body)
      const at = enter + afterEnter[i % afterEnter.length]
      setTimeout(() => {
        writes.set(i, now())
        srv.stream().write(`data: ${JSON.stringify({ i, text: `Round ${i}: which one?` })}\n\n`)
      }, Math.max(0, at - now()))
    })
  })
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  try {
    await page.goto(srv.url)
    await waitUntil(() => srv.stream() !== null && page.evaluate(() => window.__floor.open === true), { what: 'the chat floor page connected its event stream' })
    const box = page.getByRole('textbox', { name: 'Message' })
    return await paintedRounds(page, { rounds, warmup, what: 'chat floor event', writes }, async (i) => {
      await box.fill(`card ${i}`)
      await box.press('Enter')
    })
  } finally {
    await page.close()
    await srv.close()
  }
}
