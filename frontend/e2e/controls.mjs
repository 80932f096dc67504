// The look of radios and checkboxes on screen, shared by the Chromium and the
// WebKit test: a question card's options (unchecked, then one checked; then
// the checkboxes of a multiple-choice question) and the Settings radios, each
// measured in a real screenshot (png.mjs).
import { decodePng, controlLook, assertControlLook } from './png.mjs'
import { waitUntil } from './util.mjs'

// In the page: the boxes of the displayed inputs matching css (scrolled into view).
export function rectsInPage(css) {
  const els = [...document.querySelectorAll(css)].filter((el) => el.getBoundingClientRect().width > 0 && getComputedStyle(el).opacity !== '0')
  els[0]?.scrollIntoView({ block: 'center' })
  return els.map((el) => {
    const r = el.getBoundingClientRect()
    // Shown where it is, not clipped away by a scrolled container (a
    // control below the fold of the Settings dialog is in the viewport's
    // box but not painted): what is at its centre is it or its label.
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)
    const shown = !!hit && (hit === el || el.contains(hit) || !!el.closest('label')?.contains(hit) || (el.labels && [...el.labels].some((l) => l.contains(hit))))
    return { x: r.x, y: r.y, width: r.width, height: r.height, checked: el.checked, kind: el.type, name: el.value, shown }
  })
}

// In the page: resolves once transitions have ended and two frames have been
// painted since, so a screenshot shows the current state.
export function settledInPage() {
  return Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))).then(
    () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true)))),
  )
}

// Whether two screenshots have the same pixels in and around (4 CSS px)
// each box.
function samePixels(a, b, boxes, scale) {
  if (a.width !== b.width || a.height !== b.height) return false
  for (const box of boxes) {
    const x0 = Math.max(0, Math.floor((box.x - 4) * scale)), x1 = Math.min(a.width - 1, Math.ceil((box.x + box.width + 4) * scale))
    const y0 = Math.max(0, Math.floor((box.y - 4) * scale)), y1 = Math.min(a.height - 1, Math.ceil((box.y + box.height + 4) * scale))
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const p = a.pixel(x, y), q = b.pixel(x, y)
        if (p[0] !== q[0] || p[1] !== q[1] || p[2] !== q[2]) return false
      }
    }
  }
  return true
}

/**
 * ui: { rects(css) → boxes, click(css), settled(), screenshot() → PNG, waitText(css, text) }.
 * Returns how many controls were checked.
 */
export async function checkControlLooks(assert, ui, theme, artifact) {
  let count = 0
  async function measure(css, where) {
    await ui.rects(css) // scrolls them into view
    // A new card may still be scrolling into view (smooth scrolling is no
    // animation the page can wait for), and on a busy machine a screenshot
    // can show a frame from before the controls were painted: measure once
    // two screenshots in a row are the same picture and the boxes stood
    // still from before the first to after the second. The deadline only
    // bounds a page that never comes to rest.
    // Only the controls and what they sit on are compared: a card's countdown
    // changes the picture every second elsewhere.
    let boxes, png
    const deadline = Date.now() + 60_000
    for (let previous = null; ; ) {
      await ui.settled()
      boxes = await ui.rects(css)
      const shot = decodePng(await ui.screenshot())
      const after = await ui.rects(css)
      const unmoved = JSON.stringify(after) === JSON.stringify(boxes)
      if (unmoved && previous && samePixels(previous, shot, boxes, shot.width / ui.viewportWidth)) {
        png = shot
        break
      }
      if (Date.now() > deadline) throw new Error(`${where}: the controls did not come to rest within 60 s (boxes ${JSON.stringify(boxes)} then ${JSON.stringify(after)})`)
      previous = unmoved ? shot : null
    }
    assert.ok(boxes.length > 0, `no controls ${css} in ${where}`)
    const scale = png.width / ui.viewportWidth
    const onScreen = boxes.filter((b) => b.shown && b.x >= 3 && b.y >= 0 && (b.x + b.width) * scale <= png.width && (b.y + b.height) * scale <= png.height)
    assert.ok(onScreen.length > 0, `no controls ${css} on screen in ${where}: ${JSON.stringify(boxes)}`)
    for (const box of onScreen) {
      const look = controlLook(png, box, { scale, kind: box.kind })
      assertControlLook(assert, look, { checked: box.checked, what: `the ${box.checked ? 'checked' : 'unchecked'} ${box.kind} "${box.name}" in ${where} (${theme} theme)` })
      count++
    }
    return png
  }
  const options = '[data-testid=question-card] input[data-option]'
  await ui.waitText('[data-testid=question-card]', 'What tone should the answer have?')
  await measure(options, 'a question card')
  await ui.click(`${options}[value="Formal"]`)
  await waitUntil(async () => (await ui.rects(options)).some((b) => b.checked), { what: 'Formal to be checked' })
  await measure(options, 'a question card, one option chosen')
  if (artifact) await artifact(`controls-${theme}-radios.png`, await ui.screenshot())
  // The card's buttons may be below the options centred above (WebKitGTK's
  // WebDriver does not scroll the message list to reach them).
  await ui.rects('[data-testid=question-card] [data-testid=primary]')
  await ui.click('[data-testid=question-card] [data-testid=primary]')
  await ui.waitText('[data-testid=question-card]', 'What should it include?')
  await measure(options, 'a multiple-choice question')
  await ui.click(`${options}[value="Summary"]`)
  await waitUntil(async () => (await ui.rects(options)).some((b) => b.checked), { what: 'Summary to be checked' })
  await measure(options, 'a multiple-choice question, one option chosen')
  if (artifact) await artifact(`controls-${theme}-checkboxes.png`, await ui.screenshot())
  await ui.click('[data-testid=settings-button]')
  await ui.waitText('[data-testid=settings-panel]', 'Model server')
  await measure('[data-testid=settings-panel] input[type=radio]', 'Settings')
  // The model list below the engine choice, scrolled into view on its own
  // (the first measure shows the top of the dialog).
  await measure('[data-testid=settings-panel] input[type=radio][name=parley-model]', "Settings' model list")
  if (artifact) await artifact(`controls-${theme}-settings.png`, await ui.screenshot())
  return count
}
