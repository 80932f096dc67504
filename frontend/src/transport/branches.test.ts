// The conversation-control calls (SPEC §7) over each transport: the HTTP
// paths and bodies, the bound Go methods, and the fake's branches.
import { describe, expect, it, vi } from 'vitest'
import { HttpTransport } from './http'
import { WailsTransport } from './wails'
import { FakeTransport } from './fake'
import { TransportError } from './transport'

describe('conversation control over HTTP', () => {
  it('posts messages, regenerations, branch switches and forks to the §7 endpoints', async () => {
    const calls: { url: string; method?: string; body: unknown }[] = []
    const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push({ url: String(input), method: init?.method, body: init?.body ? JSON.parse(String(init.body)) : undefined })
      const body = String(input).endsWith('/branch') ? { id: 'c1', messages: [] } : { run_id: 'r1' }
      return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } })
    }) as unknown as typeof globalThis.fetch
    const t = new HttpTransport({ fetch })
    const file = { name: 'a.txt', mime_type: 'text/plain', size: 1, data: 'YQ==' }
    expect(await t.send({ id: 'c1', content: 'edit', parent_id: 'm1', attachments: [file] })).toEqual({ run_id: 'r1' })
    expect(await t.regenerate({ id: 'c1', message_id: 'm2', model: 'llava' })).toEqual({ run_id: 'r1' })
    await t.regenerate({ id: 'c1', message_id: 'm2' })
    expect((await t.selectBranch({ id: 'c1', message_id: 'm3' })).id).toBe('c1')
    expect(await t.forkQuestion({ id: 'c1', question_id: 'q/1', answers: { 'Q?': { selected: ['B'] } } })).toEqual({ run_id: 'r1' })
    expect(calls.map((c) => [c.method, c.url.replace(/^.*\/api\/v1/, ''), c.body])).toEqual([
      ['POST', '/conversations/c1/messages', { content: 'edit', parent_id: 'm1', attachments: [file] }],
      ['POST', '/conversations/c1/regenerate', { message_id: 'm2', model: 'llava' }],
      ['POST', '/conversations/c1/regenerate', { message_id: 'm2' }],
      ['PUT', '/conversations/c1/branch', { message_id: 'm3' }],
      ['POST', '/conversations/c1/questions/q%2F1/fork', { answers: { 'Q?': { selected: ['B'] } } }],
    ])
  })
})

describe('conversation control over Wails', () => {
  it('calls the bound Calls methods with one request each', async () => {
    const calls: [string, unknown[]][] = []
    const method = (name: string, result: unknown) => (...args: unknown[]) => {
      calls.push([name, args])
      return Promise.resolve(result)
    }
    const win = {
      go: { desktop: { Calls: {
        Send: method('Send', { run_id: 'r1' }),
        Regenerate: method('Regenerate', { run_id: 'r2' }),
        SelectBranch: method('SelectBranch', { id: 'c1', messages: [] }),
        ForkQuestion: method('ForkQuestion', { run_id: 'r3' }),
      } } },
    } as unknown as Window
    const t = new WailsTransport(win)
    expect(await t.send({ id: 'c1', content: 'x', parent_id: '' })).toEqual({ run_id: 'r1' })
    expect(await t.regenerate({ id: 'c1', message_id: 'm2' })).toEqual({ run_id: 'r2' })
    expect((await t.selectBranch({ id: 'c1', message_id: 'm3' })).id).toBe('c1')
    expect(await t.forkQuestion({ id: 'c1', question_id: 'q1', answers: {} })).toEqual({ run_id: 'r3' })
    expect(calls).toEqual([
      ['Send', [{ id: 'c1', content: 'x', parent_id: '' }]],
      ['Regenerate', [{ id: 'c1', message_id: 'm2' }]],
      ['SelectBranch', [{ id: 'c1', message_id: 'm3' }]],
      ['ForkQuestion', [{ id: 'c1', question_id: 'q1', answers: {} }]],
    ])
  })
})

describe('conversation control in the fake transport', () => {
  it('an edit replaces the path after its parent and counts the siblings', async () => {
    const t = new FakeTransport()
    const c = await t.createConversation({ title: 'T' })
    await t.send({ id: c.id, content: 'first' })
    t.addMessage(c.id, { role: 'assistant', content: 're: first' })
    t.setState(c.id, 'idle')
    const [first] = (await t.getConversation({ id: c.id })).messages
    await t.send({ id: c.id, content: 'first, edited', parent_id: '' })
    const d = await t.getConversation({ id: c.id })
    expect(d.messages.map((m) => [m.content, m.siblings, m.sibling_index])).toEqual([['first, edited', 2, 1]])
    await expect(t.send({ id: c.id, content: 'again', parent_id: '' })).rejects.toMatchObject({ status: 409 })
    t.setState(c.id, 'idle')
    await expect(t.selectBranch({ id: c.id, message_id: first!.id })).rejects.toBeInstanceOf(TransportError)
    await expect(t.regenerate({ id: c.id, message_id: 'nope' })).rejects.toMatchObject({ status: 404 })
  })
})
