// Radios and checkboxes in WebKit, the engine of the Linux app (MiniBrowser
// driven by WebKitWebDriver on a private Xvfb display): WebKitGTK paints
// native GTK controls unless the page draws its own, which on the dark theme
// were solid white dots. Unchecked ones must be hollow rings in the theme's
// colours, checked ones filled with the accent, in both themes.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { enableDemo, token } from './serve.mjs'
import { startXvfb, startWebDriver, Session } from './webkit.mjs'
import { waitUntil, saveArtifact, startTempServe } from './util.mjs'
import { checkControlLooks, rectsInPage, settledInPage } from './controls.mjs'

let xvfb, driver, session

before(async () => {
  xvfb = await startXvfb()
  driver = await startWebDriver(xvfb.display)
  session = await Session.create(driver.base).catch((e) => {
    throw new Error(`${e.message}\nWebKitWebDriver log:\n${driver.log()}`)
  })
  await session.setWindowRect({ width: 1100, height: 880 }).catch(() => {})
})

after(async () => {
  await session?.delete().catch(() => {})
  await driver?.stop()
  await xvfb?.stop()
})

for (const theme of ['dark', 'light']) {
  test(`WebKit, ${theme} theme: unchecked radios and checkboxes are hollow rings, checked ones are filled`, async () => {
    // On a model server: the controls measured include its model list (the
    // built-in engine, a fresh install's default, shows the library instead).
    const server = await startTempServe({ extraArgs: ['--engine', 'server'] })
    try {
      await enableDemo(server)
      const { body } = await server.api('GET', '/api/v1/settings')
      assert.equal((await server.api('PUT', '/api/v1/settings', { ...body, theme })).status, 200)
      await session.navigate(`${server.url}/login?token=${token}`)
      await session.waitFor('[data-testid=chat-shell]')
      await waitUntil(() => session.execute('return document.documentElement.dataset.theme === arguments[0]', [theme]), { what: `the ${theme} theme` })
      const composer = await session.waitFor('[data-testid=composer] textarea')
      await session.type(composer, 'Write a short note for my team')
      await session.clickCss('[data-testid=send]')
      const ui = {
        viewportWidth: await session.execute('return window.innerWidth'),
        rects: (css) => session.execute(`return (${rectsInPage})(arguments[0])`, [css]),
        settled: () => session.executeAsync(`const done = arguments[arguments.length - 1]; (${settledInPage})().then(done)`),
        click: (css) => session.clickCss(css),
        screenshot: () => session.screenshot(),
        waitText: (css, text) => waitUntil(() => session.execute('const el = document.querySelector(arguments[0]); return !!el && el.textContent.includes(arguments[1])', [css, text]), { what: `"${text}" in ${css}` }),
      }
      const n = await checkControlLooks(assert, ui, theme, (name, png) => saveArtifact(`e2e-webkit-${name}`, png))
      assert.ok(n >= 12, `${n} controls checked`)
    } finally {
      await server.stop()
    }
  })
}
