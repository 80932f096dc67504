import { beforeEach, describe, expect, it } from 'vitest'
import { isReactive, watch } from 'vue'
import { setupEnv, settle, type TestEnv } from '../test-utils'
import { EARLIER_PAGE, OPEN_WINDOW, useChatStore, messageFromDone } from './chat'
import { useConversationsStore } from './conversations'
import { useQuestionsStore } from './questions'
import { connectEvents } from './events'
import { useSettingsStore } from './settings'
import { rememberLanguage, setLanguage } from '../i18n'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

function seed() {
  const c = env.fake.addConversation({ id: 'c1', title: 'First' })
  env.fake.addMessage('c1', { id: 'm1', role: 'user', content: 'hi' })
  env.fake.addMessage('c1', { id: 'm2', role: 'assistant', content: 'hello' })
  return c
}

describe('chat store', () => {
  it('opens a conversation: messages, state, error and pending card', async () => {
    seed()
    env.fake.conversations.get('c1')!.state = 'error'
    env.fake.conversations.get('c1')!.error = 'model not found'
    env.fake.addCard({ question_id: 'q1', conversationId: 'c1', questions: [{ question: 'A?', options: [], multiSelect: false, allowCustom: true }] })
    env.fake.conversations.get('c1')!.state = 'error'
    const chat = useChatStore()
    expect((await chat.open('c1'))?.title).toBe('First')
    expect(chat.messagesFor('c1').map((m) => m.id)).toEqual(['m1', 'm2'])
    expect(chat.stateOf('c1')).toBe('error')
    expect(chat.errors.c1).toBe('model not found')
    expect(useQuestionsStore().cards.q1!.status).toBe('pending')
    // Opened through the conversations store, it is known with its title.
    await useConversationsStore().reload('c1')
    expect(useConversationsStore().byId('c1')!.title).toBe('First')
  })

  it("reads a failed run's error again when Settings change the language (the backend says it in the new one)", async () => {
    seed()
    env.fake.addConversation({ id: 'c2', title: 'Second' })
    for (const id of ['c1', 'c2']) {
      env.fake.conversations.get(id)!.state = 'error'
      env.fake.conversations.get(id)!.error = 'Cannot reach the model server'
    }
    const chat = useChatStore()
    await chat.open('c1')
    await chat.open('c2')
    const settings = useSettingsStore()
    await settings.load()
    env.fake.conversations.get('c1')!.error = 'Der Modellserver ist nicht erreichbar'
    env.fake.conversations.get('c2')!.state = 'idle' // retried elsewhere meanwhile
    env.fake.conversations.get('c2')!.error = ''

    expect(await settings.save({ ...settings.settings!, theme: 'dark' })).toBe(true)
    await settle()
    expect(chat.errors.c1).toBe('Cannot reach the model server') // the language did not change: not read again

    try {
      expect(await settings.save({ ...settings.settings!, language: 'de' })).toBe(true)
      await settle()
      expect(chat.errors.c1).toBe('Der Modellserver ist nicht erreichbar')
      expect(chat.errors.c2).toBe('Cannot reach the model server') // no longer failed there: left as handled
      expect(chat.stateOf('c1')).toBe('error')
    } finally {
      rememberLanguage('')
      await setLanguage('en')
    }
  })

  it('opens a long conversation with its newest messages, reads the earlier ones a page at a time, and keeps a message still being sent after them', async () => {
    env.fake.addConversation({ id: 'long', title: 'Long' })
    for (let i = 1; i <= 600; i++) env.fake.addMessage('long', { id: `m${i}`, role: i % 2 ? 'user' : 'assistant', content: `msg ${i}` })
    const chat = useChatStore()
    chat.listOf('long').push({ id: 'local-1', conversationId: 'long', role: 'user', content: 'on its way', created_at: '', parent_id: '', siblings: 1, sibling_index: 0, local: 'sending' })
    expect((await chat.open('long'))?.title).toBe('Long')
    expect(env.fake.callsOf('getConversation')).toEqual([[{ id: 'long', last: OPEN_WINDOW }]])
    let ids = chat.messagesFor('long').map((m) => m.id)
    expect(ids).toHaveLength(OPEN_WINDOW + 1)
    expect(ids.slice(0, 1)).toEqual([`m${601 - OPEN_WINDOW}`])
    expect(ids.slice(-2)).toEqual(['m600', 'local-1'])
    expect(chat.earlierOf('long')).toBe(600 - OPEN_WINDOW)
    expect(chat.messagesFor('long')[0]!.conversationId).toBe('long')

    // "Show earlier": the path is read back before the first message read.
    expect(await chat.loadEarlier('long')).toBe(true)
    expect(env.fake.callsOf('getConversation').at(-1)).toEqual([{ id: 'long', last: EARLIER_PAGE, before: `m${601 - OPEN_WINDOW}` }])
    expect(chat.earlierOf('long')).toBe(600 - OPEN_WINDOW - EARLIER_PAGE)
    expect(await chat.loadEarlier('long')).toBe(true)
    expect(chat.earlierOf('long')).toBe(0)
    expect(await chat.loadEarlier('long')).toBe(false) // nothing left to read
    ids = chat.messagesFor('long').map((m) => m.id)
    expect(ids).toHaveLength(601)
    expect(ids.slice(0, 2)).toEqual(['m1', 'm2'])
    expect(ids.slice(-2)).toEqual(['m600', 'local-1'])
    expect(new Set(ids).size).toBe(601)
    expect(chat.messagesFor('long').every((m) => m.conversationId === 'long')).toBe(true)
  })

  it('a window read again keeps the earlier messages already read; a path that changed is read whole', async () => {
    env.fake.addConversation({ id: 'long', title: 'Long' })
    for (let i = 1; i <= 500; i++) env.fake.addMessage('long', { id: `m${i}`, role: i % 2 ? 'user' : 'assistant', content: `msg ${i}` })
    const chat = useChatStore()
    await chat.open('long')
    await chat.loadEarlier('long')
    expect(chat.messagesFor('long')).toHaveLength(500)
    // A reply arrives and the conversation is opened again (its newest window).
    env.fake.addMessage('long', { id: 'm501', role: 'user', content: 'msg 501' })
    await chat.open('long')
    expect(chat.messagesFor('long').map((m) => m.id).slice(0, 1)).toEqual(['m1'])
    expect(chat.messagesFor('long')).toHaveLength(501)
    expect(chat.earlierOf('long')).toBe(0)

    // Elsewhere the path changed: the message read first is no longer on it.
    chat.release('long')
    await chat.open('long')
    expect(chat.earlierOf('long')).toBe(501 - OPEN_WINDOW)
    const d = env.fake.conversations.get('long')!
    d.messages = d.messages.filter((m) => m.id !== `m${502 - OPEN_WINDOW}`)
    expect(await chat.loadEarlier('long')).toBe(true)
    expect(env.fake.callsOf('getConversation').at(-1)).toEqual([{ id: 'long' }])
    expect(chat.messagesFor('long')).toHaveLength(500)
    expect(chat.earlierOf('long')).toBe(0)
  })

  it('a failed read of earlier messages says why and keeps what is shown', async () => {
    env.fake.addConversation({ id: 'long', title: 'Long' })
    for (let i = 1; i <= 300; i++) env.fake.addMessage('long', { id: `m${i}`, role: i % 2 ? 'user' : 'assistant', content: `msg ${i}` })
    const chat = useChatStore()
    await chat.open('long')
    const before = chat.messagesFor('long')
    env.fake.failNext('getConversation', 'the backend is gone')
    expect(await chat.loadEarlier('long')).toBe(false)
    expect(chat.earlierErrors.long).toContain('the backend is gone')
    expect(chat.messagesFor('long')).toBe(before)
    expect(chat.earlierOf('long')).toBe(300 - OPEN_WINDOW)
    expect(await chat.loadEarlier('long')).toBe(true)
    expect(chat.earlierErrors.long).toBeNull()
    expect(chat.messagesFor('long')).toHaveLength(300)
  })

  it('appends deltas to the stream buffer without touching the message list', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    const list = chat.messages.c1
    const before = [...list!]
    chat.onDelta({ conversationId: 'c1', delta: 'Hel', messageId: 'm3' })
    chat.onDelta({ conversationId: 'c1', delta: 'lo ', messageId: 'm3' })
    chat.onDelta({ conversationId: 'c1', delta: 'there', messageId: 'm3' })
    expect(chat.streams.c1!.text).toBe('Hello there')
    expect(chat.stateOf('c1')).toBe('streaming')
    expect(chat.messages.c1).toBe(list)
    expect(chat.messages.c1).toEqual(before)
  })

  it('message:done replaces the stream with the final message (nested or flat payload)', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    chat.onDelta({ conversationId: 'c1', delta: 'Hi', messageId: 'm3' })
    chat.onDone({ conversationId: 'c1', message: { id: 'm3', conversationId: 'c1', role: 'assistant', content: 'Hi!', created_at: 'x', parent_id: '', siblings: 1, sibling_index: 0 } })
    expect(chat.streams.c1).toBeUndefined()
    expect(chat.messagesFor('c1').at(-1)).toMatchObject({ id: 'm3', role: 'assistant', content: 'Hi!' })
    // the same message again is not duplicated
    chat.onDone({ conversationId: 'c1', id: 'm3', role: 'assistant', content: 'Hi!!' })
    expect(chat.messagesFor('c1').filter((m) => m.id === 'm3')).toHaveLength(1)
    expect(chat.messagesFor('c1').at(-1)!.content).toBe('Hi!!')
  })

  it('keeps streamed text when the run ends without message:done, and replaces it when done arrives', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    chat.onDelta({ conversationId: 'c1', delta: 'partial answer' })
    chat.onState({ conversationId: 'c1', state: 'idle' })
    expect(chat.streams.c1).toBeUndefined()
    expect(chat.messagesFor('c1').at(-1)!.content).toBe('partial answer')
    chat.onDone({ conversationId: 'c1', id: 'real', role: 'assistant', content: 'partial answer, complete' })
    expect(chat.messagesFor('c1').filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(['hello', 'partial answer, complete'])
  })

  it('run:error sets the error and state; requesting clears it', () => {
    const chat = useChatStore()
    chat.onRunError({ conversationId: 'c9', error: 'connection refused' })
    expect(chat.stateOf('c9')).toBe('error')
    expect(chat.errors.c9).toBe('connection refused')
    chat.onState({ conversationId: 'c9', state: 'requesting' })
    expect(chat.errors.c9).toBeNull()
    expect(chat.isBusy('c9')).toBe(true)
  })

  it('sends a message optimistically and confirms it', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    const done = chat.send('  plan my week  ', 'c1')
    expect(chat.messagesFor('c1').at(-1)).toMatchObject({ role: 'user', content: 'plan my week', local: 'sending' })
    expect(chat.stateOf('c1')).toBe('requesting')
    expect(await done).toBe(true)
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'plan my week' }]])
    expect(chat.messagesFor('c1').at(-1)!.local).toBe('sent')
    // the backend echoes the user message: it replaces the optimistic one
    chat.onDone({ conversationId: 'c1', id: 'srv-1', role: 'user', content: 'plan my week' })
    expect(chat.messagesFor('c1').filter((m) => m.role === 'user').map((m) => m.id)).toEqual(['m1', 'srv-1'])
  })

  it('creates a conversation when sending from the new-chat screen', async () => {
    const conversations = useConversationsStore()
    expect(conversations.currentId).toBeNull()
    expect(await conversations.send('hello')).toBe(true)
    expect(env.fake.callsOf('createConversation')).toHaveLength(1)
    const id = conversations.currentId!
    expect(id).toBeTruthy()
    expect(env.fake.callsOf('send')).toEqual([[{ id: id, content: 'hello' }]])
  })

  it("sends a new chat's first message before the page switches to the new conversation, so it renders once with it", async () => {
    const conversations = useConversationsStore()
    const chat = useChatStore()
    // What the page would render when the open conversation changes.
    const seen: { sends: number; messages: string[] }[] = []
    const stop = watch(
      () => conversations.currentId,
      (id) => seen.push({ sends: env.fake.callsOf('send').length, messages: id ? chat.messagesFor(id).map((m) => m.content) : [] }),
      { flush: 'sync' },
    )
    expect(await conversations.send('first words')).toBe(true)
    stop()
    expect(seen).toEqual([{ sends: 1, messages: ['first words'] }])
    expect(chat.messagesFor(conversations.currentId!).map((m) => m.content)).toEqual(['first words'])
  })

  it('marks a failed send, shows an error and retries the last user message', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    env.fake.failNext('send', 'model server unreachable', 502)
    expect(await chat.send('again please', 'c1')).toBe(false)
    expect(chat.messagesFor('c1').at(-1)!.local).toBe('failed')
    expect(chat.errors.c1).toBe("Couldn't send your message: model server unreachable")
    expect(chat.stateOf('c1')).toBe('idle')

    expect(await chat.retry('c1')).toBe(true)
    expect(env.fake.callsOf('send').map((a) => (a[0] as { content: string }).content)).toEqual(['again please', 'again please'])
    expect(chat.messagesFor('c1').filter((m) => m.local === 'failed')).toHaveLength(0)
    expect(chat.errors.c1).toBeNull()
  })

  it('Retry after a run error asks the backend to rerun (transport.retry), without resending the text', async () => {
    seed()
    const chat = useChatStore()
    connectEvents()
    await chat.open('c1')
    expect(await chat.send('plan a trip', 'c1')).toBe(true)
    env.fake.setState('c1', 'error', 'model server unreachable')
    await settle()
    chat.onDelta({ conversationId: 'c1', delta: 'half an ans' })
    chat.onRunError({ conversationId: 'c1', error: 'model server unreachable' })
    expect(chat.messagesFor('c1').at(-1)!.content).toBe('half an ans')
    const users = chat.messagesFor('c1').filter((m) => m.role === 'user').length

    expect(await chat.retry('c1')).toBe(true)
    expect(env.fake.callsOf('retry')).toEqual([[{ id: 'c1' }]])
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'plan a trip' }]])
    expect(chat.messagesFor('c1').filter((m) => m.role === 'user')).toHaveLength(users)
    // the broken partial answer makes way for the new run's answer
    expect(chat.messagesFor('c1').some((m) => m.content === 'half an ans')).toBe(false)
    expect(chat.errors.c1).toBeNull()
    expect(chat.stateOf('c1')).toBe('requesting')
  })

  it('Retry continues a conversation that loaded in state error (app closed mid-run)', async () => {
    seed()
    const conv = env.fake.conversations.get('c1')!
    conv.state = 'error'
    conv.error = 'Parley was closed before the assistant finished. Retry to continue.'
    const chat = useChatStore()
    await chat.open('c1')
    expect(chat.errors.c1).toBe('Parley was closed before the assistant finished. Retry to continue.')
    expect(await chat.retry('c1')).toBe(true)
    expect(env.fake.callsOf('retry')).toEqual([[{ id: 'c1' }]])
    expect(env.fake.callsOf('send')).toHaveLength(0)
    expect(chat.messagesFor('c1').map((m) => m.id)).toEqual(['m1', 'm2'])
  })

  it('shows why a retry failed and keeps the error state', async () => {
    seed()
    env.fake.conversations.get('c1')!.state = 'error'
    const chat = useChatStore()
    await chat.open('c1')
    env.fake.failNext('retry', 'model "qwen3" not found', 404)
    expect(await chat.retry('c1')).toBe(false)
    expect(chat.errors.c1).toBe('Couldn\'t retry: model "qwen3" not found')
    expect(chat.stateOf('c1')).toBe('error')
    expect(env.fake.callsOf('send')).toHaveLength(0)
  })

  it('does not send while a run is active (409 message)', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    chat.onState({ conversationId: 'c1', state: 'streaming' })
    expect(await chat.send('another', 'c1')).toBe(false)
    expect(env.fake.callsOf('send')).toHaveLength(0)
    expect(chat.errors.c1).toContain('still working')
  })

  it('Stop cancels the run', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    chat.onState({ conversationId: 'c1', state: 'streaming' })
    await chat.stop('c1')
    expect(env.fake.callsOf('cancel')).toEqual([[{ id: 'c1' }]])
  })

  it('tracks run states per conversation from events', async () => {
    seed()
    const chat = useChatStore()
    connectEvents()
    env.fake.emit('conversation:state', { conversationId: 'c1', state: 'tool_executing' })
    env.fake.emit('conversation:state', { conversationId: 'c2', state: 'awaiting_user_response' })
    env.fake.emit('conversation:state', { conversationId: 'c3', state: 'bogus' as never })
    await settle()
    expect(chat.stateOf('c1')).toBe('tool_executing')
    expect(chat.stateOf('c2')).toBe('awaiting_user_response')
    expect(chat.stateOf('c3')).toBe('idle')
  })

  it('reads the message id of deltas as the backend sends it (messageId)', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    chat.onDelta({ conversationId: 'c1', delta: 'first step', messageId: 'a1' } as never)
    // a new message starts: the text of the first one is kept under its own id
    chat.onDelta({ conversationId: 'c1', delta: 'second', messageId: 'a2' } as never)
    expect(chat.streams.c1).toMatchObject({ text: 'second', messageId: 'a2', reasoning: '' })
    expect(chat.messagesFor('c1').at(-1)).toMatchObject({ id: 'a1', content: 'first step' })
    // its message:done replaces it in place, and a retry does not drop it as a broken partial
    chat.onDone({ conversationId: 'c1', message: { id: 'a1', conversationId: 'c1', role: 'assistant', content: 'first step, done', created_at: 'x', parent_id: '', siblings: 1, sibling_index: 0 } })
    expect(chat.messagesFor('c1').filter((m) => m.id === 'a1').map((m) => m.content)).toEqual(['first step, done'])
    chat.onState({ conversationId: 'c1', state: 'error' })
    await chat.retry('c1')
    expect(chat.messagesFor('c1').some((m) => m.id === 'a1')).toBe(true)
  })

  it('keeps long message lists shallow: messages are plain objects, replaced when they change', async () => {
    seed()
    const chat = useChatStore()
    await chat.open('c1')
    expect(isReactive(chat.messagesFor('c1'))).toBe(true)
    expect(isReactive(chat.messagesFor('c1')[0])).toBe(false)
    const sending = chat.send('one more', 'c1')
    const optimistic = chat.messagesFor('c1').at(-1)!
    expect(optimistic.local).toBe('sending')
    await sending
    expect(chat.messagesFor('c1').at(-1)).toMatchObject({ content: 'one more', local: 'sent' })
    expect(optimistic.local).toBe('sending')
  })

  it('messageFromDone ignores payloads without a role', () => {
    expect(messageFromDone({ conversationId: 'c1' })).toBeNull()
    expect(messageFromDone({ conversationId: 'c1', message_id: 'x', role: 'tool', content: 'r' } as never)).toMatchObject({ id: 'x', role: 'tool' })
  })
})
