// The model library end to end (SPEC §12): the real `parley serve` on the
// built-in engine, downloading from the fake Hugging Face hub
// (cmd/fakehub -fixtures, through HF_ENDPOINT) in Settings → Models by
// repository and file, seeing it installed, and choosing it; onboarding
// offers the built-in engine first; a hub file too big for the machine
// marked before it downloads; the models folder changed to one holding a
// GGUF, whose model then answers; axe-clean, and whole at 360 px.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { waitUntil } from './util.mjs'
import { assertNoSeriousViolations } from './axe.mjs'
import { buildFakeHub, startFakeHub, FIXTURES_REPO } from './fakehub.mjs'

// backend/engine/enginetest's Answer: what fixed.gguf writes.
const FIXED_ANSWER = 'Hello from the built-in engine. This reply is the same every time.'

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

// A machine with less memory than a model needs (SPEC §12), the figure Go
// reads given by PARLEY_MACHINE_MEMORY (256 MB: below any model's need):
// the catalogue is marked, onboarding suggests nothing, choosing the
// installed model is refused with the sentence until "Load anyway" is
// ticked (by keyboard), which Go remembers; axe-clean, whole at 360 px.
test('marks models too big for the machine, and loads one only with Load anyway', async () => {
  const server = await startServe(await newDataDir(), {
    extraArgs: ['--engine', 'builtin'], env: { HF_ENDPOINT: hub.url, PARLEY_MACHINE_MEMORY: String(256 * 1024 ** 2) },
  })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  try {
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    const status = await server.api('GET', '/api/v1/engine')
    assert.equal(status.body.memory.total, 256 * 1024 ** 2, "the engine's status says the machine's memory")
    await login(page, server)
    await page.getByTestId('onboarding').waitFor()

    await page.getByTestId('settings-button').click()
    const panel = page.getByTestId('settings-panel')
    await panel.getByTestId('settings-nav-models').click()
    const library = panel.getByTestId('model-library')
    await library.getByTestId('no-engine-models').waitFor()
    assert.equal(await library.getByTestId('machine-memory').innerText(), 'This computer has 256 MB of memory.')
    const entries = await library.getByTestId('catalog-entry').count()
    assert.ok(entries >= 5)
    assert.equal(await library.locator('[data-testid="catalog-entry"] [data-testid="too-big"]').count(), entries, 'every catalogue model is marked')
    assert.equal(await library.locator('.badge').count(), 0, 'none is suggested')
    assert.equal(await page.getByTestId('onboarding-builtin').count(), 1)
    assert.equal(await page.getByTestId('onboarding-suggestion').count(), 0, 'onboarding suggests no model that does not fit')

    // A hub file is judged before it downloads (issue #40): the hub says its
    // size, Go the memory it needs against this machine's; one sentence, and
    // the button becomes "Download anyway". Nothing is downloaded yet.
    await library.getByTestId('hub-repo').fill(FIXTURES_REPO)
    await library.getByTestId('hub-file').fill('fixed.gguf')
    await library.getByTestId('hub-download').click()
    const tooBig = library.getByTestId('hub-too-big')
    await tooBig.waitFor()
    assert.match(await tooBig.innerText(), /^This model needs about \d+ MB of memory and this computer has 256 MB: it can be downloaded, but Parley won't load it unless you tick Load anyway\.$/)
    assert.match(await library.getByTestId('hub-figures').innerText(), /^fixed\.gguf: [\d.]+ MB download · needs about \d+ MB of memory$/)
    const hubButton = library.getByTestId('hub-download')
    assert.equal(await hubButton.innerText(), 'Download anyway')
    assert.deepEqual((await server.api('GET', '/api/v1/engine/downloads')).body, [], 'nothing downloads before the user insists')
    const checked = await server.api('GET', `/api/v1/engine/hub/file?repo=${encodeURIComponent(FIXTURES_REPO)}&file=fixed.gguf`)
    assert.equal(checked.status, 200)
    assert.equal(checked.body.fits, false)
    assert.equal(checked.body.memory, 256 * 1024 ** 2)
    await assertNoSeriousViolations(page, 'Settings → Models with a hub file too big for the machine', '[data-testid="settings-panel"]')
    await page.setViewportSize({ width: 360, height: 760 })
    await tooBig.scrollIntoViewIfNeeded()
    const hubOverflow = await panel.evaluate((p) => [...p.querySelectorAll('[data-testid="model-library"], [data-testid="hub-check"]')].map((el) => el.scrollWidth - el.clientWidth))
    assert.ok(hubOverflow.every((d) => d <= 1), `no horizontal overflow at 360 px: ${hubOverflow}`)
    await screenshot(page, 'e2e-model-library-hub-too-big-360.png')
    await page.setViewportSize({ width: 1200, height: 900 })
    // Download anyway, by keyboard.
    await hubButton.focus()
    await page.keyboard.press('Enter')
    const model = library.locator('[data-testid="engine-model"][data-model="fixed"]')
    await model.waitFor({ timeout: 60000 })
    const mark = model.getByTestId('engine-model-too-big')
    assert.match(await mark.innerText(), /^Needs about \d+ MB of memory; this computer has 256 MB\. Parley won't load it unless you allow it\.$/)
    const radio = model.locator('input[type="radio"]')
    assert.equal(await radio.isDisabled(), true, 'it cannot be chosen')
    const anyway = model.getByTestId('engine-model-load-anyway')
    assert.equal(await anyway.isChecked(), false)
    await model.scrollIntoViewIfNeeded()
    await assertNoSeriousViolations(page, 'Settings → Models with a model too big for the machine', '[data-testid="settings-panel"]')
    await page.setViewportSize({ width: 360, height: 760 })
    await model.scrollIntoViewIfNeeded()
    const overflow = await panel.evaluate((p) => [...p.querySelectorAll('[data-testid="model-library"], [data-testid="engine-model"]')].map((el) => el.scrollWidth - el.clientWidth))
    assert.ok(overflow.every((d) => d <= 1), `no horizontal overflow at 360 px: ${overflow}`)
    await screenshot(page, 'e2e-model-library-too-big-360.png')
    await page.setViewportSize({ width: 1200, height: 900 })

    // Choosing it through the API is refused with the sentence, nothing saved.
    const settings = (await server.api('GET', '/api/v1/settings')).body
    const refused = await server.api('PUT', '/api/v1/settings', { ...settings, engine: 'builtin', model: 'fixed' })
    assert.equal(refused.status, 422)
    assert.match(JSON.stringify(refused.body), /fixed needs about \d+ MB of memory; this computer has 256 MB\. Choose a smaller model, or allow it in Settings → Models\./)
    assert.equal((await server.api('GET', '/api/v1/settings')).body.model, settings.model)

    // Load anyway, by keyboard: remembered by Go; then it can be chosen and saved.
    await anyway.focus()
    await page.keyboard.press('Space')
    await waitUntil(async () => !(await radio.isDisabled()), { what: 'the model can be chosen once allowed' })
    assert.equal(await anyway.isChecked(), true)
    const models = await server.api('GET', '/api/v1/engine/models')
    assert.deepEqual(models.body.map((m) => [m.id, m.allow_large]), [['fixed', true]])
    await radio.focus()
    await page.keyboard.press('Space')
    await panel.getByTestId('settings-save').click()
    await panel.waitFor({ state: 'detached' })
    assert.equal((await server.api('GET', '/api/v1/settings')).body.model, 'fixed')
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
    await server.stop()
  }
})

// The models folder as a setting (issue #40): Settings → Models → Change…
// to a folder holding a GGUF (fetched from the fake hub as any file is):
// it is listed as installed, chosen, and a message gets its reply from the
// built-in engine; the old folder is left as it was. Needs the engine's
// libraries (PARLEY_ENGINE_DIR, or a checkout set up by scripts/engine-libs.sh).
test('changes the models folder in Settings → Models; its model is listed, chosen, and answers', async () => {
  const data = await newDataDir()
  const folder = await mkdtemp(join(tmpdir(), 'parley-e2e-models-'))
  const res = await fetch(`${hub.url}/${FIXTURES_REPO}/resolve/main/fixed.gguf`)
  assert.equal(res.status, 200)
  await writeFile(join(folder, 'elsewhere.gguf'), Buffer.from(await res.arrayBuffer()))
  await writeFile(join(folder, 'half.gguf.part'), 'GGUF, not all of it')
  const server = await startServe(data, { extraArgs: ['--engine', 'builtin'], env: { HF_ENDPOINT: hub.url } })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  try {
    const { body: settings } = await server.api('PUT', '/api/v1/settings', {
      ...(await server.api('GET', '/api/v1/settings')).body, onboarded: true, engine: 'builtin',
    })
    assert.equal(settings.engine_models_dir, '')
    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    await page.getByTestId('settings-button').click()
    const panel = page.getByTestId('settings-panel')
    await panel.getByTestId('settings-nav-models').click()
    const library = panel.getByTestId('model-library')
    await library.getByTestId('no-engine-models').waitFor()
    const oldDir = join(data, 'models')
    assert.equal(await library.getByTestId('models-dir').innerText(), `Models are kept in ${oldDir}`)
    const oldFiles = await readdir(oldDir)

    // By keyboard: Change…, the path, Enter. A relative path first: said inline, nothing changed.
    await library.getByTestId('models-dir-change').focus()
    await page.keyboard.press('Enter')
    const input = library.getByTestId('models-dir-input')
    await input.fill('models')
    await input.press('Enter')
    const error = library.getByTestId('models-dir-error')
    await error.waitFor()
    assert.match(await error.innerText(), /must be an absolute path/)
    assert.equal((await server.api('GET', '/api/v1/settings')).body.engine_models_dir, '')
    await assertNoSeriousViolations(page, 'Settings → Models changing the models folder', '[data-testid="settings-panel"]')
    await page.setViewportSize({ width: 360, height: 760 })
    await input.scrollIntoViewIfNeeded()
    const overflow = await panel.evaluate((p) => [...p.querySelectorAll('[data-testid="model-library"]')].map((el) => el.scrollWidth - el.clientWidth))
    assert.ok(overflow.every((d) => d <= 1), `no horizontal overflow at 360 px: ${overflow}`)
    await screenshot(page, 'e2e-model-library-folder-360.png')
    await page.setViewportSize({ width: 1200, height: 900 })

    await input.fill(folder)
    await input.press('Enter')
    const model = library.locator('[data-testid="engine-model"][data-model="elsewhere"]')
    await model.waitFor()
    assert.equal(await library.getByTestId('engine-model').count(), 1, 'the GGUF of the folder, not its partial file')
    assert.equal(await library.getByTestId('models-dir').innerText(), `Models are kept in ${folder}`)
    assert.match(await library.getByTestId('models-dir-changed').innerText(), /The models of .+ are still there\./)
    assert.deepEqual(await readdir(oldDir), oldFiles, 'the old folder is left as it was')
    assert.equal((await server.api('GET', '/api/v1/engine')).body.models_dir, folder)

    await model.locator('input[type="radio"]').focus()
    await page.keyboard.press('Space')
    await panel.getByTestId('settings-save').click()
    await panel.waitFor({ state: 'detached' })
    const saved = (await server.api('GET', '/api/v1/settings')).body
    assert.equal(saved.engine_models_dir, folder)
    assert.equal(saved.model, 'elsewhere')

    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('Hello')
    await composer.press('Enter')
    await page.getByText(FIXED_ANSWER).waitFor({ timeout: 60000 })
    assert.equal((await server.api('GET', '/api/v1/engine')).body.model, 'elsewhere')
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
    await server.stop()
  }
})
