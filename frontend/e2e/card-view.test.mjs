// How a question card sits on screen, in Chromium against the real
// `parley serve` with the demo model: a new card is fully in view (its
// Skip / Cancel / Next buttons inside the message list's visible area) even
// in a small window; the countdown's text is readable (WCAG contrast ≥ 4.5:1)
// in the light and the dark theme.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { enableDemo, login } from './serve.mjs'
import { waitUntil, sleep, startTempServe } from './util.mjs'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

const TONE = 'What tone should the answer have?'

async function newPage(server, viewport) {
  const page = await browser.newPage({ viewport })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { page, errors }
}

async function sendForPendingCard(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.fill(text)
  await composer.press('Enter')
  const card = page.locator('[data-testid="question-card"][data-status="pending"]')
  await card.getByText(TONE).waitFor()
  return card
}

// rectsOf returns the bounding boxes (viewport coordinates) of the message
// list and of the card's parts, measured in the page.
async function rectsOf(page) {
  return page.evaluate(() => {
    const box = (el) => {
      if (!el) return null
      const r = el.getBoundingClientRect()
      return { top: Math.round(r.top), bottom: Math.round(r.bottom) }
    }
    const list = document.querySelector('[data-testid="message-list"]')
    const card = document.querySelector('[data-testid="question-card"][data-status="pending"]')
    return {
      list: box(list),
      card: box(card),
      legend: box(card?.querySelector('legend')),
      skip: box(card?.querySelector('[data-testid="skip"]')),
      cancel: box(card?.querySelector('[data-testid="cancel"]')),
      primary: box(card?.querySelector('[data-testid="primary"]')),
    }
  })
}

const inside = (r, list) => r && r.top >= list.top && r.bottom <= list.bottom

// stableRects waits until the layout stops moving (the card's entrance and
// the scroll it causes are done) and returns the last measurement.
async function stableRects(page) {
  let last = ''
  return waitUntil(async () => {
    const r = await rectsOf(page)
    const now = JSON.stringify(r)
    const same = now === last
    last = now
    return same && r.card ? r : null
  }, { interval: 250, what: 'the card to stop moving' })
}

// The window heights give the three cases of a card's height against the
// message list's: the card fits; it does not, but its question and buttons do
// (the card's end is aligned with the list's end); not even those fit (the
// question starts at the top of the list and the card goes on below).
const cases = [
  { height: 720, fit: 'card' },
  { height: 650, fit: 'question and buttons' },
  { height: 540, fit: 'none' },
]
const MARGIN = 12 // what the list keeps between a revealed card and its edges

function fitOf(r) {
  const room = r.list.bottom - r.list.top
  if (r.card.bottom - r.card.top + 2 * MARGIN <= room) return 'card'
  if (r.card.bottom - r.legend.top + 2 * MARGIN <= room) return 'question and buttons'
  return 'none'
}

for (const { height, fit } of cases) {
  test(`a second card in a conversation comes into view, window 1100x${height} (${fit} fits)`, async () => {
    const server = await startTempServe()
    try {
      await enableDemo(server)
      const { page, errors } = await newPage(server, { width: 1100, height })
      // First card: answer both questions with the keyboard.
      const first = await sendForPendingCard(page, 'Plan a team lunch')
      await first.locator('[data-option]').first().waitFor()
      for (const key of ['1', 'Enter', '1', 'Enter', 'Enter']) {
        await page.keyboard.press(key)
        await sleep(150)
      }
      await page.getByText("Thanks! Here is what I'll go with").waitFor({ timeout: 15000 })
      await page.getByTestId('send').waitFor()

      // Second card.
      await sendForPendingCard(page, 'Plan a team dinner')
      const r = await stableRects(page)
      await screenshot(page, `e2e-card-view-second-${height}.png`)
      const where = JSON.stringify(r)
      assert.equal(fitOf(r), fit, `the window gives the intended case: ${where}`)
      assert.ok(inside(r.legend, r.list), `the question is in view: ${where}`)
      if (fit === 'none') {
        assert.ok(r.legend.top - r.list.top <= MARGIN + 2, `the question starts at the top of the list: ${where}`)
      } else {
        for (const part of ['skip', 'cancel', 'primary']) {
          assert.ok(inside(r[part], r.list), `${part} button inside the message list's visible area: ${where}`)
        }
      }
      if (fit === 'card') assert.ok(inside(r.card, r.list), `the whole card is in view: ${where}`)
      assert.equal(
        await page.evaluate(() => document.activeElement?.matches('[data-status="pending"] [data-option]') ?? false),
        true,
        'focus is on an option of the new card',
      )
      assert.deepEqual(errors, [])
    } finally {
      await server.stop()
    }
  })
}
