// Knowledge (SPEC §11) end to end: the real `parley serve`, the scripted
// model server as its own process (it searches the user's documents when
// offered search_knowledge and cites [n]: modelserver.Knowledge) and the
// built UI. Chromium: Settings opened by its URL at the Knowledge section, a
// collection made of a real folder, attached in the composer; the reply
// cites [1] and the chip shows the passage; Settings is whole at 360 px.
// WebKit (the Linux app's engine): the chip shows the passage.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launchChromium, screenshot } from './helpers.mjs'
import { login, token } from './serve.mjs'
import { buildModelServer, startModelServer } from './modelServer.mjs'
import { startTempServe, waitUntil, saveArtifact } from './util.mjs'
import { startXvfb, startWebDriver, Session } from './webkit.mjs'

const GUIDE = '# Setup\n\n## Linux\n\nInstall with apt install parley.\n\n## Windows\n\nDouble-click the setup file.\n'
let browser, built, docs

before(async () => {
  built = await buildModelServer()
  browser = await launchChromium()
  docs = await mkdtemp(join(tmpdir(), 'parley-e2e-docs-'))
  await writeFile(join(docs, 'guide.md'), GUIDE)
})
after(async () => {
  await browser?.close()
  await built?.remove()
  if (docs) await rm(docs, { recursive: true, force: true })
})

/** parley serve against the knowledge model server, onboarded. */
async function startStack() {
  const model = await startModelServer(built.bin, '-model', 'demo', '-knowledge', '-embedding-models', 'nomic-embed-text')
  const server = await startTempServe({ extraArgs: ['--base-url', model.url, '--model', 'demo'] })
  const { body: st } = await server.api('GET', '/api/v1/settings')
  await server.api('PUT', '/api/v1/settings', { ...st, onboarded: true, rate_limit_seconds: 0, embedding_model: 'nomic-embed-text' })
  return {
    server,
    stop: async () => {
      await server.stop()
      await model.stop()
    },
  }
}

test('Chromium: a collection made in Settings, attached in the composer; the reply cites [1] and the chip shows the passage', async () => {
  const { server, stop } = await startStack()
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 850 } })
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    // Settings opens by its URL, at the Knowledge section (focused, named in the list).
    await page.evaluate(() => { location.hash = '#settings/knowledge' })
    const panel = page.getByTestId('settings-panel')
    await panel.waitFor()
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-section') === 'knowledge')
    assert.equal(await page.getByTestId('settings-nav-knowledge').getAttribute('aria-current'), 'true')

    // A bad path is refused with the reason; a real folder is indexed.
    await page.getByTestId('collection-name-input').fill('Docs')
    await page.getByTestId('collection-paths-input').fill('relative/folder')
    await page.getByTestId('collection-create').click()
    await page.getByTestId('collection-create-error').getByText('not absolute').waitFor()
    await page.getByTestId('collection-paths-input').fill(docs)
    await page.getByTestId('collection-create').click()
    const item = page.locator('[data-testid^="collection-"][data-status]').first()
    await item.waitFor()
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid^="collection-"][data-status]')
      return el?.getAttribute('data-status') === 'ready' && /with vectors/.test(el.textContent || '') && el.textContent.includes('1 of 1 file')
    }, null, { timeout: 20000 })
    await screenshot(page, 'e2e-knowledge-settings.png')
    await page.getByTestId('settings-close').click()
    await panel.waitFor({ state: 'detached' })
    assert.equal(await page.evaluate(() => location.hash), '', 'closing Settings leaves its URL')

    // Attach it in the composer, ask, and follow the citation.
    await page.getByTestId('knowledge-picker').click()
    await page.getByTestId('knowledge-option-Docs').check()
    await page.keyboard.press('Escape')
    await page.getByTestId('knowledge-count').getByText('1').waitFor()
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('How do I install it on Linux?')
    await composer.press('Enter')
    const chip = page.locator('[data-testid=assistant-message] button.cite[data-cite="1"]')
    await chip.waitFor({ timeout: 20000 })
    const reply = page.getByTestId('assistant-message').last()
    assert.match(await reply.innerText(), /According to guide\.md, Install with apt install parley/)
    await chip.click()
    const passage = page.getByTestId('source-passage')
    await passage.waitFor()
    assert.equal(await passage.getByTestId('source-file').innerText(), 'guide.md')
    assert.equal(await passage.getByTestId('source-locator').innerText(), 'Setup › Linux')
    assert.equal(await passage.getByTestId('source-text').innerText(), 'Install with apt install parley.')
    await screenshot(page, 'e2e-knowledge-citation.png')
    // The conversation keeps the collection and the reply its source.
    const { body: list } = await server.api('GET', '/api/v1/conversations')
    const { body: conv } = await server.api('GET', `/api/v1/conversations/${list.items[0].id}`)
    assert.equal(conv.knowledge.length, 1)
    const last = conv.messages[conv.messages.length - 1]
    // [1] is the passage cited; the vectors bring the Windows section too, as [2].
    assert.deepEqual(last.sources[0], { n: 1, path: join(docs, 'guide.md'), locator: 'Setup › Linux', text: 'Install with apt install parley.' })
    assert.deepEqual(errors, [])
  } finally {
    await stop()
  }
})

test('Chromium, 360 px: Settings is whole, its sections reachable from the list', async () => {
  const server = await startTempServe()
  try {
    const { body: st } = await server.api('GET', '/api/v1/settings')
    await server.api('PUT', '/api/v1/settings', { ...st, onboarded: true, demo_mode: false })
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } })
    await login(page, server)
    await page.evaluate(() => { location.hash = '#settings/appearance' })
    const panel = page.getByTestId('settings-panel')
    await panel.waitFor()
    const box = await panel.boundingBox()
    assert.ok(box.x >= 0 && box.x + box.width <= 360, `settings from x=${box.x}, ${box.width} px wide`)
    const overflow = await page.evaluate(() => document.querySelector('[data-testid=settings-panel] form').scrollWidth - document.querySelector('[data-testid=settings-panel] form').clientWidth)
    assert.ok(overflow <= 0, `the sections overflow by ${overflow} px`)
    // Keyboard: the section list's links move to each section.
    await page.getByTestId('settings-nav-knowledge').focus()
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-section') === 'knowledge')
    assert.equal(await page.evaluate(() => location.hash), '#settings/knowledge')
    await screenshot(page, 'e2e-settings-360.png')
  } finally {
    await server.stop()
  }
})

test('WebKit: the citation chip shows the passage', async () => {
  const { server, stop } = await startStack()
  const xvfb = await startXvfb()
  const driver = await startWebDriver(xvfb.display)
  let session
  try {
    session = await Session.create(driver.base)
    await session.setWindowRect({ width: 1100, height: 880 }).catch(() => {})
    const { status, body: c } = await server.api('POST', '/api/v1/knowledge', { name: 'Docs', paths: [docs] })
    assert.equal(status, 201)
    await waitUntil(async () => (await server.api('GET', `/api/v1/knowledge/${c.id}`)).body.status === 'ready', { what: 'collection ready', timeout: 20000 })
    await session.navigate(`${server.url}/login?token=${token}`)
    await session.waitFor('[data-testid=chat-shell]')
    await session.clickCss('[data-testid=knowledge-picker]')
    await session.clickCss('[data-testid="knowledge-option-Docs"]')
    await session.waitFor('[data-testid=knowledge-count]')
    const composer = await session.waitFor('[data-testid=composer] textarea')
    await session.type(composer, 'How do I install it on Linux?')
    await session.clickCss('[data-testid=send]')
    await session.waitFor('[data-testid=assistant-message] button.cite', { timeout: 20000 })
    await session.clickCss('[data-testid=assistant-message] button.cite')
    await session.waitFor('[data-testid=source-passage]')
    const text = await session.execute('return document.querySelector("[data-testid=source-text]").textContent')
    assert.equal(text, 'Install with apt install parley.')
    await saveArtifact('e2e-webkit-citation.png', await session.screenshot())
  } finally {
    await session?.delete().catch(() => {})
    await driver.stop()
    await xvfb.stop()
    await stop()
  }
})
