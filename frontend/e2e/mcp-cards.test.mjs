// Approval and elicitation cards (SPEC §6) in Chromium against the real
// `parley serve`, a scripted model that calls MCP tools, and the real
// @modelcontextprotocol/server-everything: approve an echo call and see its
// result, reject with a reason, edit then approve, an elicitation form with
// every field type answered and accepted, and a URL elicitation showing the
// URL with its domain highlighted and never opened by itself.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { login } from './serve.mjs'
import { transcript, waitUntil } from './util.mjs'
import { idle, startMcpServe } from './mcp.mjs'

let browser, env
before(async () => {
  browser = await launchChromium()
  env = await startMcpServe({ policies: { echo: 'ask', 'trigger-elicitation-request': 'allow', 'trigger-url-elicitation': 'allow', 'get-tiny-image': 'allow' } })
})
after(async () => {
  await env?.stop()
  await browser?.close()
})

/** Sends `content` from the composer of a new page's new chat; resolves the page and the conversation's id. */
async function startChat(content) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, env.server)
  const before = new Set(((await env.server.api('GET', '/api/v1/conversations')).body.items ?? []).map((c) => c.id))
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(content)
  await composer.press('Enter')
  const id = await waitUntil(async () => ((await env.server.api('GET', '/api/v1/conversations')).body.items ?? []).find((c) => !before.has(c.id))?.id, {
    what: 'the new conversation',
  })
  return { page, id, errors }
}

const toolResult = (conv) => conv.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? ''

test('approve an echo call: the card names server, tool and arguments, and the result reaches the chat', async () => {
  const { page, id, errors } = await startChat('call echo {"message":"hello from e2e"}')
  const card = page.getByTestId('approval-card')
  await card.waitFor()
  assert.equal(await card.locator('h2').innerText(), 'Allow everything to run echo?')
  assert.match(await card.getByTestId('approval-description').innerText(), /echo/i)
  assert.equal(JSON.parse(await card.getByTestId('approval-arguments').innerText()).message, 'hello from e2e')
  await card.getByTestId('approve').click()
  await page.getByTestId('assistant-message').filter({ hasText: 'Tool said:' }).waitFor()
  const conv = await idle(env.server, id)
  assert.match(toolResult(conv), /hello from e2e/, transcript(conv))
  assert.equal(await card.getAttribute('data-status'), 'approved')
  assert.deepEqual(errors, [])
  await page.close()
})

test('an image an MCP tool returns is shown in the chat, live and after a reload', async () => {
  const { page, id, errors } = await startChat('call get-tiny-image {}')
  await page.getByTestId('assistant-message').filter({ hasText: 'Tool said:' }).waitFor()
  await idle(env.server, id)
  for (const when of ['live', 'after a reload']) {
    if (when !== 'live') {
      await page.reload()
      await page.getByTestId('conversation-item').first().click()
    }
    const thumb = page.getByTestId('attachment-image').first()
    await thumb.waitFor()
    await thumb.scrollIntoViewIfNeeded()
    const img = thumb.locator('img')
    assert.match(await img.getAttribute('src'), /^data:image\/png;base64,/, when)
    await waitUntil(() => img.evaluate((el) => el.complete && el.naturalWidth > 0), { what: `the image decoded (${when})` })
  }
  assert.deepEqual(errors, [])
  await page.close()
})

test('reject with a reason: the tool does not run and the model is told why', async () => {
  const { page, id } = await startChat('call echo {"message":"do not run"}')
  const card = page.getByTestId('approval-card')
  await card.waitFor()
  await card.getByTestId('approval-reject').click()
  await card.getByTestId('reject-reason').fill('Not today, thanks')
  await card.getByTestId('reject-confirm').click()
  const conv = await idle(env.server, id)
  const result = toolResult(conv)
  assert.match(result, /rejected/i, transcript(conv))
  assert.match(result, /Not today, thanks/)
  assert.doesNotMatch(result, /Echo: do not run/)
  await card.getByTestId('outcome-reason').waitFor()
  assert.equal(await card.getAttribute('data-status'), 'rejected')
  await page.close()
})

test('edit then approve: the tool runs with the edited arguments', async () => {
  const { page, id } = await startChat('call echo {"message":"original"}')
  const card = page.getByTestId('approval-card')
  await card.waitFor()
  await card.getByTestId('approval-edit').click()
  const input = card.locator('[data-field="message"] input')
  assert.equal(await input.inputValue(), 'original')
  await input.fill('edited in the card')
  await card.getByTestId('approve').click()
  const conv = await idle(env.server, id)
  assert.match(toolResult(conv), /edited in the card/, transcript(conv))
  assert.doesNotMatch(toolResult(conv), /original/)
  await card.getByTestId('approval-outcome').filter({ hasText: 'Approved with edited arguments.' }).waitFor()
  await page.close()
})

test('an elicitation form with every field type, answered step by step and accepted', async () => {
  const { page, id } = await startChat('call trigger-elicitation-request {}')
  const card = page.getByTestId('elicitation-card')
  await card.waitFor()
  assert.match(await card.locator('h2').innerText(), /^everything asks for information/)
  assert.match(await card.getByTestId('elicitation-note').innerText(), /non-sensitive/)
  const next = () => card.getByTestId('primary').click()
  const field = (key) => card.locator(`[data-field="${key}"]`)

  await field('name').locator('input').fill('Ada Lovelace')
  await next()
  await field('check').locator('.opt', { hasText: 'Yes' }).click()
  await next()
  assert.equal(await field('firstLine').locator('input').inputValue(), 'It was a dark and stormy night.')
  await next()
  assert.equal(await field('email').locator('input').getAttribute('type'), 'email')
  await field('email').locator('input').fill('ada@example.com')
  await next()
  assert.equal(await field('homepage').locator('input').getAttribute('type'), 'url')
  await field('homepage').locator('input').fill('https://ada.example.com')
  await next()
  assert.equal(await field('birthdate').locator('input').getAttribute('type'), 'date')
  await field('birthdate').locator('input').fill('1815-12-10')
  await next()
  // Out of bounds is refused in the card before anything is sent.
  await field('integer').locator('input').fill('101')
  await next()
  assert.equal(await field('integer').getByTestId('field-error').innerText(), 'Enter 100 or less.')
  await field('integer').locator('input').fill('7')
  await next()
  await field('number').locator('input').fill('2.5')
  await next()
  assert.equal(await field('untitledSingleSelectEnum').locator('input[type="radio"]').count(), 6)
  await field('untitledSingleSelectEnum').locator('.opt', { hasText: 'Phoebe' }).click()
  await next()
  await field('untitledMultipleSelectEnum').locator('.opt', { hasText: 'Piano' }).click()
  await next()
  await field('titledSingleSelectEnum').locator('.opt', { hasText: 'Wonder Woman' }).click()
  await next()
  await field('titledMultipleSelectEnum').locator('.opt', { hasText: 'Trout' }).click()
  await next()
  assert.deepEqual(await field('legacyTitledEnum').locator('.opt-label').allInnerTexts(), ['Cats', 'Dogs', 'Birds', 'Fish', 'Reptiles'])
  await field('legacyTitledEnum').locator('.opt', { hasText: 'Birds' }).click()
  await next()
  await card.getByTestId('elicitation-review').waitFor()
  await screenshot(page, 'mcp-elicitation-review.png')
  await next()

  const conv = await idle(env.server, id)
  const raw = JSON.parse(/Raw result: ([\s\S]*)$/.exec(toolResult(conv))?.[1] ?? 'null')
  assert.equal(raw?.action, 'accept', transcript(conv))
  assert.deepEqual(raw.content, {
    name: 'Ada Lovelace',
    check: true,
    firstLine: 'It was a dark and stormy night.',
    email: 'ada@example.com',
    homepage: 'https://ada.example.com',
    birthdate: '1815-12-10',
    integer: 7,
    number: 2.5,
    untitledSingleSelectEnum: 'Phoebe',
    untitledMultipleSelectEnum: ['Guitar', 'Piano'],
    titledSingleSelectEnum: 'hero-3',
    titledMultipleSelectEnum: ['fish-1', 'fish-3'],
    legacyTitledEnum: 'pet-3',
  })
  const values = card.getByTestId('outcome-values')
  await values.waitFor()
  assert.match(await values.innerText(), /Wonder Woman/)
  await page.close()
})

test('a URL elicitation shows the full URL with its domain highlighted and opens nothing by itself', async () => {
  const url = 'https://xn--80ak6aa92e.com/consent?state=e2e'
  const { page, id } = await startChat(`call trigger-url-elicitation {"url":"${url}","message":"Please sign in"}`)
  const opened = []
  page.context().on('page', (p) => opened.push(p.url()))
  const requested = []
  page.context().on('request', (r) => { if (r.url().includes('xn--80ak6aa92e')) requested.push(r.url()) })
  const card = page.getByTestId('elicitation-card')
  await card.waitFor()
  assert.equal(await card.getAttribute('data-mode'), 'url')
  assert.equal(await card.getByTestId('elicitation-url').innerText(), url)
  assert.equal(await card.getByTestId('url-host').innerText(), 'xn--80ak6aa92e.com')
  assert.equal(await card.getByTestId('url-host').evaluate((el) => el.tagName), 'MARK')
  assert.match(await card.getByTestId('punycode-warning').innerText(), /punycode/)
  await screenshot(page, 'mcp-url-elicitation.png')
  await page.waitForTimeout(300)
  assert.deepEqual(opened, [], 'nothing was opened')
  assert.deepEqual(requested, [], 'nothing was fetched')
  await card.getByTestId('decline').click()
  const conv = await idle(env.server, id)
  assert.match(toolResult(conv), /decline/i, transcript(conv))
  assert.deepEqual(opened, [])
  await page.close()
})
