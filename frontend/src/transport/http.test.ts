import { afterEach, describe, expect, it, vi } from 'vitest'
import { HttpTransport } from './http'
import { TransportError } from './transport'

interface Call {
  url: string
  init: RequestInit
}

function fakeFetch(responder: (url: string, init: RequestInit) => { status?: number; body?: unknown; text?: string; type?: string }) {
  const calls: Call[] = []
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input)
    calls.push({ url, init: init ?? {} })
    const r = responder(url, init ?? {})
    const status = r.status ?? 200
    const text = r.text ?? (r.body === undefined ? '' : JSON.stringify(r.body))
    return new Response(status === 204 ? null : text, { status, headers: { 'Content-Type': r.type ?? 'application/json' } })
  })
  return { fn: fn as unknown as typeof fetch, calls }
}

class FakeEventSource {
  static instances: FakeEventSource[] = []
  static CONNECTING = 0
  static OPEN = 1
  static CLOSED = 2
  readyState = 0
  listeners = new Map<string, ((e: MessageEvent) => void)[]>()
  onopen: (() => void) | null = null
  onerror: (() => void) | null = null
  closed = false
  constructor(
    public url: string,
    public init?: EventSourceInit,
  ) {
    FakeEventSource.instances.push(this)
  }
  addEventListener(name: string, fn: (e: MessageEvent) => void) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn])
  }
  close() {
    this.closed = true
    this.readyState = 2
  }
  open() {
    this.readyState = 1
    this.onopen?.()
  }
  send(name: string, data: string) {
    for (const fn of this.listeners.get(name) ?? []) fn(new MessageEvent(name, { data }))
  }
  fail(closed: boolean) {
    this.readyState = closed ? 2 : 0
    this.onerror?.()
  }
}

afterEach(() => {
  FakeEventSource.instances = []
  vi.useRealTimers()
})

describe('HttpTransport MCP servers (SPEC §6)', () => {
  it('lists, saves, removes, sets a policy and imports with the documented paths and bodies', async () => {
    const { fn, calls } = fakeFetch((url, init) => {
      if (url.endsWith('/mcp/import')) return { body: { added: ['a'], skipped: { b: 'a server with this name exists' } } }
      if (url.includes('/tools/')) return { body: { name: 'get file', description: '', policy: 'block', model_name: 'my_files__get_file' } }
      if (init.method === 'DELETE') return { status: 200 }
      if (init.method === 'PUT') return { body: { name: 'my files', transport: 'stdio', command: 'npx', args: ['-y'], env_keys: ['TOKEN'], header_keys: [], enabled: true, status: 'connecting', tools: [] } }
      return { body: [] }
    })
    const t = new HttpTransport({ fetch: fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    expect(await t.mcpServers()).toEqual([])
    const saved = await t.putMCPServer({ name: 'my files', command: 'npx', args: ['-y'], env: { TOKEN: 's3cret' } })
    expect(saved).toMatchObject({ env_keys: ['TOKEN'], header_keys: [], tools: [] })
    await t.deleteMCPServer({ name: 'my files' })
    expect(await t.setMCPToolPolicy({ name: 'my files', tool: 'get file', policy: 'block' })).toMatchObject({ policy: 'block' })
    const file = '{"mcpServers":{"a":{"command":"x"}}}'
    expect(await t.importMCPConfig({ content: file })).toEqual({ added: ['a'], skipped: { b: 'a server with this name exists' } })
    expect(calls.map((c) => [c.init.method, c.url, c.init.body])).toEqual([
      ['GET', '/api/v1/mcp/servers', undefined],
      ['PUT', '/api/v1/mcp/servers/my%20files', JSON.stringify({ command: 'npx', args: ['-y'], env: { TOKEN: 's3cret' } })],
      ['DELETE', '/api/v1/mcp/servers/my%20files', undefined],
      ['PUT', '/api/v1/mcp/servers/my%20files/tools/get%20file', JSON.stringify({ policy: 'block' })],
      ['POST', '/api/v1/mcp/import', file],
    ])
  })

  it('delivers mcp:server events from the stream', () => {
    const { fn } = fakeFetch(() => ({ body: null }))
    const t = new HttpTransport({ fetch: fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    const got: unknown[] = []
    t.on('mcp:server', (p) => got.push(p))
    FakeEventSource.instances[0]!.send('mcp:server', '{"name":"files","status":"error","error":"exited"}')
    expect(got).toEqual([{ name: 'files', status: 'error', error: 'exited' }])
  })
})

describe('HttpTransport requests (SPEC §4)', () => {
  it('calls each endpoint with the right method, path, body and same-origin credentials', async () => {
    const { fn, calls } = fakeFetch((url) => {
      if (url.endsWith('/messages')) return { status: 202, body: { run_id: 'r1' } }
      if (url.includes('/questions')) return { body: [] }
      if (url.includes('/conversations?') || url.endsWith('/conversations')) return { body: { items: [], next_cursor: '' } }
      return { body: { id: 'c/1', title: 't', messages: [], pending_question: null, state: 'idle' } }
    })
    const t = new HttpTransport({ fetch: fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    await t.listConversations({ limit: 20, cursor: 'abc', q: 'trip plans' })
    await t.listConversations({})
    await t.createConversation({ title: 'Hi' })
    const detail = await t.getConversation({ id: 'c/1' })
    expect(await t.send({ id: 'c/1', content: 'hello' })).toEqual({ run_id: 'r1' })
    await t.cancel({ id: 'c/1' })
    await t.respond({ id: 'c/1', question_id: 'q1', action: 'submit', answers: { 'A?': { selected: ['x'] } }, comments: 'ok' })
    await t.questions({ status: 'pending' })
    await t.conversationQuestions({ id: 'c/1' })
    await t.deleteConversation({ id: 'c/1' })
    await t.updateConversation({ id: 'c/1', title: 'New' })
    await t.updateConversation({ id: 'c/1', pinned: true })
    await t.updateConversation({ id: 'c/1', assistant: 'writer' })
    await t.updateConversation({ id: 'c/1', thinking: 'off' })
    await t.updateConversation({ id: 'c/1', knowledge: ['k1'], model: 'm' })
    await t.health()

    expect(detail.messages).toEqual([])
    const summary = calls.map((c) => `${c.init.method} ${c.url}${c.init.body ? ' ' + c.init.body : ''}`)
    expect(summary).toEqual([
      'GET /api/v1/conversations?limit=20&cursor=abc&q=trip+plans',
      'GET /api/v1/conversations',
      'POST /api/v1/conversations {"title":"Hi"}',
      'GET /api/v1/conversations/c%2F1',
      'POST /api/v1/conversations/c%2F1/messages {"content":"hello"}',
      'POST /api/v1/conversations/c%2F1/cancel',
      'POST /api/v1/conversations/c%2F1/respond {"question_id":"q1","action":"submit","answers":{"A?":{"selected":["x"]}},"comments":"ok"}',
      'GET /api/v1/questions?status=pending',
      'GET /api/v1/conversations/c%2F1/questions',
      'DELETE /api/v1/conversations/c%2F1',
      'PATCH /api/v1/conversations/c%2F1 {"title":"New"}',
      'PATCH /api/v1/conversations/c%2F1 {"pinned":true}',
      'PATCH /api/v1/conversations/c%2F1 {"assistant":"writer"}',
      'PATCH /api/v1/conversations/c%2F1 {"thinking":"off"}',
      'PATCH /api/v1/conversations/c%2F1 {"knowledge":["k1"],"model":"m"}',
      'GET /api/v1/health',
    ])
    for (const c of calls) expect(c.init.credentials).toBe('same-origin')
    expect((calls[2]!.init.headers as Record<string, string>)['Content-Type']).toBe('application/json')
  })

  it('turns {"error"} responses into errors that keep the status', async () => {
    const { fn } = fakeFetch(() => ({ status: 409, body: { error: 'a run is already active in this conversation' } }))
    const t = new HttpTransport({ fetch: fn })
    const err = await t.send({ id: 'c1', content: 'x' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as TransportError).message).toBe('a run is already active in this conversation')
    expect((err as TransportError).status).toBe(409)
  })

  it('reports a status even without a JSON body, and network failures', async () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({ status: 502 })).fn })
    await expect(t.health()).rejects.toMatchObject({ status: 502, message: expect.stringContaining('502') })
    const down = new HttpTransport({ fetch: (async () => { throw new TypeError('Failed to fetch') }) as unknown as typeof fetch })
    await expect(down.health()).rejects.toMatchObject({ status: 0, message: expect.stringContaining('Failed to fetch') })
  })
})

describe('HttpTransport settings, models and retry', () => {
  it('uses the retry, models/status, models/pull and health routes', async () => {
    const { fn, calls } = fakeFetch((url) => {
      if (url.endsWith('/retry')) return { status: 202, body: { run_id: 'r9' } }
      if (url.endsWith('/models/status'))
        return { body: { reachable: true, base_url: 'http://127.0.0.1:8080/v1', model: 'm', demo: false, models: [{ name: 'm', supports_tools: true }] } }
      if (url.endsWith('/models/pull')) return { body: { status: 'success' } }
      if (url.endsWith('/health')) return { body: { status: 'ok', version: '0.9.0' } }
      if (url.endsWith('/settings')) return { body: { base_url: 'http://x:1/v1', model: 'm', theme: 'dark' } }
      return { body: {} }
    })
    const t = new HttpTransport({ fetch: fn })
    expect(await t.retry({ id: 'c/1' })).toEqual({ run_id: 'r9' })
    expect((await t.checkModelServer()).models).toEqual([{ name: 'm', supports_tools: true }])
    await t.pullModel({ model: 'qwen3' })
    expect(await t.appInfo()).toEqual({ version: '0.9.0', dataDir: '' })
    const s = await t.getSettings()
    expect(s).toMatchObject({ base_url: 'http://x:1/v1', model: 'm', theme: 'dark' })
    await t.saveSettings(s)
    const summary = calls.map((c) => `${c.init.method} ${c.url}${c.init.body ? ' ' + c.init.body : ''}`)
    expect(summary.slice(0, 6)).toEqual([
      'POST /api/v1/conversations/c%2F1/retry',
      'GET /api/v1/models/status',
      'POST /api/v1/models/pull {"model":"qwen3"}',
      'GET /api/v1/health',
      'GET /api/v1/settings',
      `PUT /api/v1/settings ${JSON.stringify(s)}`,
    ])
  })

  it('rejects a failed pull with the server message', async () => {
    const { fn } = fakeFetch(() => ({ status: 502, body: { error: 'pull model manifest: file does not exist' } }))
    await expect(new HttpTransport({ fetch: fn }).pullModel({ model: 'nope' })).rejects.toThrow('pull model manifest: file does not exist')
  })

  it('dispatches model:pull events from the stream', () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    const got: unknown[] = []
    t.on('model:pull', (p) => got.push(p))
    FakeEventSource.instances[0]!.send('model:pull', '{"conversationId":"","model":"qwen3","status":"downloading","total":10,"completed":5}')
    expect(got).toEqual([{ conversationId: '', model: 'qwen3', status: 'downloading', total: 10, completed: 5 }])
  })
})

describe('HttpTransport model statistics and the settings export', () => {
  it('uses GET|DELETE /models/stats and GET /settings/export', async () => {
    const stats = [{ model: 'qwen3', cards_asked: 2, answered: 1, declined: 1, cancelled: 0, timed_out: 0, median_answer_ms: 4000, repaired: 1, refused: 0, corrected: 0, updated_at: '' }]
    const { fn, calls } = fakeFetch((url, init) => {
      if (url.endsWith('/models/stats') && init.method === 'GET') return { body: stats }
      if (url.endsWith('/models/stats')) return { body: { reset: true } }
      return { body: { format: 'parley-settings', version: 1, exported_at: '', settings: {}, profiles: [], model_stats: stats } }
    })
    const t = new HttpTransport({ fetch: fn })
    expect(await t.modelStats()).toEqual(stats)
    await t.resetModelStats()
    expect((await t.exportSettings()).model_stats).toEqual(stats)
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual(['GET /api/v1/models/stats', 'DELETE /api/v1/models/stats', 'GET /api/v1/settings/export'])
  })
})

describe('HttpTransport profiles, tools, export and import', () => {
  it('uses GET /profiles, PUT|DELETE /profiles/{name} and GET /tools', async () => {
    const { fn, calls } = fakeFetch((url, init) => {
      if (url.endsWith('/profiles')) return { body: [{ name: 'default', system_prompt: 'Hi', model: '', tools: ['ask_user_question'] }, { name: 'Bare', system_prompt: '', model: 'm', tools: null }] }
      if (url.endsWith('/tools')) return { body: [{ name: 'ask_user_question', description: 'Ask you' }] }
      if (init.method === 'PUT') return { body: { ...JSON.parse(String(init.body)), model: 'qwen3' } }
      return { body: { deleted: true } }
    })
    const t = new HttpTransport({ fetch: fn })
    expect(t.nativeFileDialogs).toBe(false)
    expect(await t.profiles()).toEqual([
      { name: 'default', system_prompt: 'Hi', model: '', tools: ['ask_user_question'] },
      { name: 'Bare', system_prompt: '', model: 'm', tools: null },
    ])
    expect(await t.availableTools()).toEqual([{ name: 'ask_user_question', description: 'Ask you' }])
    const p = { name: 'Code review', system_prompt: 'Be brief.', model: ' qwen3 ', tools: ['calculator'] }
    const { name: _name, ...body } = p
    expect(await t.saveProfile(p)).toEqual({ ...body, model: 'qwen3' }) // the path names the profile; Go fills it from there
    await t.deleteProfile({ name: 'Code review' })
    const summary = calls.map((c) => `${c.init.method} ${c.url}${c.init.body ? ' ' + c.init.body : ''}`)
    expect(summary).toEqual([
      'GET /api/v1/profiles',
      'GET /api/v1/tools',
      `PUT /api/v1/profiles/Code%20review ${JSON.stringify(body)}`,
      'DELETE /api/v1/profiles/Code%20review',
    ])
  })

  it('passes a refused profile on with the server message and status', async () => {
    const { fn } = fakeFetch(() => ({ status: 400, body: { error: 'profile name must be 1-40 letters, digits, spaces, dots, dashes or underscores' } }))
    await expect(new HttpTransport({ fetch: fn }).saveProfile({ name: 'a/b', system_prompt: '', model: '', tools: [] })).rejects.toMatchObject({
      status: 400,
      message: 'profile name must be 1-40 letters, digits, spaces, dots, dashes or underscores',
    })
  })

  it('exports as a file (Markdown or JSON) with the content type, without parsing it, for the page to download', async () => {
    const md = '# Trip\n\n*Exported from Parley.*\n'
    const json = '{\n  "format": "parley.conversation",\n  "version": 1\n}'
    const { fn, calls } = fakeFetch((url) =>
      url.includes('format=json') ? { text: json, type: 'application/json' } : { text: md, type: 'text/markdown; charset=utf-8' },
    )
    const t = new HttpTransport({ fetch: fn })
    const mdFile = await t.exportConversation({ id: 'c/1', format: 'markdown' })
    expect(mdFile).toEqual({ name: '', mime_type: 'text/markdown; charset=utf-8', content: md })
    expect(await t.saveFile(mdFile, 'conversation')).toEqual({ kind: 'content', content: md, mimeType: 'text/markdown' })
    expect(await t.saveFile(await t.exportConversation({ id: 'c/1', format: 'json' }), 'conversation')).toEqual({ kind: 'content', content: json, mimeType: 'application/json' })
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET /api/v1/conversations/c%2F1/export?format=markdown',
      'GET /api/v1/conversations/c%2F1/export?format=json',
    ])
  })

  it('imports by posting the file text as is, and reports a refused file', async () => {
    const file = '{"format":"parley.conversation","version":1,"conversation":{"title":"Trip"}}'
    const { fn, calls } = fakeFetch((url, init) =>
      String(init.body).includes('parley.conversation')
        ? { status: 201, body: { id: 'new', title: 'Trip', assistant: 'default' } }
        : { status: 400, body: { error: 'import conversation: invalid conversation export: format is "", want "parley.conversation"' } },
    )
    const t = new HttpTransport({ fetch: fn })
    expect(await t.importConversation({ data: file })).toEqual({ id: 'new', title: 'Trip', assistant: 'default' })
    expect(calls[0]!.url).toBe('/api/v1/conversations/import')
    expect(calls[0]!.init.method).toBe('POST')
    expect(calls[0]!.init.body).toBe(file)
    expect((calls[0]!.init.headers as Record<string, string>)['Content-Type']).toBe('application/json')
    await expect(t.importConversation({ data: '{}' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('format is ""') })
    // a browser has no open dialog: the page reads the file itself
    await expect(t.chooseConversationFile()).rejects.toBeInstanceOf(TransportError)
    await expect(t.chooseBackupFile()).rejects.toBeInstanceOf(TransportError)
    expect(calls).toHaveLength(2)
  })
})

describe('HttpTransport events (SSE)', () => {
  it('opens one EventSource lazily and dispatches named events', () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    expect(FakeEventSource.instances).toHaveLength(0)
    const deltas: unknown[] = []
    const asks: unknown[] = []
    t.on('message:delta', (p) => deltas.push(p))
    t.on('question:ask', (p) => asks.push(p))
    expect(FakeEventSource.instances).toHaveLength(1)
    const es = FakeEventSource.instances[0]!
    expect(es.url).toBe('/api/v1/events')
    es.open()
    es.send('message:delta', '{"conversationId":"c1","delta":"Hi"}')
    es.send('question:ask', '{"conversationId":"c1","question_id":"q1","questions":[]}')
    es.send('message:delta', 'not json')
    expect(deltas).toEqual([{ conversationId: 'c1', delta: 'Hi' }])
    expect(asks).toEqual([{ conversationId: 'c1', question_id: 'q1', questions: [] }])
  })

  it('subscribes the stream to conversation:updated and conversation:deleted', () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    const got: unknown[] = []
    t.on('conversation:updated', (p) => got.push(['updated', p]))
    t.on('conversation:deleted', (p) => got.push(['deleted', p]))
    const es = FakeEventSource.instances[0]!
    expect([...es.listeners.keys()]).toEqual(expect.arrayContaining(['conversation:updated', 'conversation:deleted']))
    es.send('conversation:updated', '{"conversationId":"c1","title":"Trip to Lisbon"}')
    es.send('conversation:updated', '{"conversationId":"c1","pinned":true}')
    es.send('conversation:deleted', '{"conversationId":"c2"}')
    expect(got).toEqual([
      ['updated', { conversationId: 'c1', title: 'Trip to Lisbon' }],
      ['updated', { conversationId: 'c1', pinned: true }],
      ['deleted', { conversationId: 'c2' }],
    ])
  })

  it('says when events flow: once the stream has opened, not before', async () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    let open = false
    void t.eventsOpen().then(() => (open = true))
    t.on('conversation:updated', () => {})
    await Promise.resolve()
    expect(open).toBe(false)
    FakeEventSource.instances[0]!.open()
    await Promise.resolve()
    expect(open).toBe(true)
  })

  it('reconnects with backoff after the server closes the stream and reports it', async () => {
    vi.useFakeTimers()
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn, EventSource: FakeEventSource as unknown as typeof EventSource, reconnectDelay: 100 })
    const states: unknown[] = []
    t.on('transport:connection', (p) => states.push(p))
    const first = FakeEventSource.instances[0]!
    first.open()
    first.fail(true) // e.g. 401/5xx: the browser gives up
    expect(first.closed).toBe(true)
    expect(FakeEventSource.instances).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(100)
    expect(FakeEventSource.instances).toHaveLength(2)
    FakeEventSource.instances[1]!.fail(true)
    await vi.advanceTimersByTimeAsync(150)
    expect(FakeEventSource.instances).toHaveLength(2) // second wait is 200ms
    await vi.advanceTimersByTimeAsync(60)
    expect(FakeEventSource.instances).toHaveLength(3)
    FakeEventSource.instances[2]!.open()
    expect(states).toEqual([{ connected: true, reconnected: false }, { connected: false }, { connected: true, reconnected: true }])
  })

  it('closes the stream when the last handler unsubscribes', () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn, EventSource: FakeEventSource as unknown as typeof EventSource })
    const off1 = t.on('message:delta', () => {})
    const off2 = t.on('run:error', () => {})
    off1()
    expect(FakeEventSource.instances[0]!.closed).toBe(false)
    off2()
    expect(FakeEventSource.instances[0]!.closed).toBe(true)
  })
})

describe('HttpTransport: one generic request per call, as CALLS says', () => {
  it('fills {params} from the request (encoded), puts query fields in the URL and the other fields in the JSON body', async () => {
    const { fn, calls } = fakeFetch(() => ({ body: { run_id: 'r1' } }))
    const t = new HttpTransport({ fetch: fn })
    await t.forkQuestion({ id: 'c 1', question_id: 'q/2', answers: { 'A?': { selected: [], custom: 'x' } }, comments: 'c' })
    await t.listConversations({ limit: 5, cursor: '', q: 'a&b' })
    await t.questions({})
    await t.searchCollection({ id: 'k1', query: 'tide tables', top_k: 3 })
    expect(calls.map((c) => [c.init.method, c.url, c.init.body])).toEqual([
      ['POST', '/api/v1/conversations/c%201/questions/q%2F2/fork', JSON.stringify({ answers: { 'A?': { selected: [], custom: 'x' } }, comments: 'c' })],
      ['GET', '/api/v1/conversations?limit=5&q=a%26b', undefined],
      ['GET', '/api/v1/questions', undefined],
      ['POST', '/api/v1/knowledge/k1/search', JSON.stringify({ query: 'tide tables', top_k: 3 })],
    ])
    // a GET carries no body and no Content-Type; a JSON body says it is JSON (Go refuses others)
    expect((calls[1]!.init.headers as Record<string, string>)['Content-Type']).toBeUndefined()
    expect((calls[3]!.init.headers as Record<string, string>)['Content-Type']).toBe('application/json')
  })

  it('sends an array request as the body itself, a raw field as the body as is, and nothing for body-less calls', async () => {
    const { fn, calls } = fakeFetch(() => ({ status: 204 }))
    const t = new HttpTransport({ fetch: fn })
    const marks = [{ key: 'card-1', hop: 'shown', at: 12 }]
    expect(await t.reportTrace(marks)).toBeUndefined()
    await t.importMCPConfig({ content: 'not even json' })
    await t.retry({ id: 'c1' })
    expect(calls.map((c) => [c.init.method, c.url, c.init.body])).toEqual([
      ['POST', '/api/v1/debug/trace', JSON.stringify(marks)],
      ['POST', '/api/v1/mcp/import', 'not even json'],
      ['POST', '/api/v1/conversations/c1/retry', undefined],
    ])
    expect((calls[1]!.init.headers as Record<string, string>)['Content-Type']).toBe('application/json')
  })

  it('answers nothing for 204 and for calls without an answer, and the JSON otherwise', async () => {
    const { fn } = fakeFetch((url) => (url.includes('agent-tokens') ? { status: 200, body: { ignored: true } } : { status: 204 }))
    const t = new HttpTransport({ fetch: fn })
    expect(await t.revokeAgentToken({ id: 't1' })).toBeUndefined() // noResponse
    expect(await t.cancel({ id: 'c1' })).toBeUndefined() // 204
    const json = new HttpTransport({ fetch: fakeFetch(() => ({ body: { ok: true } })).fn })
    expect(await json.cancel({ id: 'c1' })).toEqual({ ok: true })
  })

  it('reads a file answer: its name from Content-Disposition (filename* first), its type and its text', async () => {
    const headers: Record<string, string>[] = [
      { 'Content-Type': 'text/markdown; charset=utf-8', 'Content-Disposition': 'attachment; filename="Trip \\"A\\".md"' },
      { 'Content-Type': 'application/json', 'Content-Disposition': "attachment; filename*=utf-8''Caf%C3%A9%20notes.json" },
      { 'Content-Type': 'application/json', 'Content-Disposition': 'attachment; filename=plain.json' },
      { 'Content-Type': 'application/json' },
    ]
    let i = 0
    const fn = (async () => new Response('{"a":1}', { status: 200, headers: headers[i++] })) as unknown as typeof fetch
    const t = new HttpTransport({ fetch: fn })
    expect(await t.exportConversation({ id: 'c1', format: 'markdown' })).toEqual({ name: 'Trip "A".md', mime_type: 'text/markdown; charset=utf-8', content: '{"a":1}' })
    expect((await t.exportConversation({ id: 'c1', format: 'json' })).name).toBe('Café notes.json')
    expect((await t.exportConversation({ id: 'c1', format: 'json' })).name).toBe('plain.json')
    expect((await t.exportConversation({ id: 'c1', format: 'json' })).name).toBe('')
  })

  it('turns an error answer into a TransportError with its message and status', async () => {
    const { fn } = fakeFetch(() => ({ status: 404, body: { error: 'conversation not found' } }))
    const err = await new HttpTransport({ fetch: fn }).exportConversation({ id: 'nope', format: 'json' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect(err).toMatchObject({ message: 'conversation not found', status: 404 })
    const raw = await new HttpTransport({ fetch: fakeFetch(() => ({ status: 413, body: { error: 'too large' } })).fn })
      .importConversation({ data: '{}' })
      .catch((e: unknown) => e)
    expect(raw).toMatchObject({ message: 'too large', status: 413 })
  })

  it('sends the settings export for the page to download', async () => {
    const t = new HttpTransport({ fetch: fakeFetch(() => ({})).fn })
    expect(await t.saveFile({ name: 'parley-settings.json', mime_type: 'application/json', content: '{}\n' }, 'settings')).toEqual({
      kind: 'content',
      content: '{}\n',
      mimeType: 'application/json',
    })
  })
})
