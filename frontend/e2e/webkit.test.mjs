// The core question flow in WebKit, the engine of the Linux app: the real
// `parley serve` with the demo model, its UI in MiniBrowser driven by
// WebKitWebDriver (W3C WebDriver over HTTP) on a private Xvfb display; and
// one card of an agent on the machine (SPEC §10), answered under Agents.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { enableDemo, token } from './serve.mjs'
import { startXvfb, startWebDriver, Session } from './webkit.mjs'
import { waitUntil, saveArtifact, transcript, startTempServe } from './util.mjs'

let xvfb, driver, session

before(async () => {
  xvfb = await startXvfb()
  driver = await startWebDriver(xvfb.display)
  session = await Session.create(driver.base).catch((e) => {
    throw new Error(`${e.message}\nWebKitWebDriver log:\n${driver.log()}`)
  })
  await session.setWindowRect({ width: 1200, height: 880 }).catch(() => {})
})

after(async () => {
  await session?.delete().catch(() => {})
  await driver?.stop()
  await xvfb?.stop()
})

const TONE = 'What tone should the answer have?'
const INCLUDE = 'What should it include?'

test('WebKit: send a message, a card appears, answer it, and the reply uses the answer', async () => {
  assert.equal(session.capabilities.browserName, 'MiniBrowser')
  const server = await startTempServe()
  try {
    await enableDemo(server)
    await session.navigate(`${server.url}/login?token=${token}`)
    await session.waitFor('[data-testid=chat-shell]')
    assert.doesNotMatch(await session.url(), /token=/, 'the login link does not stay in the address bar')
    await session.execute(`window.__errors = []; window.addEventListener('error', (e) => window.__errors.push(String(e.message)));
      window.addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason)));`)

    const composer = await session.waitFor('[data-testid=composer] textarea')
    await session.type(composer, 'Write a short note for my team')
    assert.equal(await session.execute('return document.querySelector("[data-testid=composer] textarea").value'), 'Write a short note for my team')
    await session.clickCss('[data-testid=send]')

    const card = await session.waitFor('[data-testid=question-card]')
    await waitUntil(async () => (await session.text(card)).includes(TONE), { what: 'the first question in the card' })
    await saveArtifact('e2e-webkit-card.png', await session.screenshot())
    await saveArtifact('e2e-webkit-card-element.png', await session.elementScreenshot(card)).catch(() => {})

    await session.clickCss('[data-testid=question-card] input[data-option][value="Formal"]')
    assert.equal(await session.selected(await session.find('[data-testid=question-card] input[value="Formal"]')), true, 'Formal is checked')
    await session.clickCss('[data-testid=question-card] [data-testid=primary]') // Next
    await waitUntil(async () => (await session.text(await session.find('[data-testid=question-card]'))).includes(INCLUDE), { what: 'the second question' })
    await session.clickCss('[data-testid=question-card] input[data-option][value="Summary"]')
    await session.clickCss('[data-testid=question-card] input[data-option][value="Next steps"]')
    await session.clickCss('[data-testid=question-card] [data-testid=primary]') // Review
    await waitUntil(async () => (await session.text(await session.find('[data-testid=question-card]'))).includes('Review your answers'), { what: 'the review step' })
    await session.clickCss('[data-testid=question-card] [data-testid=primary]') // Submit answers

    const reply = await waitUntil(() => session.execute(`
      const msgs = [...document.querySelectorAll('[data-testid=assistant-message]')].map((m) => m.innerText);
      return msgs.find((t) => t.includes("Here is what I'll go with")) || null;`), { what: 'the assistant reply using the answers', timeout: 15000 })
    assert.match(reply, /What tone should the answer have\?\s*Formal/, reply)
    assert.match(reply, /What should it include\?\s*Summary, Next steps/, reply)

    const status = await waitUntil(() => session.execute('const c = document.querySelector("[data-testid=question-card]"); return c && c.dataset.status === "answered" ? c.innerText : null'),
      { what: 'the card shown as answered' })
    assert.match(status, /Answered/)
    await saveArtifact('e2e-webkit-answered.png', await session.screenshot())

    const convs = (await server.api('GET', '/api/v1/conversations')).body.items
    assert.equal(convs.length, 1)
    const cards = (await server.api('GET', `/api/v1/conversations/${convs[0].id}/questions`)).body
    assert.equal(cards[0].status, 'answered')
    assert.deepEqual(cards[0].answers, { [TONE]: 'Formal', [INCLUDE]: 'Summary, Next steps' })
    const conv = (await server.api('GET', `/api/v1/conversations/${convs[0].id}`)).body
    assert.equal(conv.state, 'idle', transcript(conv))
    assert.deepEqual(await session.execute('return window.__errors'), [])
  } finally {
    await server.stop()
  }
})

test("WebKit: an agent's card (POST /api/v1/asks) is answered under Agents, and the agent gets the §1 result", async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const agentToken = (await server.api('POST', '/api/v1/agent-tokens', { name: 'nightly-job' })).body.token
    const asAgent = async (method, path, body) => {
      const res = await fetch(server.url + path, { method, headers: { Authorization: `Bearer ${agentToken}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) })
      return { status: res.status, body: await res.json() }
    }
    await session.navigate(`${server.url}/login?token=${token}`)
    await session.waitFor('[data-testid=chat-shell]')
    await session.execute(`window.__errors = []; window.addEventListener('error', (e) => window.__errors.push(String(e.message)));`)

    const QUESTION = 'Rotate the backup keys tonight?'
    const filed = await asAgent('POST', '/api/v1/asks', { questions: [{ question: QUESTION, options: ['Rotate', 'Wait'] }], context: 'The keys are **90 days** old.' })
    assert.equal(filed.status, 201, JSON.stringify(filed.body))
    await session.waitFor('[data-testid=agents-list] [data-testid=conversation-item]')
    await session.clickCss('[data-testid=agents-list] [data-testid=conversation-open]')
    const card = await session.waitFor(`[data-testid=question-card][data-question-id="${filed.body.question_id}"]`)
    await waitUntil(async () => (await session.text(card)).includes(QUESTION), { what: "the agent's question" })
    assert.equal(await session.execute('return [...document.querySelectorAll("[data-testid=assistant-message] strong")].map((e) => e.innerText).join()'), '90 days')
    assert.equal(await session.execute('return document.querySelector("[data-testid=composer]") === null'), true, "no composer in an agent's conversation")
    await saveArtifact('e2e-webkit-agent-card.png', await session.screenshot())

    const waiting = asAgent('GET', `/api/v1/asks/${filed.body.question_id}?wait=30`)
    await session.clickCss('[data-testid=question-card] input[data-option][value="Rotate"]')
    await session.clickCss('[data-testid=question-card] [data-testid=primary]') // Submit
    const got = await waiting
    assert.deepEqual(got.body, { question_id: filed.body.question_id, status: 'answered', result: `{"answers":{"${QUESTION}":"Rotate"}}` })
    await waitUntil(() => session.execute('const c = document.querySelector("[data-testid=question-card]"); return c && c.dataset.status === "answered"'), { what: 'the card shown as answered' })
    assert.deepEqual(await session.execute('return window.__errors'), [])
  } finally {
    await server.stop()
  }
})
