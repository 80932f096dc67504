// Updates end to end (SPEC §13), in Chromium: Parley 1.0.0, installed from
// its tarball with a test key built in and pointed at a signed loopback
// feed of 1.0.1 (PARLEY_UPDATE_URL), shows the update in Settings → About
// with its notes in the user's language, announces it once, applies it on
// "Restart to update" and comes back as 1.0.1 (binary replaced, the old one
// kept, the database copied first) with every conversation. Hostile feeds
// (unsigned, signed by another key, expired, a tampered download) are each
// refused with their reason, and nothing changes on disk. axe-clean; whole
// at 360 px.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login, enableDemo } from './serve.mjs'
import { freePort, waitUntil } from './util.mjs'
import { assertNoSeriousViolations } from './axe.mjs'
import { NEW, OLD, buildUpdateFixture, exists, installOld, sha256Of, startFeedServer, versionOf } from './updates.mjs'

let browser, fx, feed

before(async () => {
  fx = await buildUpdateFixture()
  feed = await startFeedServer(fx.feeds.good)
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await feed?.close()
  await fx?.remove()
})

/** Parley 1.0.0 from a fresh install, serving on a fixed port (a restart comes back on it). */
async function startOld() {
  const bin = await installOld(fx)
  const dataDir = await newDataDir()
  const port = await freePort()
  const server = await startServe(dataDir, { bin, group: true, addr: `127.0.0.1:${port}`, env: { PARLEY_UPDATE_URL: feed.url } })
  return { bin, dataDir, server }
}

async function conversationDone(server, id) {
  return waitUntil(async () => {
    const { body } = await server.api('GET', `/api/v1/conversations/${id}`)
    return body.state === 'idle' && body.messages.length >= 2 && body
  }, { what: 'the demo reply', timeout: 30000 })
}

test('1.0.0 shows 1.0.1 in Settings → About, restarts into it on "Restart to update", with every conversation', async () => {
  const { bin, dataDir, server } = await startOld()
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  try {
    // Conversations of 1.0.0; the interface in German (the notes follow it).
    await enableDemo(server)
    const { body: settings } = await server.api('GET', '/api/v1/settings')
    assert.equal(settings.update_checks, 'on', 'automatic checks are on by default')
    await server.api('PUT', '/api/v1/settings', { ...settings, language: 'de' })
    const a = await server.api('POST', '/api/v1/conversations', { title: 'Reise nach Lissabon' })
    assert.equal((await server.api('POST', `/api/v1/conversations/${a.body.id}/messages`, { content: 'Just answer: what is this?' })).status, 202)
    const before = await conversationDone(server, a.body.id)
    const b = await server.api('POST', '/api/v1/conversations', { title: 'Steuern 2026' })

    const page = await context.newPage()
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    await page.evaluate(() => (location.hash = '#settings/about'))
    const about = page.getByTestId('settings-about')
    await about.getByTestId('updates-section').waitFor()
    assert.equal(await about.getByTestId('version').innerText(), `Parley ${OLD}`)
    assert.equal(await about.getByTestId('update-kind').innerText(), 'Aus dem Tarball installiert')
    assert.equal(await about.getByTestId('update-auto').isChecked(), true)

    // "Check for updates", by keyboard: the verified download follows.
    await about.getByTestId('update-check').focus()
    await page.keyboard.press('Enter')
    const restart = about.getByTestId('update-restart')
    await restart.waitFor({ timeout: 60000 })
    assert.equal(await about.getByTestId('update-state').innerText(), `Parley ${NEW} ist heruntergeladen, geprüft und bereit zur Installation.`)
    assert.equal(await about.getByTestId('update-notes').innerText(), 'Schnellere Antworten.\nWeniger Rückfragen.')
    assert.match(await about.getByTestId('update-available').innerText(), new RegExp(`Neu in Parley ${NEW.replace(/\./g, '\\.')}`))
    await assertNoSeriousViolations(page, 'Settings → About with a ready update', '[data-testid="settings-panel"]')
    await about.getByTestId('update-available').scrollIntoViewIfNeeded()
    await screenshot(page, 'e2e-update-ready.png')
    await page.setViewportSize({ width: 360, height: 760 })
    await about.scrollIntoViewIfNeeded()
    const overflow = await about.evaluate((el) => [el, ...el.querySelectorAll('*')].filter((x) => x.scrollWidth - x.clientWidth > 1 && getComputedStyle(x).overflowX !== 'visible').length + Math.max(0, el.scrollWidth - el.clientWidth - 1))
    assert.equal(overflow, 0, 'About is whole at 360 px')
    await screenshot(page, 'e2e-update-ready-360.png')
    await page.setViewportSize({ width: 1200, height: 900 })

    // The one notice atop the chat, in German; its "What's new" comes back here.
    await page.keyboard.press('Escape')
    const notice = page.getByTestId('update-notice')
    await notice.waitFor()
    assert.match(await notice.innerText(), new RegExp(`Parley ${NEW.replace(/\./g, '\\.')} ist bereit zur Installation\\.`))
    await assertNoSeriousViolations(page, 'the update notice')
    await notice.getByTestId('update-notice-details').click()
    await about.getByTestId('update-restart').waitFor()
    assert.equal(await page.getByTestId('update-notice').count(), 0)

    // "Restart to update": 1.0.0 installs 1.0.1 and restarts into it; the page reloads from it.
    const reloaded = page.waitForEvent('load', { timeout: 90000 })
    await about.getByTestId('update-restart').click()
    await waitUntil(async () => (await about.getByTestId('update-state').innerText()).includes('wird installiert'), { what: 'installing and restarting' })
    await reloaded
    await waitUntil(() => server.log().includes(`Parley ${NEW} is serving on`), { what: 'the new version serving', timeout: 30000 })
    await page.getByTestId('chat-shell').waitFor()
    await page.evaluate(() => (location.hash = '#settings/about'))
    await waitUntil(async () => (await page.getByTestId('version').innerText().catch(() => '')) === `Parley ${NEW}`, { what: `About saying Parley ${NEW}` })
    assert.equal(await page.getByTestId('update-restart').count(), 0)
    await page.keyboard.press('Escape')

    // Every conversation, as it was.
    const items = page.getByTestId('conversation-item')
    await waitUntil(async () => (await items.count()) === 2, { what: 'both conversations in the list' })
    const titles = (await items.allInnerTexts()).join('\n')
    assert.match(titles, /Reise nach Lissabon/)
    assert.match(titles, /Steuern 2026/)
    const { body: after } = await server.api('GET', `/api/v1/conversations/${a.body.id}`)
    assert.deepEqual(after.messages.map((m) => [m.role, m.content]), before.messages.map((m) => [m.role, m.content]))
    assert.equal((await server.api('GET', `/api/v1/conversations/${b.body.id}`)).status, 200)
    const health = await server.api('GET', '/api/v1/health')
    assert.equal(health.body.version, NEW)

    // On disk: the new binary in place, the old one kept beside it, the
    // database copied before 1.0.1 first opened it.
    assert.equal(await versionOf(bin), `parley ${NEW}`)
    assert.equal(await versionOf(`${bin}.old`), `parley ${OLD}`)
    assert.ok(await exists(join(dataDir, `parley.db.pre-${NEW}`)), 'the database copy')
    await screenshot(page, 'e2e-update-restarted.png')
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
    await server.stop()
  }
})

test('hostile feeds are refused with their reason, and nothing changes on disk', async () => {
  const { bin, dataDir, server } = await startOld()
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  const sum = await sha256Of(bin)
  try {
    const page = await context.newPage()
    await login(page, server)
    await page.evaluate(() => (location.hash = '#settings/about'))
    const about = page.getByTestId('settings-about')
    await about.getByTestId('updates-section').waitFor()
    const cases = [
      ['unsigned', /the feed is not signed/],
      ['otherKey', /the feed is signed by an unknown key/],
      ['expired', /the feed expired on/],
      // Last: its feed is valid (and the newest seen), its download is not.
      ['tampered', /sha256 .* does not match the feed's/],
    ]
    for (const [name, reason] of cases) {
      feed.use(fx.feeds[name])
      await about.getByTestId('update-check').click()
      const refused = about.getByTestId('update-refused')
      const text = await waitUntil(async () => {
        const t = (await refused.count()) ? await refused.innerText() : ''
        return reason.test(t) && t
      }, { what: `the ${name} feed refused`, timeout: 30000 })
      assert.match(text, /^Update refused, nothing was installed: /)
      assert.equal(await about.getByTestId('update-restart').count(), 0, `${name}: nothing to install`)
      if (name === 'otherKey') {
        await assertNoSeriousViolations(page, 'Settings → About with a refused feed', '[data-testid="settings-panel"]')
        await refused.scrollIntoViewIfNeeded()
        await screenshot(page, 'e2e-update-refused.png')
      }
    }
    // Nothing changed on disk: the binary, no backup, nothing staged.
    assert.equal(await sha256Of(bin), sum)
    assert.equal(await exists(`${bin}.old`), false)
    assert.deepEqual(await readdir(dirname(bin)), ['parley'])
    const staged = (await exists(join(dataDir, 'update', 'staging'))) ? await readdir(join(dataDir, 'update', 'staging')) : []
    assert.deepEqual(staged, [])
    assert.equal(await versionOf(bin), `parley ${OLD}`)
  } finally {
    feed.use(fx.feeds.good)
    await context.close()
    await server.stop()
  }
})
