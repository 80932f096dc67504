// Assistant profiles and conversation export/import end to end: the real
// `parley serve` (demo model) and the built UI in Chromium.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { launchChromium, screenshot, artifactsDir } from './helpers.mjs'
import { enableDemo, login } from './serve.mjs'
import { waitUntil, startTempServe } from './util.mjs'

let browser

before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

async function newPage(server) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, acceptDownloads: true })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { page, errors }
}

async function openSettings(page) {
  await page.getByTestId('settings-button').click()
  const panel = page.getByTestId('settings-panel')
  await panel.waitFor()
  await panel.getByTestId('profile-new').waitFor()
  return panel
}

function profileItem(panel, name) {
  return panel.locator(`[data-testid="profile-item"][data-profile="${name}"]`)
}

test('a profile created in Settings is saved, still there after a reload, and new chats can use it', async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    let panel = await openSettings(page)

    await panel.getByTestId('profile-new').click()
    const editor = panel.getByTestId('profile-editor')
    await editor.getByLabel('Name').fill('Code reviewer')
    await editor.getByLabel('System prompt').fill('You review code. Point out risks first, then style.')
    // The demo server lists one model; "Another model…" takes any name.
    await editor.getByLabel('Model', { exact: true }).selectOption({ label: 'Another model…' })
    await editor.getByLabel('Model name').fill('qwen3:14b')
    await editor.getByTestId('profile-tool-spawn_agents').uncheck()
    assert.equal(await editor.getByTestId('profile-tool-ask_user_question').isChecked(), true)
    await screenshot(page, 'e2e-profile-editor.png')
    await editor.getByTestId('profile-save').click()
    await profileItem(panel, 'Code reviewer').waitFor()
    assert.equal(await panel.getByTestId('profile-editor').count(), 0)

    // A name the backend refuses: its message shows in the form.
    await panel.getByTestId('profile-new').click()
    await panel.getByTestId('profile-name-input').fill('no/slashes')
    await panel.getByTestId('profile-save').click()
    const err = panel.getByTestId('profile-error')
    await err.waitFor()
    assert.match(await err.innerText(), /profile name must be 1-40 letters/)
    await panel.getByTestId('profile-cancel').click()

    const saved = await server.api('GET', '/api/v1/profiles')
    const p = saved.body.find((x) => x.name === 'Code reviewer')
    assert.deepEqual(p, {
      name: 'Code reviewer',
      system_prompt: 'You review code. Point out risks first, then style.',
      model: 'qwen3:14b',
      // A new profile starts from the default's tools: MCP servers' tools too (mcp:*).
      tools: ['ask_user_question', 'current_time', 'calculator', 'mcp:*'],
      tool_calling: 'auto',
      thinking: 'auto',
    })
    assert.equal(saved.body.length, 2, JSON.stringify(saved.body))

    // After a reload it is still there, with everything filled in.
    await page.reload()
    await page.getByTestId('chat-shell').waitFor()
    panel = await openSettings(page)
    const item = profileItem(panel, 'Code reviewer')
    await item.waitFor()
    await item.getByTestId('profile-edit').click()
    assert.equal(await panel.getByTestId('profile-prompt').inputValue(), 'You review code. Point out risks first, then style.')
    assert.equal(await panel.getByTestId('profile-model').inputValue(), 'qwen3:14b')
    assert.equal(await panel.getByTestId('profile-tool-spawn_agents').isChecked(), false)
    assert.equal(await panel.getByTestId('profile-tool-calculator').isChecked(), true)
    await panel.getByTestId('profile-cancel').click()
    await panel.getByTestId('settings-close').click()
    await panel.waitFor({ state: 'detached' })

    // The sidebar offers it for new chats; the chat is created with it.
    await page.getByTestId('new-chat-assistant').selectOption('Code reviewer')
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('Review my plan for the release')
    await composer.press('Enter')
    const conv = await waitUntil(async () => (await server.api('GET', '/api/v1/conversations')).body.items[0], { what: 'the new conversation' })
    assert.equal(conv.assistant, 'Code reviewer')
    await page.getByTestId('conversation-assistant').filter({ hasText: 'Code reviewer' }).waitFor()

    // The chat header switches the open conversation back to the default
    // assistant; the server stores it and the sidebar tag goes away.
    const headerPick = page.getByTestId('chat-assistant-select')
    assert.equal(await headerPick.inputValue(), 'Code reviewer')
    await headerPick.selectOption('default')
    await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${conv.id}`)).body.assistant === 'default', {
      what: 'the conversation to use the default assistant',
    })
    await page.getByTestId('conversation-assistant').waitFor({ state: 'detached' })
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})

test('a conversation exported as JSON (and Markdown) imports back with its messages; a bad file changes nothing', async () => {
  const server = await startTempServe()
  try {
    await enableDemo(server)
    const { page, errors } = await newPage(server)
    const title = 'Write a short note for my team'
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill(title)
    await composer.press('Enter')
    const card = page.getByTestId('question-card').last()
    await card.waitFor({ timeout: 15000 })
    await card.getByTestId('skip').click()
    await page.getByTestId('message-list').getByText("No problem — I'll go with sensible defaults").waitFor({ timeout: 15000 })
    const [original] = (await server.api('GET', '/api/v1/conversations')).body.items
    await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${original.id}`)).body.state === 'idle', { what: 'the run to end' })
    const originalDetail = (await server.api('GET', `/api/v1/conversations/${original.id}`)).body

    const item = page.getByTestId('conversation-item').first()
    await item.getByTestId('conversation-open').waitFor()
    await waitUntil(async () => (await item.locator('.conv-title').innerText()) === title, { what: 'the auto title' })

    async function exportAs(which) {
      await item.hover()
      await item.getByRole('button', { name: `More actions for ${title}` }).click()
      const menu = page.getByRole('menu', { name: `Actions for ${title}` })
      await menu.waitFor()
      const [download] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: which }).click()])
      const path = join(artifactsDir, `e2e-export-${download.suggestedFilename()}`)
      await download.saveAs(path)
      return { name: download.suggestedFilename(), path, text: await readFile(path, 'utf8') }
    }

    const md = await exportAs('Export as Markdown')
    assert.equal(md.name, `${title}.md`)
    assert.match(md.text, new RegExp(`^# ${title}`))
    assert.match(md.text, /No problem — I'll go with sensible defaults/)

    const json = await exportAs('Export as JSON')
    assert.equal(json.name, `${title}.json`)
    const doc = JSON.parse(json.text)
    assert.equal(doc.format, 'parley.conversation')
    assert.equal(doc.conversation.title, title)

    // Import it back: it opens, with its messages.
    await page.getByTestId('import-file').setInputFiles(json.path)
    await waitUntil(async () => (await page.getByTestId('conversation-item').count()) === 2, { what: 'the imported conversation in the sidebar' })
    const items = (await server.api('GET', '/api/v1/conversations')).body.items
    assert.equal(items.length, 2)
    const imported = items.find((c) => c.id !== original.id)
    // The copy is marked, so the sidebar does not show two identical entries.
    assert.equal(imported.title, `${title} (imported)`)
    const current = page.locator('[data-testid="conversation-open"][aria-current="page"]')
    await waitUntil(async () => (await current.innerText()).includes(`${title} (imported)`), { what: 'the imported conversation to be open' })
    await page.getByTestId('user-message').filter({ hasText: title }).waitFor()
    await page.getByTestId('message-list').getByText("No problem — I'll go with sensible defaults").waitFor()
    await page.getByTestId('sidebar-notice').filter({ hasText: `Imported “${title} (imported)”` }).waitFor()
    const importedDetail = (await server.api('GET', `/api/v1/conversations/${imported.id}`)).body
    assert.deepEqual(
      importedDetail.messages.map((m) => [m.role, m.content]),
      originalDetail.messages.map((m) => [m.role, m.content]),
    )
    await screenshot(page, 'e2e-imported.png')

    // A file that is not JSON, and JSON that is not an export: clear errors, nothing added.
    await page.getByTestId('import-file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{ this is not json') })
    const importError = page.getByTestId('import-error')
    await importError.waitFor()
    assert.match(await importError.innerText(), /Couldn't import “broken\.json”: it is not valid JSON/)
    await page.getByTestId('import-file').setInputFiles({ name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"something.else","version":1}') })
    await waitUntil(async () => (await importError.innerText()).includes('other.json'), { what: 'the second import error' })
    assert.match(await importError.innerText(), /format is "something\.else"/)
    assert.equal((await server.api('GET', '/api/v1/conversations')).body.items.length, 2)
    assert.equal(await page.getByTestId('conversation-item').count(), 2)
    assert.deepEqual(errors, [])
  } finally {
    await server.stop()
  }
})
