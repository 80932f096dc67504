import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { setupEnv, settle, type TestEnv } from '../test-utils'
import { PAGE_SIZE, useConversationsStore } from './conversations'
import { useChatStore } from './chat'
import { connectEvents } from './events'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

function seedMany(n: number) {
  for (let i = 0; i < n; i++) {
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
    env.fake.addConversation({ id: `c${i}`, title: i % 2 ? `Trip ${i}` : `Notes ${i}`, created_at: t, updated_at: t })
  }
}

describe('conversations store', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('a message moves its conversation to the top of Recent, and one in the newest changes nothing', async () => {
    seedMany(3) // c2 newest, on 1 January 2026
    const store = useConversationsStore()
    await store.load()
    const order = () => store.recent.map((c) => c.id)
    expect(order()).toEqual(['c2', 'c1', 'c0'])
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date(Date.UTC(2026, 5, 1, 12, 0, 0)))
    store.touch('c0')
    expect(order()).toEqual(['c0', 'c2', 'c1'])
    vi.setSystemTime(new Date(Date.UTC(2026, 5, 1, 12, 0, 1)))
    store.touch('c1')
    expect(order()).toEqual(['c1', 'c0', 'c2'])
    // The newest, touched today: its time stays (nothing to move, nothing to render).
    const before = store.items.find((c) => c.id === 'c1')!.updated_at
    vi.setSystemTime(new Date(Date.UTC(2026, 5, 1, 12, 0, 2)))
    store.touch('c1')
    expect(store.items.find((c) => c.id === 'c1')!.updated_at).toBe(before)
    // Touched today but no longer the newest: it moves up again.
    vi.setSystemTime(new Date(Date.UTC(2026, 5, 1, 12, 0, 3)))
    store.touch('c0')
    expect(order()).toEqual(['c0', 'c1', 'c2'])
  })

  it('lists Recent newest first as times to the digit (not as text), unknown times last, equal times in the order they came', async () => {
    const store = useConversationsStore()
    const second = '2026-03-01T10:00:05'
    // Go writes as many fractional digits as it needs: as text "…:05Z" sorts
    // after "…:05.5Z" ('Z' > '.'), though it is the earlier time.
    const conv = (id: string, created_at: string, updated_at: string) => ({ id, title: '', assistant: 'default', pinned: false, created_at, updated_at })
    store.items = [
      conv('whole', second + 'Z', second + 'Z'),
      conv('half', second + '.5Z', second + '.5Z'),
      conv('nanos', second + 'Z', second + '.500000001Z'),
      conv('unknown', '', ''),
      conv('created-only', '2026-03-01T09:00:00Z', ''),
      conv('tie-a', '2026-02-01T00:00:00.25Z', '2026-02-01T00:00:00.25Z'),
      conv('tie-b', '2026-02-01T00:00:00.250Z', '2026-02-01T00:00:00.250Z'),
    ]
    expect(store.recent.map((c) => c.id)).toEqual(['nanos', 'half', 'whole', 'created-only', 'tie-a', 'tie-b', 'unknown'])
    // The getter follows each item's time: a new one moves it.
    store.items.find((c) => c.id === 'unknown')!.updated_at = '2026-03-02T00:00:00Z'
    expect(store.recent[0]!.id).toBe('unknown')
  })

  it('a message in a conversation that only reads as the newest (its time as text) moves it to the top', async () => {
    const store = useConversationsStore()
    const conv = (id: string, at: string) => ({ id, title: '', assistant: 'default', pinned: false, created_at: at, updated_at: at })
    // Today, the same second: "…:05Z" is the later text and the earlier time.
    store.items = [conv('earlier', '2026-06-01T12:00:05Z'), conv('later', '2026-06-01T12:00:05.5Z')]
    expect(store.recent.map((c) => c.id)).toEqual(['later', 'earlier'])
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date(Date.UTC(2026, 5, 1, 12, 0, 9)))
    store.touch('earlier')
    expect(store.recent.map((c) => c.id)).toEqual(['earlier', 'later'])
  })

  it('loads the first page, then more with the cursor', async () => {
    seedMany(PAGE_SIZE + 5)
    const store = useConversationsStore()
    await store.load()
    expect(store.items).toHaveLength(PAGE_SIZE)
    expect(store.items[0]!.id).toBe(`c${PAGE_SIZE + 4}`) // newest first
    expect(store.nextCursor).toBe(String(PAGE_SIZE))
    await store.loadMore()
    expect(store.items).toHaveLength(PAGE_SIZE + 5)
    expect(store.nextCursor).toBeNull()
    expect(env.fake.callsOf('listConversations')[1]).toEqual([{ limit: PAGE_SIZE, cursor: String(PAGE_SIZE), q: undefined }])
  })

  it('searches with q', async () => {
    seedMany(6)
    const store = useConversationsStore()
    await store.search('trip')
    expect(env.fake.callsOf('listConversations').at(-1)).toEqual([{ limit: PAGE_SIZE, q: 'trip' }])
    expect(store.items.map((c) => c.title).sort()).toEqual(['Trip 1', 'Trip 3', 'Trip 5'])
    await store.search('')
    expect(store.items).toHaveLength(6)
  })

  it('creates, renames, pins and deletes', async () => {
    const store = useConversationsStore()
    await store.load()
    const c = await store.create()
    expect(c).not.toBeNull()
    expect(store.currentId).toBe(c!.id)
    expect(store.items[0]!.id).toBe(c!.id)

    expect(await store.rename(c!.id, '  Budget  ')).toBe(true)
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: c!.id, title: 'Budget' }]])
    expect(store.byId(c!.id)!.title).toBe('Budget')

    await store.setPinned(c!.id, true)
    expect(store.pinned.map((x) => x.id)).toEqual([c!.id])
    expect(env.fake.callsOf('updateConversation')).toEqual([[{ id: c!.id, title: 'Budget' }], [{ id: c!.id, pinned: true }]])

    expect(await store.remove(c!.id)).toBe(true)
    expect(store.items).toHaveLength(0)
    expect(store.currentId).toBeNull()
  })

  it('switches the assistant, and puts it back when refused', async () => {
    seedMany(1)
    const store = useConversationsStore()
    await store.load()
    expect(await store.setAssistant('c0', 'writer')).toBe(false) // no such profile in the fake
    expect(store.byId('c0')!.assistant).toBe('default')
    expect(store.actionError).toBe('Couldn\'t switch the assistant: unknown assistant "writer"')
    await env.fake.saveProfile({ name: 'writer', system_prompt: 'Haiku.', model: '', tools: [] })
    expect(await store.setAssistant('c0', 'writer')).toBe(true)
    expect(store.byId('c0')!.assistant).toBe('writer')
    expect(env.fake.callsOf('updateConversation')).toEqual([
      [{ id: 'c0', assistant: 'writer' }],
      [{ id: 'c0', assistant: 'writer' }],
    ])
    expect(await store.setAssistant('c0', 'writer')).toBe(false) // unchanged: no call
    expect(env.fake.callsOf('updateConversation')).toHaveLength(2)
  })

  it('puts a failed rename back and reports it', async () => {
    seedMany(1)
    const store = useConversationsStore()
    await store.load()
    env.fake.failNext('updateConversation', 'disk full', 500)
    expect(await store.rename('c0', 'New name')).toBe(false)
    expect(store.byId('c0')!.title).toBe('Notes 0')
    expect(store.actionError).toBe("Couldn't rename: disk full")
  })

  it('select opens the conversation in the chat store', async () => {
    seedMany(2)
    env.fake.addMessage('c1', { role: 'user', content: 'hello' })
    const store = useConversationsStore()
    await store.select('c1')
    expect(useChatStore().messagesFor('c1').map((m) => m.content)).toEqual(['hello'])
  })

  it('adds a conversation it hears about through an event', async () => {
    seedMany(1)
    const store = useConversationsStore()
    await store.load()
    connectEvents()
    env.fake.addConversation({ id: 'elsewhere', title: 'Started in the browser' })
    env.fake.emit('conversation:state', { conversationId: 'elsewhere', state: 'requesting' })
    await settle()
    expect(store.byId('elsewhere')!.title).toBe('Started in the browser')
  })

  it("lists agents' conversations under Agents, also one it first hears of through a card", async () => {
    seedMany(2)
    env.fake.addConversation({ id: 'agent-a', title: 'claude-code', agent: 'claude-code' })
    const store = useConversationsStore()
    await store.load()
    connectEvents()
    expect(store.agents.map((c) => c.id)).toEqual(['agent-a'])
    expect([...store.pinned, ...store.recent].map((c) => c.id)).not.toContain('agent-a')

    env.fake.addConversation({ id: 'agent-b', title: 'deploy-bot', agent: 'deploy-bot' })
    env.fake.emit('conversation:updated', { conversationId: 'agent-b', title: 'deploy-bot' })
    await settle()
    expect(store.agents.map((c) => c.agent).sort()).toEqual(['claude-code', 'deploy-bot'])
    expect([...store.pinned, ...store.recent].map((c) => c.id)).not.toContain('agent-b')
  })

  it('creates new conversations with the chosen assistant profile', async () => {
    const store = useConversationsStore()
    await store.create()
    store.newAssistant = 'Reviewer'
    const c = await store.create('Review')
    expect(env.fake.callsOf('createConversation')).toEqual([[{}], [{ title: 'Review', assistant: 'Reviewer' }]])
    expect(c!.assistant).toBe('Reviewer')
    expect(store.current!.assistant).toBe('Reviewer')
  })

  it('exports: hands the text back, or notes where the desktop app saved it', async () => {
    seedMany(1)
    const store = useConversationsStore()
    await store.load()
    expect(await store.exportConversation('c0', 'markdown')).toEqual({ kind: 'content', content: env.fake.exportText('c0', 'markdown'), mimeType: 'text/markdown' })
    expect(store.notice).toBeNull()
    env.fake.nativeFileDialogs = true
    expect(await store.exportConversation('c0', 'json')).toEqual({ kind: 'saved', path: '/home/user/Documents/conversation.json' })
    expect(store.notice).toBe('Exported to /home/user/Documents/conversation.json')
    env.fake.failNext('exportConversation', 'not found', 404)
    expect(await store.exportConversation('c0', 'json')).toBeNull()
    expect(store.actionError).toBe("Couldn't export: not found")
  })

  it('imports: clears a search, lists and opens the new conversation', async () => {
    seedMany(3)
    env.fake.addMessage('c1', { role: 'user', content: 'hello' })
    const json = env.fake.exportText('c1', 'json')
    const store = useConversationsStore()
    await store.search('notes')
    const c = await store.importConversation(json, 'trip.json')
    await settle()
    expect(c!.title).toBe('Trip 1 (imported)')
    expect(store.query).toBe('')
    expect(store.currentId).toBe(c!.id)
    expect(store.items.filter((x) => x.id === c!.id)).toHaveLength(1)
    expect(useChatStore().messagesFor(c!.id).map((m) => m.content)).toEqual(['hello'])
    expect(store.importError).toBeNull()
  })

  it('refuses a broken import without changing anything', async () => {
    seedMany(2)
    const store = useConversationsStore()
    await store.load()
    await store.select('c0')
    expect(await store.importConversation('{"format":', 'x.json')).toBeNull()
    expect(store.importError).toMatch(/^Couldn't import “x.json”: it is not valid JSON/)
    expect(env.fake.callsOf('importConversation')).toEqual([])
    expect(await store.importConversation('{"format":"parley.conversation","version":1}', 'y.json')).toBeNull()
    expect(store.importError).toBe("Couldn't import “y.json”: import conversation: invalid conversation export: conversation is missing")
    expect(store.items).toHaveLength(2)
    expect(store.currentId).toBe('c0')
    expect(store.importing).toBe(false)
  })
})
