// Radios and checkboxes look right in both themes in Chromium: unchecked ones
// are hollow rings in the theme's colours (no light dot on the dark theme),
// checked ones are filled with the accent; measured in screenshots of the real
// UI served by `parley serve` (demo model). webkit-controls.test.mjs checks
// the same in WebKit, the engine of the Linux app.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium } from './helpers.mjs'
import { enableDemo, login } from './serve.mjs'
import { saveArtifact, startTempServe, waitUntil } from './util.mjs'
import { checkControlLooks, rectsInPage, settledInPage } from './controls.mjs'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

for (const theme of ['dark', 'light']) {
  test(`Chromium, ${theme} theme: unchecked radios and checkboxes are hollow rings, checked ones are filled`, async () => {
    // On a model server: the controls measured include its model list (the
    // built-in engine, a fresh install's default, shows the library instead).
    const server = await startTempServe({ extraArgs: ['--engine', 'server'] })
    const page = await browser.newPage({ viewport: { width: 1100, height: 860 } })
    try {
      await enableDemo(server)
      const { body } = await server.api('GET', '/api/v1/settings')
      assert.equal((await server.api('PUT', '/api/v1/settings', { ...body, theme })).status, 200)
      const errors = []
      page.on('pageerror', (e) => errors.push(e.message))
      await login(page, server)
      await waitUntil(() => page.evaluate((t) => document.documentElement.dataset.theme === t, theme), { what: `the ${theme} theme` })
      const composer = page.getByRole('textbox', { name: 'Message' })
      await composer.fill('Write a short note for my team')
      await composer.press('Enter')
      const ui = {
        viewportWidth: 1100,
        rects: (css) => page.evaluate(rectsInPage, css),
        click: (css) => page.locator(css).click(),
        settled: () => page.evaluate(settledInPage),
        screenshot: () => page.screenshot(),
        waitText: (css, text) => page.locator(css).getByText(text).first().waitFor(),
      }
      const n = await checkControlLooks(assert, ui, theme, (name, png) => saveArtifact(`e2e-chromium-${name}`, png))
      assert.ok(n >= 12, `${n} controls checked`)
      assert.deepEqual(errors, [])
    } finally {
      await page.close()
      await server.stop()
    }
  })
}
