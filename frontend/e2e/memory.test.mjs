// Memory end to end (SPEC §14, issue #41): the real `parley serve`, the
// scripted model server as its own process, the built UI in Chromium.
// Answer a card with "Remember my answer" and "Answer like this next time";
// in a new conversation the same card is answered from memory at once and
// shown as such; "Ask me instead" reopens it and the new answer goes to the
// model (a fork, as "Change answer" does). Settings → Memory lists, edits,
// adds and deletes memories; both are axe-clean and whole at 360 px.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { buildModelServer, startModelServer as runModelServer } from './modelServer.mjs'
import { assertNoSeriousViolations } from './axe.mjs'
import { waitUntil } from './util.mjs'

let browser, built, model

before(async () => {
  built = await buildModelServer()
  model = await runModelServer(built.bin, '-model', 'demo')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await model?.stop()
  await built?.remove()
})

async function open(t, viewport = { width: 1200, height: 900 }) {
  const server = await startServe(await newDataDir(), { extraArgs: ['--base-url', model.url, '--model', 'demo'] })
  t.after(() => server.stop())
  const { body: st } = await server.api('GET', '/api/v1/settings')
  await server.api('PUT', '/api/v1/settings', { ...st, onboarded: true, rate_limit_seconds: 0 })
  const context = await browser.newContext({ viewport, bypassCSP: true })
  t.after(() => context.close())
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

/** Waits until the newest conversation's run is over; returns it. */
async function idle(server) {
  return waitUntil(async () => {
    const { body } = await server.api('GET', '/api/v1/conversations')
    const id = body.items[0]?.id
    if (!id) return null
    const conv = (await server.api('GET', `/api/v1/conversations/${id}`)).body
    return conv.state === 'idle' && conv.messages.at(-1)?.role === 'assistant' ? conv : null
  }, { what: 'the run to end', timeout: 20000 })
}

const TONE = 'What tone should the answer have?'
const INCLUDE = 'What should it include?'
const NOTE = 'Write a short note for my team'

/** Answers the demo's two-question card, remembering both answers and letting them answer next time. */
async function answerRemembering(page) {
  const card = page.getByTestId('question-card').last()
  await card.waitFor({ timeout: 15000 })
  await card.getByText('Friendly', { exact: true }).click()
  await card.getByRole('checkbox', { name: 'Remember my answer' }).check()
  await card.getByRole('checkbox', { name: 'Answer like this next time' }).check()
  await card.getByTestId('primary').click() // Next
  await card.getByText('Examples', { exact: true }).click()
  // The keyboard reaches the memory choices too: Space ticks them.
  await card.getByRole('checkbox', { name: 'Remember my answer' }).focus()
  await page.keyboard.press('Space')
  await card.getByRole('checkbox', { name: 'Answer like this next time' }).check()
  await card.getByTestId('primary').click() // Review
  // The review step shows both choices per question, ticked.
  assert.equal(await card.getByRole('checkbox', { name: `Remember my answer to: ${TONE}` }).isChecked(), true)
  assert.equal(await card.getByRole('checkbox', { name: `Answer like this next time: ${INCLUDE}` }).isChecked(), true)
  await assertNoSeriousViolations(page, 'the review step with the memory choices', '[data-testid="question-card"]')
  await screenshot(page, 'e2e-memory-review.png')
  await card.getByTestId('primary').click() // Submit answers
  return card
}

test('remember an answer; a new conversation is answered from memory; "Ask me instead" asks again and the model gets the new answer', async (t) => {
  const { server, page, errors, list } = await open(t)
  await send(page, NOTE)
  const card = await answerRemembering(page)
  await list.getByText(`${TONE} Friendly`).waitFor({ timeout: 15000 })
  await idle(server)
  // After answering, the card says the answers are kept and will answer next time.
  const marks = async () => (await card.getByTestId('remembered').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim())
  const expected = ['✓ Remembered · answers this next time See memory', '✓ Remembered · answers this next time See memory']
  await waitUntil(async () => JSON.stringify(await marks()) === JSON.stringify(expected), { what: `the remembered marks (${JSON.stringify(await marks())})` })
  const { body: memories } = await server.api('GET', '/api/v1/memory')
  assert.deepEqual(memories.map((m) => [m.text, m.auto_answer, m.source.type]).sort(), [
    [`Include: ${INCLUDE} — Examples`, true, 'answer'],
    [`Tone: ${TONE} — Friendly`, true, 'answer'],
  ])

  // A new conversation where the same card comes: answered from memory at once.
  await page.getByTestId('new-chat').click()
  await send(page, NOTE)
  const fromMemory = page.getByTestId('question-card').last()
  await fromMemory.getByTestId('answered-from-memory').waitFor({ timeout: 15000 })
  assert.match(await fromMemory.getByTestId('answered-from-memory').textContent(), /Answered from memory/)
  assert.match(await fromMemory.getByTestId('card-answers').textContent(), /Friendly/)
  await list.getByText(`${TONE} Friendly`).waitFor({ timeout: 15000 })
  const conv = await idle(server)
  const [answered] = (await server.api('GET', `/api/v1/conversations/${conv.id}/questions`)).body
  assert.equal(answered.answered_by, 'memory')
  assert.equal(answered.status, 'answered')
  await assertNoSeriousViolations(page, 'a card answered from memory')
  await screenshot(page, 'e2e-memory-answered.png')

  // "Ask me instead": the card opens again with the remembered answer; a new one goes to the model.
  await page.getByTestId('ask-me-instead').click()
  const editor = page.getByTestId('change-answer-card')
  await editor.waitFor()
  assert.equal(await editor.getByRole('radio', { name: /Friendly/ }).isChecked(), true)
  assert.equal(await editor.getByTestId('remember-answer').count(), 0, 'a changed answer is sent as a fork, without remember')
  await editor.getByText('Formal', { exact: true }).click()
  await editor.getByTestId('primary').click() // Next
  await editor.getByTestId('primary').click() // Review
  await editor.getByTestId('primary').click() // Submit answers
  await list.getByText(`${TONE} Formal`).waitFor({ timeout: 15000 })
  const after = await idle(server)
  const tool = after.messages.find((m) => m.role === 'tool')
  assert.equal(tool.content, JSON.stringify({ answers: { [INCLUDE]: 'Examples', [TONE]: 'Formal' } }))
  assert.equal(tool.siblings, 2)
  // On the new branch the answer is the user's own; the first branch still says "from memory".
  assert.equal(await page.getByTestId('answered-from-memory').count(), 0)
  await page.getByTestId('change-answer-row').getByRole('button', { name: 'Previous version' }).click()
  await page.getByTestId('answered-from-memory').waitFor()

  // "See memory" opens Settings → Memory at the memory that answered.
  await page.getByTestId('see-memory').first().click()
  const section = page.getByTestId('memory-section')
  await section.waitFor()
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'memory-item')
  assert.match(await page.evaluate(() => document.activeElement.textContent), /Tone: What tone should the answer have\? — Friendly/)
  assert.deepEqual(errors, [])
})

test('Settings → Memory: add, search, edit, answer-next-time, delete one, delete all; axe-clean and whole at 360 px', async (t) => {
  const { server, page, errors } = await open(t, { width: 360, height: 740 })
  await page.evaluate(() => { location.hash = '#settings/memory' })
  const section = page.getByTestId('memory-section')
  await section.waitFor()
  await section.getByTestId('memory-empty').waitFor()

  // Add two by typing (Enter adds).
  const input = section.getByRole('textbox', { name: 'A fact to remember' })
  await input.fill('I write TypeScript.')
  await input.press('Enter')
  await section.getByText('I write TypeScript.').waitFor()
  await input.fill('The staging server is called blue.')
  await section.getByTestId('memory-add').click()
  await section.getByText('The staging server is called blue.').waitFor()
  assert.equal(await section.getByTestId('memory-item').count(), 2)
  assert.match(await section.getByTestId('memory-source').first().textContent(), /Added by you/)

  // Search filters the list.
  await section.getByRole('searchbox', { name: 'Search memories' }).fill('staging')
  assert.equal(await section.getByTestId('memory-item').count(), 1)
  await section.getByRole('searchbox', { name: 'Search memories' }).fill('')

  // Edit one in place (Enter saves).
  const item = section.getByTestId('memory-item').filter({ hasText: 'I write TypeScript.' })
  await item.getByRole('button', { name: 'Edit memory: I write TypeScript.' }).click()
  const edit = section.getByRole('textbox', { name: 'Memory text' })
  await edit.fill('I write TypeScript and Go.')
  await edit.press('Enter')
  await section.getByText('I write TypeScript and Go.').waitFor()
  await waitUntil(async () => (await server.api('GET', '/api/v1/memory')).body.some((m) => m.text === 'I write TypeScript and Go.'), { what: 'the edit saved' })

  // A remembered answer (made through the API) offers "Answer like this next time".
  const c = (await server.api('POST', '/api/v1/conversations', { title: 'Team note' })).body.id
  await server.api('POST', `/api/v1/conversations/${c}/messages`, { content: NOTE })
  const card = await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${c}/questions`)).body.find((x) => x.status === 'pending'), { what: 'the card' })
  const res = await server.api('POST', `/api/v1/conversations/${c}/respond`, {
    question_id: card.question_id, action: 'submit', answers: { [TONE]: { selected: ['Formal'] }, [INCLUDE]: { selected: ['Summary'] } }, remember: [TONE],
  })
  assert.equal(res.status, 200)
  const answer = section.getByTestId('memory-item').filter({ hasText: `Tone: ${TONE} — Formal` })
  await answer.waitFor() // memory:changed refreshed the list
  assert.match(await answer.getByTestId('memory-source').textContent(), /From your answer in Team note/)
  // The switch is reached and turned by the keyboard.
  await answer.getByRole('switch', { name: 'Answer like this next time' }).focus()
  await page.keyboard.press('Space')
  await waitUntil(async () => (await server.api('GET', '/api/v1/memory')).body.find((m) => m.text.startsWith('Tone:'))?.auto_answer === true, { what: 'auto_answer saved' })

  // Whole at 360 px, and axe-clean.
  const overflow = await page.evaluate(() => {
    const form = document.querySelector('[data-testid=settings-panel] form')
    return form.scrollWidth - form.clientWidth
  })
  assert.ok(overflow <= 0, `Settings → Memory overflows by ${overflow} px at 360 px`)
  const box = await section.boundingBox()
  assert.ok(box.x >= 0 && box.x + box.width <= 360, `the memory section from x=${box.x}, ${box.width} px wide`)
  await assertNoSeriousViolations(page, 'Settings → Memory at 360 px')
  await screenshot(page, 'e2e-memory-settings-360.png')

  // Delete one, then all (after a confirmation).
  await section.getByRole('button', { name: 'Delete memory: The staging server is called blue.' }).click()
  await waitUntil(async () => (await section.getByTestId('memory-item').count()) === 2, { what: 'one memory deleted' })
  await section.getByTestId('memory-delete-all').click()
  const confirm = section.getByTestId('memory-delete-all-confirm')
  await confirm.waitFor()
  assert.match(await confirm.textContent(), /Delete all 2 memories\?/)
  await assertNoSeriousViolations(page, 'the delete-all confirmation')
  await confirm.getByRole('button', { name: 'Delete all' }).click()
  await section.getByTestId('memory-empty').waitFor()
  assert.deepEqual((await server.api('GET', '/api/v1/memory')).body, [])

  // Turning memory off is saved with the settings; then nothing can be added.
  await section.getByRole('switch', { name: 'Remember across conversations' }).focus()
  await page.keyboard.press('Space')
  assert.equal(await section.getByRole('switch', { name: 'Remember across conversations' }).isChecked(), false)
  await page.getByTestId('settings-save').click()
  await waitUntil(async () => (await server.api('GET', '/api/v1/settings')).body.memory === 'off', { what: 'memory off saved' })
  assert.deepEqual(errors, [])
})

test('the model proposes a memory: "Remember this?" with the text editable; only an approved text is kept', async (t) => {
  const { server, page, errors, list } = await open(t)
  await send(page, 'Please remember that I deploy with Docker')
  const card = page.getByTestId('approval-card').last()
  await card.waitFor({ timeout: 15000 })
  assert.equal(await card.getByRole('heading', { level: 2 }).textContent(), 'Remember this?')
  const text = card.getByRole('textbox', { name: 'What to remember' })
  assert.equal(await text.inputValue(), 'I deploy with Docker.')
  await assertNoSeriousViolations(page, 'the Remember this? card', '[data-testid="approval-card"]')
  await screenshot(page, 'e2e-memory-remember-this.png')
  await text.fill('I deploy with Docker Compose.')
  await text.press('Enter')
  await card.getByTestId('remember-outcome').getByText('Remembered.').waitFor()
  assert.equal(await card.getByTestId('remember-outcome-text').textContent(), 'I deploy with Docker Compose.')
  await list.getByText("Got it — I'll keep that in mind in later conversations.").waitFor({ timeout: 15000 })
  const { body: kept } = await server.api('GET', '/api/v1/memory')
  assert.deepEqual(kept.map((m) => [m.text, m.source.type]), [['I deploy with Docker Compose.', 'model']])
  await idle(server)

  // "Don't remember": nothing is kept.
  await send(page, 'Also remember that my laptop is called orca')
  const second = page.getByTestId('approval-card').last()
  await second.getByTestId('remember-text').waitFor({ timeout: 15000 })
  await second.getByRole('button', { name: "Don't remember" }).click()
  await second.getByTestId('remember-outcome').getByText('Not remembered.').waitFor()
  await list.getByText("Okay — I won't keep that.").waitFor({ timeout: 15000 })
  assert.equal((await server.api('GET', '/api/v1/memory')).body.length, 1)
  assert.deepEqual(errors, [])
})
