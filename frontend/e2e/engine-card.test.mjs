// The question card through Parley's built-in engine end to end (SPEC §12):
// the real `parley serve` with "engine":"builtin" runs its own engine
// process on llama.cpp's libraries (scripts/engine-libs.sh) with a model
// downloaded from the fake Hugging Face hub (cmd/fakehub -fixtures): the
// generated card.gguf, whose greedy output is an ask_user_question call in
// its chat template's format until the prompt holds the card's answer, then
// a sentence. A message in Chromium brings the card; answering it lets the
// run go on to that sentence.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { waitUntil } from './util.mjs'
import { assertNoSeriousViolations } from './axe.mjs'
import { buildFakeHub, startFakeHub, FIXTURES_REPO } from './fakehub.mjs'

// backend/engine/enginetest's CardFollowUp: what card.gguf writes once answered.
const FOLLOW_UP = 'Thank you: your answer settles it.'

let browser, built, hub

before(async () => {
  built = await buildFakeHub()
  hub = await startFakeHub(built.bin)
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await hub?.stop()
  await built?.remove()
})

test('a message to the built-in engine brings its question card; the answer lets the run go on', async () => {
  const server = await startServe(await newDataDir(), { extraArgs: ['--engine', 'builtin'], env: { HF_ENDPOINT: hub.url } })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  try {
    // The model, downloaded through the library and chosen.
    const dl = await server.api('POST', '/api/v1/engine/downloads', { repo: FIXTURES_REPO, file: 'card.gguf' })
    assert.equal(dl.status, 202, JSON.stringify(dl.body))
    await waitUntil(async () => (await server.api('GET', '/api/v1/engine/models')).body.some((m) => m.id === 'card' && m.state === 'ready'),
      { what: 'card.gguf installed', timeout: 60000 })
    const { body: settings } = await server.api('GET', '/api/v1/settings')
    const saved = await server.api('PUT', '/api/v1/settings', { ...settings, engine: 'builtin', model: 'card', onboarded: true, rate_limit_seconds: 0 })
    assert.equal(saved.status, 200, JSON.stringify(saved.body))
    assert.equal((await server.api('GET', '/api/v1/engine')).body.state, 'stopped', 'the engine starts on first need')

    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('Pick a colour for my bedroom')
    await composer.press('Enter')

    const card = page.getByTestId('question-card').last()
    await card.waitFor({ timeout: 60000 })
    await card.getByText('Which colour?').waitFor()
    assert.match(await page.getByTestId('chat-shell').innerText(), /Let me ask\./, "the model's words before its call")
    const engine = (await server.api('GET', '/api/v1/engine')).body
    assert.equal(engine.state, 'ready')
    assert.equal(engine.model, 'card')
    await assertNoSeriousViolations(page, "the built-in engine's card")
    await screenshot(page, 'e2e-engine-card.png')

    // Answer it by keyboard: the second option, Enter submits.
    await card.locator('[data-option][value="Blue"]').focus()
    await page.keyboard.press('Space')
    assert.equal(await card.locator('[data-option][value="Blue"]').isChecked(), true)
    await page.keyboard.press('Enter')

    await page.getByText(FOLLOW_UP).waitFor({ timeout: 60000 })
    const convs = await server.api('GET', '/api/v1/conversations')
    const id = convs.body.items[0].id
    let conv
    await waitUntil(async () => {
      conv = (await server.api('GET', `/api/v1/conversations/${id}`)).body
      return conv.state === 'idle'
    }, { what: 'the run ends', timeout: 30000 })
    const tool = conv.messages.find((m) => m.role === 'tool')
    assert.ok(tool, 'the answer is the tool result: ' + JSON.stringify(conv.messages))
    assert.deepEqual(JSON.parse(tool.content).answers, { 'Which colour?': 'Blue' })
    assert.equal(conv.messages.at(-1).content, FOLLOW_UP)
    assert.equal(await page.getByTestId('question-card').count(), 1, 'no second card: the model saw the answer')
    await screenshot(page, 'e2e-engine-card-answered.png')
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
    await server.stop()
  }
})
