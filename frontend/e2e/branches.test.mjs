// Conversation control end to end (SPEC §7): the real `parley serve`, the
// scripted model server as its own process (-echo-history: a message that
// starts with "echo" is answered with the history the model received, so the
// reply shows what each branch sent), the built UI in Chromium. Edit a sent
// message, switch versions with < 1/2 >, regenerate (also with a model from
// the menu), copy a reply, and change a card's answer.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, roundedScrollers, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { buildModelServer, startModelServer as runModelServer } from './modelServer.mjs'
import { waitUntil } from './util.mjs'

let browser, built, model

before(async () => {
  built = await buildModelServer()
  model = await runModelServer(built.bin, '-model', 'demo', '-echo-history')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await model?.stop()
  await built?.remove()
})


async function open(t) {
  const server = await startServe(await newDataDir(), { extraArgs: ['--base-url', model.url, '--model', 'demo'] })
  t.after(() => server.stop())
  const { body: st } = await server.api('GET', '/api/v1/settings')
  await server.api('PUT', '/api/v1/settings', { ...st, onboarded: true, rate_limit_seconds: 0 })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
  t.after(() => context.close())
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { server, page, errors, list: page.getByTestId('message-list') }
}

async function send(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(text)
  await composer.press('Enter')
}

const assistantTexts = (list) => list.getByTestId('assistant-message').allTextContents()
const userTexts = (list) => list.getByTestId('user-message').allTextContents()

/** Waits until the conversation's run is over (the composer can send again). */
async function idle(server) {
  for (let i = 0; i < 200; i++) {
    const convs = await server.api('GET', '/api/v1/conversations')
    const id = convs.body.items[0]?.id
    if (id) {
      const conv = await server.api('GET', `/api/v1/conversations/${id}`)
      if (conv.body.state === 'idle') return conv.body
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('the run did not end')
}

test('edit a message: a new branch without the old reply; < 1/2 > switches back and forth; regenerate gives 2/2; copy a reply', async (t) => {
  const { server, page, errors, list } = await open(t)
  await send(page, 'echo one')
  await list.getByText('Reply 1. I received: [user: echo one]').waitFor({ timeout: 15000 })
  await idle(server)
  await send(page, 'echo two')
  const reply2 = 'Reply 2. I received: [user: echo one | assistant: Reply 1. I received: [user: echo one] | user: echo two]'
  await list.getByText(reply2).waitFor({ timeout: 15000 })
  await idle(server)

  // Edit the second message in place.
  const second = page.locator('.msg-item').filter({ has: page.getByTestId('user-message').filter({ hasText: /^echo two$/ }) })
  await second.hover()
  await second.getByTestId('edit-message').click()
  const editor = page.getByTestId('edit-text')
  assert.equal(await editor.inputValue(), 'echo two')
  await editor.fill('echo two, edited')
  await editor.press('Enter')
  const reply3 = 'Reply 3. I received: [user: echo one | assistant: Reply 1. I received: [user: echo one] | user: echo two, edited]'
  await list.getByText(reply3).waitFor({ timeout: 15000 })
  const conv = await idle(server)
  // The model got the edited branch only: neither the old message nor its reply.
  assert.ok(!reply3.includes('Reply 2'))
  assert.deepEqual(await userTexts(list), ['echo one', 'echo two, edited'])
  assert.deepEqual(conv.messages.map((m) => m.content), ['echo one', 'Reply 1. I received: [user: echo one]', 'echo two, edited', reply3])
  const switcher = list.getByTestId('branch-switcher')
  assert.equal(await switcher.count(), 1)
  assert.equal(await switcher.getByTestId('branch-position').textContent(), '2/2')
  assert.equal(await switcher.getByTestId('branch-position').getAttribute('aria-label'), '2 of 2')
  await screenshot(page, 'e2e-branches-edited.png')

  // Back to the first version, and forward again.
  await switcher.getByRole('button', { name: 'Previous version' }).click()
  await list.getByText(reply2).waitFor()
  assert.deepEqual(await userTexts(list), ['echo one', 'echo two'])
  assert.equal(await list.getByTestId('branch-position').textContent(), '1/2')
  assert.equal((await server.api('GET', `/api/v1/conversations/${conv.id}`)).body.messages.at(-1).content, reply2)
  await list.getByRole('button', { name: 'Next version' }).click()
  await list.getByText(reply3).waitFor()
  assert.deepEqual(await userTexts(list), ['echo one', 'echo two, edited'])

  // Regenerate the last reply: a second version of it.
  const last = page.locator('.msg-item').filter({ has: page.getByTestId('assistant-message').filter({ hasText: /^Reply 3\./ }) })
  await last.hover()
  await last.getByTestId('regenerate').click()
  await list.getByText('Reply 4. I received: [user: echo one | assistant: Reply 1. I received: [user: echo one] | user: echo two, edited]').waitFor({ timeout: 15000 })
  await idle(server)
  assert.equal((await assistantTexts(list)).length, 2)
  // The switchers follow the stored messages' events, which may land just after the run is idle.
  await positionsAre(list, ['2/2', '2/2'])

  // Regenerate with a model from the menu: a third version.
  const newest = page.locator('.msg-item').filter({ has: page.getByTestId('assistant-message').filter({ hasText: /^Reply 4\./ }) })
  await newest.hover()
  await newest.getByRole('button', { name: 'Regenerate with…' }).click()
  const item = page.getByTestId('regenerate-menu').getByRole('menuitem', { name: /demo/ })
  await item.waitFor()
  // No rounded clip around a scrolling area (slow in WebKitGTK).
  assert.deepEqual(await roundedScrollers(page.getByTestId('regenerate-menu')), [], 'elements of the regenerate menu that scroll inside rounded corners')
  await item.click()
  await list.getByText(/^Reply 5\. I received/).waitFor({ timeout: 15000 })
  await idle(server)
  await positionsAre(list, ['2/2', '3/3'])

  // Copy a reply: its Markdown source lands on the clipboard.
  const first = page.locator('.msg-item').filter({ has: page.getByTestId('assistant-message').filter({ hasText: /^Reply 1\./ }) })
  await first.hover()
  await first.getByTestId('copy-message').click()
  await first.getByTestId('copy-message').getByText('Copied').waitFor()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'Reply 1. I received: [user: echo one]')

  // A menu opened on a reply with entries below it is drawn over them (each
  // entry of the list is its own paint layer, none a stacking context).
  await first.getByRole('button', { name: 'Regenerate with…' }).click()
  const menu = page.getByTestId('regenerate-menu')
  await menu.getByRole('menuitem', { name: /demo/ }).waitFor()
  const stacking = await menu.evaluate((m) => {
    const r = m.getBoundingClientRect()
    const entry = m.closest('.messages-inner > *')
    const below = [...entry.parentElement.children].slice([...entry.parentElement.children].indexOf(entry) + 1)
    const covered = below.filter((e) => { const b = e.getBoundingClientRect(); return b.top < r.bottom && b.bottom > r.top })
    const hit = document.elementFromPoint(r.left + r.width / 2, r.bottom - 6)
    return { covered: covered.length, onTop: !!hit && m.contains(hit), hit: hit?.className ?? null }
  })
  assert.ok(stacking.covered > 0, 'the menu reaches over the entries below its reply')
  assert.ok(stacking.onTop, `the menu is drawn over the entries below it (the point hit ${stacking.hit})`)
  await page.keyboard.press('Escape')
  await menu.waitFor({ state: 'detached' })
  assert.deepEqual(errors, [])
})

test('change an answer on a card: the new branch runs with the new answer; the old one stays reachable', async (t) => {
  const { server, page, errors, list } = await open(t)
  await send(page, 'Write a short note for my team')
  const card = page.getByTestId('question-card').last()
  await card.waitFor({ timeout: 15000 })
  await card.getByText('Friendly', { exact: true }).click()
  await card.getByTestId('primary').click() // Next
  await card.getByText('Examples', { exact: true }).click()
  await card.getByTestId('primary').click() // Review
  await card.getByTestId('primary').click() // Submit answers
  await list.getByText('What tone should the answer have? Friendly').waitFor({ timeout: 15000 })
  await idle(server)

  await page.getByTestId('change-answer').click()
  const editor = page.getByTestId('change-answer-card')
  await editor.waitFor()
  // Reopened with the old answer.
  assert.equal(await editor.getByRole('radio', { name: /Friendly/ }).isChecked(), true)
  await editor.getByText('Formal', { exact: true }).click()
  await editor.getByTestId('primary').click() // Next
  assert.equal(await editor.getByRole('checkbox', { name: /Examples/ }).isChecked(), true)
  await editor.getByTestId('primary').click() // Review
  await editor.getByTestId('primary').click() // Submit answers
  await list.getByText('What tone should the answer have? Formal').waitFor({ timeout: 15000 })
  const conv = await idle(server)
  assert.equal(await editor.count(), 0)
  // The model got the new answer as the tool result of the new branch.
  const tool = conv.messages.find((m) => m.role === 'tool')
  assert.equal(tool.content, '{"answers":{"What should it include?":"Examples","What tone should the answer have?":"Formal"}}')
  assert.equal(tool.siblings, 2)
  assert.equal(await list.getByText('What tone should the answer have? Friendly').count(), 0)
  const row = page.getByTestId('change-answer-row')
  assert.equal(await row.getByTestId('branch-position').textContent(), '2/2')
  await screenshot(page, 'e2e-branches-changed-answer.png')

  // The old answer's branch is one click away.
  await row.getByRole('button', { name: 'Previous version' }).click()
  await list.getByText('What tone should the answer have? Friendly').waitFor()
  assert.equal(await list.getByText('What tone should the answer have? Formal').count(), 0)
  assert.equal(await page.getByTestId('change-answer-row').getByTestId('branch-position').textContent(), '1/2')
  const cards = await server.api('GET', `/api/v1/conversations/${conv.id}/questions`)
  assert.equal(cards.body[0].answers['What tone should the answer have?'], 'Friendly', 'the card keeps its first answer')
  assert.deepEqual(errors, [])
})

/** Waits until the list's branch switchers read `want`, in order (fails with what they last read). */
async function positionsAre(list, want) {
  await waitUntil(async () => JSON.stringify(await list.getByTestId('branch-position').allTextContents()) === JSON.stringify(want), {
    what: `branch positions ${JSON.stringify(want)}`,
  })
}
