// The composer, the chat header and the sidebar of issue #15 end to end:
// the real `parley serve` and the built UI in Chromium against the scripted
// model server as its own process, in echo mode (each reply repeats what
// the model received: its name, the last user message with any files, and
// how many images came). Files reach the model with their names; an image
// goes to a vision model and is refused for one without; the header's model
// picker changes the model of the next request; the shortcuts, the date
// groups and a search snippet with <mark>.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { launchChromium, screenshot } from './helpers.mjs'
import { startServe, newDataDir, login } from './serve.mjs'
import { buildModelServer, startModelServer as runModelServer } from './modelServer.mjs'

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')
let browser, built, model, server


before(async () => {
  built = await buildModelServer()
  model = await runModelServer(built.bin, '-model', 'small', '-more-models', 'seer', '-vision', 'seer', '-echo')
  server = await startServe(await newDataDir(), { extraArgs: ['--base-url', model.url, '--model', 'small'] })
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

async function openPage() {
  const page = await browser.newPage({ viewport: { width: 1200, height: 850 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await login(page, server)
  return { page, errors }
}

const lastReply = (page) => page.getByTestId('assistant-message').last()

test('a text file reaches the model with its name; the reply shows its figures', async () => {
  const { page, errors } = await openPage()
  try {
    await page.getByTestId('attach-input').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Launch\nThe rocket flies on Tuesday.\n') })
    await page.getByTestId('pending-attachment').getByText('notes.md').waitFor()
    const composer = page.getByRole('textbox', { name: 'Message', exact: true })
    await composer.fill('What day is the launch?')
    await composer.press('Enter')
    await lastReply(page).getByText('echo model=small images=0').waitFor({ timeout: 15000 })
    const reply = await lastReply(page).textContent()
    assert.match(reply, /What day is the launch\?/)
    assert.match(reply, /<file name="notes\.md">\s*# Launch\s*The rocket flies on Tuesday\./)
    await page.getByTestId('user-message').getByTestId('attachment-file').getByText('notes.md').waitFor()
    await page.getByTestId('pending-attachment').waitFor({ state: 'detached' })
    const figures = await page.getByTestId('reply-figures').last().textContent({ timeout: 10000 })
    assert.match(figures, /→ .*tokens/)
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})

test('an image is refused for a model without vision; after switching the header to a vision model it reaches the model', async () => {
  const { page, errors } = await openPage()
  try {
    const composer = page.getByRole('textbox', { name: 'Message', exact: true })
    await composer.fill('hello')
    await composer.press('Enter')
    await lastReply(page).getByText('echo model=small').waitFor({ timeout: 15000 })

    const picker = page.getByTestId('chat-model-select')
    await picker.locator('option', { hasText: 'seer (tools, vision)' }).waitFor({ state: 'attached' })
    await page.getByTestId('attach-input').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG })
    await page.getByTestId('attachment-error').getByText('The model small cannot read images').waitFor()
    assert.equal(await page.getByTestId('pending-attachment').count(), 0)

    await picker.selectOption('seer')
    await page.getByTestId('attach-input').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG })
    await page.getByTestId('pending-attachment').locator('img').waitFor()
    await composer.fill('What is in the picture?')
    await composer.press('Enter')
    await lastReply(page).getByText('echo model=seer images=1').waitFor({ timeout: 15000 })
    await page.getByTestId('user-message').last().getByTestId('attachment-image').waitFor()
    // The choice is the conversation's: the API has it, and it survives a reload.
    const { body: list } = await server.api('GET', '/api/v1/conversations')
    assert.ok(list.items.some((c) => c.model === 'seer'), JSON.stringify(list.items))
    await page.reload()
    await page.getByTestId('chat-shell').waitFor()
    await page.getByTestId('conversation-open').first().click()
    await page.waitForFunction(() => document.querySelector('[data-testid=chat-model-select]')?.value === 'seer')

    // The server refuses too, with its message (the API, bypassing the UI's check).
    const conv = list.items.find((c) => c.model === 'seer')
    await server.api('PATCH', `/api/v1/conversations/${conv.id}`, { model: 'small' })
    const refused = await server.api('POST', `/api/v1/conversations/${conv.id}/messages`, {
      content: 'again', attachments: [{ name: 'dot.png', mime_type: 'image/png', size: PNG.length, data: PNG.toString('base64') }],
    })
    assert.equal(refused.status, 422)
    assert.match(refused.body.error, /The model small cannot read images/)
    await screenshot(page, 'composer-image.png')
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})

test('shortcuts: Ctrl+K search, Ctrl+N new chat, Ctrl+, settings, ? help, Up edits the last message', async () => {
  const { page, errors } = await openPage()
  try {
    const composer = page.getByRole('textbox', { name: 'Message', exact: true })
    await composer.fill('first try')
    await composer.press('Enter')
    await lastReply(page).getByText('first try').waitFor({ timeout: 15000 })

    // Up in the empty composer opens the last message for editing in place; Enter sends the new version.
    await composer.focus()
    await page.keyboard.press('ArrowUp')
    const editor = page.getByTestId('edit-text')
    await editor.waitFor()
    assert.equal(await editor.inputValue(), 'first try')
    assert.equal(await composer.inputValue(), '', 'the composer stays empty')
    await editor.fill('second try')
    await editor.press('Enter')
    await lastReply(page).getByText('second try').waitFor({ timeout: 15000 })
    const users = await page.getByTestId('user-message').allTextContents()
    assert.deepEqual(users.map((t) => t.trim()), ['second try'], 'the edited branch shows the new message only')

    await page.keyboard.press('Control+KeyK')
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'search')
    await page.keyboard.press('Escape')
    await page.locator('body').click({ position: { x: 700, y: 400 } })
    await page.keyboard.press('Control+KeyN')
    await page.waitForFunction(() => document.activeElement?.id === 'composer-input')
    assert.equal(await page.locator('.chat-title').textContent(), 'New chat')
    await page.keyboard.press('Control+Comma')
    await page.getByTestId('settings-panel').waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('settings-panel').waitFor({ state: 'detached' })
    await page.locator('.empty').click()
    await page.keyboard.press('?')
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await help.waitFor()
    for (const label of ['New chat', 'Search conversations', 'Settings', 'Stop the reply', 'Regenerate the last reply', 'Edit your last message']) {
      await help.getByText(label, { exact: false }).first().waitFor()
    }
    await page.keyboard.press('Escape')
    await help.waitFor({ state: 'detached' })
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})

// The box measures its text once a frame and is as tall as that, or, empty,
// as tall as its one line: the two must be the same height, or the first
// letter typed and every send move the message list above it by a fraction
// of a pixel (a relayout and repaint of the whole chat column, issue #42).
test('the composer keeps its height when the first letter is typed and when a message is sent', async () => {
  const { page, errors } = await openPage()
  try {
    const composer = page.getByRole('textbox', { name: 'Message', exact: true })
    const heights = () => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done({
      box: document.getElementById('composer-input').getBoundingClientRect().height,
      list: document.querySelector('[data-testid=message-list]')?.getBoundingClientRect().height ?? null,
    })))))
    await composer.fill('opening line')
    await composer.press('Enter')
    await lastReply(page).getByText('opening line', { exact: true }).waitFor({ timeout: 15000 })
    const empty = await heights()
    await composer.focus()
    await page.keyboard.type('n')
    const oneLetter = await heights()
    assert.deepEqual(oneLetter, empty, 'typing the first letter')
    await page.keyboard.type('ext line')
    await page.keyboard.press('Enter')
    await lastReply(page).getByText('next line', { exact: true }).waitFor({ timeout: 15000 })
    assert.equal(await composer.inputValue(), '')
    assert.deepEqual(await heights(), empty, 'after the send')
    // It still grows with a second line.
    await page.keyboard.type('one')
    await page.keyboard.press('Shift+Enter')
    await page.keyboard.type('two')
    const twoLines = await heights()
    assert.ok(twoLines.box > empty.box + 10, `two lines ${twoLines.box}px, one ${empty.box}px`)
    assert.ok(twoLines.list < empty.list, 'the list gives the box the room')
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})

test('the sidebar groups conversations by day and shows where a search matched', async () => {
  const { page, errors } = await openPage()
  try {
    await page.getByTestId('date-group').getByRole('heading', { name: 'Today' }).waitFor()
    await page.getByTestId('search').fill('rocket')
    const snippet = page.getByTestId('search-snippet').first()
    await snippet.waitFor({ timeout: 10000 })
    assert.equal(await snippet.locator('mark').first().textContent(), 'rocket')
    await page.getByTestId('conversation-open').first().click()
    await lastReply(page).getByText('notes.md').waitFor()
    assert.deepEqual(errors, [])
  } finally {
    await page.close()
  }
})
