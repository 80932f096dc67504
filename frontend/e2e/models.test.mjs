// Model servers end to end: the real `parley serve` against nothing at all,
// against the scripted model server acting as Ollama, and acting as a plain
// OpenAI-compatible server (llama.cpp, LM Studio), with the built UI in
// Chromium.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { freePort } from './util.mjs'
import { buildModelServer, startModelServer as runModelServer } from './modelServer.mjs'

let browser, built, modelBin

before(async () => {
  // The scripted model server as its own process, as a real one would be.
  built = await buildModelServer()
  modelBin = built.bin
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await built?.remove()
})

/** The scripted server listing `model`, with more flags. */
const startModelServer = (model, ...flags) => runModelServer(modelBin, '-model', model, ...flags)

async function openSettings(page) {
  await page.getByTestId('settings-button').click()
  const panel = page.getByTestId('settings-panel')
  await panel.getByTestId('server-status').getByText('Connected').waitFor()
  return panel
}

test('sending with no model server running shows one error, naming the server that cannot be reached', async () => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}/v1`
  const server = await startServe(await newDataDir(), { extraArgs: ['--base-url', base] })
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } })
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('hello')
    await composer.press('Enter')
    const banner = page.getByTestId('error-banner')
    await banner.waitFor({ timeout: 15000 })
    await screenshot(page, 'e2e-no-model-server.png')

    const text = await banner.innerText()
    assert.match(text, new RegExp(`Cannot reach the model server at ${base.replace(/[./]/g, '\\$&')}\\.`))
    assert.doesNotMatch(text, /No model is chosen/)
    const main = await page.getByTestId('chat-view').innerText()
    assert.doesNotMatch(main, /`/, 'no literal backticks')
    assert.equal(await page.getByRole('alert').count(), 1, 'one error on the page')
    assert.equal(await page.getByTestId('onboarding').count(), 0, 'no second (onboarding) banner')
    assert.equal((await page.getByTestId('run-status').innerText()).trim(), '')
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('with Ollama listing parley-fixture:latest, --model parley-fixture is one checked model with tools', async () => {
  const model = await startModelServer('parley-fixture:latest')
  const server = await startServe(await newDataDir(), { extraArgs: ['--base-url', model.url, '--model', 'parley-fixture'] })
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    await login(page, server)
    const panel = await openSettings(page)
    const options = panel.getByTestId('model-option')
    await options.first().waitFor()
    assert.equal(await options.count(), 1)
    const only = options.first()
    assert.match(await only.innerText(), /parley-fixture:latest/)
    assert.equal(await only.getByTestId('supports-tools').count(), 1)
    assert.equal(await only.locator('input').isChecked(), true)
    assert.doesNotMatch(await panel.innerText(), /not on this server/)
    await screenshot(page, 'e2e-model-latest.png')
  } finally {
    await server.stop()
    await model.stop()
  }
})

test('a llama.cpp-style server (no Ollama API) lists its models in Settings and through the API', async () => {
  const model = await startModelServer('org/qwen3-8b-Q4_K_M.gguf', '-openai-only')
  const server = await startServe(await newDataDir(), { extraArgs: ['--base-url', model.url, '--model', 'org/qwen3-8b-Q4_K_M.gguf'] })
  try {
    const listed = await server.api('GET', '/api/v1/models')
    assert.equal(listed.status, 200, JSON.stringify(listed.body))
    assert.deepEqual(listed.body, [{ name: 'org/qwen3-8b-Q4_K_M.gguf', supports_tools: false, tools_unknown: true }])

    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    await login(page, server)
    const panel = await openSettings(page)
    assert.match(await panel.getByTestId('server-status').innerText(), /1 model/)
    const options = panel.getByTestId('model-option')
    assert.equal(await options.count(), 1)
    assert.match(await options.first().innerText(), /org\/qwen3-8b-Q4_K_M\.gguf/)
    assert.doesNotMatch(await options.first().innerText(), /no tools|not on this server/)
    assert.equal(await options.first().locator('input').isChecked(), true)
    assert.equal(await panel.getByTestId('pull').count(), 0, 'no downloads from a server without Ollama API')
    await screenshot(page, 'e2e-model-openai-only.png')
  } finally {
    await server.stop()
    await model.stop()
  }
})
