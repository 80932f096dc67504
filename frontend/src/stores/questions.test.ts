import { beforeEach, describe, expect, it, vi } from 'vitest'
import { computed, isReactive } from 'vue'
import { makeCard, q, setupEnv, settle, type TestEnv } from '../test-utils'
import { useQuestionsStore } from './questions'
import { useConversationsStore } from './conversations'
import { connectEvents } from './events'
import type { Card } from '../types'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

const question = q({ question: 'Tea or coffee?', options: [{ label: 'Tea' }, { label: 'Coffee' }] })

describe('questions store', () => {
  it('question:ask and question:resolved keep the inbox count across conversations', async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addConversation({ id: 'b' })
    const store = useQuestionsStore()
    connectEvents()
    env.fake.emit('question:ask', makeCard({ question_id: 'q1', conversationId: 'a', created_at: '2026-01-01T00:00:01Z' }))
    env.fake.emit('question:ask', makeCard({ question_id: 'q2', conversationId: 'b', created_at: '2026-01-01T00:00:02Z' }))
    await settle()
    expect(store.inboxCount).toBe(2)
    expect(store.pendingCards.map((c) => c.question_id)).toEqual(['q1', 'q2'])
    expect(store.cardsFor('b').map((c) => c.question_id)).toEqual(['q2'])
    expect(store.pendingCountFor('a')).toBe(1)

    env.fake.emit('question:resolved', makeCard({ question_id: 'q1', conversationId: 'a', status: 'answered', answers: { 'Which database?': 'SQLite' } }))
    await settle()
    expect(store.inboxCount).toBe(1)
    expect(store.cards.q1!.answers).toEqual({ 'Which database?': 'SQLite' })
  })

  it("a conversation's card list stays the same list until one of its cards changes; the counts follow every status", () => {
    const store = useQuestionsStore()
    store.upsert(makeCard({ question_id: 'a1', conversationId: 'a', created_at: '2026-01-01T00:00:02Z' }))
    store.upsert(makeCard({ question_id: 'a0', conversationId: 'a', created_at: '2026-01-01T00:00:01Z', status: 'answered' }))
    store.upsert(makeCard({ question_id: 'b1', conversationId: 'b', created_at: '2026-01-01T00:00:03Z' }))
    const listA = store.cardsFor('a')
    expect(listA.map((c) => c.question_id)).toEqual(['a0', 'a1'])
    expect(store.cardsFor('a')).toBe(listA) // read again: not built again
    expect(store.cardsFor('none')).toEqual([])
    expect([store.pendingCountFor('a'), store.pendingCountFor('b'), store.pendingCountFor('none')]).toEqual([1, 1, 0])

    store.upsert(makeCard({ question_id: 'b1', conversationId: 'b', status: 'declined' }))
    expect(store.pendingCountFor('b')).toBe(0)
    expect(store.cardsFor('b').map((c) => c.status)).toEqual(['declined'])
    expect(store.cardsFor('a').map((c) => c.question_id)).toEqual(['a0', 'a1'])

    store.upsert(makeCard({ question_id: 'a2', conversationId: 'a', created_at: '2026-01-01T00:00:00Z' }))
    expect(store.cardsFor('a')).not.toBe(listA)
    expect(store.cardsFor('a').map((c) => c.question_id)).toEqual(['a2', 'a0', 'a1'])
    expect(store.pendingCountFor('a')).toBe(2)
    expect(store.inboxCount).toBe(2)
  })

  it('loads pending cards for the inbox and a conversation’s cards', async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addConversation({ id: 'b' })
    env.fake.addCard({ question_id: 'p1', conversationId: 'a', questions: [question] })
    env.fake.addCard({ question_id: 'p2', conversationId: 'b', questions: [question], status: 'answered' })
    const store = useQuestionsStore()
    await store.loadPending()
    expect(store.inboxCount).toBe(1)
    await store.loadForConversation('b')
    expect(store.cardsFor('b').map((c) => c.status)).toEqual(['answered'])
    expect(store.inboxCount).toBe(1)
  })

  it("a card resolved by an event while its conversation's cards were loading stays resolved", async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addCard({ question_id: 'p1', conversationId: 'a', questions: [question] })
    env.fake.addCard({ question_id: 'p2', conversationId: 'a', questions: [question] })
    const store = useQuestionsStore()
    const stop = connectEvents()
    await store.loadPending()
    const before = await env.fake.conversationQuestions({ id: 'a' })
    let answer!: (list: Card[]) => void
    vi.spyOn(env.fake, 'conversationQuestions').mockImplementationOnce(() => new Promise((r) => (answer = r)))
    const loading = store.loadForConversation('a')
    // The card is answered after the list was read, before it arrives.
    const p1 = before.find((c) => c.question_id === 'p1')!
    env.fake.emit('question:resolved', { ...p1, status: 'answered', answers: { 'Tea or coffee?': 'Tea' } })
    await settle()
    answer(before)
    await loading
    expect(store.cards.p1!.status).toBe('answered')
    expect(store.cards.p1!.answers).toEqual({ 'Tea or coffee?': 'Tea' })
    expect(store.cards.p2!.status).toBe('pending')
    expect(store.inboxCount).toBe(1)

    // A later load, with no event meanwhile: the server is the truth for the conversation's cards.
    vi.mocked(env.fake.conversationQuestions).mockResolvedValueOnce([{ ...p1, status: 'answered', answers: { 'Tea or coffee?': 'Coffee' } }])
    await store.loadForConversation('a')
    expect(store.cards.p1!.answers).toEqual({ 'Tea or coffee?': 'Coffee' })
    stop()
  })

  it("a card answered while its conversation's cards were loading stays answered (no event needed)", async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addCard({ question_id: 'p1', conversationId: 'a', questions: [question] })
    const store = useQuestionsStore()
    await store.loadPending()
    const before = await env.fake.conversationQuestions({ id: 'a' })
    let answer!: (list: Card[]) => void
    vi.spyOn(env.fake, 'conversationQuestions').mockImplementationOnce(() => new Promise((r) => (answer = r)))
    const loading = store.loadForConversation('a')
    // The user answers after the list was read, before it arrives; no event follows.
    const body = { question_id: 'p1', action: 'submit' as const, answers: { 'Tea or coffee?': { selected: ['Tea'] } } }
    expect(await store.respond('a', body)).toBe(true)
    answer(before)
    await loading
    expect(store.cards.p1!.status).toBe('answered')
    expect(store.cards.p1!.answers).toEqual({ 'Tea or coffee?': 'Tea' })
    expect(store.inboxCount).toBe(0)
  })

  it('never moves a resolved card back to pending (late or repeated events)', () => {
    const store = useQuestionsStore()
    store.upsert(makeCard({ status: 'answered', answers: { 'Which database?': 'Postgres' } }))
    store.upsert(makeCard({ status: 'pending' }))
    expect(store.cards['card-1']!.status).toBe('answered')
    expect(store.cards['card-1']!.answers).toEqual({ 'Which database?': 'Postgres' })
    store.upsert(makeCard({ question_id: 't', status: 'timed_out' }))
    store.upsert(makeCard({ question_id: 't', status: 'answered_late' }))
    expect(store.cards.t!.status).toBe('answered_late')
  })

  it('responds through the transport with the exact body and takes the returned card', async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addCard({ question_id: 'p1', conversationId: 'a', questions: [question] })
    const store = useQuestionsStore()
    await store.loadPending()
    const body = { question_id: 'p1', action: 'submit' as const, answers: { 'Tea or coffee?': { selected: ['Tea'] } } }
    expect(await store.respond('a', body)).toBe(true)
    expect(env.fake.callsOf('respond')).toEqual([[{ id: 'a', ...body }]])
    expect(store.cards.p1!.status).toBe('answered')
    expect(store.cards.p1!.answers).toEqual({ 'Tea or coffee?': 'Tea' })
    expect(store.inboxCount).toBe(0)
  })

  it('shows a respond error, and a friendly one for a conflict', async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addCard({ question_id: 'p1', conversationId: 'a', questions: [question] })
    const store = useQuestionsStore()
    await store.loadPending()
    env.fake.failNext('respond', 'answers[0]: "Milk" is not an option', 422)
    expect(await store.respond('a', { question_id: 'p1', action: 'submit', answers: { 'Tea or coffee?': { selected: ['Milk'] } } })).toBe(false)
    expect(store.respondErrors.p1).toBe('answers[0]: "Milk" is not an option')
    expect(store.cards.p1!.status).toBe('pending')
    env.fake.failNext('respond', 'question is no longer pending', 409)
    await store.respond('a', { question_id: 'p1', action: 'decline' })
    expect(store.respondErrors.p1).toBe('This question was already answered or closed.')
    expect(store.sending.p1).toBe(false)
  })

  it('keeps drafts per card id while the user switches conversations', async () => {
    env.fake.addConversation({ id: 'a' })
    env.fake.addConversation({ id: 'b' })
    env.fake.addCard({ question_id: 'qa', conversationId: 'a', questions: [question] })
    const store = useQuestionsStore()
    const conversations = useConversationsStore()
    await conversations.select('a')
    const d = store.ensureDraft('qa', 1)
    d.answers[0]!.selected = ['Coffee']
    d.comments = 'oat milk'
    await conversations.select('b')
    await conversations.select('a')
    expect(store.ensureDraft('qa', 1).answers[0]!.selected).toEqual(['Coffee'])
    expect(store.drafts.qa!.comments).toBe('oat milk')
  })

  it('drops the draft once the card is resolved, and forgets deleted conversations', () => {
    const store = useQuestionsStore()
    store.upsert(makeCard())
    store.ensureDraft('card-1', 1).comments = 'x'
    store.upsert(makeCard({ status: 'declined' }))
    expect(store.drafts['card-1']).toBeUndefined()
    store.forgetConversation('conv-1')
    expect(store.cards['card-1']).toBeUndefined()
  })
  it('sorts cards by the time they were asked, to the millisecond, however many digits the time has', () => {
    const store = useQuestionsStore()
    // Go writes RFC 3339 with the fractional digits it needs: as text, ".123Z" sorts before ".12Z".
    store.upsert(makeCard({ question_id: 'late', conversationId: 'a', created_at: '2026-01-01T00:00:05.123Z' }))
    store.upsert(makeCard({ question_id: 'early', conversationId: 'a', created_at: '2026-01-01T00:00:05.12Z' }))
    store.upsert(makeCard({ question_id: 'next-second', conversationId: 'a', created_at: '2026-01-01T00:00:06Z' }))
    store.upsert(makeCard({ question_id: 'nanos', conversationId: 'a', created_at: '2026-01-01T00:00:05.120000001Z' }))
    store.upsert(makeCard({ question_id: 'unknown', conversationId: 'a', created_at: '' }))
    expect(store.cardsFor('a').map((c) => c.question_id)).toEqual(['early', 'nanos', 'late', 'next-second', 'unknown'])
    expect(store.pendingCards.map((c) => c.question_id)).toEqual(['early', 'nanos', 'late', 'next-second', 'unknown'])
  })

  it('what is computed from the cards follows every way a card comes, changes and goes', async () => {
    env.fake.addConversation({ id: 'a' })
    const store = useQuestionsStore()
    const shown = computed(() => store.cardsFor('a').map((c) => `${c.question_id}:${c.status}`))
    const inbox = computed(() => store.inboxCount)
    expect(shown.value).toEqual([])

    store.upsert(makeCard({ question_id: 'q1', conversationId: 'a', created_at: '2026-01-01T00:00:01Z' }))
    expect([shown.value, inbox.value]).toEqual([['q1:pending'], 1])
    // Kept as a plain object (replaced on change, never changed in place): the
    // lists over all cards do not read each card through a reactive proxy.
    expect(isReactive(store.cards.q1)).toBe(false)

    store.upsert(makeCard({ question_id: 'q1', conversationId: 'a', status: 'answered' }))
    expect([shown.value, inbox.value]).toEqual([['q1:answered'], 0])

    env.fake.addCard(makeCard({ question_id: 'q2', conversationId: 'a', created_at: '2026-01-01T00:00:02Z' }))
    await store.loadForConversation('a')
    expect(shown.value).toContain('q2:pending')
    expect(inbox.value).toBe(1)

    store.releaseConversation('a') // the settled card goes, the waiting one stays
    expect([shown.value, inbox.value]).toEqual([['q2:pending'], 1])

    store.forgetConversation('a')
    expect([shown.value, inbox.value]).toEqual([[], 0])
  })
})
