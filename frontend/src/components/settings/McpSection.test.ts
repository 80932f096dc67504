// Settings → Tools → MCP servers on the fake transport: the list with state
// and errors, live updates from mcp:server, add / edit with masked secrets,
// enable / disable, remove after a confirmation, tool policies, and import.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import McpSection from './McpSection.vue'
import { mountInBody, resetDom, settle, setupEnv, onReset, type TestEnv } from '../../test-utils'
import { connectEvents } from '../../stores/events'
import { useMcpStore } from '../../stores/mcp'
import { configFromDraft, draftFromServer } from '../../lib/mcpConfig'
import type { MCPServer } from '../../types'

let env: TestEnv

beforeEach(() => {
  env = setupEnv()
  env.fake.mcp.add(
    {
      name: 'everything',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      tools: [
        { name: 'echo', description: 'Echoes back the input', policy: 'ask', model_name: '' },
        { name: 'add', description: 'Adds two numbers', policy: 'allow', model_name: '' },
      ],
    },
    { env: { API_TOKEN: 'tok-SECRET-123' } },
  )
  env.fake.mcp.add({ name: 'remote', url: 'https://mcp.example.com/mcp', status: 'error', error: 'connect: connection refused', tools: [] }, { headers: { Authorization: 'Bearer SECRET-h' } })
})
afterEach(resetDom)

const server = (w: VueWrapper, name: string) => w.find(`[data-server="${name}"]`)

async function mountSection(): Promise<VueWrapper> {
  onReset(connectEvents())
  return mountInBody(McpSection, env)
}

describe('McpSection', () => {
  it('lists each server with its state, error, masked secrets and tools', async () => {
    const w = await mountSection()
    const ev = server(w, 'everything')
    expect(ev.find('[data-testid="mcp-status"]').text()).toBe('Connected')
    expect(ev.find('[data-testid="mcp-server-where"]').text()).toBe('npx -y @modelcontextprotocol/server-everything')
    expect(ev.find('[data-testid="mcp-secrets"]').text()).toContain('API_TOKEN = ••••')
    const tools = ev.findAll('[data-testid="mcp-tool"]')
    expect(tools.map((t) => t.find('code').text())).toEqual(['echo', 'add'])
    expect(tools[0]!.text()).toContain('Echoes back the input')
    expect((tools[0]!.find('select').element as HTMLSelectElement).value).toBe('ask')
    const remote = server(w, 'remote')
    expect(remote.find('[data-testid="mcp-status"]').text()).toBe('Error')
    expect(remote.find('[data-testid="mcp-server-error"]').text()).toBe('connect: connection refused')
    expect(remote.find('[data-testid="mcp-secrets"]').text()).toContain('Authorization = ••••')
    // No secret value anywhere on the page.
    expect(document.body.innerHTML).not.toContain('SECRET')
  })

  it('follows mcp:server events live', async () => {
    const w = await mountSection()
    env.fake.mcp.setStatus('remote', 'connecting')
    await settle()
    expect(server(w, 'remote').find('[data-testid="mcp-status"]').text()).toBe('Connecting…')
    expect(server(w, 'remote').find('[data-testid="mcp-server-error"]').exists()).toBe(false)
    env.fake.mcp.setStatus('remote', 'connected', undefined, [{ name: 'search', description: 'Searches', policy: 'ask', model_name: '' }])
    await settle()
    expect(server(w, 'remote').findAll('[data-testid="mcp-tool"]').map((t) => t.find('code').text())).toEqual(['search'])
  })

  it('a state an event brought while the list was loading is not overwritten by the older list', async () => {
    const store = useMcpStore()
    const before = env.fake.mcp.list().map((s) => ({ ...s }))
    let answer!: (list: MCPServer[]) => void
    vi.spyOn(env.fake, 'mcpServers').mockImplementation(() => new Promise((r) => (answer = r)))
    const loading = store.load()
    // The server connects after the list was read, before it arrives.
    store.onServerEvent({ ...before.find((s) => s.name === 'remote')!, status: 'connected', error: '' })
    answer(before)
    await loading
    expect(store.servers.remote!.status).toBe('connected')
    expect(store.servers.remote!.error ?? '').toBe('')
    expect(store.servers.everything!.status).toBe(before.find((s) => s.name === 'everything')!.status)

    // A later load, with no event meanwhile, takes the list as it is.
    vi.mocked(env.fake.mcpServers).mockResolvedValueOnce(before)
    await store.load()
    expect(store.servers.remote!.status).toBe('error')
  })

  it('changes a tool policy', async () => {
    const w = await mountSection()
    await server(w, 'everything').findAll('[data-testid="mcp-policy"]')[0]!.setValue('block')
    await settle()
    expect(env.fake.callsOf('setMCPToolPolicy')).toEqual([[{ name: 'everything', tool: 'echo', policy: 'block' }]])
    expect(env.fake.mcp.list()[0]!.tools[0]!.policy).toBe('block')
  })

  it('adds a stdio server with args and env', async () => {
    const w = await mountSection()
    await w.find('[data-testid="mcp-add"]').trigger('click')
    await w.find('[data-testid="mcp-name"]').setValue('files')
    await w.find('[data-testid="mcp-command"]').setValue('npx')
    await w.find('[data-testid="mcp-add-arg"]').trigger('click')
    await w.find('[data-testid="mcp-add-arg"]').trigger('click')
    const args = w.findAll('[data-testid="mcp-arg"]')
    await args[0]!.setValue('@modelcontextprotocol/server-filesystem')
    await args[1]!.setValue('/tmp/notes')
    await w.find('[data-testid="mcp-add-env"]').trigger('click')
    await w.find('[data-testid="mcp-env-key"]').setValue('DEBUG')
    await w.find('[data-testid="mcp-env-value"]').setValue('1')
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('putMCPServer')).toEqual([
      [{ name: 'files', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/tmp/notes'], enabled: true, env: { DEBUG: '1' } }],
    ])
    expect(w.find('[data-testid="mcp-editor"]').exists()).toBe(false)
    expect(server(w, 'files').find('[data-testid="mcp-status"]').text()).toBe('Connecting…')
  })

  it('shows a problem in the form and keeps what was typed', async () => {
    const w = await mountSection()
    await w.find('[data-testid="mcp-add"]').trigger('click')
    await w.find('[data-testid="mcp-name"]').setValue('bad name!')
    await w.find('[data-testid="mcp-command"]').setValue('npx')
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(w.find('[data-testid="mcp-editor-error"]').text()).toContain('1–32 letters')
    expect(env.fake.callsOf('putMCPServer')).toEqual([])
    // The backend's refusal shows too.
    await w.find('[data-testid="mcp-name"]').setValue('ok')
    env.fake.failNext('putMCPServer', 'command "npx" not found', 400)
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(w.find('[data-testid="mcp-editor-error"]').text()).toBe('command "npx" not found')
    expect((w.find('[data-testid="mcp-command"]').element as HTMLInputElement).value).toBe('npx')
  })

  it('edits a server with stored secrets masked: empty keeps them, a new value replaces them', async () => {
    const w = await mountSection()
    await server(w, 'everything').find('[data-testid="mcp-edit"]').trigger('click')
    const value = w.find('[data-testid="mcp-env-value"]')
    expect((value.element as HTMLInputElement).value).toBe('')
    expect(value.attributes('placeholder')).toBe('•••• leave empty to keep')
    expect((w.find('[data-testid="mcp-env-key"]').element as HTMLInputElement).value).toBe('API_TOKEN')
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('putMCPServer')[0]).toEqual([
      { name: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], enabled: true, env: { API_TOKEN: '********' } },
    ])
    expect(env.fake.mcp.servers.get('everything')!.env).toEqual({ API_TOKEN: 'tok-SECRET-123' })

    await server(w, 'everything').find('[data-testid="mcp-edit"]').trigger('click')
    await w.find('[data-testid="mcp-env-value"]').setValue('new-token')
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(env.fake.mcp.servers.get('everything')!.env).toEqual({ API_TOKEN: 'new-token' })
  })

  it('edits an HTTP server: headers masked the same way', async () => {
    const w = await mountSection()
    await server(w, 'remote').find('[data-testid="mcp-edit"]').trigger('click')
    expect((w.find('[data-testid="mcp-url"]').element as HTMLInputElement).value).toBe('https://mcp.example.com/mcp')
    expect(w.find('[data-testid="mcp-header-value"]').attributes('placeholder')).toBe('•••• leave empty to keep')
    await w.find('[data-testid="mcp-add-header"]').trigger('click')
    const keys = w.findAll('[data-testid="mcp-header-key"]')
    await keys[1]!.setValue('X-Team')
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(w.find('[data-testid="mcp-editor-error"]').text()).toBe('Give the header X-Team a value.')
    await w.findAll('[data-testid="mcp-header-value"]')[1]!.setValue('blue')
    await w.find('[data-testid="mcp-save"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('putMCPServer')).toEqual([
      [{ name: 'remote', url: 'https://mcp.example.com/mcp', enabled: true, headers: { Authorization: '********', 'X-Team': 'blue' } }],
    ])
    expect(env.fake.mcp.servers.get('remote')!.headers).toEqual({ Authorization: 'Bearer SECRET-h', 'X-Team': 'blue' })
  })

  it('disables a server keeping its secrets, and removes one after a confirmation', async () => {
    const w = await mountSection()
    await server(w, 'everything').find('[data-testid="mcp-enabled"]').setValue(false)
    await settle()
    expect(server(w, 'everything').find('[data-testid="mcp-status"]').text()).toBe('Disabled')
    expect(env.fake.mcp.servers.get('everything')!.env).toEqual({ API_TOKEN: 'tok-SECRET-123' })

    await server(w, 'remote').find('[data-testid="mcp-remove"]').trigger('click')
    expect(document.activeElement?.getAttribute('data-testid')).toBe('mcp-cancel-remove')
    await w.find('[data-testid="mcp-cancel-remove"]').trigger('click')
    expect(env.fake.callsOf('deleteMCPServer')).toEqual([])
    await server(w, 'remote').find('[data-testid="mcp-remove"]').trigger('click')
    await w.find('[data-testid="mcp-confirm-remove"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('deleteMCPServer')).toEqual([[{ name: 'remote' }]])
    expect(server(w, 'remote').exists()).toBe(false)
    // A late event about the removed server does not bring it back.
    useMcpStore().onServerEvent({ ...env.fake.mcp.list()[0]!, name: 'remote' })
    await settle()
    expect(server(w, 'remote').exists()).toBe(false)
  })

  it('imports another host\'s config and shows what was added and skipped, with why', async () => {
    const w = await mountSection()
    const file = new File(
      [JSON.stringify({ mcpServers: { notes: { command: 'notes-mcp' }, everything: { command: 'x' }, 'bad name': { command: 'y' }, empty: {} } })],
      'claude_desktop_config.json',
      { type: 'application/json' },
    )
    const input = w.find('[data-testid="mcp-import-file"]')
    Object.defineProperty(input.element, 'files', { value: [file], configurable: true })
    await input.trigger('change')
    await settle()
    await settle()
    const result = w.find('[data-testid="mcp-import-result"]')
    expect(result.text()).toContain('Added: notes')
    const skipped = w.findAll('[data-testid="mcp-import-skipped"]').map((li) => li.text())
    expect(skipped).toEqual([
      'everything: a server with this name exists',
      'bad name: server name must be 1-32 letters, digits, "_" or "-"',
      'empty: a server needs a command (stdio) or a url (http)',
    ])
    expect(server(w, 'notes').exists()).toBe(true)
    expect(env.fake.callsOf('importMCPConfig')).toHaveLength(1)
  })

  it('says why an import file was refused', async () => {
    const w = await mountSection()
    const input = w.find('[data-testid="mcp-import-file"]')
    Object.defineProperty(input.element, 'files', { value: [new File(['not json'], 'mcp.json')], configurable: true })
    await input.trigger('change')
    await settle()
    await settle()
    expect(w.find('[data-testid="mcp-import-error"]').text()).toContain("Couldn't import mcp.json: the file is not JSON")
  })
})

describe('mcpConfig', () => {
  it('never carries a secret value from a listed server into the PUT body', () => {
    const d = draftFromServer({
      name: 's',
      transport: 'stdio',
      command: 'c',
      args: [],
      env_keys: ['A', 'B'],
      header_keys: [],
      enabled: true,
      status: 'connected',
      tools: [],
    })
    expect(d.env).toEqual([
      { key: 'A', value: '', stored: true },
      { key: 'B', value: '', stored: true },
    ])
    d.env.splice(1, 1)
    expect(configFromDraft(d).cfg).toEqual({ command: 'c', args: [], enabled: true, env: { A: '********' } })
  })
})
