// How a question card sits on screen, in Chromium against the real
// `parley serve` with the demo model: a new card is fully in view (its
// Skip / Cancel / Next buttons inside the message list's visible area) even
// in a small window; the countdown, step numbers and status chip are readable
// (WCAG contrast ≥ 4.5:1) in the light and the dark theme.
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
  { height: 760, fit: 'card' },
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

// ---- colour contrast (WCAG 2) ------------------------------------------------

// contrastOf measures, in the page, the contrast ratio of an element's text
// colour against what is behind it: the backgrounds of the element and its
// ancestors, composited (with their alpha) over the page's.
function contrastOf(locator) {
  return locator.evaluate((el) => {
    const parse = (c) => {
      const rgb = c.match(/^rgba?\(([^)]+)\)$/)
      if (rgb) {
        const [r, g, b, a = 1] = rgb[1].split(/[\s,/]+/).filter(Boolean).map(Number)
        return { r, g, b, a }
      }
      const srgb = c.match(/^color\(srgb ([^)]+)\)$/) // how color-mix() and color() compute
      if (srgb) {
        const [r, g, b, a = 1] = srgb[1].split(/[\s/]+/).filter(Boolean).map(Number)
        return { r: r * 255, g: g * 255, b: b * 255, a }
      }
      throw new Error('unsupported colour ' + c)
    }
    const over = (top, bottom) => ({
      r: top.r * top.a + bottom.r * (1 - top.a),
      g: top.g * top.a + bottom.g * (1 - top.a),
      b: top.b * top.a + bottom.b * (1 - top.a),
      a: 1,
    })
    const layers = []
    for (let n = el; n; n = n.parentElement) layers.push(parse(getComputedStyle(n).backgroundColor))
    let bg = { r: 255, g: 255, b: 255, a: 1 }
    for (const layer of layers.reverse()) bg = over(layer, bg)
    const fg = over(parse(getComputedStyle(el).color), bg)
    const lum = ({ r, g, b }) => {
      const ch = (v) => {
        v /= 255
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
      }
      return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)
    }
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a)
    return { ratio: (hi + 0.05) / (lo + 0.05), fg: getComputedStyle(el).color, bg: `rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)})` }
  })
}

async function assertReadable(locator, what) {
  const c = await contrastOf(locator)
  assert.ok(c.ratio >= 4.5, `${what}: contrast ${c.ratio.toFixed(2)}:1 (${c.fg} on ${c.bg}), want at least 4.5:1`)
}

for (const scheme of ['light', 'dark']) {
  test(`the card's countdown, step numbers and status are readable in the ${scheme} theme (contrast ≥ 4.5:1)`, async () => {
    const server = await startTempServe()
    try {
      await enableDemo(server)
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, colorScheme: scheme })
      const errors = []
      page.on('pageerror', (e) => errors.push(e.message))
      await login(page, server)
      assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), scheme === 'dark')

      // Plenty of time: the calm countdown.
      const card = await sendForPendingCard(page, 'Plan a team lunch')
      await card.getByTestId('countdown').waitFor()
      await assertReadable(card.getByTestId('countdown'), `countdown (${scheme})`)
      await assertReadable(card.locator('.step-num').nth(1), `step number (${scheme})`)
      await card.getByTestId('skip').click()
      const skipped = page.locator('[data-testid="question-card"][data-status="declined"]')
      await skipped.waitFor()
      await assertReadable(skipped.getByTestId('card-status'), `status of a skipped card (${scheme})`)
      await page.getByTestId('send').waitFor()

      // Under a minute left: the urgent countdown.
      const settings = (await server.api('GET', '/api/v1/settings')).body
      assert.equal((await server.api('PUT', '/api/v1/settings', { ...settings, question_timeout_seconds: 50 })).status, 200)
      const urgent = await sendForPendingCard(page, 'Plan a team dinner')
      await urgent.locator('[data-testid="countdown"].urgent').waitFor()
      await assertReadable(urgent.getByTestId('countdown'), `urgent countdown (${scheme})`)
      await screenshot(page, `e2e-card-contrast-${scheme}.png`)
      assert.deepEqual(errors, [])
    } finally {
      await server.stop()
    }
  })
}
