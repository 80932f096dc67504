// What the page itself keeps during a long session, measured where it can
// be: the real `parley serve` (demo model), its UI in Chromium, driven as
// the desktop soak drives the window (new chat, a card answered with the
// keyboard, Settings opened and closed, an older conversation opened again
// through search). Every BENCH_PAGE_EVERY rounds, after a forced garbage
// collection, it prints the JS heap in use, DOM nodes and event listeners
// (Chrome DevTools Protocol). If they stay flat while the desktop window's
// WebKitWebProcess grows, the growth is WebKit's, not the app's.
// A diagnostic for the memory soak (bench/soak.sh), run by hand:
// `node bench/soak-page.mjs` (needs build/bin/parley). Asserts nothing.
// Knobs: BENCH_PAGE_ROUNDS (60), BENCH_PAGE_EVERY (10), PARLEY_BIN.
import { launchChromium } from '../frontend/e2e/helpers.mjs'
import { enableDemo, login } from '../frontend/e2e/serve.mjs'
import { startTempServe, sleep } from '../frontend/e2e/util.mjs'

const ROUNDS = Number(process.env.BENCH_PAGE_ROUNDS || 60)
const EVERY = Number(process.env.BENCH_PAGE_EVERY || 10)
const server = await startTempServe()
const browser = await launchChromium()
try {
  await enableDemo(server)
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } })
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Performance.enable')
  await login(page, server)
  const composer = page.getByRole('textbox', { name: 'Message' })
  await composer.waitFor()

  const measure = async (round) => {
    await cdp.send('HeapProfiler.collectGarbage')
    await sleep(200)
    const { metrics } = await cdp.send('Performance.getMetrics')
    const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]))
    const conversations = await page.getByTestId('conversation-open').count()
    // Nodes counts every live node, in the page or detached and still referenced.
    const inPage = await page.evaluate(() => document.getElementsByTagName('*').length)
    console.log(`${String(round).padStart(5)} ${(m.JSHeapUsedSize / 1048576).toFixed(1).padStart(8)} ${String(m.Nodes).padStart(7)} ` +
      `${String(inPage).padStart(8)} ${String(m.JSEventListeners).padStart(9)} ${String(conversations).padStart(13)}`)
  }
  console.log('round  JS heap   nodes elements listeners conversations (MB after GC; Chromium)')
  await measure(0)
  const tokens = []
  for (let round = 1; round <= ROUNDS; round++) {
    const token = `kx${round}q${Math.random().toString(36).slice(2, 8)}`
    await page.keyboard.press('Control+n')
    await composer.fill(`Write a note about ${token}`)
    await composer.press('Enter')
    const card = page.getByTestId('question-card').last()
    await card.waitFor({ timeout: 15000 })
    await sleep(300)
    for (const key of ['1', 'Enter', '1', 'Enter', 'Enter']) {
      await page.keyboard.press(key)
      await sleep(120)
    }
    await page.getByText("Thanks! Here is what I'll go with").last().waitFor({ timeout: 15000 })
    tokens.push(token)

    await page.keyboard.press('Control+,')
    await page.getByTestId('settings-close').waitFor()
    await sleep(200)
    await page.keyboard.press('Escape')
    await sleep(200)

    if (tokens.length > 1) {
      const older = tokens[Math.floor(Math.random() * (tokens.length - 1))]
      await page.keyboard.press('Control+k')
      await page.keyboard.type(older)
      await sleep(600)
      await page.getByTestId('conversation-open').first().click()
      await sleep(500)
      await page.keyboard.press('Control+k')
      await page.keyboard.press('Control+a')
      await page.keyboard.press('Backspace')
      await sleep(500)
    }
    if (round % EVERY === 0) await measure(round)
  }
} finally {
  await browser.close()
  await server.stop()
}
