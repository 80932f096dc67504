// Question cards end to end in Chromium against the real `parley serve` with
// the demo model: several questions with multi-select, "Other" and an
// open-ended question; cancel; time-out then "Answer anyway"; a sub-agent's
// refusal; two waiting cards reached through the inbox; the suggested
// prompts of the empty chat in demo mode.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, roundedScrollers, screenshot, artifactsDir } from './helpers.mjs'
import { enableDemo, login, token } from './serve.mjs'
import { waitUntil, sleep, transcript, startTempServe } from './util.mjs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

const CITY = 'Which city are you travelling to?'
const ACTIVITIES = 'Which activities do you enjoy?'
const NOTES = 'Anything else I should know?'
const TONE = 'What tone should the answer have?'
const INCLUDE = 'What should it include?'

async function cardShot(card, name) {
  await mkdir(artifactsDir, { recursive: true })
  await card.screenshot({ path: join(artifactsDir, name) })
}

async function newPage(server) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { page, errors }
}

async function send(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(text)
  await composer.press('Enter')
}

// sendForCard sends a message and returns the newest card, waiting for it.
async function sendForCard(page, text) {
  const before = await page.getByTestId('question-card').count()
  await send(page, text)
  await waitUntil(async () => (await page.getByTestId('question-card').count()) > before, { what: `a question card after "${text}"` })
  return page.getByTestId('question-card').last()
}

async function onlyConversation(server) {
  const convs = await server.api('GET', '/api/v1/conversations')
  assert.equal(convs.body.items.length, 1, 'one conversation: ' + JSON.stringify(convs.body))
  return convs.body.items[0].id
}

test('three questions: single-select answered with "Other", multi-select with "Other", open-ended, and a comment', async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const card = await sendForCard(page, 'Plan a trip for me, ask me three questions first')
    await card.getByText(CITY).waitFor()
    assert.match(await card.getByRole('heading').first().innerText(), /3 questions/)

    // 1: a city that is not an option, typed into "Other".
    await card.getByRole('textbox', { name: 'Other answer' }).fill('Madrid')
    assert.equal(await card.locator('[data-other]').isChecked(), true, '"Other" is chosen by typing into it')
    assert.equal(await card.locator('[data-option][value="Lisbon"]').isChecked(), false)
    await cardShot(card, 'e2e-three-questions-1-other.png')
    await card.getByTestId('primary').click() // Next

    // 2: multi-select, clicked out of order, plus "Other".
    await card.getByText(ACTIVITIES).waitFor()
    await card.getByText('Hiking', { exact: true }).click()
    await card.getByText('Museums', { exact: true }).click()
    await card.getByRole('textbox', { name: 'Other answer' }).fill('  Wine tasting  ')
    assert.equal(await card.locator('[data-option][type=checkbox]:checked').count(), 3, 'Hiking, Museums and Other are ticked')
    await cardShot(card, 'e2e-three-questions-2-multi.png')
    await card.getByTestId('primary').click() // Next

    // 3: open-ended.
    await card.getByText(NOTES).waitFor()
    assert.equal(await card.locator('[data-option]').count(), 0, 'the open-ended question has no options')
    await card.locator('[data-open-input]').fill('Travelling with a toddler')
    await card.getByTestId('primary').click() // Review

    await card.getByRole('heading', { name: 'Review your answers' }).waitFor()
    const review = await card.innerText()
    for (const want of ['Madrid', 'Museums', 'Hiking', 'Wine tasting', 'Travelling with a toddler']) {
      assert.ok(review.includes(want), `review shows ${want}; saw:\n${review}`)
    }
    await card.getByTestId('add-comment').click()
    await card.locator('[data-comments]').fill('Budget trip, please')
    await cardShot(card, 'e2e-three-questions-3-review.png')
    await card.getByTestId('primary').click() // Submit answers

    await page.getByTestId('message-list').getByText("Thanks! Here is what I'll go with").waitFor({ timeout: 15000 })
    const id = await onlyConversation(server)
    const cards = await server.api('GET', `/api/v1/conversations/${id}/questions`)
    assert.equal(cards.body.length, 1, JSON.stringify(cards.body))
    assert.equal(cards.body[0].status, 'answered')
    assert.deepEqual(cards.body[0].answers, {
      [CITY]: 'Madrid',
      [ACTIVITIES]: 'Museums, Hiking, Wine tasting',
      [NOTES]: 'Travelling with a toddler',
    })
    assert.equal(cards.body[0].comments, 'Budget trip, please')

    const conv = (await server.api('GET', `/api/v1/conversations/${id}`)).body
    const tools = conv.messages.filter((m) => m.role === 'tool')
    assert.equal(tools.length, 1, transcript(conv))
    assert.equal(
      tools[0].content,
      '{"answers":{"Anything else I should know?":"Travelling with a toddler","Which activities do you enjoy?":"Museums, Hiking, Wine tasting","Which city are you travelling to?":"Madrid"},"comments":"Budget trip, please"}',
    )
    assert.equal(conv.state, 'idle')

    // The card turns read-only and shows what was answered.
    await waitUntil(async () => (await card.getAttribute('data-status')) === 'answered', { what: 'card data-status answered' })
    assert.equal(await card.getByTestId('card-status').innerText(), 'Answered')
    const shown = await card.getByTestId('card-answers').innerText()
    assert.ok(shown.includes('Museums, Hiking, Wine tasting') && shown.includes('Madrid') && shown.includes('Budget trip, please'), shown)
    await cardShot(card, 'e2e-three-questions-4-answered.png')
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('cancel: confirm, the run stops, the conversation is idle and the model gets "User cancelled the question"', async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const card = await sendForCard(page, 'Help me write a toast')
    await card.getByText(TONE).waitFor()
    await card.getByTestId('cancel').click()
    const confirm = card.getByTestId('cancel-confirm')
    await confirm.waitFor()
    assert.match(await confirm.innerText(), /Cancel this question\?/)
    await cardShot(card, 'e2e-cancel-confirm.png')
    await card.getByTestId('confirm-cancel').click()

    const id = await onlyConversation(server)
    const conv = await waitUntil(async () => {
      const c = (await server.api('GET', `/api/v1/conversations/${id}`)).body
      return c.state === 'idle' && c.messages.some((m) => m.role === 'tool') ? c : null
    }, { what: 'an idle conversation with the tool result' })
    const cards = (await server.api('GET', `/api/v1/conversations/${id}/questions`)).body
    assert.equal(cards.length, 1)
    assert.equal(cards[0].status, 'cancelled')
    const tool = conv.messages.find((m) => m.role === 'tool')
    assert.equal(tool.content, 'User cancelled the question')
    assert.equal(conv.pending_question, null)

    // The run stopped: no assistant turn follows the cancel, even a moment later.
    await sleep(1000)
    const later = (await server.api('GET', `/api/v1/conversations/${id}`)).body
    assert.equal(later.state, 'idle')
    assert.equal(later.messages.at(-1).role, 'tool', 'nothing after the cancelled tool result:\n' + transcript(later))

    await waitUntil(async () => (await card.getAttribute('data-status')) === 'cancelled', { what: 'card data-status cancelled' })
    assert.equal(await card.getByTestId('card-status').innerText(), 'Cancelled')
    await page.getByTestId('send').waitFor()
    assert.equal(await page.getByTestId('stop').count(), 0, 'no Stop button once the run stopped')
    await cardShot(card, 'e2e-cancel-cancelled.png')

    // The conversation takes a new message afterwards.
    const next = await sendForCard(page, 'Try again please')
    await next.getByText(TONE).waitFor()
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('a card times out (countdown, then the expired notice); "Answer anyway" posts a late answer that starts a resumed run', async () => {
  const server = await startTempServe({ extraArgs: ['--question-timeout', '3s'] })
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const card = await sendForCard(page, 'Draft a birthday message')
    await card.getByText(TONE).waitFor()
    const countdown = card.getByTestId('countdown')
    await countdown.waitFor({ timeout: 2000 })
    assert.match(await countdown.innerText(), /0:0[0-3] left/)
    await cardShot(card, 'e2e-timeout-1-countdown.png')

    const notice = card.getByTestId('expired-notice')
    await notice.waitFor({ timeout: 10000 })
    assert.match(await notice.innerText(), /timed out|Time is up/)
    assert.equal(await card.getByTestId('countdown').count(), 0, 'no countdown once expired')

    const id = await onlyConversation(server)
    const timedOut = await waitUntil(async () => {
      const cards = (await server.api('GET', `/api/v1/conversations/${id}/questions`)).body
      return cards[0]?.status === 'timed_out' ? cards[0] : null
    }, { what: 'card status timed_out' })
    await page.getByTestId('message-list').getByText("I didn't hear back").waitFor({ timeout: 15000 })
    await waitUntil(async () => (await card.getAttribute('data-status')) === 'timed_out', { what: 'card data-status timed_out in the UI' })
    await notice.getByText('This question timed out.').waitFor()
    await cardShot(card, 'e2e-timeout-2-expired.png')

    await card.getByTestId('answer-anyway').click()
    await card.getByText('Formal', { exact: true }).click()
    await card.getByTestId('primary').click() // Next
    await card.getByText('Summary', { exact: true }).click()
    await card.getByTestId('primary').click() // Review
    await cardShot(card, 'e2e-timeout-3-late-review.png')
    await card.getByTestId('primary').click() // Submit answers

    const late = await waitUntil(async () => {
      const cards = (await server.api('GET', `/api/v1/conversations/${id}/questions`)).body
      const c = cards.find((x) => x.question_id === timedOut.question_id)
      return c?.status === 'answered_late' ? c : null
    }, { what: 'card status answered_late' })
    assert.deepEqual(late.answers, { [TONE]: 'Formal', [INCLUDE]: 'Summary' })

    // A new user turn carrying the questions and answers, then an assistant reply.
    const conv = await waitUntil(async () => {
      const c = (await server.api('GET', `/api/v1/conversations/${id}`)).body
      const i = c.messages.findIndex((m) => m.role === 'user' && m.content.includes('Formal'))
      return i >= 0 && c.messages.slice(i + 1).some((m) => m.role === 'assistant') ? c : null
    }, { what: 'a late-answer user turn followed by an assistant reply' })
    const userTurn = conv.messages.find((m) => m.role === 'user' && m.content.includes('Formal'))
    for (const want of [TONE, 'Formal', INCLUDE, 'Summary']) assert.ok(userTurn.content.includes(want), `late turn has ${want}: ${userTurn.content}`)

    // The late answer started a new run linked to the timed-out one.
    assert.notEqual(userTurn.run_id, timedOut.run_id, 'the late answer runs in a new run')
    const exported = await fetch(`${server.url}/api/v1/conversations/${id}/export?format=json`, {
      headers: { Authorization: `Bearer ${token}` },
    }).then((r) => r.json())
    const run = exported.runs.find((r) => r.id === userTurn.run_id)
    assert.ok(run, 'the new run is stored: ' + JSON.stringify(exported.runs))
    assert.equal(run.resumed_from, timedOut.run_id, 'resumed_from links the run: ' + JSON.stringify(exported.runs))

    // In the UI: the user turn shows the Q&A and an assistant message follows it.
    const order = await waitUntil(() => page.evaluate(() => {
      const nodes = [...document.querySelectorAll('[data-testid=message-list] [data-testid]')]
        .filter((n) => ['user-message', 'assistant-message', 'question-card'].includes(n.dataset.testid))
        .map((n) => ({ kind: n.dataset.testid, text: n.innerText }))
      const i = nodes.findIndex((n) => n.kind === 'user-message' && n.text.includes('Formal'))
      return i >= 0 && nodes.slice(i + 1).some((n) => n.kind === 'assistant-message') ? nodes : null
    }), { what: 'the late user turn and a reply in the UI' })
    assert.ok(order.find((n) => n.kind === 'user-message' && n.text.includes('Formal')).text.includes(TONE))
    const oldCard = page.locator(`[data-question-id="${timedOut.question_id}"]`)
    await waitUntil(async () => (await oldCard.getAttribute('data-status')) === 'answered_late', { what: 'the old card shown as answered_late' })
    assert.equal(await oldCard.getByTestId('card-status').innerText(), 'Answered late')
    await cardShot(oldCard, 'e2e-timeout-4-answered-late.png')

    // The demo replies with the late answer, in the order asked, instead of
    // showing the same card again; the answered card keeps its status.
    const reply = page.getByTestId('assistant-message').filter({ hasText: 'your answers to my earlier questions' })
    await reply.waitFor({ timeout: 15000 })
    const replyText = await reply.innerText()
    const at = (q, a) => replyText.search(new RegExp(q.replace(/[?]/g, '\\?') + '\\s*' + a))
    assert.ok(at(TONE, 'Formal') >= 0 && at(INCLUDE, 'Summary') > at(TONE, 'Formal'), 'the reply lists the answers in order: ' + replyText)
    await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${id}`)).body.state === 'idle', { what: 'the resumed run to end' })
    const finalCards = (await server.api('GET', `/api/v1/conversations/${id}/questions`)).body
    assert.equal(finalCards.length, 1, 'no new card after the late answer: ' + JSON.stringify(finalCards))
    assert.equal(finalCards[0].status, 'answered_late')
    assert.equal(await page.getByTestId('question-card').count(), 1)
    await screenshot(page, 'e2e-timeout-5-page.png')
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test("a sub-agent's attempt to ask is refused, and the refusal is visible in the transcript", async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    await send(page, 'Use a sub-agent to research Lisbon')
    await page.getByTestId('message-list').getByText('My helper reported back').waitFor({ timeout: 15000 })
    const tool = page.getByTestId('tool-message').filter({ hasText: 'spawn_agents' })
    assert.equal(await tool.count(), 1, 'one spawn_agents tool message')
    const body = tool.locator('.tool-body')
    if (!(await tool.evaluate((d) => d.open))) await tool.locator('summary').click()
    await waitUntil(() => body.isVisible(), { what: 'the expanded tool result' })
    const text = await body.innerText()
    assert.ok(text.includes('ask_user_question is not available to sub-agents'), 'tool result shows the refusal: ' + text)
    await tool.screenshot({ path: join(artifactsDir, 'e2e-subagent-refusal.png') })

    assert.equal(await page.getByTestId('question-card').count(), 0, 'no card for a sub-agent')
    assert.deepEqual((await server.api('GET', '/api/v1/questions')).body, [], 'no card was created at all')
    const id = await onlyConversation(server)
    const conv = (await server.api('GET', `/api/v1/conversations/${id}`)).body
    assert.equal(conv.state, 'idle')
    assert.match(conv.messages.find((m) => m.role === 'tool').content, /not available to sub-agents/)
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('two conversations waiting on cards: the inbox shows 2 and each entry opens its conversation at the card', async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    // A from the UI; B through the API while the page is open (reaches the UI by events).
    await sendForCard(page, 'Plan a trip, three questions please')
    const a = await onlyConversation(server)
    const b = (await server.api('POST', '/api/v1/conversations', {})).body.id
    assert.equal((await server.api('POST', `/api/v1/conversations/${b}/messages`, { content: 'Write a poem about tea' })).status, 202)
    const pending = await waitUntil(async () => {
      const p = (await server.api('GET', '/api/v1/questions?status=pending')).body
      return p.length === 2 ? p : null
    }, { what: 'two pending cards' })
    const cardOf = (conv) => pending.find((c) => c.conversationId === conv).question_id

    // Leave both: a fresh chat.
    await page.getByTestId('new-chat').click()
    const badge = page.getByTestId('inbox-badge')
    await waitUntil(async () => (await badge.count()) && (await badge.innerText()).trim() === '2', {
      what: 'inbox badge "2"',
      timeout: 10000,
    }).catch(async (e) => {
      throw new Error(e.message + `; badge: ${(await badge.count()) ? await badge.innerText() : '(none)'}`)
    })
    await screenshot(page, 'e2e-inbox-badge.png')

    const entries = [
      { conv: b, question: TONE, title: 'Write a poem about tea', message: 'Write a poem about tea' },
      { conv: a, question: CITY, title: 'Plan a trip, three questions please', message: 'Plan a trip, three questions please' },
    ]
    for (const e of entries) {
      await page.getByTestId('inbox-button').click()
      const panel = page.getByTestId('inbox-panel')
      await panel.waitFor()
      assert.equal(await panel.getByTestId('inbox-item').count(), 2, await panel.innerText())
      // No rounded clip around a scrolling area (slow in WebKitGTK): nothing
      // in the panel both scrolls and has rounded corners.
      assert.deepEqual(await roundedScrollers(panel), [], 'elements of the inbox panel that scroll inside rounded corners')
      const item = panel.getByTestId('inbox-item').filter({ hasText: e.question })
      assert.equal(await item.count(), 1, `one entry asks "${e.question}"; panel:\n${await panel.innerText()}`)
      assert.ok((await item.innerText()).includes(e.title), `the entry names its conversation "${e.title}": ${await item.innerText()}`)
      if (e.conv === b) await screenshot(page, 'e2e-inbox-open.png')
      await item.click()
      const card = page.locator(`[data-testid=question-card][data-question-id="${cardOf(e.conv)}"]`)
      await card.waitFor({ timeout: 5000 })
      await card.getByText(e.question).waitFor()
      await page.getByTestId('user-message').filter({ hasText: e.message }).waitFor({ timeout: 5000 })
      assert.equal(await page.getByTestId('question-card').count(), 1, 'only this conversation\'s card is shown')
      await waitUntil(() => card.evaluate((el) => el.contains(document.activeElement)), { what: 'focus inside the card', timeout: 3000 })
      await cardShot(card, `e2e-inbox-card-${e.conv === a ? 'a' : 'b'}.png`)
    }

    // Answering one leaves one waiting.
    const card = page.getByTestId('question-card').last()
    await card.getByRole('textbox', { name: 'Other answer' }).fill('Madrid')
    await card.getByTestId('primary').click()
    await card.getByText('Museums', { exact: true }).click()
    await card.getByTestId('primary').click()
    await card.locator('[data-open-input]').fill('No')
    await card.getByTestId('primary').click()
    await card.getByTestId('primary').click()
    await waitUntil(async () => (await badge.count()) && (await badge.innerText()).trim() === '1', { what: 'inbox badge "1"' })
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test("demo mode: the empty chat suggests the demo's scenarios, and each one does what it says", async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const scenarios = [
      { prompt: 'Write a cover letter for a design job', card: 'What tone should the letter have?' },
      { prompt: 'Plan a weekend trip to Porto', card: 'When are you travelling?' },
      { prompt: 'Write a function that sorts a list of names', card: 'Which language should I use?' },
      { prompt: 'Plan my holiday, and ask me three questions first', card: CITY },
      { prompt: 'Use a sub-agent to research Lisbon', reply: 'My helper reported back' },
      { prompt: 'Just answer, no questions this time', reply: 'here is a direct answer without any questions' },
      { prompt: 'Think it through: is 9.11 bigger than 9.9?', reply: '9.9 is bigger' },
    ]
    const suggestions = page.getByTestId('demo-suggestion')
    await suggestions.first().waitFor()
    assert.deepEqual(await page.locator('.demo-suggestion-prompt').allInnerTexts(), scenarios.map((s) => s.prompt))
    await screenshot(page, 'e2e-demo-suggestions.png')
    for (const [i, s] of scenarios.entries()) {
      if (i > 0) {
        await page.getByTestId('new-chat').click()
        await suggestions.first().waitFor()
      }
      await suggestions.filter({ hasText: s.prompt }).click()
      await page.getByTestId('user-message').filter({ hasText: s.prompt }).waitFor()
      assert.equal(await suggestions.count(), 0, 'the suggestions make way for the conversation')
      if (s.card) await page.getByTestId('question-card').getByText(s.card).waitFor({ timeout: 15000 })
      else await page.getByTestId('assistant-message').filter({ hasText: s.reply }).waitFor({ timeout: 15000 })
    }
    const items = (await server.api('GET', '/api/v1/conversations')).body.items
    assert.deepEqual(items.map((c) => c.title).sort(), scenarios.map((s) => s.prompt).sort())
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

// Issue #42: the list scrolls under a resting pointer as a message is sent,
// and the message it lands on shows its actions. A fade there made the page
// draw a frame every refresh while the run waited for its card (and the card
// then waited for the next of them): they show at once, and nothing in the
// list animates.
test("a hovered message's actions show at once, with nothing in the list animating", async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const card = await sendForCard(page, 'Write a cover letter for a design job')
    await card.getByText('What tone should the letter have?').waitFor()
    const message = page.getByTestId('user-message').first()
    await message.hover()
    const seen = await message.evaluate((el) => {
      const actions = el.closest('.msg-item').querySelector('.msg-actions')
      const list = el.closest('[data-testid=message-list]')
      return {
        opacity: getComputedStyle(actions).opacity,
        animating: document.getAnimations().filter((a) => list.contains(a.effect?.target ?? null)).map((a) => `${a.constructor.name} ${a.transitionProperty ?? a.animationName ?? ''} on ${a.effect.target.className}`),
      }
    })
    assert.deepEqual(seen, { opacity: '1', animating: [] })
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})
