import { beforeEach, describe, expect, it } from 'vitest'
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
    expect(env.fake.callsOf('renameConversation')).toEqual([[c!.id, 'Budget']])
    expect(store.byId(c!.id)!.title).toBe('Budget')

    await store.setPinned(c!.id, true)
    expect(store.pinned.map((x) => x.id)).toEqual([c!.id])
    expect(env.fake.callsOf('setPinned')).toEqual([[c!.id, true]])

    expect(await store.remove(c!.id)).toBe(true)
    expect(store.items).toHaveLength(0)
    expect(store.currentId).toBeNull()
  })

  it('puts a failed rename back and reports it', async () => {
    seedMany(1)
    const store = useConversationsStore()
    await store.load()
    env.fake.failNext('renameConversation', 'disk full', 500)
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
})
