// The window at phone widths in Chromium against the real `parley serve`
// (demo model): at 360 and 420 px every header control is on screen and
// clickable, the title and the whole composer placeholder show, and the
// conversations are a drawer that a header button opens and that closes on
// Escape, a click outside it and choosing a conversation. A wide window keeps
// the sidebar beside the chat.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { enableDemo, login } from './serve.mjs'
import { waitUntil, startTempServe } from './util.mjs'

let browser, server, tripId

before(async () => {
  browser = await launchChromium()
  server = await startTempServe()
  await enableDemo(server)
  // A second assistant puts its picker into the header of an open conversation.
  const prof = await server.api('PUT', '/api/v1/profiles/Researcher', { name: 'Researcher', system_prompt: 'You research.', model: '', tools: [] })
  assert.ok(prof.status < 300, 'profile saved: ' + JSON.stringify(prof.body))
  await server.api('POST', '/api/v1/conversations', { title: 'Groceries for the week' })
  const trip = await server.api('POST', '/api/v1/conversations', { title: 'Trip to Lisbon in spring' })
  assert.equal(trip.status, 201, JSON.stringify(trip.body))
  tripId = trip.body.id
})
after(async () => {
  await browser?.close()
  await server?.stop()
})

async function newPage(width, height = 740, options = {}) {
  const page = await browser.newPage({ viewport: { width, height }, ...options })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  await page.getByTestId('conversation-item').first().waitFor({ state: 'attached' })
  return { page, errors }
}

// Every element matching css that is displayed: whether it lies inside the
// viewport and is what a click at its centre lands on.
function reachability(page, css) {
  return page.evaluate((css) => {
    const vw = document.documentElement.clientWidth
    const vh = document.documentElement.clientHeight
    return [...document.querySelectorAll(css)]
      .filter((el) => getComputedStyle(el).display !== 'none' && getComputedStyle(el).visibility !== 'hidden')
      .map((el) => {
        const r = el.getBoundingClientRect()
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
        return {
          what: el.getAttribute('data-testid') || el.getAttribute('aria-label') || el.tagName.toLowerCase(),
          left: Math.round(r.left),
          right: Math.round(r.right),
          width: Math.round(r.width),
          inside: r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= vw + 0.5 && r.bottom <= vh + 0.5,
          clickable: !!hit && (hit === el || el.contains(hit)),
        }
      })
  }, css)
}

function assertAllReachable(list, where) {
  assert.ok(list.length > 0, `no controls found in ${where}`)
  for (const c of list) {
    assert.ok(c.inside, `${c.what} is outside the window (${c.left}–${c.right} px) in ${where}: ${JSON.stringify(list)}`)
    assert.ok(c.clickable, `${c.what} is covered: a click at its centre lands elsewhere, in ${where}`)
  }
}

// The composer's placeholder fits in the text box (measured in its own font).
function placeholderFit(page) {
  return page.evaluate(() => {
    const ta = document.querySelector('[data-testid=composer] textarea')
    const s = getComputedStyle(ta)
    const ctx = document.createElement('canvas').getContext('2d')
    ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`
    return {
      placeholder: ta.placeholder,
      needed: Math.ceil(ctx.measureText(ta.placeholder).width),
      available: Math.floor(ta.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)),
    }
  })
}

const drawerOpen = (page) => page.getByTestId('sidebar').isVisible()

// Waits for running CSS transitions (the drawer slides) to end.
const transitionsDone = (page) => page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {}))))

async function openDrawer(page) {
  await page.getByTestId('sidebar-toggle').click()
  await page.getByTestId('sidebar').waitFor({ state: 'visible' })
  await transitionsDone(page)
}

async function drawerClosed(page) {
  await page.getByTestId('sidebar').waitFor({ state: 'hidden' })
  await transitionsDone(page)
}

for (const width of [360, 420]) {
  test(`at ${width} px every header control is on screen and works, the title shows and the placeholder is whole`, async () => {
    const { page, errors } = await newPage(width)
    try {
      for (const open of [false, true]) {
        if (open) {
          // An open conversation adds the assistant picker to the header.
          await openDrawer(page)
          await page.getByTestId('sidebar').getByText('Trip to Lisbon in spring').click()
          await drawerClosed(page)
          await page.getByTestId('chat-assistant-select').waitFor()
        }
        const where = `${width} px, ${open ? 'a conversation open' : 'new chat'}`
        assertAllReachable(await reachability(page, '.chat-head button, .chat-head select'), where)
        const head = await page.locator('.chat-head').evaluate((h) => ({ scroll: h.scrollWidth, client: h.clientWidth }))
        assert.ok(head.scroll <= head.client, `the header overflows (${head.scroll} > ${head.client} px) at ${where}`)
        const [title] = await reachability(page, '.chat-title')
        assert.ok(title.inside && title.width >= 40, `the title is visible (${JSON.stringify(title)}) at ${where}`)
        assert.equal(await page.locator('.chat-title').innerText(), open ? 'Trip to Lisbon in spring' : 'New chat')
        const fit = await placeholderFit(page)
        assert.ok(fit.needed <= fit.available, `placeholder "${fit.placeholder}" needs ${fit.needed} px, the box has ${fit.available} at ${where}`)
        assertAllReachable(await reachability(page, '[data-testid=composer] textarea, [data-testid=send]'), `the composer at ${where}`)
        const pageScroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        assert.equal(pageScroll, 0, 'the page does not scroll sideways')
      }
      await screenshot(page, `e2e-layout-${width}.png`)

      // Each header control does its job.
      await page.getByTestId('inbox-button').click()
      const panel = page.getByTestId('inbox-panel')
      await panel.waitFor()
      assertAllReachable(await reachability(page, '[data-testid=inbox-panel]'), `the inbox panel at ${width} px`)
      await page.keyboard.press('Escape')
      await panel.waitFor({ state: 'detached' })

      const theme = page.getByTestId('theme-toggle')
      const before = await theme.getAttribute('aria-label')
      await theme.click()
      await waitUntil(async () => (await theme.getAttribute('aria-label')) !== before, { what: 'the theme to change' })

      await page.getByTestId('chat-assistant-select').selectOption('Researcher')
      await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${tripId}`)).body.assistant === 'Researcher', { what: 'the assistant of the conversation to change' })
      await page.getByTestId('chat-assistant-select').selectOption('default')

      await page.getByTestId('settings-button').click()
      await page.getByTestId('settings-panel').waitFor()
      assertAllReachable(await reachability(page, '[data-testid=settings-close], [data-testid=settings-cancel], [data-testid=settings-save]'), `Settings at ${width} px`)
      await page.getByTestId('settings-close').click()
      await page.getByTestId('settings-panel').waitFor({ state: 'detached' })

      // A question card: the header still fits with the run state shown, and
      // the card's controls are within the window's width.
      const composer = page.getByRole('textbox', { name: 'Message' })
      await composer.fill(`Plan a picnic (${width})`)
      await composer.press('Enter')
      const card = page.getByTestId('question-card').last()
      await card.getByText('What tone should the answer have?').waitFor()
      await waitUntil(async () => (await page.getByTestId('run-status').textContent()).includes('Waiting for your answer'), { what: 'the waiting state' })
      assertAllReachable(await reachability(page, '.chat-head button, .chat-head select'), `${width} px with a card waiting`)
      const cardControls = await reachability(page, '[data-testid=question-card] button, [data-testid=question-card] input, [data-testid=question-card] textarea')
      const vw = await page.evaluate(() => document.documentElement.clientWidth)
      for (const c of cardControls) assert.ok(c.left >= 0 && c.right <= vw, `${c.what} in the card is outside the window's width (${c.left}–${c.right} px)`)
      await card.getByTestId('primary').scrollIntoViewIfNeeded()
      await screenshot(page, `e2e-layout-${width}-card.png`)
      assert.deepEqual(errors, [])
    } finally {
      await page.close()
    }
  })
}

test('at 420 px the conversations are a drawer: the header button opens it; Escape, a click outside and choosing a conversation close it', async () => {
  const { page, errors } = await newPage(420)
  try {
    const toggle = page.getByTestId('sidebar-toggle')
    assert.equal(await drawerOpen(page), false, 'the drawer starts closed')
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')

    // Open, then Escape: focus goes back to the button.
    await openDrawer(page)
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true')
    assertAllReachable(await reachability(page, '[data-testid=sidebar] [data-testid=new-chat], [data-testid=sidebar-close], [data-testid=conversation-open]'), 'the open drawer')
    assert.equal(await page.evaluate(() => !!document.activeElement?.closest('[data-testid=sidebar]')), true, 'focus moves into the drawer')
    await screenshot(page, 'e2e-layout-drawer-420.png')
    // Tab and Shift+Tab never leave the open drawer (issue 23), however often.
    const stops = await page.evaluate(() => document.querySelectorAll('[data-testid=sidebar] button, [data-testid=sidebar] input').length)
    for (const key of ['Tab', 'Shift+Tab']) {
      for (let i = 0; i < stops + 3; i++) {
        await page.keyboard.press(key)
        const where = await page.evaluate(() => (document.activeElement?.closest('[data-testid=sidebar]') ? '' : document.activeElement?.outerHTML.slice(0, 120) ?? 'nothing'))
        assert.equal(where, '', `${key} ${i + 1}: focus left the open drawer`)
      }
    }
    await page.keyboard.press('Escape')
    await drawerClosed(page)
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false')
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'sidebar-toggle')

    // A click outside the drawer (on the dimmed chat) closes it.
    await openDrawer(page)
    await page.mouse.click(410, 400)
    await drawerClosed(page)

    // The drawer's own close button.
    await openDrawer(page)
    await page.getByTestId('sidebar-close').click()
    await drawerClosed(page)

    // Choosing a conversation opens it and closes the drawer.
    await openDrawer(page)
    await page.getByTestId('sidebar').getByText('Groceries for the week').click()
    await drawerClosed(page)
    await waitUntil(async () => (await page.locator('.chat-title').innerText()) === 'Groceries for the week', { what: 'the chosen conversation to open' })

    // "New chat" closes it too and puts the cursor in the message box.
    await openDrawer(page)
    await page.getByTestId('sidebar').getByTestId('new-chat').click()
    await drawerClosed(page)
    assert.equal(await page.locator('.chat-title').innerText(), 'New chat')
    await waitUntil(() => page.evaluate(() => document.activeElement?.id === 'composer-input'), { what: 'the composer to take focus' })

    // Closed, the drawer's controls are out of the Tab order.
    assert.equal(await page.getByTestId('sidebar').getByTestId('new-chat').isVisible(), false)
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})

// Issue 23: a touch screen has no hover; the conversation rows' actions
// must be there to tap.
test('on a touch screen every conversation row shows its actions, and a tap on Rename works', async () => {
  const { page, errors } = await newPage(1100, 740, { hasTouch: true, isMobile: true })
  try {
    assert.equal(await page.evaluate(() => matchMedia('(hover: none)').matches), true, 'the page is on a touch screen')
    const rows = page.getByTestId('conversation-item')
    const n = await rows.count()
    assert.ok(n >= 2, `${n} rows`)
    for (let i = 0; i < n; i++) {
      for (const action of ['rename', 'pin', 'delete', 'more']) {
        assert.equal(await rows.nth(i).getByTestId(action).isVisible(), true, `row ${i + 1}: ${action} is shown without hover`)
      }
    }
    await rows.first().getByTestId('rename').tap()
    await rows.first().getByTestId('rename-input').waitFor()
    await page.keyboard.press('Escape')
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})

test('a wide window keeps the sidebar beside the chat, with no drawer button', async () => {
  const { page, errors } = await newPage(1100)
  try {
    assert.equal(await drawerOpen(page), true)
    assert.equal(await page.getByTestId('sidebar-toggle').isVisible(), false)
    const [side] = await reachability(page, '[data-testid=sidebar]')
    const [chat] = await reachability(page, '[data-testid=chat-view]')
    assert.ok(side.inside && chat.inside && side.right <= chat.left, `side by side: ${JSON.stringify({ side, chat })}`)
    await page.getByTestId('sidebar').getByText('Trip to Lisbon in spring').click()
    await waitUntil(async () => (await page.locator('.chat-title').innerText()) === 'Trip to Lisbon in spring', { what: 'the conversation to open' })
    assert.equal(await drawerOpen(page), true, 'choosing a conversation leaves the sidebar in place')
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})
