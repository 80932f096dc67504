// How long the Settings panel takes to open in WebKit, the Linux app's
// engine: the real `parley serve`, its UI in MiniBrowser (WebKitWebDriver, a
// private Xvfb display, so WebKit's GL is software: llvmpipe). One round is
// a click on the gear button until the third animation frame after it (the
// panel painted and composited). Prints figures; asserts nothing.
// Knobs: BENCH_ROUNDS (20), PARLEY_BIN, MINIBROWSER, WEBKIT_WEBDRIVER.
import { startXvfb, startWebDriver, Session } from '../frontend/e2e/webkit.mjs'
import { startTempServe, sleep } from '../frontend/e2e/util.mjs'
import { token } from '../frontend/e2e/serve.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS || 20)
const server = await startTempServe()
const xvfb = await startXvfb()
const driver = await startWebDriver(xvfb.display)
const session = await Session.create(driver.base)
try {
  await session.setWindowRect({ width: 1100, height: 760 }).catch(() => {})
  await session.navigate(`${server.url}/login?token=${token}`)
  await session.waitFor('[data-testid="settings-button"]')
  await sleep(1000)
  const times = []
  for (let i = 0; i < ROUNDS + 1; i++) {
    const ms = await session.executeAsync(`const done = arguments[arguments.length - 1]
      const t0 = performance.now()
      document.querySelector('[data-testid="settings-button"]').click()
      requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))))`)
    if (i > 0) times.push(ms) // the first round warms up
    await session.execute(`document.querySelector('[data-testid="settings-close"]').click()`)
    await sleep(300)
  }
  times.sort((a, b) => a - b)
  const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(0)
  console.log(`settings panel open in WebKit (MiniBrowser, ${ROUNDS} rounds): min ${at(0)} ms, median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`)
} finally {
  await session.delete().catch(() => {})
  await driver.stop()
  await xvfb.stop()
  await server.stop()
}
