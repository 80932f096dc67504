// A long conversation against the real backend: it opens with its newest
// messages only (SPEC §7 window, issue #42), and "Show earlier" reads the
// rest back from Go a page at a time, down to the first message, in order,
// each message once, while the view stays on what the user was reading.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { login } from './serve.mjs'
import { waitUntil, startTempServe } from './util.mjs'

const MESSAGES = 700

let browser
before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

async function importLong(server) {
  const t0 = new Date(Date.now() - MESSAGES * 1000)
  const messages = []
  for (let i = 1; i <= MESSAGES; i++) {
    messages.push({
      role: i % 2 ? 'user' : 'assistant',
      content: i % 2 ? `Question ${i}: and item ${i}? msg ${i}` : `Answer ${i} with **bold** text. msg ${i}`,
      created_at: new Date(t0.getTime() + i * 1000).toISOString(),
    })
  }
  const doc = { format: 'parley.conversation', version: 1, exported_at: new Date().toISOString(),
    conversation: { title: 'Long one', assistant: 'default', pinned: false, created_at: t0.toISOString(), updated_at: new Date().toISOString() },
    messages, runs: [], cards: [] }
  const imp = await server.api('POST', '/api/v1/conversations/import', doc)
  assert.equal(imp.status, 201, JSON.stringify(imp.body))
  return imp.body.id
}

// A fresh `parley serve` with the long conversation imported and a page for
// it: fn gets them; a failure leaves a screenshot named shot.
async function withLongConversation(shot, fn) {
  const server = await startTempServe()
  let page
  try {
    const id = await importLong(server)
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    await fn({ server, page, id })
  } catch (e) {
    if (page) await screenshot(page, shot)
    throw e
  } finally {
    await page?.close()
    await server.stop()
  }
}

// openLong logs the page in and opens the long conversation at its newest message.
async function openLong(page, server) {
  await login(page, server)
  await page.getByTestId('conversation-open').filter({ hasText: 'Long one' }).click()
  const list = page.getByTestId('message-list')
  await list.getByText(`msg ${MESSAGES}`, { exact: false }).waitFor()
  return list
}

test('a long conversation opens with its newest messages and "Show earlier" reads the rest back to the first', async () => {
  await withLongConversation('e2e-long-conversation.png', async ({ server, page, id }) => {
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    const reads = []
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (r.method() === 'GET' && u.pathname === `/api/v1/conversations/${id}`) reads.push(Object.fromEntries(u.searchParams))
    })
    await openLong(page, server)
    assert.deepEqual(reads, [{ last: '200' }], 'the open reads the newest 200 messages only')

    const more = page.getByTestId('show-earlier')
    // It stands for every message not shown, read or not.
    await waitUntil(async () => (await more.innerText()).includes(`of ${MESSAGES - 150}`), { what: 'the button counting every earlier message' })

    const texts = () => page.evaluate(() => [...document.querySelectorAll('[data-testid=message-list] :is([data-testid=user-message], [data-testid=assistant-message])')].map((n) => n.textContent.trim()))
    // The window renders its newest 150 a chunk at a time once idle.
    let last = -1
    await waitUntil(async () => { const n = (await texts()).length; const same = n === last && n >= 150; last = n; return same }, { interval: 150, what: 'the window of 150 rendered' })
    for (let clicks = 0; (await more.count()) > 0; clicks++) {
      assert.ok(clicks < 10, 'the first message is reached in a few clicks')
      // The user scrolls up to the button; what they read then stays where
      // it is while earlier messages go in above it.
      await page.evaluate(() => (document.querySelector('[data-testid=message-list]').scrollTop = 0))
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
      const top = await page.evaluate(() => {
        const listTop = document.querySelector('[data-testid=message-list]').getBoundingClientRect().top
        const el = [...document.querySelectorAll('[data-testid=message-list] :is([data-testid=user-message], [data-testid=assistant-message])')].find((n) => n.getBoundingClientRect().bottom > listTop)
        return { text: el.textContent.trim(), y: el.getBoundingClientRect().top }
      })
      const before = (await texts()).length
      await more.click()
      await waitUntil(async () => (await texts()).length > before, { what: 'earlier messages shown' })
      const y = await page.evaluate((text) => {
        const el = [...document.querySelectorAll('[data-testid=message-list] :is([data-testid=user-message], [data-testid=assistant-message])')].find((n) => n.textContent.trim() === text)
        return el?.getBoundingClientRect().top
      }, top.text)
      assert.ok(y !== undefined && Math.abs(y - top.y) < 2, `"${top.text}" stayed at ${top.y}, now at ${y}`)
    }
    const shown = await texts()
    assert.equal(shown.length, MESSAGES)
    shown.forEach((t, i) => assert.ok(t.endsWith(`msg ${i + 1}`), `message ${i + 1} in its place: ${t}`))
    // Each read after the first ended where the one before began.
    assert.ok(reads.length >= 3, JSON.stringify(reads))
    for (const r of reads.slice(1)) assert.ok(r.before && r.last === '300', JSON.stringify(r))
    assert.equal(new Set(reads.slice(1).map((r) => r.before)).size, reads.length - 1)
    assert.deepEqual(errors, [])
  })
})

// The layers Chromium composites the page into, each with the element it
// paints (CDP LayerTree): which of them belong to the message list.
async function listLayers(page) {
  const cdp = await page.context().newCDPSession(page)
  try {
    let layers = null
    cdp.on('LayerTree.layerTreeDidChange', (e) => { if (e.layers) layers = e.layers })
    await cdp.send('DOM.getDocument', { depth: 0 })
    await cdp.send('LayerTree.enable')
    await waitUntil(async () => {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
      return layers !== null
    }, { what: 'the layer tree' })
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.querySelector("[data-testid=message-list]")' })
    const { node } = await cdp.send('DOM.describeNode', { objectId: result.objectId })
    return layers.filter((l) => l.backendNodeId === node.backendNodeId)
  } finally {
    await cdp.detach().catch(() => {})
  }
}

test('the message list scrolls on the compositor in Chromium (a layer of its own, its background the page\'s in both palettes)', async () => {
  await withLongConversation('e2e-long-conversation-layers.png', async ({ server, page }) => {
    await openLong(page, server)
    for (const scheme of ['light', 'dark']) {
      await page.evaluate((s) => (document.documentElement.dataset.colorScheme = s), scheme)
      // Scrolled by the compositor, the list's content is a layer that draws:
      // a scroll (the send's, the user's) moves it without rastering the
      // list again. At a device pixel ratio of 1 Chromium does so only for a
      // scroller with an opaque background (to keep subpixel text); a
      // transparent list was rastered again on every frame that scrolled it
      // (issue #42).
      const layers = await listLayers(page)
      assert.ok(layers.some((l) => l.drawsContent), `${scheme}: the list's content is a layer of its own: ${JSON.stringify(layers)}`)
      // And nothing looks different: the list's background is the page's.
      const [listBg, pageBg] = await page.evaluate(() => [getComputedStyle(document.querySelector('[data-testid=message-list]')).backgroundColor, getComputedStyle(document.body).backgroundColor])
      assert.equal(listBg, pageBg, `${scheme}: the list's background is the page's`)
    }
  })
})
