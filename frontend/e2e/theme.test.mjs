// Themes in Chromium against the real `parley serve --demo` (the scripted
// demo assistant, no model server; `?demo` in the URL changes nothing):
// "light" and "dark" show their palette whatever the system uses; "system"
// follows the system's light or dark setting, live, while the window is open.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium } from './helpers.mjs'
import { login } from './serve.mjs'
import { startTempServe } from './util.mjs'

const WHITE = 'rgb(255, 255, 255)' // --bg of the light palette
const DARK = 'rgb(21, 23, 28)' // --bg of the dark palette (#15171c)

let browser, server

before(async () => {
  browser = await launchChromium()
  server = await startTempServe({ extraArgs: ['--demo'] })
  assert.equal((await server.api('GET', '/api/v1/settings')).body.demo_mode, true, '--demo turns demo mode on')
})
after(async () => {
  await browser?.close()
  await server?.stop()
})

/** Waits until the page background is the palette's (it fades between themes). */
async function expectPalette(page, bg, what) {
  try {
    await page.waitForFunction(
      (bg) => getComputedStyle(document.body).backgroundColor === bg,
      bg,
      { timeout: 5000 },
    )
  } catch {
    const seen = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    assert.fail(`${what}: the background is ${seen}, not ${bg}`)
  }
}

async function chooseTheme(page, theme) {
  const toggle = page.getByTestId('theme-toggle')
  for (let i = 0; i < 3 && (await toggle.getAttribute('aria-label')) !== `Theme: ${theme}`; i++) await toggle.click()
  assert.equal(await toggle.getAttribute('aria-label'), `Theme: ${theme}`)
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme ?? 'system'), theme)
}

test('the system theme follows the system live; light and dark ignore it', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, colorScheme: 'light' })
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  try {
    await login(page, server)
    await page.goto(`${server.url}/?demo`)
    await page.getByTestId('composer').waitFor()
    await chooseTheme(page, 'system')
    await expectPalette(page, WHITE, 'system theme, light system')
    await page.emulateMedia({ colorScheme: 'dark' })
    await expectPalette(page, DARK, 'system theme, the system turned dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await expectPalette(page, WHITE, 'system theme, the system turned light again')

    await chooseTheme(page, 'light')
    await page.emulateMedia({ colorScheme: 'dark' })
    await expectPalette(page, WHITE, 'light theme, dark system')

    await chooseTheme(page, 'dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await expectPalette(page, DARK, 'dark theme, light system')

    await chooseTheme(page, 'system')
    await expectPalette(page, WHITE, 'back to the system theme, light system')
    await page.reload()
    await page.getByTestId('composer').waitFor()
    await page.emulateMedia({ colorScheme: 'dark' })
    await expectPalette(page, DARK, 'system theme after a reload, dark system')
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
  }
})
