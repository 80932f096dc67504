import { describe, expect, it, vi } from 'vitest'
import { WailsTransport } from './wails'
import { pickTransport } from './index'
import { TransportError } from './transport'
import { DEFAULT_SETTINGS } from '../lib/settings'
import { CALLS } from '../api/calls.gen'
import * as BoundCalls from '../../wailsjs/go/desktop/Calls'

function fakeWindow(overrides: Record<string, unknown> = {}, desktopOverrides: Record<string, unknown> = {}) {
  const calls: [string, unknown[]][] = []
  const method =
    (name: string, result: unknown = null) =>
    (...args: unknown[]) => {
      calls.push([name, args])
      return Promise.resolve(result)
    }
  const bound: Record<string, unknown> = {
    Health: method('Health', { status: 'ok', version: '1.0' }),
    AgentTokens: method('AgentTokens', []),
    CreateAgentToken: method('CreateAgentToken', { id: 't1', name: 'codex', token: 'parley_agent_x' }),
    RevokeAgentToken: method('RevokeAgentToken', undefined),
    ListConversations: method('ListConversations', { items: [{ id: 'a', title: 'A' }], next_cursor: 'n2' }),
    CreateConversation: method('CreateConversation', { id: 'new', title: '' }),
    GetConversation: method('GetConversation', { id: 'a', title: 'A', state: 'idle', messages: [], pending_question: null }),
    UpdateConversation: method('UpdateConversation', { id: 'a', title: 'B', state: 'idle', messages: [], pending_question: null }),
    DeleteConversation: method('DeleteConversation', { deleted: true }),
    Send: method('Send', { run_id: 'run-1' }),
    Cancel: method('Cancel', { ok: true }),
    Respond: method('Respond', { question_id: 'q1', conversationId: 'a', status: 'answered', questions: [], created_at: '', expires_at: null }),
    Questions: method('Questions', []),
    ConversationQuestions: method('ConversationQuestions', []),
    GetSettings: method('GetSettings', { ...DEFAULT_SETTINGS, model: 'qwen3' }),
    SaveSettings: method('SaveSettings', { ...DEFAULT_SETTINGS, model: 'm' }),
    ListModels: method('ListModels', [{ name: 'qwen3', supports_tools: true }]),
    Retry: method('Retry', { run_id: 'run-2' }),
    CheckModelServer: method('CheckModelServer', { reachable: false, base_url: 'http://127.0.0.1:11434/v1', model: '', demo: false, message: 'refused', models: [] }),
    PullModel: method('PullModel', { status: 'success' }),
    ModelStats: method('ModelStats', []),
    ResetModelStats: method('ResetModelStats', { reset: true }),
    ExportSettings: method('ExportSettings', { format: 'parley-settings', version: 1, exported_at: '', settings: {}, profiles: [], model_stats: [] }),
    Profiles: method('Profiles', [{ name: 'default', system_prompt: 'Hi', model: '', tools: [] }]),
    SaveProfile: method('SaveProfile', { name: 'Reviewer', system_prompt: 'Be brief.', model: 'qwen3', tools: ['calculator'] }),
    DeleteProfile: method('DeleteProfile', { deleted: true }),
    AvailableTools: method('AvailableTools', [{ name: 'ask_user_question', description: 'Ask you' }]),
    ExportConversation: method('ExportConversation', { name: 'Trip.md', mime_type: 'text/markdown; charset=utf-8', content: '# Trip' }),
    ImportConversation: method('ImportConversation', { id: 'imported', title: 'Trip', assistant: 'default' }),
    MCPServers: method('MCPServers', [{ name: 'files', transport: 'stdio', command: 'npx', args: [], env_keys: [], header_keys: ['X'], enabled: true, status: 'connected', tools: [] }]),
    PutMCPServer: method('PutMCPServer', { name: 'files', transport: 'http', url: 'http://127.0.0.1:9/mcp', args: [], env_keys: [], header_keys: ['Authorization'], enabled: false, status: 'disabled', tools: [] }),
    DeleteMCPServer: method('DeleteMCPServer', { deleted: true }),
    SetMCPToolPolicy: method('SetMCPToolPolicy', { name: 'echo', description: 'Echo', policy: 'allow', model_name: 'files__echo' }),
    ImportMCPConfig: method('ImportMCPConfig', { added: ['a'], skipped: {} }),
    ...overrides,
  }
  const desktop: Record<string, unknown> = {
    OpenURL: method('OpenURL'),
    SaveFile: method('SaveFile', '/tmp/parley-settings.json'),
    OpenConversationFile: method('OpenConversationFile', '{"format":"parley.conversation"}'),
    AgentListener: method('AgentListener', { enabled: true, addr: '127.0.0.1:8765', running: true, url: 'http://127.0.0.1:8765/mcp', local_api: false }),
    ChooseFolder: method('ChooseFolder', '/home/me/notes'),
    ChooseFiles: method('ChooseFiles', ['/home/me/a.md']),
    OpenSource: method('OpenSource'),
    ...desktopOverrides,
  }
  const app = { Info: method('App.Info', { version: '1.2.3', dataDir: '/home/me/.config/parley' }) }
  const handlers = new Map<string, (...d: unknown[]) => void>()
  const off = vi.fn()
  const win = {
    go: { main: { App: app }, desktop: { Calls: bound, DesktopService: desktop } },
    runtime: {
      EventsOn: vi.fn((name: string, cb: (...d: unknown[]) => void) => {
        handlers.set(name, cb)
        return off
      }),
      BrowserOpenURL: vi.fn(),
      ClipboardSetText: vi.fn(async () => true),
    },
    open: vi.fn(),
  } as unknown as Window
  return { win, calls, handlers, off }
}

describe('WailsTransport', () => {
  it('calls the bound Calls methods with the request object, and no argument for calls without one', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.listConversations({ limit: 10, cursor: 'c', q: 'x' })).toEqual({ items: [{ id: 'a', title: 'A' }], next_cursor: 'n2' })
    await t.listConversations({})
    await t.createConversation({ title: 'T' })
    expect((await t.getConversation({ id: 'a' })).messages).toEqual([])
    expect((await t.updateConversation({ id: 'a', title: 'B' })).title).toBe('B')
    await t.updateConversation({ id: 'a', pinned: true })
    await t.updateConversation({ id: 'a', assistant: 'writer' })
    await t.updateConversation({ id: 'a', thinking: 'high' })
    await t.deleteConversation({ id: 'a' })
    expect(await t.send({ id: 'a', content: 'hello' })).toEqual({ run_id: 'run-1' })
    await t.cancel({ id: 'a' })
    const req = { question_id: 'q1', action: 'submit' as const, answers: { 'Q?': { selected: ['x'] } } }
    expect((await t.respond({ id: 'a', ...req })).status).toBe('answered')
    expect(await t.questions({ status: 'pending' })).toEqual([])
    await t.conversationQuestions({ id: 'a' })
    await t.getSettings()
    await t.saveSettings({ ...DEFAULT_SETTINGS, model: 'm' })
    expect(await t.listModels()).toEqual([{ name: 'qwen3', supports_tools: true }])
    await t.health()
    expect(calls).toEqual([
      ['ListConversations', [{ limit: 10, cursor: 'c', q: 'x' }]],
      ['ListConversations', [{}]],
      ['CreateConversation', [{ title: 'T' }]],
      ['GetConversation', [{ id: 'a' }]],
      ['UpdateConversation', [{ id: 'a', title: 'B' }]],
      ['UpdateConversation', [{ id: 'a', pinned: true }]],
      ['UpdateConversation', [{ id: 'a', assistant: 'writer' }]],
      ['UpdateConversation', [{ id: 'a', thinking: 'high' }]],
      ['DeleteConversation', [{ id: 'a' }]],
      ['Send', [{ id: 'a', content: 'hello' }]],
      ['Cancel', [{ id: 'a' }]],
      ['Respond', [{ id: 'a', ...req }]],
      ['Questions', [{ status: 'pending' }]],
      ['ConversationQuestions', [{ id: 'a' }]],
      ['GetSettings', []],
      ['SaveSettings', [{ ...DEFAULT_SETTINGS, model: 'm' }]],
      ['ListModels', []],
      ['Health', []],
    ])
  })

  it('names every call by a binding that Wails generated (wailsjs/go/desktop/Calls), without an argument when it takes no request', () => {
    const generated = BoundCalls as unknown as Record<string, (...a: unknown[]) => unknown>
    for (const [name, spec] of Object.entries(CALLS)) {
      expect(typeof generated[spec.binding], `${name} → Calls.${spec.binding}`).toBe('function')
      expect(generated[spec.binding]!.length, `${name} → Calls.${spec.binding}'s arguments`).toBe(spec.noRequest ? 0 : 1)
    }
    expect(Object.keys(generated).sort()).toEqual(Object.values(CALLS).map((s) => s.binding).sort())
  })

  it('retries, checks the model server, pulls a model and reads App.Info', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.retry({ id: 'a' })).toEqual({ run_id: 'run-2' })
    expect(await t.checkModelServer()).toEqual({
      reachable: false,
      base_url: 'http://127.0.0.1:11434/v1',
      model: '',
      demo: false,
      message: 'refused',
      models: [],
    })
    await t.pullModel({ model: 'qwen3' })
    expect(await t.appInfo()).toEqual({ version: '1.2.3', dataDir: '/home/me/.config/parley' })
    expect(calls).toEqual([
      ['Retry', [{ id: 'a' }]],
      ['CheckModelServer', []],
      ['PullModel', [{ model: 'qwen3' }]],
      ['App.Info', []],
    ])
  })

  it('manages profiles and lists tools through the bindings', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.profiles()).toEqual([{ name: 'default', system_prompt: 'Hi', model: '', tools: [] }])
    const p = { name: 'Reviewer', system_prompt: 'Be brief.', model: 'qwen3', tools: ['calculator'] }
    expect(await t.saveProfile(p)).toEqual(p)
    await t.deleteProfile({ name: 'Reviewer' })
    expect(await t.availableTools()).toEqual([{ name: 'ask_user_question', description: 'Ask you' }])
    expect(calls).toEqual([
      ['Profiles', []],
      ['SaveProfile', [p]],
      ['DeleteProfile', [{ name: 'Reviewer' }]],
      ['AvailableTools', []],
    ])
    const refused = fakeWindow({ SaveProfile: () => Promise.reject('unknown tool "rm"') })
    await expect(new WailsTransport(refused.win).saveProfile({ ...p, tools: ['rm'] })).rejects.toThrow('unknown tool "rm"')
  })

  it('exports and imports through the Go dialogs', async () => {
    const { win, calls } = fakeWindow({}, { SaveFile: (...args: unknown[]) => (calls.push(['SaveFile', args]), Promise.resolve('/home/me/Trip.md')) })
    const t = new WailsTransport(win)
    expect(t.nativeFileDialogs).toBe(true)
    const file = await t.exportConversation({ id: 'a', format: 'markdown' })
    expect(file).toEqual({ name: 'Trip.md', mime_type: 'text/markdown; charset=utf-8', content: '# Trip' })
    expect(await t.saveFile(file, 'conversation')).toEqual({ kind: 'saved', path: '/home/me/Trip.md' })
    const data = await t.chooseConversationFile()
    expect(await t.importConversation({ data: data! })).toEqual({ id: 'imported', title: 'Trip', assistant: 'default' })
    expect(calls).toEqual([
      ['ExportConversation', [{ id: 'a', format: 'markdown' }]],
      ['SaveFile', [file, 'conversation']],
      ['OpenConversationFile', []],
      ['ImportConversation', [{ data: '{"format":"parley.conversation"}' }]],
    ])
    // the user cancelled the dialogs
    const cancelled = fakeWindow({}, { SaveFile: () => Promise.resolve(''), OpenConversationFile: () => Promise.resolve('') })
    const c = new WailsTransport(cancelled.win)
    expect(await c.saveFile(file, 'conversation')).toEqual({ kind: 'cancelled' })
    expect(await c.chooseConversationFile()).toBeNull()
    // a refused file rejects with Go's message
    const bad = fakeWindow({ ImportConversation: () => Promise.reject('import conversation: invalid conversation export: conversation is missing') })
    await expect(new WailsTransport(bad.win).importConversation({ data: '{}' })).rejects.toThrow('conversation is missing')
    const tooBig = fakeWindow({}, { OpenConversationFile: () => Promise.reject('/home/me/big.json is too large') })
    await expect(new WailsTransport(tooBig.win).chooseConversationFile()).rejects.toBeInstanceOf(TransportError)
  })

  it('saves and opens a full backup through the Go dialogs', async () => {
    const { win, calls } = fakeWindow({}, {
      SaveFile: (...args: unknown[]) => (calls.push(['SaveFile', args]), Promise.resolve('/home/me/parley-backup.json')),
      OpenBackupFile: () => (calls.push(['OpenBackupFile', []]), Promise.resolve('{"format":"parley.backup"}')),
    })
    const t = new WailsTransport(win)
    const file = { name: 'parley-backup-2026-01-02.json', mime_type: 'application/json', content: '{}' }
    expect(await t.saveFile(file, 'backup')).toEqual({ kind: 'saved', path: '/home/me/parley-backup.json' })
    expect(await t.chooseBackupFile()).toBe('{"format":"parley.backup"}')
    expect(calls).toEqual([
      ['SaveFile', [file, 'backup']],
      ['OpenBackupFile', []],
    ])
    const cancelled = fakeWindow({}, { OpenBackupFile: () => Promise.resolve('') })
    expect(await new WailsTransport(cancelled.win).chooseBackupFile()).toBeNull()
  })

  it('passes SaveSettings errors through', async () => {
    const { win } = fakeWindow({ SaveSettings: () => Promise.reject('theme must be "light", "dark" or "system"') })
    const t = new WailsTransport(win)
    expect(await t.getSettings()).toEqual({ ...DEFAULT_SETTINGS, model: 'qwen3' })
    await expect(t.saveSettings({ ...DEFAULT_SETTINGS })).rejects.toThrow('theme must be "light", "dark" or "system"')
  })

  it('turns a Go error string into an Error', async () => {
    const { win } = fakeWindow({ Send: () => Promise.reject('a run is already active in this conversation') })
    const err = await new WailsTransport(win).send({ id: 'a', content: 'x' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as Error).message).toBe('a run is already active in this conversation')
    const obj = fakeWindow({ Cancel: () => Promise.reject({ error: 'no such conversation' }) })
    await expect(new WailsTransport(obj.win).cancel({ id: 'a' })).rejects.toMatchObject({ name: 'TransportError', message: 'no such conversation' })
  })

  it('reads and resets model statistics and saves the settings export through the Go save dialog', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.modelStats()).toEqual([])
    await t.resetModelStats()
    expect((await t.exportSettings()).format).toBe('parley-settings')
    const file = { name: 'parley-settings.json', mime_type: 'application/json', content: '{}\n' }
    // The desktop window saves the file through Go's save dialog.
    expect(await t.saveFile(file, 'settings')).toEqual({ kind: 'saved', path: '/tmp/parley-settings.json' })
    expect(calls).toEqual([
      ['ModelStats', []],
      ['ResetModelStats', []],
      ['ExportSettings', []],
      ['SaveFile', [file, 'settings']],
    ])
  })

  it('manages agent tokens through Calls, and reads the listener from DesktopService', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.agentTokens()).toEqual([])
    expect(await t.createAgentToken({ name: 'codex' })).toEqual({ id: 't1', name: 'codex', token: 'parley_agent_x' })
    await t.revokeAgentToken({ id: 't1' })
    expect((await t.agentListener()).running).toBe(true)
    expect(calls.map((c) => c[0])).toEqual(['AgentTokens', 'CreateAgentToken', 'RevokeAgentToken', 'AgentListener'])
    expect(calls[1]![1]).toEqual([{ name: 'codex' }])
  })

  it('rejects clearly when the backend method is missing', async () => {
    const { win } = fakeWindow({ Cancel: undefined })
    await expect(new WailsTransport(win).cancel({ id: 'a' })).rejects.toThrow('Calls.Cancel')
    await expect(new WailsTransport(win).cancel({ id: 'a' })).rejects.toBeInstanceOf(TransportError)
    const noDesktop = fakeWindow({}, { SaveFile: undefined })
    await expect(new WailsTransport(noDesktop.win).saveFile({ name: 'a', mime_type: '', content: '' }, 'settings')).rejects.toThrow('DesktopService.SaveFile')
  })

  it('uses the system pickers and opens cited files through DesktopService', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.choosePaths('folder')).toEqual(['/home/me/notes'])
    expect(await t.choosePaths('files')).toEqual(['/home/me/a.md'])
    expect(await t.openSource('/home/me/a.md')).toBe(true)
    expect(calls).toEqual([
      ['ChooseFolder', []],
      ['ChooseFiles', []],
      ['OpenSource', ['/home/me/a.md']],
    ])
    const cancelled = fakeWindow({}, { ChooseFolder: () => Promise.resolve('') })
    expect(await new WailsTransport(cancelled.win).choosePaths('folder')).toEqual([])
  })

  it('subscribes to events through runtime.EventsOn and unsubscribes', () => {
    const { win, handlers, off } = fakeWindow()
    const t = new WailsTransport(win)
    const got: unknown[] = []
    const unsubscribe = t.on('question:resolved', (p) => got.push(p))
    handlers.get('question:resolved')!({ conversationId: 'a', question_id: 'q1' })
    expect(got).toEqual([{ conversationId: 'a', question_id: 'q1' }])
    unsubscribe()
    expect(off).toHaveBeenCalledOnce()
  })

  it('manages MCP servers through the bound calls, as Go sends them (lists are [], never null)', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    const [files] = await t.mcpServers()
    expect(files).toMatchObject({ name: 'files', args: [], env_keys: [], header_keys: ['X'], tools: [] })
    const cfg = { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '' }, enabled: false }
    expect((await t.putMCPServer({ name: 'files', ...cfg })).status).toBe('disabled')
    await t.deleteMCPServer({ name: 'files' })
    expect(await t.setMCPToolPolicy({ name: 'files', tool: 'echo', policy: 'allow' })).toMatchObject({ policy: 'allow' })
    expect(await t.importMCPConfig({ content: '{"mcpServers":{}}' })).toEqual({ added: ['a'], skipped: {} })
    expect(calls).toEqual([
      ['MCPServers', []],
      ['PutMCPServer', [{ name: 'files', ...cfg }]],
      ['DeleteMCPServer', [{ name: 'files' }]],
      ['SetMCPToolPolicy', [{ name: 'files', tool: 'echo', policy: 'allow' }]],
      ['ImportMCPConfig', [{ content: '{"mcpServers":{}}' }]],
    ])
  })

  it('opens only safe links, through DesktopService.OpenURL', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    t.openExternal('javascript:alert(1)')
    t.openExternal('https://example.com/a?b')
    await Promise.resolve()
    expect(calls).toEqual([['OpenURL', ['https://example.com/a?b']]])
    expect(win.runtime!.BrowserOpenURL).not.toHaveBeenCalled()
  })

  it('opens only safe links through the runtime when OpenURL is not bound', () => {
    const { win } = fakeWindow()
    delete (win.go!.desktop as Record<string, unknown>).DesktopService
    const t = new WailsTransport(win)
    t.openExternal('javascript:alert(1)')
    t.openExternal('https://wails.io')
    expect(win.runtime!.BrowserOpenURL).toHaveBeenCalledTimes(1)
    expect(win.runtime!.BrowserOpenURL).toHaveBeenCalledWith('https://wails.io')
  })
})

describe('pickTransport', () => {
  it('chooses Wails when window.go exists, HTTP otherwise', () => {
    expect(pickTransport(fakeWindow().win).kind).toBe('wails')
    expect(pickTransport({ location: { search: '' } } as unknown as Window).kind).toBe('http')
    // ?demo is not special: the demo runs on the Go side (`parley serve --demo`).
    expect(pickTransport({ location: { search: '?demo' } } as unknown as Window).kind).toBe('http')
  })
})
