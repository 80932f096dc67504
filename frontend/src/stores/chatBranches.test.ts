// The chat store's conversation control (SPEC §7): edit, regenerate, branch
// switching and changing a card's answer, against the fake transport.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { setupEnv, makeCard, q, type TestEnv } from '../test-utils'
import { OPEN_WINDOW, useChatStore } from './chat'
import { useQuestionsStore } from './questions'
import { connectEvents } from './events'
import type { ConversationDetail } from '../types'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

/** u1 → a1 → u2 → a2 in conversation c1. */
async function seed() {
  env.fake.addConversation({ id: 'c1', title: 'Tree' })
  env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'first' })
  env.fake.addMessage('c1', { id: 'a1', role: 'assistant', content: 're: first' })
  env.fake.addMessage('c1', { id: 'u2', role: 'user', content: 'second' })
  env.fake.addMessage('c1', { id: 'a2', role: 'assistant', content: 're: second' })
  const chat = useChatStore()
  await chat.open('c1')
  return chat
}

const ids = (chat: ReturnType<typeof useChatStore>) => chat.messagesFor('c1').map((m) => m.id)

describe('editing a sent message', () => {
  it('keeps the files of the message it replaces', async () => {
    env.fake.addConversation({ id: 'c1', title: 'Files' })
    const file = { name: 'notes.md', mime_type: 'text/markdown', size: 5, data: btoa('hello') }
    env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'summarise this', attachments: [file] })
    env.fake.addMessage('c1', { id: 'a1', role: 'assistant', content: 'ok' })
    const chat = useChatStore()
    await chat.open('c1')
    expect(await chat.editMessage('c1', 'u1', 'summarise this in French')).toBe(true)
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'summarise this in French', parent_id: '', attachments: [file] }]])
  })

  it('sends under the message parent, shows the new branch and takes the confirmed message from its event', async () => {
    const chat = await seed()
    connectEvents()
    expect(chat.startEdit('c1', 'u2')).toBe(true)
    expect(chat.editing.c1).toBe('u2')
    expect(chat.editDrafts.u2).toBe('second')
    expect(await chat.editMessage('c1', 'u2', '  second, edited ')).toBe(true)
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'second, edited', parent_id: 'a1' }]])
    const list = chat.messagesFor('c1')
    expect(list.map((m) => m.content)).toEqual(['first', 're: first', 'second, edited'])
    expect(list.at(-1)).toMatchObject({ parent_id: 'a1', siblings: 2, sibling_index: 1 })
    expect(chat.editing.c1).toBeNull()
    expect(chat.stateOf('c1')).toBe('requesting')
    // The run's events land on the new branch.
    chat.onDone({ conversationId: 'c1', id: 'u2b', role: 'user', content: 'second, edited', parent_id: 'a1', siblings: 2, sibling_index: 1, sibling_ids: ['u2', 'u2b'] })
    chat.onDone({ conversationId: 'c1', id: 'a2b', role: 'assistant', content: 're: second, edited', parent_id: 'u2b' })
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2b', 'a2b'])
    expect(chat.messagesFor('c1')[2]!.sibling_ids).toEqual(['u2', 'u2b'])
  })

  it('a first message is edited with parent_id ""', async () => {
    const chat = await seed()
    expect(await chat.editMessage('c1', 'u1', 'first again')).toBe(true)
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'first again', parent_id: '' }]])
    expect(chat.messagesFor('c1').map((m) => m.content)).toEqual(['first again'])
  })

  it('on 409 and 404 the old path comes back and the editor keeps the text', async () => {
    const chat = await seed()
    chat.startEdit('c1', 'u2')
    env.fake.failNext('send', 'a run is already active in this conversation', 409)
    expect(await chat.editMessage('c1', 'u2', 'my careful rewrite')).toBe(false)
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(chat.errors.c1).toMatch(/still working/)
    expect(chat.editing.c1).toBe('u2')
    expect(chat.editDrafts.u2).toBe('my careful rewrite')
    expect(chat.stateOf('c1')).toBe('idle')

    env.fake.failNext('send', 'parent_id: message a1 not found', 404)
    expect(await chat.editMessage('c1', 'u2', 'my careful rewrite')).toBe(false)
    expect(chat.errors.c1).toBe("Couldn't send your edited message: it is no longer in this conversation (parent_id: message a1 not found).")
    expect(chat.editDrafts.u2).toBe('my careful rewrite')
  })

  it('is refused while a run is active; Up-arrow edits the last sent message', async () => {
    const chat = await seed()
    chat.runStates.c1 = 'streaming'
    expect(chat.startEdit('c1', 'u2')).toBe(false)
    expect(await chat.editMessage('c1', 'u2', 'x')).toBe(false)
    expect(env.fake.callsOf('send')).toEqual([])
    chat.runStates.c1 = 'idle'
    expect(chat.editLastUserMessage('c1')).toBe(true)
    expect(chat.editing.c1).toBe('u2')
    chat.cancelEdit('c1')
    expect(chat.editing.c1).toBeNull()
    expect(chat.editDrafts.u2).toBeUndefined()
  })
})

describe('regenerating a reply', () => {
  it('cuts the path after the user message and asks for a new reply, with another model when chosen', async () => {
    const chat = await seed()
    expect(await chat.regenerate('c1', 'a2', 'llama3.2')).toBe(true)
    expect(env.fake.callsOf('regenerate')).toEqual([[{ id: 'c1', message_id: 'a2', model: 'llama3.2' }]])
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2'])
    expect(chat.stateOf('c1')).toBe('requesting')
    chat.onDone({ conversationId: 'c1', id: 'a2b', role: 'assistant', content: 'another', parent_id: 'u2', siblings: 2, sibling_index: 1, sibling_ids: ['a2', 'a2b'] })
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2b'])
  })

  it('regenerateLast takes the newest reply; a failure puts the reply back', async () => {
    const chat = await seed()
    env.fake.failNext('regenerate', 'message a2 not found', 404)
    expect(await chat.regenerateLast('c1')).toBe(false)
    expect(env.fake.callsOf('regenerate')).toEqual([[{ id: 'c1', message_id: 'a2' }]])
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(chat.errors.c1).toMatch(/^Couldn't regenerate the reply: it is no longer in this conversation/)
    env.fake.failNext('regenerate', 'model llava has no vision', 422)
    expect(await chat.regenerate('c1', 'a1')).toBe(false)
    expect(chat.errors.c1).toBe("Couldn't regenerate the reply: model llava has no vision")
  })

  // Issue 23: the new reply never came (the model failed, or the user
  // stopped it before it answered): the old reply is shown again, and Retry
  // regenerates it again instead of running on from the old reply.
  it('puts the old reply back when the run fails or is stopped before the new reply came; Retry regenerates again', async () => {
    const chat = await seed()
    expect(await chat.regenerate('c1', 'a2')).toBe(true)
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2'])
    chat.onDelta({ conversationId: 'c1', delta: 'half a rep', messageId: 'a2b', runId: 'r-late' })
    chat.onRunError({ conversationId: 'c1', error: 'model crashed', runId: chat.regenerating.c1!.runId })
    chat.onState({ conversationId: 'c1', runId: chat.regenerating.c1?.runId ?? '', state: 'error', error: 'model crashed' })
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(chat.hasStream('c1')).toBe(false)
    expect(chat.errors.c1).toBe('model crashed')

    // Retry regenerates the same reply again.
    // (The fake backend put the old reply back too, as Go does.)
    env.fake.addMessage('c1', { id: 'a2', role: 'assistant', content: 're: second' })
    env.fake.setState('c1', 'error')
    expect(await chat.retry('c1')).toBe(true)
    expect(env.fake.callsOf('regenerate').map((c) => (c[0] as { message_id: string }).message_id)).toEqual(['a2', 'a2'])
    expect(env.fake.callsOf('retry')).toEqual([])
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2'])

    // Stopped before the new reply came: no error, the old reply again.
    chat.onState({ conversationId: 'c1', runId: chat.regenerating.c1!.runId, state: 'idle' })
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(chat.regenerating.c1).toBeUndefined()
  })

  it('keeps the new branch once a message of the regenerating run arrived', async () => {
    const chat = await seed()
    expect(await chat.regenerate('c1', 'a2')).toBe(true)
    const runId = chat.regenerating.c1!.runId
    chat.onDone({ conversationId: 'c1', runId, message: { id: 'a2b', conversationId: 'c1', role: 'assistant', content: 'partial', parent_id: 'u2', siblings: 2, sibling_index: 1, run_id: runId, created_at: '' } })
    chat.onRunError({ conversationId: 'c1', error: 'cut off', runId })
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2b'])
    expect(chat.retryRegenerate.c1).toBeUndefined()
  })

  it('loads the installed models for the menu', async () => {
    const chat = useChatStore()
    await chat.loadModels()
    expect(chat.models.map((m) => m.name)).toEqual(['qwen3', 'llama3.2', 'gemma2'])
    env.fake.failNext('listModels', 'server down', 502)
    await chat.loadModels()
    expect(chat.modelsError).toBe('server down')
  })
})

describe('switching branches', () => {
  it('replaces the path with the one the backend returns', async () => {
    const chat = await seed()
    const other: ConversationDetail = {
      ...(await env.fake.getConversation({ id: 'c1' })),
      messages: [
        { id: 'u1', conversationId: 'c1', role: 'user', content: 'first', created_at: '', parent_id: '', siblings: 1, sibling_index: 0 },
        { id: 'a1b', conversationId: 'c1', role: 'assistant', content: 'other', created_at: '', parent_id: 'u1', siblings: 2, sibling_index: 1, sibling_ids: ['a1', 'a1b'] },
      ],
    }
    const spy = vi.spyOn(env.fake, 'selectBranch').mockResolvedValueOnce(other)
    expect(await chat.selectBranch('c1', 'a1b')).toBe(true)
    expect(spy).toHaveBeenCalledWith({ id: 'c1', message_id: 'a1b', last: OPEN_WINDOW })
    expect(ids(chat)).toEqual(['u1', 'a1b'])
  })

  it('says why it could not switch and keeps the path', async () => {
    const chat = await seed()
    env.fake.failNext('selectBranch', 'a run is already active', 409)
    expect(await chat.selectBranch('c1', 'a1')).toBe(false)
    expect(chat.errors.c1).toMatch(/still working/)
    env.fake.failNext('selectBranch', 'message zz not found', 404)
    expect(await chat.selectBranch('c1', 'zz')).toBe(false)
    expect(chat.errors.c1).toMatch(/^Couldn't switch to that version: it is no longer/)
    expect(ids(chat)).toEqual(['u1', 'a1', 'u2', 'a2'])
  })
})

describe('changing an answer', () => {
  async function seedCard() {
    env.fake.addConversation({ id: 'c1', title: 'Cards' })
    env.fake.addMessage('c1', { id: 'u1', role: 'user', content: 'ask me' })
    env.fake.addMessage('c1', { id: 'a1', role: 'assistant', content: '', run_id: 'r1', tool_calls: [{ id: 'call_1', name: 'ask_user_question', arguments: '{}' }] })
    env.fake.addMessage('c1', { id: 't1', role: 'tool', content: '{"answers":{"Colour?":"Red"}}', tool_call_id: 'call_1', tool_name: 'ask_user_question', run_id: 'r1' })
    env.fake.addMessage('c1', { id: 'a2', role: 'assistant', content: 'Red it is', run_id: 'r1' })
    env.fake.addCard(
      makeCard({ question_id: 'q1', conversationId: 'c1', status: 'answered', run_id: 'r1', tool_call_id: 'call_1', answers: { 'Colour?': 'Red' }, questions: [q({ question: 'Colour?', options: [{ label: 'Red' }, { label: 'Blue' }] })] }),
    )
    const chat = useChatStore()
    await chat.open('c1')
    return chat
  }

  it('forks at the card: the path ends at the call and the new tool result follows', async () => {
    const chat = await seedCard()
    connectEvents()
    expect(await chat.forkAnswer('q1', { 'Colour?': { selected: ['Blue'] } }, 'changed my mind')).toBe(true)
    expect(env.fake.callsOf('forkQuestion')).toEqual([[{ id: 'c1', question_id: 'q1', answers: { 'Colour?': { selected: ['Blue'] } }, comments: 'changed my mind' }]])
    expect(ids(chat)[0]).toBe('u1')
    expect(ids(chat)[1]).toBe('a1')
    // The fake emits no message:done for the new result; the path was cut at the call.
    expect(chat.messagesFor('c1').slice(2).every((m) => m.id !== 't1' && m.id !== 'a2')).toBe(true)
    expect(chat.forkErrors.q1).toBeNull()
  })

  it('422 keeps the old path and puts the reason on the card', async () => {
    const chat = await seedCard()
    env.fake.failNext('forkQuestion', 'answer for "Colour?": "Green" is not one of the options', 422)
    expect(await chat.forkAnswer('q1', { 'Colour?': { selected: ['Green'] } })).toBe(false)
    expect(chat.forkErrors.q1).toBe('answer for "Colour?": "Green" is not one of the options')
    expect(ids(chat)).toEqual(['u1', 'a1', 't1', 'a2'])
    env.fake.failNext('forkQuestion', 'busy', 409)
    expect(await chat.forkAnswer('q1', { 'Colour?': { selected: ['Blue'] } })).toBe(false)
    expect(chat.forkErrors.q1).toMatch(/still working/)
    expect(await chat.forkAnswer('nope', {})).toBe(false)
    expect(chat.forkErrors.nope).toBe('This question no longer exists.')
    expect(useQuestionsStore().cards.q1!.answers).toEqual({ 'Colour?': 'Red' })
  })
})
