// The Settings panel in Chromium against the real `parley serve`: it opens
// with every section, it does not clip its scrolling body with rounded
// corners (WebKitGTK, the Linux app's engine, composites such a clip slowly
// without a GPU: the panel took 1-2 s to open in the desktop window under
// Xvfb), and in demo mode it says the demo model is the one that answers.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { enableDemo, login } from './serve.mjs'
import { startTempServe } from './util.mjs'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

async function openSettings(server) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  await page.getByTestId('settings-button').click()
  await page.getByTestId('settings-panel').waitFor()
  return { page, errors }
}

// roundedClipsAroundScrollers lists the elements of the panel that clip
// their content with rounded corners (overflow other than visible, a border
// radius) and are, or contain, a scroll container.
function roundedClipsAroundScrollers(page) {
  return page.evaluate(() => {
    const panel = document.querySelector('[data-testid="settings-panel"]')
    const all = [panel, ...panel.querySelectorAll('*')]
    const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowY) || ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
    const scrollers = all.filter(scrolls)
    const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '')
    return all
      .filter((el) => {
        const s = getComputedStyle(el)
        const clips = s.overflowX !== 'visible' || s.overflowY !== 'visible'
        const rounded = ['borderTopLeftRadius', 'borderTopRightRadius', 'borderBottomLeftRadius', 'borderBottomRightRadius'].some((k) => parseFloat(s[k]) > 0)
        return clips && rounded && scrollers.some((sc) => el === sc || el.contains(sc))
      })
      .map(name)
  })
}

test('Settings opens with every section and no rounded clip around its scrolling body', async () => {
  // On a model server: every section shows (the built-in engine, a fresh
  // install's default, hides the server's model list).
  const server = await startTempServe({ extraArgs: ['--engine', 'server'] })
  try {
    const { page, errors } = await openSettings(server)
    const legends = await page.getByTestId('settings-panel').locator('legend').allInnerTexts()
    // In the order of the section list: server, models (the engine, then the server's model), assistants, tools, knowledge, memory, agents, appearance, data.
    assert.deepEqual(legends.map((l) => l.trim().toLowerCase()), ['model server', 'modes', 'engine', 'model', 'how well each model asks', 'assistant profiles', 'questions', 'tools', 'knowledge', 'memory', 'agents', 'language', 'theme', 'backup', 'about'])
    assert.deepEqual(await roundedClipsAroundScrollers(page), [])
    // The scrolling body still ends inside the rounded dialog.
    const { dialog, body } = await page.evaluate(() => {
      const r = (sel) => document.querySelector(sel).getBoundingClientRect().toJSON()
      return { dialog: r('[data-testid="settings-panel"]'), body: r('[data-testid="settings-panel"] .dialog-body') }
    })
    const radius = await page.getByTestId('settings-panel').evaluate((el) => parseFloat(getComputedStyle(el).borderBottomRightRadius))
    assert.ok(body.bottom <= dialog.bottom - radius + 2, `the body (and its scrollbar) stops above the rounded corners: ${JSON.stringify({ dialog, body, radius })}`)
    await screenshot(page, 'e2e-settings-open.png')
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('in demo mode Settings shows the demo model selected, with a note', async () => {
  const server = await startTempServe({ extraArgs: ['--engine', 'server'] })
  try {
    await enableDemo(server)
    const { page, errors } = await openSettings(server)
    const note = page.getByTestId('demo-model-note')
    await note.waitFor()
    assert.equal((await note.innerText()).trim(), 'Demo mode is on: the scripted demo model answers.')
    const options = page.getByTestId('model-option')
    assert.equal(await options.count(), 1)
    assert.equal((await options.first().locator('.model-name').innerText()).trim(), 'parley-demo')
    assert.equal(await options.first().locator('input').isChecked(), true, 'the demo model is the selected one')
    await screenshot(page, 'e2e-settings-demo.png')
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})
