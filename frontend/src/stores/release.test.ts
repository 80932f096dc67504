// A long session must not keep every conversation it opened: leaving one
// drops its messages and settled cards (they load again when it is opened),
// and keeps what the user still needs (a running reply, unsent text,
// pending cards and their drafts).
import { beforeEach, describe, expect, it } from 'vitest'
import { q, setupEnv, settle, type TestEnv } from '../test-utils'
import { useConversationsStore } from './conversations'
import { useChatStore } from './chat'
import { useQuestionsStore } from './questions'
import { connectEvents } from './events'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

function seed(id: string, n = 3) {
  env.fake.addConversation({ id, title: `Chat ${id}` })
  for (let i = 0; i < n; i++) env.fake.addMessage(id, { role: i % 2 ? 'assistant' : 'user', content: `${id} message ${i}` })
}

describe('releasing conversations the user left', () => {
  it('keeps the messages of the open conversation only', async () => {
    for (let i = 0; i < 20; i++) seed(`c${i}`)
    const conversations = useConversationsStore()
    const chat = useChatStore()
    for (let i = 0; i < 20; i++) await conversations.select(`c${i}`)
    expect(Object.keys(chat.messages)).toEqual(['c19'])
    expect(chat.messagesFor('c19')).toHaveLength(3)

    // Opening a released conversation loads it again, whole.
    await conversations.select('c3')
    expect(chat.messagesFor('c3').map((m) => m.content)).toEqual(['c3 message 0', 'c3 message 1', 'c3 message 2'])
    expect(Object.keys(chat.messages)).toEqual(['c3'])
    await conversations.select(null)
    expect(Object.keys(chat.messages)).toEqual([])
  })

  it('does not keep a conversation left while it was loading', async () => {
    seed('a')
    seed('b')
    const conversations = useConversationsStore()
    const chat = useChatStore()
    const opening = conversations.select('a')
    void conversations.select('b')
    await opening
    await settle()
    expect(Object.keys(chat.messages)).toEqual(['b'])
  })

  it('keeps a conversation whose reply is still running, and lets it go when left once done', async () => {
    seed('busy')
    seed('other')
    const conversations = useConversationsStore()
    const chat = useChatStore()
    connectEvents()
    await conversations.select('busy')
    chat.onState({ conversationId: 'busy', state: 'streaming' })
    chat.onDelta({ conversationId: 'busy', delta: 'half a rep' })
    await conversations.select('other')
    expect(chat.messagesFor('busy')).toHaveLength(3)
    expect(chat.streams['busy']?.text).toBe('half a rep')
    chat.onState({ conversationId: 'busy', state: 'idle' })
    await conversations.select('busy')
    await conversations.select('other')
    expect(chat.messages['busy']).toBeUndefined()
  })

  it('keeps unsent messages and composer drafts', async () => {
    seed('a')
    seed('b')
    const conversations = useConversationsStore()
    const chat = useChatStore()
    await conversations.select('a')
    env.fake.failNext('send', 'offline')
    expect(await chat.send('do not lose me', 'a')).toBe(false)
    chat.composerDrafts['a'] = 'half-typed'
    await conversations.select('b')
    expect(chat.messagesFor('a').at(-1)).toMatchObject({ content: 'do not lose me', local: 'failed' })
    expect(chat.composerDrafts['a']).toBe('half-typed')
  })

  it('drops settled cards of a conversation left, keeps pending ones and drafts', async () => {
    seed('a')
    seed('b')
    const settled = env.fake.addCard({ conversationId: 'a', status: 'answered', created_at: '2026-01-01T00:00:01Z', questions: [q({ question: 'Which?' })] })
    const pending = env.fake.addCard({ conversationId: 'a', created_at: '2026-01-01T00:00:02Z', questions: [q({ question: 'And?' })] })
    const conversations = useConversationsStore()
    const questions = useQuestionsStore()
    await conversations.select('a')
    expect(questions.cardsFor('a').map((c) => c.question_id)).toEqual([settled.question_id, pending.question_id])
    questions.ensureDraft(pending.question_id, 1)
    await conversations.select('b')
    expect(questions.cardsFor('a').map((c) => c.question_id)).toEqual([pending.question_id])
    expect(questions.drafts[pending.question_id]).toBeDefined()
    expect(questions.pendingCards.map((c) => c.question_id)).toEqual([pending.question_id])
    await conversations.select('a')
    expect(questions.cardsFor('a').map((c) => c.question_id)).toEqual([settled.question_id, pending.question_id])
  })
})
