// The model library end to end (SPEC §12): the real `parley serve` on the
// built-in engine, downloading from the fake Hugging Face hub
// (cmd/fakehub -fixtures, through HF_ENDPOINT) in Settings → Models by
// repository and file, seeing it installed, and choosing it; onboarding
// offers the built-in engine first; axe-clean, and whole at 360 px.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { waitUntil } from './util.mjs'
import { assertNoSeriousViolations } from './axe.mjs'
import { buildFakeHub, startFakeHub, FIXTURES_REPO } from './fakehub.mjs'

let browser, built, hub

before(async () => {
  built = await buildFakeHub()
  // Slow enough that the download's progress is on screen for a while.
  hub = await startFakeHub(built.bin, '-slow', '40000')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await hub?.stop()
  await built?.remove()
})

test('downloads a GGUF by repository and file in Settings → Models, sees it installed, and chooses it', async () => {
  const server = await startServe(await newDataDir(), { extraArgs: ['--engine', 'builtin'], env: { HF_ENDPOINT: hub.url } })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  try {
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)

    // No model yet: onboarding offers the built-in engine first, the model server second.
    const onboarding = page.getByTestId('onboarding')
    await onboarding.getByTestId('onboarding-suggestion').waitFor()
    const order = await onboarding.evaluate((o) => [...o.querySelectorAll('h3')].map((h) => h.textContent.trim()))
    assert.deepEqual(order, ["Use Parley's built-in engine", 'I already run a model server'])
    await assertNoSeriousViolations(page, 'onboarding with the built-in engine')
    await page.setViewportSize({ width: 360, height: 760 })
    const onbOverflow = await onboarding.evaluate((o) => o.scrollWidth - o.clientWidth)
    assert.ok(onbOverflow <= 1, `onboarding whole at 360 px (overflow ${onbOverflow})`)
    await screenshot(page, 'e2e-model-library-onboarding-360.png')
    await page.setViewportSize({ width: 1200, height: 900 })

    await page.getByTestId('settings-button').click()
    const panel = page.getByTestId('settings-panel')
    await panel.getByTestId('settings-nav-models').click()
    assert.equal(await panel.getByTestId('engine-builtin').isChecked(), true)
    const library = panel.getByTestId('model-library')
    await library.getByTestId('no-engine-models').waitFor()
    // The curated catalogue with sizes and memory; this browser says the machine's memory or that it can't.
    assert.ok((await library.getByTestId('catalog-entry').count()) >= 5)
    assert.match(await library.getByTestId('catalog-entry').first().innerText(), /download · needs about .+ of memory/)
    assert.match(await library.getByTestId('machine-memory').innerText(), /memory/)

    // By keyboard: the repository and file fields, then Download.
    await library.getByTestId('hub-repo').fill(FIXTURES_REPO)
    await library.getByTestId('hub-file').fill('fixed.gguf')
    await library.getByTestId('hub-file').press('Tab')
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'hub-download')
    await page.keyboard.press('Enter')

    const row = library.getByTestId('engine-download')
    await row.waitFor()
    assert.match(await row.innerText(), /fixed\.gguf/)
    await row.scrollIntoViewIfNeeded().catch(() => {}) // it may be done already
    await screenshot(page, 'e2e-model-library-downloading.png')
    // Progress shows bytes of the total, then the model is installed.
    await waitUntil(async () => (await row.count()) === 0 || /of .+\(\d+\s?%\)/.test(await row.getByTestId('engine-download-progress').innerText().catch(() => '')), { what: 'progress in bytes of the total', timeout: 30000 })
    const model = library.locator('[data-testid="engine-model"][data-model="fixed"]')
    await model.waitFor({ timeout: 60000 })
    assert.match(await model.innerText(), /Parley fixture/)
    assert.equal(await library.getByTestId('engine-download').count(), 0, 'a finished download leaves the list')
    await assertNoSeriousViolations(page, 'Settings → Models with an installed model', '[data-testid="settings-panel"]')

    // Whole at 360 px.
    await page.setViewportSize({ width: 360, height: 760 })
    await library.scrollIntoViewIfNeeded()
    const overflow = await panel.evaluate((p) => [...p.querySelectorAll('[data-testid="model-library"], [data-testid="engine-section"]')].map((el) => el.scrollWidth - el.clientWidth))
    assert.ok(overflow.every((d) => d <= 1), `no horizontal overflow at 360 px: ${overflow}`)
    await screenshot(page, 'e2e-model-library-360.png')
    await page.setViewportSize({ width: 1200, height: 900 })

    // Choose it, by keyboard, and save.
    await model.locator('input[type="radio"]').focus()
    await page.keyboard.press('Space')
    assert.equal(await model.locator('input[type="radio"]').isChecked(), true)
    await panel.getByTestId('settings-save').click()
    await panel.waitFor({ state: 'detached' })
    const { body } = await server.api('GET', '/api/v1/settings')
    assert.equal(body.engine, 'builtin')
    assert.equal(body.model, 'fixed')
    await waitUntil(async () => (await page.getByTestId('onboarding').count()) === 0, { what: 'onboarding gone once a model is chosen' })
    const models = await server.api('GET', '/api/v1/engine/models')
    assert.deepEqual(models.body.map((m) => [m.id, m.state]), [['fixed', 'ready']])
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
    await server.stop()
  }
})
