// Issue #40's "done when", as a new user meets it: a fresh Parley (no
// settings, no --engine: a fresh install's engine is the built-in one)
// opens on onboarding, the user downloads the model onboarding suggests for
// this machine — served by the fake Hugging Face hub through HF_ENDPOINT
// (cmd/fakehub -catalog: the card fixture under every catalogue model's
// repository and file, since no real weights are reachable here) — and the
// first message gets a streamed reply and a question card from Parley's own
// engine, with nothing else installed. PARLEY_BIN picks the Parley: the
// package test runs this file against the installed .deb's /usr/bin/parley,
// with PARLEY_E2E_ENGINE_LIBS=/usr/lib/parley/engine: the engine process
// must have mapped its llama.cpp from there.
import { test, before, after } from 'node:test'
import { readdir, readFile } from 'node:fs/promises'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login, token } from './serve.mjs'
import { waitUntil } from './util.mjs'
import { buildFakeHub, startFakeHub } from './fakehub.mjs'

// backend/engine/enginetest's CardFollowUp: what card.gguf writes once answered.
const FOLLOW_UP = 'Thank you: your answer settles it.'

let browser, built, hub

before(async () => {
  built = await buildFakeHub()
  hub = await startFakeHub(built.bin, '-catalog')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await hub?.stop()
  await built?.remove()
})

/** Reads the server's event stream (SPEC §3) into `names` until stopped. */
function recordEvents(server) {
  const names = []
  const ctl = new AbortController()
  const done = (async () => {
    const res = await fetch(server.url + '/api/v1/events', { headers: { Authorization: `Bearer ${token}` }, signal: ctl.signal })
    const decoder = new TextDecoder()
    let buf = ''
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk, { stream: true })
      let i
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i)
        buf = buf.slice(i + 2)
        const m = /^event: (.+)$/m.exec(block)
        if (m) names.push(m[1])
      }
    }
  })().catch((err) => { if (err.name !== 'AbortError') throw err })
  return { names, stop: async () => { ctl.abort(); await done } }
}

test('a new user picks the suggested model in onboarding and gets a streamed reply and a question card from the built-in engine', async () => {
  const server = await startServe(await newDataDir(), { env: { HF_ENDPOINT: hub.url } })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  const events = recordEvents(server)
  try {
    const { body: fresh } = await server.api('GET', '/api/v1/settings')
    assert.equal(fresh.engine, 'builtin', 'a fresh install chats on the built-in engine')

    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)

    // Onboarding: the built-in engine first, with a model sized for this machine.
    const onboarding = page.getByTestId('onboarding')
    const suggestion = onboarding.getByTestId('onboarding-suggestion')
    await suggestion.waitFor()
    const entry = await suggestion.getAttribute('data-entry')
    const { body: catalog } = await server.api('GET', '/api/v1/engine/catalog')
    assert.ok(catalog.some((e) => e.id === entry), `the suggestion ${entry} is a catalogue model`)
    await onboarding.getByTestId('onboarding-download').click()

    // Downloaded, checked, chosen: onboarding gives way to the chat.
    await waitUntil(async () => (await page.getByTestId('onboarding').count()) === 0, { what: 'onboarding gone once the model is in', timeout: 120000 })
    const { body: settings } = await server.api('GET', '/api/v1/settings')
    assert.equal(settings.engine, 'builtin')
    const { body: models } = await server.api('GET', '/api/v1/engine/models')
    const installed = models.find((m) => m.id === settings.model)
    assert.ok(installed && installed.state === 'ready', `the chosen model ${settings.model} is installed: ${JSON.stringify(models)}`)
    const suggested = catalog.find((e) => e.id === entry)
    assert.deepEqual([installed.source.repo, installed.source.file], [suggested.repo, suggested.file], 'the suggested model is the one chosen')

    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('Pick a colour for my bedroom')
    await composer.press('Enter')
    const card = page.getByTestId('question-card').last()
    await card.waitFor({ timeout: 120000 })
    await card.getByText('Which colour?').waitFor()
    assert.match(await page.getByTestId('chat-shell').innerText(), /Let me ask\./, "the model's words before its call")
    assert.ok(events.names.includes('message:delta'), `the reply streamed: ${[...new Set(events.names)].join(', ')}`)
    assert.ok(events.names.includes('question:ask'), 'the card came as an event')
    assert.equal((await server.api('GET', '/api/v1/engine')).body.state, 'ready', "Parley's own engine answered")
    const libs = process.env.PARLEY_E2E_ENGINE_LIBS
    if (libs) {
      // A Go program starts a child from any of its threads: each lists its own.
      const pid = server.child.pid
      const tasks = await readdir(`/proc/${pid}/task`)
      const children = (await Promise.all(tasks.map((t) => readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => ''))))
        .join(' ').trim().split(/\s+/).filter(Boolean)
      const maps = await Promise.all(children.map((pid) => readFile(`/proc/${pid}/maps`, 'utf8').catch(() => '')))
      assert.ok(maps.some((m) => m.includes(`${libs}/libllama`)), `the engine process (of ${children}) mapped ${libs}/libllama`)
    }
    await screenshot(page, 'e2e-first-run-engine-card.png')

    await card.locator('[data-option][value="Blue"]').focus()
    await page.keyboard.press('Space')
    await page.keyboard.press('Enter')
    await page.getByText(FOLLOW_UP).waitFor({ timeout: 120000 })
    assert.deepEqual(errors, [])
  } finally {
    await events.stop()
    await context.close()
    await server.stop()
  }
})
