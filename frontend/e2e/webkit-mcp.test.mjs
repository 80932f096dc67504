// The core of the MCP cards in WebKit, the engine of the Linux app: the real
// `parley serve`, a scripted model calling tools of the real
// server-everything, the UI in MiniBrowser driven by WebKitWebDriver on a
// private Xvfb display: approve an echo call and see its result, then
// answer an elicitation form and see the values reach the server.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { token } from './serve.mjs'
import { startXvfb, startWebDriver, Session } from './webkit.mjs'
import { waitUntil, saveArtifact, transcript } from './util.mjs'
import { idle, startMcpServe } from './mcp.mjs'

let xvfb, driver, session, env

before(async () => {
  xvfb = await startXvfb()
  driver = await startWebDriver(xvfb.display)
  session = await Session.create(driver.base).catch((e) => {
    throw new Error(`${e.message}\nWebKitWebDriver log:\n${driver.log()}`)
  })
  await session.setWindowRect({ width: 1200, height: 900 }).catch(() => {})
  env = await startMcpServe({ policies: { echo: 'ask', 'trigger-elicitation-request': 'allow' } })
})

after(async () => {
  await session?.delete().catch(() => {})
  await driver?.stop()
  await xvfb?.stop()
  await env?.stop()
})

async function newChat(text) {
  const before = new Set(((await env.server.api('GET', '/api/v1/conversations')).body.items ?? []).map((c) => c.id))
  await session.clickCss('[data-testid=new-chat]')
  const composer = await session.waitFor('[data-testid=composer] textarea')
  await session.type(composer, text)
  await session.clickCss('[data-testid=send]')
  return waitUntil(async () => ((await env.server.api('GET', '/api/v1/conversations')).body.items ?? []).find((c) => !before.has(c.id))?.id, { what: 'the new conversation' })
}

const toolResult = (conv) => conv.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? ''

test('WebKit: approve an MCP tool call, then answer an elicitation form', async () => {
  await session.navigate(`${env.server.url}/login?token=${token}`)
  await session.waitFor('[data-testid=chat-shell]')
  await session.execute(`window.__errors = []; window.addEventListener('error', (e) => window.__errors.push(String(e.message)));`)

  // Approval.
  const first = await newChat('call echo {"message":"hello from WebKit"}')
  const card = await session.waitFor('[data-testid=approval-card]')
  await waitUntil(async () => (await session.text(card)).includes('hello from WebKit'), { what: 'the arguments in the card' })
  await saveArtifact('e2e-webkit-approval.png', await session.screenshot())
  await session.clickCss('[data-testid=approval-card] [data-testid=approve]')
  const conv = await idle(env.server, first)
  assert.match(toolResult(conv), /hello from WebKit/, transcript(conv))
  await waitUntil(async () => (await session.execute('return document.body.innerText')).includes('Tool said:'), { what: 'the reply with the result' })

  // Elicitation: the name, then every other field keeps its default.
  const second = await newChat('call trigger-elicitation-request {}')
  await session.waitFor('[data-testid=elicitation-card] [data-field=name] input')
  await session.type(await session.find('[data-testid=elicitation-card] [data-field=name] input'), 'Grace')
  // Next, and wait until the card shows the next step (a click never races a re-render).
  const step = () => session.execute('const t = [...document.querySelectorAll("[data-testid=elicitation-card] [role=tab]")]; return t.findIndex((x) => x.getAttribute("aria-selected") === "true")')
  const next = async () => {
    const at = await step()
    await session.clickCss('[data-testid=elicitation-card] [data-testid=primary]').catch(async (e) => {
      await saveArtifact('e2e-webkit-elicitation-failed.png', await session.screenshot())
      throw e
    })
    await waitUntil(async () => (await step()) === at + 1, { what: `step ${at + 2}`, interval: 50 }).catch(async (e) => {
      const shown = await session.execute('return document.querySelector("[data-testid=elicitation-card]").innerText').catch(() => '?')
      throw new Error(`${e.message}\nthe card shows:\n${shown}`)
    })
  }
  await next()
  await session.clickCss('[data-testid=elicitation-card] [data-field=check] input[value="false"]')
  // Steps 2 to 13, then the review.
  for (let i = 0; i < 12; i++) await next()
  await session.waitFor('[data-testid=elicitation-review]')
  await saveArtifact('e2e-webkit-elicitation-review.png', await session.screenshot())
  await session.clickCss('[data-testid=elicitation-card] [data-testid=primary]')
  const conv2 = await idle(env.server, second)
  const raw = JSON.parse(/Raw result: ([\s\S]*)$/.exec(toolResult(conv2))?.[1] ?? 'null')
  assert.equal(raw?.action, 'accept', transcript(conv2))
  assert.equal(raw.content.name, 'Grace')
  assert.equal(raw.content.check, false)
  assert.equal(raw.content.integer, 42)
  assert.deepEqual(raw.content.untitledMultipleSelectEnum, ['Guitar'])
  await session.waitFor('[data-testid=elicitation-outcome]')
  assert.deepEqual(await session.execute('return window.__errors'), [])
})
