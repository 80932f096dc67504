import { describe, expect, it, vi } from 'vitest'
import { WAILS_SERVICE, WailsTransport } from './wails'
import { pickTransport } from './index'
import { TransportError } from './transport'
import { DEFAULT_SETTINGS } from '../lib/settings'

function fakeWindow(overrides: Record<string, unknown> = {}) {
  const calls: [string, unknown[]][] = []
  const method =
    (name: string, result: unknown = null) =>
    (...args: unknown[]) => {
      calls.push([name, args])
      return Promise.resolve(result)
    }
  const svc: Record<string, unknown> = {
    Health: method('Health', { status: 'ok', version: '1.0' }),
    AgentTokens: method('AgentTokens', []),
    CreateAgentToken: method('CreateAgentToken', { id: 't1', name: 'codex', token: 'parley_agent_x' }),
    RevokeAgentToken: method('RevokeAgentToken', undefined),
    Listener: method('Listener', { enabled: true, addr: '127.0.0.1:8765', running: true, url: 'http://127.0.0.1:8765/mcp', local_api: false }),
    ListConversations: method('ListConversations', { items: [{ id: 'a', title: 'A' }], next_cursor: 'n2' }),
    CreateConversation: method('CreateConversation', { id: 'new', title: '' }),
    GetConversation: method('GetConversation', { id: 'a', title: 'A', state: 'idle', messages: [], pending_question: null }),
    RenameConversation: method('RenameConversation'),
    SetPinned: method('SetPinned'),
    SetAssistant: method('SetAssistant'),
    SetThinking: method('SetThinking'),
    DeleteConversation: method('DeleteConversation'),
    Send: method('Send', { run_id: 'run-1' }),
    Cancel: method('Cancel'),
    Respond: method('Respond', { question_id: 'q1', conversationId: 'a', status: 'answered', questions: [], created_at: '', expires_at: null }),
    PendingQuestions: method('PendingQuestions', []),
    ConversationQuestions: method('ConversationQuestions', []),
    GetSettings: method('GetSettings', { model: 'qwen3' }),
    SaveSettings: method('SaveSettings'),
    ListModels: method('ListModels', [{ name: 'qwen3', supports_tools: true }]),
    Retry: method('Retry', { run_id: 'run-2' }),
    CheckModelServer: method('CheckModelServer', { reachable: false, base_url: 'http://127.0.0.1:11434/v1', model: '', demo: false, message: 'refused', models: [] }),
    PullModel: method('PullModel'),
    ModelStats: method('ModelStats', []),
    ResetModelStats: method('ResetModelStats'),
    ExportSettings: method('ExportSettings', { format: 'parley-settings', version: 1, exported_at: '', settings: {}, profiles: [], model_stats: [] }),
    SaveSettingsExport: method('SaveSettingsExport', '/tmp/parley-settings.json'),
    Profiles: method('Profiles', [{ name: 'default', system_prompt: 'Hi', model: '', tools: [] }]),
    SaveProfile: method('SaveProfile', { name: 'Reviewer', system_prompt: 'Be brief.', model: 'qwen3', tools: ['calculator'] }),
    DeleteProfile: method('DeleteProfile'),
    AvailableTools: method('AvailableTools', [{ name: 'ask_user_question', description: 'Ask you' }]),
    ExportConversation: method('ExportConversation', '/home/me/conversation.md'),
    ImportConversation: method('ImportConversation', { id: 'imported', title: 'Trip', assistant: 'default' }),
    Servers: method('Servers', [{ name: 'files', transport: 'stdio', command: 'npx', args: [], env_keys: [], header_keys: ['X'], enabled: true, status: 'connected', tools: [] }]),
    PutServer: method('PutServer', { name: 'files', transport: 'http', url: 'http://127.0.0.1:9/mcp', args: [], env_keys: [], header_keys: ['Authorization'], enabled: false, status: 'disabled', tools: [] }),
    DeleteServer: method('DeleteServer'),
    SetToolPolicy: method('SetToolPolicy', { name: 'echo', description: 'Echo', policy: 'allow', model_name: 'files__echo' }),
    ImportConfig: method('ImportConfig', { added: ['a'], skipped: {} }),
    OpenURL: method('OpenURL'),
    ...overrides,
  }
  const app = { Info: method('App.Info', { version: '1.2.3', dataDir: '/home/me/.config/parley' }) }
  const handlers = new Map<string, (...d: unknown[]) => void>()
  const off = vi.fn()
  const win = {
    go: bound(svc, app),
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

// The Go side binds one service per area (package desktop's
// conversation_service.go etc.; App in the root package main); each method
// lives on exactly one of them.
const GO_SERVICES: Record<string, string[]> = {
  App: ['Health'],
  ConversationService: ['ListConversations', 'CreateConversation', 'GetConversation', 'RenameConversation', 'SetPinned',
    'SetAssistant', 'SetModel', 'SetThinking', 'DeleteConversation', 'Retry', 'Cancel', 'ExportConversation', 'ImportConversation',
    'Send', 'Regenerate', 'SelectBranch', 'ForkQuestion'],
  QuestionService: ['Respond', 'PendingQuestions', 'ConversationQuestions'],
  ModelService: ['ListModels', 'CheckModelServer', 'PullModel', 'ModelStats', 'ResetModelStats'],
  SettingsService: ['GetSettings', 'SaveSettings', 'Profiles', 'SaveProfile', 'DeleteProfile', 'AvailableTools', 'ExportSettings', 'SaveSettingsExport'],
  MCPService: ['Servers', 'PutServer', 'DeleteServer', 'SetToolPolicy', 'ImportConfig'],
  AgentsService: ['Listener', 'AgentTokens', 'CreateAgentToken', 'RevokeAgentToken'],
  DesktopService: ['OpenURL'],
  DebugService: ['ReportTrace'],
  KnowledgeService: ['ListCollections', 'GetCollection', 'CreateCollection', 'UpdateCollection', 'ReindexCollection', 'CancelCollection',
    'DeleteCollection', 'SearchCollection', 'SetConversationKnowledge', 'ChooseFolder', 'ChooseFiles', 'OpenSource'],
}

/** Spreads the fake methods over the bound services the way Go binds them: App in `main`, the rest in `desktop`. */
function bound(svc: Record<string, unknown>, app: Record<string, unknown>): Record<string, Record<string, Record<string, unknown>>> {
  const main: Record<string, Record<string, unknown>> = { App: { ...app } }
  const desktop: Record<string, Record<string, unknown>> = {}
  for (const [service, methods] of Object.entries(GO_SERVICES)) {
    const pkg = service === 'App' ? main : desktop
    pkg[service] ??= {}
    for (const m of methods) if (m in svc) pkg[service][m] = svc[m]
  }
  return { main, desktop }
}

describe('WailsTransport', () => {
  it('calls the bound services\' methods with the documented argument order', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.listConversations({ limit: 10, cursor: 'c', q: 'x' })).toEqual({ items: [{ id: 'a', title: 'A' }], next_cursor: 'n2' })
    await t.listConversations()
    await t.createConversation({ title: 'T' })
    expect((await t.getConversation('a')).messages).toEqual([])
    await t.renameConversation('a', 'B')
    await t.setPinned('a', true)
    await t.setAssistant('a', 'writer')
    await t.setThinking('a', 'high')
    await t.deleteConversation('a')
    expect(await t.sendMessage('a', 'hello')).toEqual({ run_id: 'run-1' })
    await t.cancel('a')
    const req = { question_id: 'q1', action: 'submit' as const, answers: { 'Q?': { selected: ['x'] } } }
    expect((await t.respond('a', req))!.status).toBe('answered')
    expect(await t.pendingQuestions()).toEqual([])
    await t.conversationQuestions('a')
    await t.getSettings()
    await t.saveSettings({ ...DEFAULT_SETTINGS, model: 'm' })
    expect(await t.listModels()).toEqual([{ name: 'qwen3', supports_tools: true }])
    await t.health()
    expect(calls).toEqual([
      ['ListConversations', [10, 'c', 'x']],
      ['ListConversations', [50, '', '']],
      ['CreateConversation', ['T', '']],
      ['GetConversation', ['a']],
      ['RenameConversation', ['a', 'B']],
      ['SetPinned', ['a', true]],
      ['SetAssistant', ['a', 'writer']],
      ['SetThinking', ['a', 'high']],
      ['DeleteConversation', ['a']],
      ['Send', ['a', { content: 'hello' }]],
      ['Cancel', ['a']],
      ['Respond', ['a', req]],
      ['PendingQuestions', []],
      ['ConversationQuestions', ['a']],
      ['GetSettings', []],
      ['SaveSettings', [{ ...DEFAULT_SETTINGS, model: 'm' }]],
      ['ListModels', []],
      ['Health', []],
    ])
  })

  it('retries, checks the model server, pulls a model and reads App.Info', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.retry('a')).toEqual({ run_id: 'run-2' })
    expect(await t.checkModelServer()).toEqual({
      reachable: false,
      base_url: 'http://127.0.0.1:11434/v1',
      model: '',
      demo: false,
      message: 'refused',
      models: [],
    })
    await t.pullModel('qwen3')
    expect(await t.appInfo()).toEqual({ version: '1.2.3', dataDir: '/home/me/.config/parley' })
    expect(calls).toEqual([
      ['Retry', ['a']],
      ['CheckModelServer', []],
      ['PullModel', ['qwen3']],
      ['App.Info', []],
    ])
  })

  it('manages profiles and lists tools through the bindings', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.listProfiles()).toEqual([{ name: 'default', system_prompt: 'Hi', model: '', tools: [] }])
    const p = { name: 'Reviewer', system_prompt: 'Be brief.', model: 'qwen3', tools: ['calculator'] }
    expect(await t.saveProfile(p)).toEqual(p)
    await t.deleteProfile('Reviewer')
    expect(await t.availableTools()).toEqual([{ name: 'ask_user_question', description: 'Ask you' }])
    expect(calls).toEqual([
      ['Profiles', []],
      ['SaveProfile', [p]],
      ['DeleteProfile', ['Reviewer']],
      ['AvailableTools', []],
    ])
    const refused = fakeWindow({ SaveProfile: () => Promise.reject('unknown tool "rm"') })
    await expect(new WailsTransport(refused.win).saveProfile({ ...p, tools: ['rm'] })).rejects.toThrow('unknown tool "rm"')
  })

  it('exports and imports through the Go dialogs', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(t.nativeFileDialogs).toBe(true)
    expect(await t.exportConversation('a', 'markdown')).toEqual({ kind: 'saved', path: '/home/me/conversation.md' })
    expect(await t.importConversation()).toEqual({ id: 'imported', title: 'Trip', assistant: 'default' })
    expect(calls).toEqual([
      ['ExportConversation', ['a', 'markdown']],
      ['ImportConversation', []],
    ])
    // the user cancelled the dialogs
    const cancelled = fakeWindow({ ExportConversation: () => Promise.resolve(''), ImportConversation: () => Promise.resolve(null) })
    const c = new WailsTransport(cancelled.win)
    expect(await c.exportConversation('a', 'json')).toEqual({ kind: 'cancelled' })
    expect(await c.importConversation()).toBeNull()
    // a refused file rejects with Go's message; text cannot be passed in
    const bad = fakeWindow({ ImportConversation: () => Promise.reject('import conversation: invalid conversation export: conversation is missing') })
    await expect(new WailsTransport(bad.win).importConversation()).rejects.toThrow('conversation is missing')
    await expect(t.importConversation('{}')).rejects.toBeInstanceOf(TransportError)
  })

  it('fills missing settings fields and passes SaveSettings errors through', async () => {
    const { win } = fakeWindow({ SaveSettings: () => Promise.reject('theme must be "light", "dark" or "system"') })
    const t = new WailsTransport(win)
    expect(await t.getSettings()).toEqual({ ...DEFAULT_SETTINGS, model: 'qwen3' })
    await expect(t.saveSettings({ ...DEFAULT_SETTINGS })).rejects.toThrow('theme must be "light", "dark" or "system"')
  })

  it('turns a Go error string into an Error', async () => {
    const { win } = fakeWindow({ Send: () => Promise.reject('a run is already active in this conversation') })
    const err = await new WailsTransport(win).sendMessage('a', 'x').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as Error).message).toBe('a run is already active in this conversation')
  })

  it('reads and resets model statistics and exports settings through the bindings', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.modelStats()).toEqual([])
    await t.resetModelStats()
    expect((await t.exportSettings()).format).toBe('parley-settings')
    // The desktop window saves the file through Go's save dialog.
    expect(await t.saveSettingsExport()).toEqual({ kind: 'saved', path: '/tmp/parley-settings.json' })
    expect(calls).toEqual([
      ['ModelStats', []],
      ['ResetModelStats', []],
      ['ExportSettings', []],
      ['SaveSettingsExport', []],
    ])
  })

  it('maps every method to the Go service that binds it', () => {
    const want = Object.fromEntries(Object.entries(GO_SERVICES).flatMap(([s, ms]) => ms.map((m) => [m, s])))
    expect(WAILS_SERVICE).toEqual(want)
  })

  it('manages agent tokens through the bound AgentsService', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    expect(await t.agentTokens()).toEqual([])
    expect(await t.createAgentToken('codex')).toEqual({ id: 't1', name: 'codex', token: 'parley_agent_x' })
    await t.revokeAgentToken('t1')
    expect((await t.agentListener()).running).toBe(true)
    expect(calls.map((c) => c[0])).toEqual(['AgentTokens', 'CreateAgentToken', 'RevokeAgentToken', 'Listener'])
    expect(calls[1]![1]).toEqual(['codex'])
  })

  it('rejects clearly when the backend method is missing', async () => {
    const { win } = fakeWindow({ Cancel: undefined })
    await expect(new WailsTransport(win).cancel('a')).rejects.toThrow('ConversationService.Cancel')
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

  it('manages MCP servers through the bound MCPService, as Go sends them (lists are [], never null)', async () => {
    const { win, calls } = fakeWindow()
    const t = new WailsTransport(win)
    const [files] = await t.mcpServers()
    expect(files).toMatchObject({ name: 'files', args: [], env_keys: [], header_keys: ['X'], tools: [] })
    const cfg = { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '' }, enabled: false }
    expect((await t.putMCPServer('files', cfg)).status).toBe('disabled')
    await t.deleteMCPServer('files')
    expect(await t.setMCPToolPolicy('files', 'echo', 'allow')).toMatchObject({ policy: 'allow' })
    expect(await t.importMCPConfig('{"mcpServers":{}}')).toEqual({ added: ['a'], skipped: {} })
    expect(calls).toEqual([
      ['Servers', []],
      ['PutServer', ['files', cfg]],
      ['DeleteServer', ['files']],
      ['SetToolPolicy', ['files', 'echo', 'allow']],
      ['ImportConfig', ['{"mcpServers":{}}']],
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
    const { win } = fakeWindow({ OpenURL: undefined })
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
