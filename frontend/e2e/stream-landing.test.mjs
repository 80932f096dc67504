// A long reply that ends (SPEC §5): the stored message takes the place of
// the streamed one without a jump. The entry that streamed the reply shows
// it stored, with the same block elements (MessageItem), and does not lay
// out again the ones out of view (content-visibility: auto with their
// remembered size), so
// this checks what the user sees, in Chromium and in WebKit (the Linux app's
// engine): the list stays at the bottom, the reply keeps its height, its
// whole text is there, and scrolling up shows its first paragraph at its
// real size.
//
// The model is a scripted OpenAI-compatible server in this process (the
// chunk format of llama.cpp's server, as bench/ui-model-server.mjs): it
// streams PARAGRAPHS paragraphs, then holds the last words until the test
// has looked at the streaming bubble.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { launchChromium } from './helpers.mjs'
import { login, token } from './serve.mjs'
import { sleep, startTempServe, waitUntil } from './util.mjs'
import { startXvfb, startWebDriver, Session } from './webkit.mjs'

const PARAGRAPHS = 80
const paragraph = (i) => `P${i}: ` + 'the reply goes on with **bold** words and `code` in a paragraph long enough to wrap. '.repeat(3)
const LAST_WORDS = ' END-OF-REPLY.'

/** The model server: `long reply` streams the paragraphs, then waits for release() before its last words. */
function startModel() {
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created, model: 'e2e',
    choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const state = { streamed: 0, release: null }
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', async () => {
      if (req.method === 'GET' && req.url.endsWith('/models')) {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'e2e', object: 'model' }] }))
      }
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404, { 'Content-Type': 'application/json' })
        return res.end('{"error":{"message":"not found"}}')
      }
      const r = JSON.parse(body)
      if (!r.stream) {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created, model: 'e2e',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }))
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' })
      res.write(chunk({ role: 'assistant', content: '' }))
      if (String(r.messages.at(-1)?.content) === 'long reply') {
        for (let i = 0; i < PARAGRAPHS; i++) {
          const text = (i ? '\n\n' : '') + paragraph(i)
          // In a few pieces, as tokens come.
          for (let at = 0; at < text.length; at += 40) res.write(chunk({ content: text.slice(at, at + 40) }))
          state.streamed = i + 1
          await sleep(5) // pacing, so the page sees a stream and not one write
        }
        await new Promise((ok) => (state.release = ok))
        res.write(chunk({ content: LAST_WORDS }))
      } else {
        res.write(chunk({ content: 'Short reply.' }))
      }
      res.write(chunk({}, 'stop'))
      res.end('data: [DONE]\n\n')
    })
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({
    url: `http://127.0.0.1:${server.address().port}/v1`,
    state,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r) }),
  })))
}

// What the page shows, read in the page after two frames (the stream renders
// in a frame, at most every other one at 60 Hz; the list follows it in that
// frame's measure phase). The callers wait for what they look for.
// Returns { streaming, text, markdownHeight, atBottom }.
const LOOK = `
  const done = arguments[arguments.length - 1]
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const list = document.querySelector('[data-testid=message-list]')
    const bubble = document.querySelector('[data-testid=streaming-message]')
    const reply = bubble ?? [...document.querySelectorAll('[data-testid=assistant-message]')].at(-1)
    const md = reply?.querySelector('.markdown')
    done({
      streaming: !!bubble,
      text: md?.textContent ?? '',
      markdownHeight: md ? md.getBoundingClientRect().height : 0,
      atBottom: list.scrollHeight - list.scrollTop - list.clientHeight < 4,
      where: 'scrollHeight ' + list.scrollHeight + ', scrollTop ' + list.scrollTop + ', clientHeight ' + list.clientHeight,
    })
  }))`

// Scrolls the list so the reply's first block is at its top; returns that
// block's text and height, and where it is, two frames later.
const FIRST_BLOCK = `
  const done = arguments[arguments.length - 1]
  const list = document.querySelector('[data-testid=message-list]')
  const reply = [...document.querySelectorAll('[data-testid=assistant-message]')].at(-1)
  const first = reply.querySelector('.markdown > .md-block')
  list.scrollTop += first.getBoundingClientRect().top - list.getBoundingClientRect().top
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const box = first.getBoundingClientRect()
    const view = list.getBoundingClientRect()
    done({ text: first.textContent.trim(), height: box.height, top: box.top - view.top, lineHeight: parseFloat(getComputedStyle(first).lineHeight) || 20 })
  }))`

let model
let server

before(async () => {
  model = await startModel()
  server = await startTempServe({ extraArgs: ['--base-url', model.url, '--model', 'e2e'] })
  const { body } = await server.api('GET', '/api/v1/settings')
  const res = await server.api('PUT', '/api/v1/settings', { ...body, onboarded: true, demo_mode: false, rate_limit_seconds: 0 })
  assert.equal(res.status, 200, JSON.stringify(res.body))
})
after(async () => {
  await server?.stop()
  await model?.close()
})

/**
 * The scenario, in either engine: look(script) runs a LOOK-like script in the
 * page and returns what it passed to its callback.
 */
async function landsInPlace(send, look) {
  model.state.streamed = 0
  model.state.release = null
  await send('long reply')
  await waitUntil(() => model.state.release !== null, { timeout: 30000, what: 'the model to stream every paragraph' })
  const streamed = await waitUntil(async () => {
    const s = await look(LOOK)
    return s.streaming && s.text.includes(`P${PARAGRAPHS - 1}:`) ? s : null
  }, { timeout: 30000, what: 'the streaming bubble to show the last paragraph' })
  assert.ok(streamed.atBottom, 'the list follows the stream to its end: ' + streamed.where)

  model.state.release()
  const landed = await waitUntil(async () => {
    const s = await look(LOOK)
    return !s.streaming && s.text.includes(LAST_WORDS.trim()) ? s : null
  }, { timeout: 30000, what: 'the stored reply in place of the stream' })
  for (let i = 0; i < PARAGRAPHS; i++) assert.ok(landed.text.includes(`P${i}: the reply`), `paragraph ${i} is in the stored reply`)
  // The stored reply's footer (actions, figures) may take a frame longer
  // than its text on a busy machine; the list must end at the bottom.
  let where = landed.where
  await waitUntil(async () => {
    const s = await look(LOOK)
    where = s.where
    return s.atBottom
  }, { timeout: 5000, what: 'the list to be at the bottom once the reply is stored (' + where + ')' }).catch(() => {
    assert.fail('the list is still at the bottom once the reply is stored: ' + where)
  })
  // The last words may add a line; blocks that lost their size would take thousands of pixels away.
  assert.ok(Math.abs(landed.markdownHeight - streamed.markdownHeight) < 60,
    `the reply keeps its height: ${streamed.markdownHeight.toFixed(0)} px streaming, ${landed.markdownHeight.toFixed(0)} px stored`)

  const first = await look(FIRST_BLOCK)
  assert.match(first.text, /^P0: the reply/)
  assert.ok(first.height > 2 * first.lineHeight, `the first paragraph is laid out at its size (${first.height.toFixed(0)} px, line ${first.lineHeight} px)`)
  assert.ok(Math.abs(first.top) < 4, `scrolled to, the first paragraph stays where it was put (${first.top.toFixed(0)} px from the top)`)
}

test('Chromium: a long reply that ends stays in place, whole, at its height', async () => {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 860 } })
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    const composer = page.getByRole('textbox', { name: 'Message' })
    await landsInPlace(async (text) => {
      await composer.fill(text)
      await composer.press('Enter')
    }, (script) => page.evaluate((s) => new Promise((resolve) => new Function(s)(resolve)), script))
    assert.deepEqual(errors, [])
  } finally {
    await browser.close()
  }
})

test('WebKit: a long reply that ends stays in place, whole, at its height', async () => {
  const xvfb = await startXvfb()
  const driver = await startWebDriver(xvfb.display)
  let session
  try {
    session = await Session.create(driver.base).catch((e) => {
      throw new Error(`${e.message}\nWebKitWebDriver log:\n${driver.log()}`)
    })
    await session.setWindowRect({ width: 1200, height: 880 }).catch(() => {})
    await session.navigate(`${server.url}/login?token=${token}`)
    await session.waitFor('[data-testid=chat-shell]')
    await landsInPlace(async (text) => {
      const composer = await session.waitFor('textarea[aria-label="Message"]')
      await session.type(composer, text + '\uE007') // and Enter
    }, (script) => session.executeAsync(script))
  } finally {
    await session?.delete().catch(() => {})
    await driver.stop()
    await xvfb.stop()
  }
})
