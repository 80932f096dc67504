// The question flow end to end: the real `parley serve` with its demo model,
// the built UI in Chromium, answers going back to the model.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, enableDemo, login } from './serve.mjs'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

async function newChat(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(text)
  await composer.press('Enter')
  const card = page.getByTestId('question-card').last()
  await card.waitFor({ timeout: 15000 })
  return card
}

test('a two-question card is answered in the browser and the answer reaches the model', async () => {
  const dataDir = await newDataDir()
  const server = await startServe(dataDir)
  try {
    await enableDemo(server)
    const page = await browser.newPage({ viewport: { width: 1200, height: 850 } })
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    const card = await newChat(page, 'Write a short note for my team')
    await assert.doesNotReject(card.getByText('What tone should the answer have?').waitFor())
    await screenshot(page, 'e2e-card-asked.png')

    await card.getByText('Friendly', { exact: true }).click()
    await card.getByTestId('primary').click() // Next
    await card.getByText('Examples', { exact: true }).click()
    await card.getByText('Next steps', { exact: true }).click()
    await card.getByTestId('primary').click() // Review
    await card.getByTestId('primary').click() // Submit answers
    await page.getByTestId('message-list').getByText('Thanks! Here is what I\'ll go with').waitFor({ timeout: 15000 })
    await screenshot(page, 'e2e-card-answered.png')

    const convs = await server.api('GET', '/api/v1/conversations')
    const id = convs.body.items[0].id
    const cards = await server.api('GET', `/api/v1/conversations/${id}/questions`)
    assert.equal(cards.body.length, 1)
    assert.equal(cards.body[0].status, 'answered')
    assert.deepEqual(cards.body[0].answers, {
      'What tone should the answer have?': 'Friendly',
      'What should it include?': 'Examples, Next steps',
    })
    const conv = await server.api('GET', `/api/v1/conversations/${id}`)
    const tool = conv.body.messages.find((m) => m.role === 'tool')
    assert.equal(tool.content, '{"answers":{"What should it include?":"Examples, Next steps","What tone should the answer have?":"Friendly"}}')
    assert.equal(conv.body.state, 'idle')
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('skip sends a decline and the assistant carries on', async () => {
  const server = await startServe(await newDataDir())
  try {
    await enableDemo(server)
    const page = await browser.newPage()
    await login(page, server)
    const card = await newChat(page, 'Help me plan')
    await card.getByTestId('skip').click()
    await page.getByTestId('message-list').getByText("No problem — I'll go with sensible defaults").waitFor({ timeout: 15000 })
    const pending = await server.api('GET', '/api/v1/questions?status=pending')
    assert.equal(pending.body.length, 0)
  } finally {
    await server.stop()
  }
})

test('model text and answers with HTML stay inert', async () => {
  const server = await startServe(await newDataDir())
  try {
    await enableDemo(server)
    const page = await browser.newPage()
    await login(page, server)
    const card = await newChat(page, '<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>')
    await card.getByText('Friendly', { exact: true }).click()
    await card.getByTestId('primary').click()
    // "Other" free text carrying a payload, echoed back by the demo model as Markdown.
    await card.getByRole('textbox', { name: 'Other answer' }).fill('<img src=x onerror="window.__xss=3">[link](javascript:window.__xss=4)')
    await card.getByTestId('primary').click()
    await card.getByTestId('primary').click()
    await page.getByTestId('message-list').getByText('Thanks! Here is what I\'ll go with').waitFor({ timeout: 15000 })
    await page.waitForTimeout(300)
    assert.equal(await page.evaluate(() => window.__xss), undefined)
    assert.equal(await page.locator('img[onerror], script:not([src]), a[href^="javascript:"]').count(), 0)
    await screenshot(page, 'e2e-xss-inert.png')
  } finally {
    await server.stop()
  }
})

test('a card pending when the server restarts is shown again and answering it finishes the run', async () => {
  const dataDir = await newDataDir()
  let server = await startServe(dataDir)
  await enableDemo(server)
  const page = await browser.newPage()
  await login(page, server)
  await newChat(page, 'Draft an email')
  const code = await server.stop()
  assert.equal(code, 0, 'serve exits cleanly on SIGTERM')

  server = await startServe(dataDir)
  try {
    const pending = await server.api('GET', '/api/v1/questions?status=pending')
    assert.equal(pending.body.length, 1, 'the card is still pending after the restart')
    await page.goto(server.url + '/login?token=' + (await import('./serve.mjs')).token)
    await page.getByTestId('conversation-open').first().click()
    const card = page.getByTestId('question-card').last()
    await card.getByText('Formal', { exact: true }).click()
    await card.getByTestId('primary').click()
    await card.getByText('Summary', { exact: true }).click()
    await card.getByTestId('primary').click()
    await card.getByTestId('primary').click()
    await page.getByTestId('message-list').getByText('Thanks! Here is what I\'ll go with').waitFor({ timeout: 15000 })
    const after = await server.api('GET', '/api/v1/questions?status=pending')
    assert.equal(after.body.length, 0)
  } finally {
    await server.stop()
  }
})
