// Projects and the full backup (SPEC §14, issue #41) end to end: the real
// `parley serve` and the built UI in Chromium, against the scripted model
// server as its own process (echo mode, and -received: it lists the requests
// it got, so the test reads the system prompt the model really received).
// A project made in the sidebar's editor gives its instructions to the
// model; a conversation moves out of it and back; deleting the project keeps
// its conversations. Settings → Data exports everything; importing the file
// into a fresh Parley adds it all, importing it again adds nothing. Axe
// checks the sidebar, the editor, the delete question and the backup
// section, and the editor is whole at 360 px.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { artifactsDir, launchChromium, screenshot } from './helpers.mjs'
import { login } from './serve.mjs'
import { startTempServe, waitUntil } from './util.mjs'
import { assertNoSeriousViolations } from './axe.mjs'
import { buildModelServer, startModelServer } from './modelServer.mjs'

const INSTRUCTIONS = 'You coordinate the Heliotrope launch. Always name the launch window first.'
let browser, built, model, server

before(async () => {
  built = await buildModelServer()
  model = await startModelServer(built.bin, '-model', 'small', '-echo', '-received')
  server = await startTempServe({ extraArgs: ['--base-url', model.url, '--model', 'small'] })
  const { body: st } = await server.api('GET', '/api/v1/settings')
  await server.api('PUT', '/api/v1/settings', { ...st, onboarded: true, rate_limit_seconds: 0 })
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await server?.stop()
  await model?.stop()
  await built?.remove()
})

async function openPage(srv = server, { width = 1200, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, bypassCSP: true, acceptDownloads: true })
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, srv)
  return { page, errors, close: () => context.close() }
}

/** What the scripted model server received, newest last. */
async function received() {
  const res = await fetch(model.url.replace(/\/v1$/, '') + '/received')
  assert.equal(res.status, 200)
  return res.json()
}

const group = (page, name) => page.locator(`[data-testid="project-group"][data-project="${name}"]`)

test('a project: its instructions reach the model, a conversation moves out and back, deleting it keeps its conversations', async () => {
  const { page, errors, close } = await openPage()
  try {
    // Create the project in the editor.
    await page.getByTestId('new-project').click()
    const editor = page.getByRole('dialog', { name: 'New project' })
    await editor.waitFor()
    await editor.getByLabel('Name').fill('Heliotrope launch')
    await editor.getByLabel('Instructions').fill(INSTRUCTIONS)
    await assertNoSeriousViolations(page, 'the project editor')
    await screenshot(page, 'e2e-project-editor.png')
    await editor.getByRole('button', { name: 'Create project' }).click()
    await editor.waitFor({ state: 'detached' })
    const { body: projects } = await server.api('GET', '/api/v1/projects')
    assert.equal(projects.length, 1)
    assert.equal(projects[0].name, 'Heliotrope launch')
    assert.equal(projects[0].instructions, INSTRUCTIONS)
    const projectId = projects[0].id

    // A new chat in it: the model receives the instructions first in its system prompt.
    await group(page, 'Heliotrope launch').getByTestId('project-toggle').hover()
    await group(page, 'Heliotrope launch').getByRole('button', { name: 'New chat in Heliotrope launch' }).click()
    await page.getByTestId('new-chat-project').getByText('This chat will be in the project “Heliotrope launch”.').waitFor()
    const composer = page.getByRole('textbox', { name: 'Message', exact: true })
    await composer.fill('When do we launch?')
    await composer.press('Enter')
    await page.getByTestId('assistant-message').last().getByText('echo model=small').waitFor({ timeout: 15000 })
    const reqs = await received()
    const last = reqs.at(-1)
    const system = last.messages.find((m) => m.role === 'system')
    assert.ok(system, `a system message: ${JSON.stringify(last.messages.map((m) => m.role))}`)
    assert.ok(system.content.startsWith(INSTRUCTIONS), `the project's instructions open the system prompt: ${system.content.slice(0, 300)}`)
    assert.equal(last.messages.at(-1).content, 'When do we launch?')

    // The header names the project; the sidebar lists the chat under it; the API agrees.
    await page.getByTestId('chat-project').getByText('Heliotrope launch').waitFor()
    await assertNoSeriousViolations(page, 'the chat header naming the project', '.chat-head')
    const { body: inProject } = await server.api('GET', `/api/v1/conversations?project=${projectId}`)
    assert.equal(inProject.items.length, 1)
    const convId = inProject.items[0].id
    await group(page, 'Heliotrope launch').getByTestId('conversation-item').waitFor()
    await assertNoSeriousViolations(page, 'the sidebar with a project', '#conversation-sidebar')

    // Move it out of the project with its menu, then back in.
    const item = group(page, 'Heliotrope launch').getByTestId('conversation-item')
    await item.hover()
    await item.getByTestId('more').click()
    await page.getByRole('menuitem', { name: 'Remove from “Heliotrope launch”' }).click()
    await page.getByTestId('recent-list').getByTestId('conversation-item').waitFor()
    await group(page, 'Heliotrope launch').getByTestId('project-empty').waitFor()
    await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${convId}`)).body.project_id === undefined, { what: 'the conversation to leave the project' })
    assert.equal(await page.getByTestId('chat-project').count(), 0)

    const out = page.getByTestId('recent-list').getByTestId('conversation-item')
    await out.hover()
    await out.getByTestId('more').focus()
    await page.keyboard.press('ArrowDown') // the keyboard opens the menu too
    await page.getByRole('menuitem', { name: 'Move to “Heliotrope launch”' }).click()
    await group(page, 'Heliotrope launch').getByTestId('conversation-item').waitFor()
    await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${convId}`)).body.project_id === projectId, { what: 'the conversation to join the project again' })

    // Delete the project, keeping its conversations.
    await group(page, 'Heliotrope launch').getByTestId('project-toggle').hover()
    await group(page, 'Heliotrope launch').getByTestId('project-more').click()
    await page.getByRole('menuitem', { name: 'Delete…' }).click()
    const ask = page.getByRole('alertdialog', { name: 'Delete the project “Heliotrope launch”?' })
    await ask.waitFor()
    await assertNoSeriousViolations(page, 'the question before deleting a project', '#conversation-sidebar')
    await ask.getByRole('button', { name: 'Delete, keep its conversations' }).click()
    await group(page, 'Heliotrope launch').waitFor({ state: 'detached' })
    await page.getByTestId('recent-list').getByTestId('conversation-item').waitFor()
    assert.deepEqual((await server.api('GET', '/api/v1/projects')).body, [])
    const kept = await server.api('GET', `/api/v1/conversations/${convId}`)
    assert.equal(kept.status, 200)
    assert.equal(kept.body.project_id, undefined)
    assert.deepEqual(errors, [])
  } finally {
    await close()
  }
})

test('at 360 px the project editor and the sidebar with a project are whole', async () => {
  const created = await server.api('POST', '/api/v1/projects', { name: 'A project with a rather long name for a narrow window', instructions: 'Be brief.' })
  assert.equal(created.status, 201)
  const { page, errors, close } = await openPage(server, { width: 360, height: 740 })
  try {
    await page.getByTestId('sidebar-toggle').click()
    const g = group(page, 'A project with a rather long name for a narrow window')
    await g.waitFor()
    // The drawer slides in; then the group is inside the window.
    const box = await waitUntil(async () => {
      const b = await g.boundingBox()
      return b && b.x >= 0 && b.x + b.width <= 360 ? b : null
    }, { what: 'the project group inside the 360 px window' })
    assert.ok(box)
    // The actions show without hover on a narrow touch-less window when focused.
    await g.getByTestId('project-toggle').focus()
    await g.getByTestId('project-more').click()
    await page.getByRole('menuitem', { name: 'Edit project…' }).click()
    const editor = page.getByTestId('project-editor')
    await editor.waitFor()
    const fits = await page.evaluate(() => {
      const el = document.querySelector('[data-testid="project-editor"]')
      const r = el.getBoundingClientRect()
      return { left: r.left, right: r.right, scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
        wide: [...el.querySelectorAll('input, textarea, select, button')].filter((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5).map((c) => c.outerHTML.slice(0, 80)) }
    })
    assert.ok(fits.left >= 0 && fits.right <= fits.inner, JSON.stringify(fits))
    assert.deepEqual(fits.wide, [], 'no control sticks out of the window')
    assert.ok(fits.scroll <= fits.inner, `no sideways scrolling: ${JSON.stringify(fits)}`)
    await editor.getByTestId('project-editor-save').scrollIntoViewIfNeeded()
    assert.ok(await editor.getByTestId('project-editor-save').isVisible())
    await assertNoSeriousViolations(page, 'the project editor at 360 px')
    await screenshot(page, 'e2e-project-editor-360.png')
    await page.keyboard.press('Escape')
    await editor.waitFor({ state: 'detached' })
    assert.deepEqual(errors, [])
  } finally {
    await close()
    await server.api('DELETE', `/api/v1/projects/${created.body.id}`)
  }
})

test('"Export everything" then "Import" into a fresh Parley adds it all; importing again adds nothing', async () => {
  // What to back up: a project with a conversation, and one in no project.
  const p = await server.api('POST', '/api/v1/projects', { name: 'Backed up', instructions: 'Keep it.' })
  const c = await server.api('POST', '/api/v1/conversations', { title: 'In the project', project_id: p.body.id })
  assert.equal(c.status, 201)
  const { body: all } = await server.api('GET', '/api/v1/conversations?limit=100')
  const conversations = all.items.length
  const { body: before } = await server.api('GET', '/api/v1/projects')
  const counts = (n, c) => `${n === 1 ? '1 project' : `${n} projects`} and ${c === 1 ? '1 conversation' : `${c} conversations`}`

  const { page, errors, close } = await openPage()
  let file
  try {
    await page.evaluate(() => (location.hash = '#settings/data'))
    const section = page.getByTestId('backup-section')
    await section.waitFor()
    await assertNoSeriousViolations(page, 'Settings → Data with the backup')
    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Export everything' }).click()])
    assert.match(download.suggestedFilename(), /^parley-backup-.*\.json$/)
    const path = join(artifactsDir, `e2e-${download.suggestedFilename()}`)
    await download.saveAs(path)
    file = await readFile(path)
    const backup = JSON.parse(file.toString('utf8'))
    assert.equal(backup.format, 'parley.backup')
    assert.deepEqual(backup.projects.map((x) => x.name).sort(), before.map((x) => x.name).sort())
    assert.ok(backup.projects.some((x) => x.name === 'Backed up'))
    assert.equal(backup.conversations.length, conversations)
    assert.deepEqual(errors, [])
  } finally {
    await close()
  }

  const fresh = await startTempServe()
  const other = await openPage(fresh)
  try {
    const { page } = other
    await page.evaluate(() => (location.hash = '#settings/data'))
    const section = page.getByTestId('backup-section')
    await section.waitFor()
    await section.getByTestId('backup-file').setInputFiles({ name: 'parley-backup.json', mimeType: 'application/json', buffer: file })
    const want = `Added: ${counts(before.length, conversations)}.`
    await section.getByTestId('backup-added').getByText(want).waitFor().catch(async (e) => {
      throw new Error(`${e.message}\nthe section says: ${await section.innerText()}`)
    })
    assert.equal(await section.getByTestId('backup-skipped').count(), 0)
    const { body: projects } = await fresh.api('GET', '/api/v1/projects')
    assert.equal(projects.length, before.length)
    assert.deepEqual(projects.filter((x) => x.id === p.body.id).map((x) => [x.name, x.instructions]), [['Backed up', 'Keep it.']])
    const { body: restored } = await fresh.api('GET', `/api/v1/conversations/${c.body.id}`)
    assert.equal(restored.project_id, p.body.id)
    await screenshot(page, 'e2e-backup-imported.png')

    // Again: nothing added, everything said to be here already.
    await section.getByTestId('backup-file').setInputFiles({ name: 'parley-backup.json', mimeType: 'application/json', buffer: file })
    await section.getByTestId('backup-added').getByText('Added: nothing.').waitFor()
    await section.getByTestId('backup-skipped').getByText(`Already here, left as they were: ${counts(before.length, conversations)}.`).waitFor()
    assert.equal((await fresh.api('GET', '/api/v1/projects')).body.length, before.length)
    assert.equal((await fresh.api('GET', '/api/v1/conversations?limit=100')).body.items.length, conversations)
    await assertNoSeriousViolations(page, 'Settings → Data after an import')

    // The sidebar shows what came, under its project.
    await page.keyboard.press('Escape')
    await group(page, 'Backed up').getByText('In the project').waitFor()
    assert.deepEqual(other.errors, [])
  } finally {
    await other.close()
    await fresh.stop()
  }
})
