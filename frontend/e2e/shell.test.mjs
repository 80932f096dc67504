import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, serveDist, screenshot } from './helpers.mjs'

let browser, server

before(async () => {
  server = await serveDist()
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await server?.close()
})

test('the built UI shows the Parley chat shell in Chromium', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(server.url)
  assert.equal(await page.title(), 'Parley')
  await page.getByTestId('chat-shell').waitFor()
  const composer = page.getByRole('textbox', { name: /message/i })
  await composer.fill('Plan a trip to Lisbon')
  assert.equal(await composer.inputValue(), 'Plan a trip to Lisbon')
  await screenshot(page, 'e2e-shell-chromium.png')
  assert.deepEqual(errors, [], 'no uncaught page errors')
})
