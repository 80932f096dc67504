// Thinking models (SPEC §9) in the browser, against the real `parley serve`
// with the demo model, whose "Think it through" scenario streams its thinking
// in Ollama's `reasoning` field before it answers: in Chromium and in WebKit
// (the Linux app's engine) the quiet "Thinking…" block streams, folds away
// as "Thought for N s" once the answer comes, opens and closes with the
// keyboard, is axe-clean in the light and the dark theme, and a reload shows
// it folded.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { enableDemo, login, token } from './serve.mjs'
import { startTempServe, waitUntil, saveArtifact, transcript } from './util.mjs'
import { startXvfb, startWebDriver, Session } from './webkit.mjs'
import { assertNoSeriousViolations, assertNoSeriousViolationsWebKit, useTheme } from './axe.mjs'

const PROMPT = 'Think it through: is 9.11 bigger than 9.9?'
// Intl's short unit is "sec" in Chromium's ICU and "s" in WebKitGTK's.
const THOUGHT = /^Thought for (\d+ (?:sec|s)|less than a second)$/

let server

before(async () => {
  server = await startTempServe()
  await enableDemo(server)
})
after(async () => {
  await server?.stop()
})

/** The conversation's stored reply: its thinking and how long it took. */
async function storedReply(title) {
  const items = (await server.api('GET', '/api/v1/conversations')).body.items
  const conv = items.find((c) => c.title === title)
  assert.ok(conv, `a conversation titled ${title}`)
  const detail = (await server.api('GET', `/api/v1/conversations/${conv.id}`)).body
  const reply = detail.messages.at(-1)
  assert.equal(reply.role, 'assistant', transcript(detail))
  return reply
}

test('Chromium: the thinking streams, folds away with its duration, opens by keyboard, is axe-clean, and stays folded after a reload', async () => {
  const browser = await launchChromium()
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 }, bypassCSP: true })
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill(PROMPT)
    await composer.press('Enter')

    // It streams: "Thinking…", the text growing in its small area.
    const live = page.getByTestId('thinking-live')
    await live.waitFor({ timeout: 60000 })
    assert.match(await live.innerText(), /Thinking…/)
    const liveText = page.getByTestId('thinking-live-text')
    const first = await waitUntil(async () => (await liveText.count()) && (await liveText.innerText()).length, { what: 'the first thinking', timeout: 10000 }).catch(() => 0)
    if (first) {
      // (Under heavy load the whole thinking may be shown in one frame.)
      await waitUntil(async () => !(await liveText.count()) || (await liveText.innerText()).length > first, { what: 'the thinking to grow', timeout: 30000 })
      await screenshot(page, 'e2e-thinking-live.png')
      await assertNoSeriousViolations(page, 'the thinking while it streams', '[data-testid=streaming-message]').catch((e) => {
        if (page.isClosed()) throw e
        // The block may have folded while axe ran; only a real violation fails.
        if (/axe in/.test(e.message)) throw e
      })
    }

    // The answer: the thinking folded away with its duration, the reply shown.
    const reply = page.getByTestId('assistant-message').filter({ hasText: '9.9 is bigger' })
    await reply.waitFor({ timeout: 60000 })
    const toggle = reply.getByTestId('thinking-toggle')
    assert.match((await toggle.innerText()).trim(), THOUGHT)
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')
    assert.equal(await reply.getByTestId('thinking-body').count(), 0)
    assert.ok(!(await reply.innerText()).includes('hundredths against'), 'the thinking is folded away')
    assert.match(await reply.getByTestId('reply-figures').innerText(), /thought .* · answered in /)
    const stored = await storedReply(PROMPT)
    assert.match(stored.reasoning, /90 hundredths against 11 hundredths/)
    assert.ok(stored.reasoning_ms > 0, `reasoning_ms ${stored.reasoning_ms}`)
    assert.ok(!stored.content.includes('hundredths against'), 'the thinking is not the reply')

    // By keyboard: Enter opens, Space closes.
    await toggle.focus()
    await page.keyboard.press('Enter')
    await waitUntil(async () => (await toggle.getAttribute('aria-expanded')) === 'true', { what: 'Enter to open the thinking' })
    const body = reply.getByTestId('thinking-body')
    await body.waitFor()
    // The body may be in the DOM a frame before it is laid out (innerText
    // is '' until then): wait for its text, as a reader sees it.
    await waitUntil(async () => /90 hundredths against 11 hundredths/.test(await body.innerText()), { what: 'the opened thinking to show its text' })
    assert.equal(await body.getAttribute('role'), 'region')
    assert.equal(await body.getAttribute('id'), await toggle.getAttribute('aria-controls'))
    await screenshot(page, 'e2e-thinking-open.png')
    for (const theme of ['light', 'dark']) {
      await useTheme(page, theme)
      await assertNoSeriousViolations(page, `a reply with its thinking open (${theme})`)
    }
    await useTheme(page, 'light')
    await toggle.focus()
    await page.keyboard.press(' ')
    await waitUntil(async () => (await toggle.getAttribute('aria-expanded')) === 'false', { what: 'Space to close the thinking' })
    assert.equal(await body.count(), 0)
    await assertNoSeriousViolations(page, 'a reply with its thinking folded (light)')

    // Copying the reply copies the answer, not the thinking: its text is the message's content.
    assert.ok(!stored.content.includes('The trap'))

    // A reload shows it folded, with the stored duration.
    await page.reload()
    await page.getByTestId('chat-shell').waitFor()
    const item = page.getByTestId('conversation-item').filter({ hasText: PROMPT })
    await item.getByTestId('conversation-open').click()
    const again = page.getByTestId('assistant-message').filter({ hasText: '9.9 is bigger' })
    await again.waitFor()
    const toggleAgain = again.getByTestId('thinking-toggle')
    assert.equal(await toggleAgain.getAttribute('aria-expanded'), 'false')
    assert.match((await toggleAgain.innerText()).trim(), THOUGHT)
    assert.equal(await again.getByTestId('thinking-body').count(), 0)
    assert.deepEqual(errors, [])
    await context.close()
  } finally {
    await browser.close()
  }
})

test('WebKit: the thinking streams, folds away with its duration, opens by keyboard, is axe-clean in both themes, and stays folded after a reload', async () => {
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
    await session.execute(`window.__errors = []; window.addEventListener('error', (e) => window.__errors.push(String(e.message)));
      window.addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason)));`)
    const prompt = PROMPT + ' (WebKit)'
    const composer = await session.waitFor('[data-testid=composer] textarea')
    await session.type(composer, prompt)
    await session.clickCss('[data-testid=send]')

    await session.waitFor('[data-testid=thinking-live]')
    const liveLength = () => session.execute('const el = document.querySelector("[data-testid=thinking-live-text]"); return el ? el.textContent.length : -1')
    const first = await waitUntil(async () => ((await liveLength()) > 0 ? await liveLength() : null), { what: 'the first thinking in WebKit', timeout: 10000 }).catch(() => 0)
    if (first > 0) await waitUntil(async () => (await liveLength()) !== first, { what: 'the thinking to grow in WebKit', timeout: 10000 })
    await saveArtifact('e2e-webkit-thinking-live.png', await session.screenshot())

    const toggleCss = '[data-testid=assistant-message] [data-testid=thinking-toggle]'
    await waitUntil(() => session.execute(`return [...document.querySelectorAll('[data-testid=assistant-message]')].some((m) => m.innerText.includes('9.9 is bigger'))`),
      { what: 'the answer in WebKit', timeout: 20000 })
    const toggle = await session.waitFor(toggleCss)
    assert.match((await session.text(toggle)).trim(), THOUGHT)
    assert.equal(await session.attribute(toggle, 'aria-expanded'), 'false')

    // By keyboard (WebDriver keys to the focused button): Enter opens, Space closes.
    await session.type(toggle, '\uE007')
    await waitUntil(async () => (await session.attribute(await session.find(toggleCss), 'aria-expanded')) === 'true', { what: 'Enter to open the thinking' })
    await session.waitFor('[data-testid=thinking-body]')
    // Its text once it is laid out (as in Chromium above).
    await waitUntil(async () => /90 hundredths against 11 hundredths/.test(await session.text(await session.find('[data-testid=thinking-body]'))),
      { what: 'the opened thinking to show its text' })
    await saveArtifact('e2e-webkit-thinking-open.png', await session.screenshot())
    for (const theme of ['light', 'dark']) {
      await waitUntil(async () => {
        const label = await session.execute('return document.querySelector("[data-testid=theme-toggle]").getAttribute("aria-label")')
        if (label === `Theme: ${theme}`) return true
        await session.clickCss('[data-testid=theme-toggle]')
        return false
      }, { what: `the ${theme} theme in WebKit`, timeout: 5000 })
      await assertNoSeriousViolationsWebKit(session, `a reply with its thinking open (${theme})`)
    }
    await session.type(await session.find(toggleCss), '\uE00D')
    await waitUntil(async () => (await session.attribute(await session.find(toggleCss), 'aria-expanded')) === 'false', { what: 'Space to close the thinking' })
    assert.equal(await session.execute('return document.querySelectorAll("[data-testid=thinking-body]").length'), 0)

    // A reload shows it folded.
    await session.navigate(server.url)
    await session.waitFor('[data-testid=chat-shell]')
    await waitUntil(() => session.execute(`const item = [...document.querySelectorAll('[data-testid=conversation-item]')].find((i) => i.innerText.includes(arguments[0]));
      if (!item) return false; item.querySelector('[data-testid=conversation-open]').click(); return true`, [prompt]), { what: 'the conversation in the sidebar' })
    const again = await session.waitFor(toggleCss)
    assert.equal(await session.attribute(again, 'aria-expanded'), 'false')
    assert.match((await session.text(again)).trim(), THOUGHT)
    assert.deepEqual(await session.execute('return window.__errors || []'), [])
  } finally {
    await session?.delete().catch(() => {})
    await driver.stop()
    await xvfb.stop()
  }
})
