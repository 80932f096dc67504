// The interface in German and Japanese, in Chromium against the real
// `parley serve` (demo model): a browser whose language is de-DE or ja-JP
// gets the first screen, a question card and Settings in that language
// (<html lang> follows), at the window's default size and at 360 px no
// element's text runs out of its box and the page does not scroll sideways
// (measured), and axe finds no serious or critical violation. Picking
// another language in Settings switches the page at once, without a reload;
// closing Settings without saving puts the system language back.
// Screenshots: test-artifacts/e2e-i18n-<lang>-<what>-<width>.png.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { assertNoSeriousViolations as assertAxeClean } from './axe.mjs'
import { enableDemo, login } from './serve.mjs'
import { startTempServe, waitUntil } from './util.mjs'

// What each language must show (from its catalogue, src/i18n/locales).
const LANGS = {
  de: { locale: 'de-DE', newChat: 'Neuer Chat', placeholder: 'Nachricht an Parley…', card: 'Der Assistent hat 2 Fragen', settings: 'Einstellungen', language: 'Sprache', submit: 'Senden' },
  ja: { locale: 'ja-JP', newChat: '新しいチャット', placeholder: 'Parley にメッセージ…', card: 'アシスタントから 2 件の質問があります', settings: '設定', language: '言語', submit: '送信' },
}
const SIZES = [
  { width: 1100, height: 760 }, // the desktop window's default size
  { width: 360, height: 740 },
]

let browser, server

before(async () => {
  browser = await launchChromium()
  server = await startTempServe()
  await enableDemo(server)
  await server.api('POST', '/api/v1/conversations', { title: 'Einkaufsliste / 買い物リスト' })
})
after(async () => {
  await browser?.close()
  await server?.stop()
})

async function newPage(locale, { width, height }) {
  // The context's locale is what navigator.languages and Accept-Language say.
  const context = await browser.newContext({ viewport: { width, height }, locale, bypassCSP: true })
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { page, errors, close: () => context.close() }
}

/**
 * Elements whose text does not fit: a box narrower (or shorter) than its
 * content, clipped or spilling out, and text that ends in an ellipsis
 * because it was cut. Scroll containers and user content (titles, code) are
 * not counted; hidden elements neither.
 */
async function overflowing(page, scope = 'body') {
  return page.locator(scope).evaluate((root) => {
    const skip = '.conv-title, .chat-title, .inbox-conv, .inbox-q, code, pre, textarea, input, select, .sr-only, .markdown, .qquestion'
    const out = []
    for (const el of root.querySelectorAll('*')) {
      if (!(el instanceof HTMLElement) || el.closest(skip)) continue
      const style = getComputedStyle(el)
      if (style.display === 'none' || style.visibility === 'hidden' || el.offsetParent === null) continue
      if (el.clientWidth <= 1 && el.clientHeight <= 1) continue // visually hidden on purpose (for screen readers)

      if (['auto', 'scroll'].includes(style.overflowX) || ['auto', 'scroll'].includes(style.overflowY)) continue
      const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
      if (!hasText) continue
      const wide = el.scrollWidth > el.clientWidth + 1
      const tall = style.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1
      if (el.clientWidth > 0 && (wide || tall)) {
        out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${el.textContent.trim().slice(0, 60)}" (${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight})`)
      }
    }
    return out
  })
}

async function assertFits(page, where) {
  assert.deepEqual(await overflowing(page), [], `text overflows its box in ${where}`)
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  assert.equal(sideways, 0, `the page scrolls sideways in ${where}`)
}

for (const [lang, want] of Object.entries(LANGS)) {
  for (const size of SIZES) {
    const at = `${lang} at ${size.width}x${size.height}`
    test(`${at}: the first screen, a card and Settings are in the language and fit`, async () => {
      const { page, errors, close } = await newPage(want.locale, size)
      try {
        // The first screen.
        await waitUntil(() => page.evaluate(() => document.documentElement.lang), { what: 'html lang' })
        assert.equal(await page.evaluate(() => document.documentElement.lang), lang)
        const composer = page.getByTestId('composer').locator('textarea')
        assert.equal(await composer.getAttribute('placeholder'), want.placeholder)
        if (size.width > 700) assert.equal((await page.getByTestId('new-chat').innerText()).trim(), want.newChat)
        assert.equal(await page.locator('.chat-title').innerText(), want.newChat)
        await assertFits(page, `the first screen (${at})`)
        await assertAxeClean(page, `the first screen (${at})`)
        await screenshot(page, `e2e-i18n-${lang}-first-${size.width}.png`)

        // A card of two questions (the demo's scripted questions stay English: they are the model's words; the plural is the catalogue's).
        await composer.fill(`Write a short note (${lang} ${size.width})`)
        await composer.press('Enter')
        const card = page.getByTestId('question-card')
        await card.getByText('What tone should the answer have?').waitFor()
        assert.equal(await card.locator('.qcard-title').innerText(), want.card)
        await card.getByTestId('primary').waitFor()
        await assertFits(page, `a card (${at})`)
        await assertAxeClean(page, `a card (${at})`)
        await screenshot(page, `e2e-i18n-${lang}-card-${size.width}.png`)

        // Settings.
        await page.getByTestId('settings-button').click()
        const panel = page.getByTestId('settings-panel')
        await panel.waitFor()
        assert.equal(await panel.locator('#settings-title').innerText(), want.settings)
        await panel.getByText(want.language, { exact: true }).first().waitFor()
        await assertFits(page, `Settings (${at})`)
        await assertAxeClean(page, `Settings (${at})`)
        await screenshot(page, `e2e-i18n-${lang}-settings-${size.width}.png`)
        assert.deepEqual(errors, [])
      } finally {
        await close()
      }
    })
  }
}

test('picking a language in Settings switches the page at once; closing without saving goes back', async () => {
  const { page, errors, close } = await newPage('de-DE', SIZES[0])
  try {
    const navigations = []
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()))
    await page.getByTestId('settings-button').click()
    const panel = page.getByTestId('settings-panel')
    await panel.getByTestId('language-select').selectOption('fr')
    await waitUntil(async () => (await panel.locator('#settings-title').innerText()) === 'Réglages', { what: 'French Settings' })
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr')
    assert.equal(await page.getByTestId('composer').locator('textarea').getAttribute('placeholder'), 'Écrire à Parley…')
    await panel.getByTestId('language-select').selectOption('ja')
    await waitUntil(async () => (await panel.locator('#settings-title').innerText()) === '設定', { what: 'Japanese Settings' })
    await assertFits(page, 'Settings switched to Japanese')
    await page.getByTestId('settings-close').click()
    await waitUntil(async () => (await page.getByTestId('new-chat').innerText()).trim() === 'Neuer Chat', { what: 'German again' })
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de')
    assert.deepEqual(navigations, [], 'no reload')
    assert.deepEqual(errors, [])
  } finally {
    await close()
  }
})

test('a saved language wins over the browser language and the backend speaks it too', async () => {
  const { body } = await server.api('GET', '/api/v1/settings')
  assert.equal((await server.api('PUT', '/api/v1/settings', { ...body, language: 'es' })).status, 200)
  const { page, errors, close } = await newPage('de-DE', SIZES[0])
  try {
    await waitUntil(async () => (await page.getByTestId('new-chat').innerText()).trim() === 'Nuevo chat', { what: 'Spanish from the settings' })
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'es')
    // The backend's messages follow the saved language too: a model server
    // that does not answer is reported in Spanish (backend/i18n).
    const bad = await server.api('PUT', '/api/v1/settings', { ...body, language: 'xx' })
    assert.equal(bad.status, 400, 'an unknown language is refused')
    assert.equal((await server.api('PUT', '/api/v1/settings', { ...body, language: 'es', demo_mode: false, engine: 'server', base_url: 'http://127.0.0.1:9/v1' })).status, 200)
    const status = (await server.api('GET', '/api/v1/models/status')).body
    assert.equal(status.reachable, false)
    assert.match(status.message, /^No se puede conectar con el servidor de modelos en http:\/\/127\.0\.0\.1:9\/v1\./)
    assert.deepEqual(errors, [])
  } finally {
    await server.api('PUT', '/api/v1/settings', { ...body, language: '' })

    await close()
  }
})

test('the page marks itself ready once, after its start-up work, in the language it shows', async () => {
  // The benches type after this mark (bench/ui-page.mjs). A saved language
  // that differs from the browser's switches the page after it first shows;
  // the mark comes once, with that language shown (its texts are warmed up
  // before it: main.ts).
  const { body } = await server.api('GET', '/api/v1/settings')
  assert.equal((await server.api('PUT', '/api/v1/settings', { ...body, language: 'es' })).status, 200)
  const context = await browser.newContext({ viewport: SIZES[0], locale: 'de-DE' })
  try {
    const page = await context.newPage()
    await page.addInitScript(() => {
      window.__ready = []
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.name === 'parley:ready') window.__ready.push(document.documentElement.lang)
      }).observe({ type: 'mark' })
    })
    await login(page, server)
    await waitUntil(() => page.evaluate(() => window.__ready.length > 0), { what: 'the parley:ready mark' })
    assert.deepEqual(await page.evaluate(() => window.__ready), ['es'], 'one mark, with the saved language shown')
    assert.equal((await page.getByTestId('new-chat').innerText()).trim(), 'Nuevo chat')
  } finally {
    await server.api('PUT', '/api/v1/settings', { ...body, language: '' })
    await context.close()
  }
})
