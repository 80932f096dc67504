// Agents on the machine ask through Parley (SPEC §10), in Chromium against
// the real `parley serve`: a script with an agent token files a card through
// POST /api/v1/asks while the page is open; the card reaches the UI by
// events, under Agents in the sidebar and in the inbox; its context is
// sanitized Markdown above the card; the conversation has no composer; the
// user answers it and the agent's GET /api/v1/asks/{id}?wait= gets exactly
// the §1 result.
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

const QUESTION = 'Deploy build 42 to production?'
// The context carries HTML that must never run or render as markup.
const CONTEXT = 'Release **v1.4** is ready.\n\n<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>'

// agentCall is a request with an agent token, as a script would make it.
async function agentCall(server, tok, method, path, body) {
  const res = await fetch(server.url + path, {
    method,
    headers: { Authorization: `Bearer ${tok}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

test("an agent's card appears under Agents and in the inbox, is answered, and the agent gets the §1 result", async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const made = await server.api('POST', '/api/v1/agent-tokens', { name: 'deploy-bot' })
    assert.equal(made.status, 201, JSON.stringify(made.body))
    const tok = made.body.token

    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    assert.equal(await page.getByTestId('agents-list').count(), 0, 'no Agents group before any agent asked')

    // The agent asks while the page is open (the card reaches it by events).
    const filed = await agentCall(server, tok, 'POST', '/api/v1/asks', {
      questions: [{ question: QUESTION, header: 'Deploy', options: [{ label: 'Yes', description: 'Ship it now' }, { label: 'No' }] }],
      context: CONTEXT,
      timeout_seconds: 0,
    })
    assert.equal(filed.status, 201, JSON.stringify(filed.body))
    const { question_id: id, conversationId } = filed.body
    assert.equal(filed.body.status, 'pending')
    const first = await agentCall(server, tok, 'GET', `/api/v1/asks/${id}`)
    assert.deepEqual(first.body, { question_id: id, status: 'pending' })

    // Under Agents in the sidebar, by the token's name.
    const agents = page.getByTestId('agents-list')
    await agents.waitFor({ timeout: 10000 })
    const item = agents.getByTestId('conversation-item')
    await waitUntil(async () => (await item.count()) === 1 && (await item.innerText()).includes('deploy-bot'), { what: 'deploy-bot under Agents' })
    assert.equal(await page.getByTestId('pinned-list').getByText('deploy-bot').count(), 0)

    // In the inbox, counted with the rest; the entry opens the card.
    const badge = page.getByTestId('inbox-badge')
    await waitUntil(async () => (await badge.count()) && (await badge.innerText()).trim() === '1', { what: 'inbox badge "1"' })
    await page.getByTestId('inbox-button').click()
    const entry = page.getByTestId('inbox-panel').getByTestId('inbox-item')
    assert.equal(await entry.count(), 1)
    const entryText = await entry.innerText()
    assert.ok(entryText.includes('deploy-bot') && entryText.includes(QUESTION), entryText)
    await entry.click()

    const card = page.locator(`[data-testid=question-card][data-question-id="${id}"]`)
    await card.waitFor({ timeout: 10000 })
    await card.getByText(QUESTION).waitFor()

    // The context: rendered Markdown above the card; its HTML is inert text or gone.
    const context = page.locator('[data-testid=assistant-message]').filter({ hasText: 'is ready' })
    await context.waitFor({ timeout: 5000 })
    assert.equal(await context.locator('strong').filter({ hasText: 'v1.4' }).count(), 1, 'the context is rendered Markdown')
    assert.equal(await page.locator('main img[src="x"], main script').count(), 0, 'no raw HTML from the agent')
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null, "the agent's HTML ran")
    const contextBox = await context.boundingBox()
    const cardBox = await card.boundingBox()
    assert.ok(contextBox.y < cardBox.y, 'the context is above the card')

    // Nobody types into an agent's conversation.
    assert.equal(await page.getByTestId('composer').count(), 0)
    assert.match(await page.getByTestId('agent-note').innerText(), /deploy-bot/)
    await screenshot(page, 'e2e-agent-card.png')

    // Answered in the UI; the waiting agent gets the §1 result.
    const waiting = agentCall(server, tok, 'GET', `/api/v1/asks/${id}?wait=30`)
    await card.getByText('Yes', { exact: true }).click()
    await card.getByTestId('primary').click()
    const got = await waiting
    assert.equal(got.status, 200, JSON.stringify(got.body))
    assert.deepEqual(got.body, { question_id: id, status: 'answered', result: `{"answers":{"${QUESTION}":"Yes"}}` })
    await waitUntil(async () => (await badge.count()) === 0, { what: 'the inbox badge to go' })

    // The agent's conversation keeps the card answered; no model ran in it.
    const conv = (await server.api('GET', `/api/v1/conversations/${conversationId}`)).body
    assert.equal(conv.agent, 'deploy-bot')
    assert.equal(conv.state, 'idle')
    assert.equal(conv.messages.filter((m) => m.role === 'tool').length, 0, JSON.stringify(conv.messages))

    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})
