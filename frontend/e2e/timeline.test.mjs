// Where cards show up in the conversation: a second card of the same
// conversation (the demo model asks again on the next message) must appear
// after the message that led to it, with the earlier card left in place.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { enableDemo, login } from './serve.mjs'
import { waitUntil, startTempServe } from './util.mjs'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

async function newPage(server) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { page, errors }
}

async function sendForCard(page, text) {
  const before = await page.getByTestId('question-card').count()
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(text)
  await composer.press('Enter')
  await waitUntil(async () => (await page.getByTestId('question-card').count()) > before, { what: `a question card after "${text}"` })
  return page.getByTestId('question-card').last()
}

async function onlyConversation(server) {
  const convs = await server.api('GET', '/api/v1/conversations')
  assert.equal(convs.body.items.length, 1, 'one conversation: ' + JSON.stringify(convs.body))
  return convs.body.items[0].id
}

test('a second card in the same conversation is shown after the newest message, below the first one', async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const first = await sendForCard(page, 'Help me plan a party')
    const firstId = await first.getAttribute('data-question-id')
    await first.getByTestId('skip').click()
    await page.getByTestId('message-list').getByText("No problem — I'll go with sensible defaults").waitFor({ timeout: 15000 })
    await sendForCard(page, 'Now help me plan the menu')
    const id = await onlyConversation(server)
    const pending = await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${id}/pending-question`)).body.question_id, { what: 'the second pending card' })
    assert.notEqual(pending, firstId)
    await page.locator(`[data-question-id="${pending}"]`).waitFor()

    // What the list shows, top to bottom.
    const order = await page.evaluate(() => [...document.querySelectorAll('[data-testid=message-list] [data-testid]')]
      .filter((n) => ['user-message', 'assistant-message', 'question-card', 'tool-message'].includes(n.dataset.testid))
      .map((n) => n.dataset.testid === 'question-card' ? `card ${n.dataset.questionId} (${n.dataset.status})` : `${n.dataset.testid}: ${n.innerText.split('\n')[0].slice(0, 50)}`))
    await screenshot(page, 'e2e-second-card-order.png')
    const at = (pred) => order.findIndex(pred)
    const iFirst = at((s) => s.startsWith(`card ${firstId}`))
    const iSecond = at((s) => s.startsWith(`card ${pending}`))
    const iNoProblem = at((s) => s.includes('No problem'))
    const iSecondAsk = at((s) => s.includes('Now help me plan the menu'))
    const seen = '\nthe list shows:\n  ' + order.join('\n  ')
    assert.ok(iFirst >= 0 && iSecond >= 0, 'both cards are shown' + seen)
    assert.ok(iFirst < iNoProblem, 'the skipped card stays above the reply to the skip' + seen)
    assert.ok(iSecond > iSecondAsk, 'the new card comes after the message that led to it' + seen)
    assert.equal(iSecond, order.length - 1, 'the waiting card is the last thing in the conversation' + seen)

    // The run waits on the card: an action that waits for the run says so
    // when pointed at (aria-disabled, dimmed by its colour) and takes no
    // click; the others are left as they are (marking every one restyled them
    // all on each send and each run end); it is available again once the run
    // ended.
    const look = (b) => {
      const s = getComputedStyle(b)
      // rgb(r, g, b), rgba(r, g, b, a) or color(srgb r g b / a)
      const m = /\/\s*([\d.]+)\)$|^rgba\(.*,\s*([\d.]+)\)$/.exec(s.color)
      const alpha = m ? (m[1] ?? m[2]) : '1'
      return `${b.getAttribute('aria-disabled') ?? 'available'}, opacity ${s.opacity}, colour alpha ${Number(alpha).toFixed(2)}`
    }
    const edits = page.getByTestId('edit-message')
    assert.equal(await edits.count(), 2)
    await edits.first().hover()
    await waitUntil(async () => (await edits.first().evaluate(look)) === 'true, opacity 1, colour alpha 0.45', { what: 'Edit pointed at while the run waits on the card: unavailable' })
    assert.equal(await edits.nth(1).evaluate(look), 'available, opacity 1, colour alpha 1.00', 'the Edit not pointed at, while the run waits')
    // (force: Playwright itself takes aria-disabled for not clickable)
    const busy = 'The assistant is still working on this conversation. Stop it first, or wait.'
    assert.equal(await edits.first().getAttribute('title'), busy, 'why, in the title of the Edit pointed at')
    await edits.first().click({ force: true })
    // The click was handled once the banner says why (the same handler would
    // have opened the editor): no editor.
    await page.getByTestId('error-banner').getByText(busy).waitFor()
    assert.equal(await page.getByTestId('edit-text').count(), 0, 'an editor opened while the run was going')
    await page.locator(`[data-question-id="${pending}"]`).getByTestId('skip').click()
    await edits.first().hover()
    await waitUntil(async () => (await edits.first().evaluate(look)) === 'available, opacity 1, colour alpha 1.00', { what: 'Edit to be available once the run ended' })
    assert.equal(await edits.first().getAttribute('title'), null)
    await page.getByTestId('error-banner').waitFor({ state: 'detached' })
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})
