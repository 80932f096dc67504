// Settings → Tools → MCP servers in Chromium against the real `parley serve`
// and the real @modelcontextprotocol/server-everything: the server's state
// and tools, a tool policy, an env secret that never reaches the page and
// survives an edit, a server that fails to start with its error, import from
// another app's config file, and removal after a confirmation.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { launchChromium, screenshot } from './helpers.mjs'
import { login } from './serve.mjs'
import { waitUntil } from './util.mjs'
import { everythingBin, startMcpServe } from './mcp.mjs'

let browser
before(async () => {
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

const SECRET = 'tok-e2e-SECRET-4f1c'

test('MCP servers in Settings: state, tools, policy, masked secrets, a failing server, import and remove', async () => {
  const { server, stop } = await startMcpServe()
  try {
    // A secret in the server's env (set through the API, as a script would).
    const put = await server.api('PUT', '/api/v1/mcp/servers/everything', { command: process.execPath, args: [everythingBin, 'stdio'], env: { API_TOKEN: SECRET } })
    assert.equal(put.status, 200, JSON.stringify(put.body))
    assert.ok(!JSON.stringify(put.body).includes(SECRET))

    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    const errors = []
    page.on('pageerror', (e) => errors.push(e.message))
    await login(page, server)
    await page.getByTestId('settings-button').click()
    const section = page.getByTestId('mcp-section')
    const item = section.locator('[data-server="everything"]')
    await item.locator('[data-testid="mcp-status"]', { hasText: 'Connected' }).waitFor({ timeout: 30000 })
    assert.match(await item.getByTestId('mcp-secrets').innerText(), /API_TOKEN = ••••/)

    // Each tool with its description and policy.
    await item.getByTestId('mcp-tools').locator('summary').click()
    const echo = item.locator('[data-tool="echo"]')
    assert.match(await echo.innerText(), /Echoes back the input/i)
    assert.equal(await echo.getByTestId('mcp-policy').inputValue(), 'ask')
    await echo.getByTestId('mcp-policy').selectOption('allow')
    await waitUntil(async () => {
      const { body } = await server.api('GET', '/api/v1/mcp/servers')
      return body.find((s) => s.name === 'everything').tools.find((t) => t.name === 'echo').policy === 'allow'
    }, { what: 'the echo policy to be saved' })

    // Edit and save without touching the secret: it is kept (the stored config still has it).
    await item.getByTestId('mcp-edit').click()
    const editor = section.getByTestId('mcp-editor')
    assert.equal(await editor.getByTestId('mcp-env-value').inputValue(), '')
    assert.equal(await editor.getByTestId('mcp-env-value').getAttribute('placeholder'), '•••• leave empty to keep')
    await editor.getByTestId('mcp-save').click()
    await editor.waitFor({ state: 'detached' })
    await item.locator('[data-testid="mcp-status"]', { hasText: 'Connected' }).waitFor({ timeout: 30000 })
    const stored = await readFile(join(server.dataDir, 'mcp.json'), 'utf8')
    assert.ok(stored.includes(SECRET), 'the secret was kept in mcp.json')
    assert.ok(!stored.includes('********'), 'the mask was not stored as the secret')
    assert.ok(!(await page.content()).includes(SECRET), 'the secret never reaches the page')

    // A server whose command does not exist shows its error.
    await section.getByTestId('mcp-add').click()
    const add = section.getByTestId('mcp-editor')
    await add.getByTestId('mcp-name').fill('broken')
    await add.getByTestId('mcp-command').fill('/nonexistent/mcp-server')
    await add.getByTestId('mcp-save').click()
    const broken = section.locator('[data-server="broken"]')
    await broken.locator('[data-testid="mcp-status"]', { hasText: 'Error' }).waitFor({ timeout: 30000 })
    assert.ok((await broken.getByTestId('mcp-server-error').innerText()).length > 0)

    // Import another app's config: one added, one skipped with why.
    await section.getByTestId('mcp-import-file').setInputFiles({
      name: 'claude_desktop_config.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [everythingBin, 'stdio'] }, everything: { command: 'x' } } })),
    })
    const result = section.getByTestId('mcp-import-result')
    await result.waitFor()
    assert.match(await result.innerText(), /Added: notes/)
    assert.match(await result.getByTestId('mcp-import-skipped').innerText(), /^everything: \S/)
    await section.locator('[data-server="notes"]').waitFor()
    await screenshot(page, 'mcp-settings.png')

    // Remove after a confirmation.
    await broken.getByTestId('mcp-remove').click()
    await broken.getByTestId('mcp-confirm-remove').click()
    await broken.waitFor({ state: 'detached' })
    const { body } = await server.api('GET', '/api/v1/mcp/servers')
    assert.deepEqual(body.map((s) => s.name).sort(), ['everything', 'notes'])
    assert.deepEqual(errors, [])
  } finally {
    await stop()
  }
})
