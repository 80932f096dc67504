// A model without native tool calling (SPEC §8), end to end: the scripted
// model server as its own process lists the model without the "tools"
// capability, refuses tools sent natively, and writes its calls into the
// reply text as <tool_call>{...}</tool_call>, streamed in 5-byte pieces (so
// the tag is cut in the middle). The real `parley serve` and the built UI in
// Chromium: the card appears, the answer reaches the model, the call text is
// never on the page, and Settings shows the model's statistics.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { buildModelServer, startModelServer as runModelServer } from './modelServer.mjs'

let browser, built, modelBin

before(async () => {
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

// Records every text the page shows that looks like a call: the page's
// text is checked after every DOM change (a MutationObserver), so a call
// flashing up for one frame is caught too.
function watchForCallText() {
  window.__callTextSeen = []
  window.__snapshots = 0
  const check = () => {
    window.__snapshots++
    const text = document.body.textContent || ''
    // Markdown may drop the tag as unknown HTML and curl the quotes: look
    // for the words of the call too.
    for (const bad of ['tool_call', 'arguments', 'ask_user_question', 'multiSelect']) {
      if (text.includes(bad)) window.__callTextSeen.push(bad)
    }
  }
  new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true })
}

for (const form of ['tag', 'fence']) {
  test(`a model without native tools asks through a ${form === 'tag' ? '<tool_call> tag' : 'json block'}; the call text never shows`, async () => {
    const model = await startModelServer('small', '-text-tools', form)
    const server = await startServe(await newDataDir(), { extraArgs: ['--base-url', model.url, '--model', 'small'] })
    try {
      const { body: st } = await server.api('GET', '/api/v1/settings')
      await server.api('PUT', '/api/v1/settings', { ...st, onboarded: true, rate_limit_seconds: 0 })
      const page = await browser.newPage({ viewport: { width: 1200, height: 850 } })
      const errors = []
      page.on('pageerror', (e) => errors.push(e.message))
      await login(page, server)
      await page.evaluate(watchForCallText)

      const composer = page.getByRole('textbox', { name: 'Message' })
      await composer.fill('Write a short note for my team')
      await composer.press('Enter')
      const card = page.getByTestId('question-card').last()
      await card.waitFor({ timeout: 15000 })
      await card.getByText('What tone should the answer have?').waitFor()
      await card.getByText('Friendly', { exact: true }).click()
      await card.getByTestId('primary').click() // Next
      await card.getByText('Examples', { exact: true }).click()
      await card.getByTestId('primary').click() // Review
      await card.getByTestId('primary').click() // Submit answers
      // The demo model's reply repeats the answers it received.
      const reply = page.getByTestId('message-list').getByText("Thanks! Here is what I'll go with")
      await reply.waitFor({ timeout: 15000 })
      await page.getByTestId('message-list').getByText('Friendly').first().waitFor()
      await screenshot(page, `e2e-textcalls-${form}.png`)

      const seen = await page.evaluate(() => ({ bad: window.__callTextSeen, snapshots: window.__snapshots }))
      assert.ok(seen.snapshots > 10, `the observer saw the page change (${seen.snapshots} snapshots)`)
      assert.deepEqual(seen.bad, [], 'call text showed on the page')
      assert.ok(!(await page.getByTestId('message-list').textContent()).includes('tool_call'))

      const convs = await server.api('GET', '/api/v1/conversations')
      const conv = await server.api('GET', `/api/v1/conversations/${convs.body.items[0].id}`)
      const roles = conv.body.messages.map((m) => m.role)
      assert.deepEqual(roles, ['user', 'assistant', 'tool', 'assistant'])
      assert.equal(conv.body.messages[1].tool_calls[0].name, 'ask_user_question')
      assert.ok(!conv.body.messages[1].content.includes('tool_call'), conv.body.messages[1].content)
      assert.equal(conv.body.messages[2].content, '{"answers":{"What should it include?":"Examples","What tone should the answer have?":"Friendly"}}')

      // Settings shows how well the model asked.
      await page.getByTestId('settings-button').click()
      const stats = page.getByTestId('model-stats').locator('[data-model="small"]')
      await stats.waitFor()
      assert.equal(await stats.getByTestId('stat-cards').textContent(), '1')
      assert.equal(await stats.getByTestId('stat-outcomes').textContent(), '1 / 0 / 0 / 0')
      assert.notEqual(await stats.getByTestId('stat-median').textContent(), '—')
      await screenshot(page, `e2e-textcalls-stats-${form}.png`)
      assert.deepEqual(errors, [])
    } finally {
      await server.stop()
      await model.stop()
    }
  })
}
