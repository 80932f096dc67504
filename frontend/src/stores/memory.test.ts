// The memory store (SPEC §14): the list with project names, kept live by
// memory:changed, its actions, and "Remember my answer" / "Answer like this
// next time" sent with a card's answer through the questions store.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Memory } from '../types'
import { makeCard, q, settle, setupEnv, type TestEnv } from '../test-utils'
import { ADDING, DELETING_ALL, useMemoryStore } from './memory'
import { useQuestionsStore } from './questions'
import { connectEvents } from './events'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString()
function memory(partial: Partial<Memory> & Pick<Memory, 'id' | 'text'>): Memory {
  return { source: { type: 'user' }, project_id: null, auto_answer: false, created_at: at(1), used_at: null, ...partial }
}

describe('memory store', () => {
  it('loads every memory with the names of their projects', async () => {
    await env.fake.createProject({ name: 'Thesis' })
    const [p] = await env.fake.projects()
    env.fake.storedMemories = [memory({ id: 'm2', text: 'Due in May.', project_id: p!.id }), memory({ id: 'm1', text: 'I write Go.' })]
    const store = useMemoryStore()
    await store.load()
    expect(store.loaded).toBe(true)
    expect(store.memories.map((m) => m.text)).toEqual(['Due in May.', 'I write Go.'])
    expect(store.projectNames[p!.id]).toBe('Thesis')
    expect(env.fake.callsOf('memories')).toEqual([[{}]])
  })

  it('shows a failed load, and reads the list again on memory:changed once loaded', async () => {
    const store = useMemoryStore()
    env.fake.failNext('memories', 'database is locked', 500)
    await store.load()
    expect(store.loadError).toBe('database is locked')
    const off = connectEvents()
    try {
      env.fake.storedMemories = [memory({ id: 'm1', text: 'I write Go.' })]
      env.fake.emit('memory:changed', { conversationId: '', ids: ['m1'] })
      await settle()
      expect(store.memories.map((m) => m.id)).toEqual(['m1'])
      expect(store.loadError).toBeNull()
    } finally {
      off()
    }
  })

  it('does not load on memory:changed before anyone asked for the list', async () => {
    const off = connectEvents()
    try {
      env.fake.emit('memory:changed', { conversationId: '', ids: ['m1'] })
      await settle()
      expect(env.fake.callsOf('memories')).toEqual([])
    } finally {
      off()
    }
  })

  it('adds, edits, sets auto-answer, deletes one and deletes all, keeping each action’s error', async () => {
    const store = useMemoryStore()
    await store.load()
    expect(await store.create('  I prefer short answers. ')).toBe(true)
    const id = store.memories[0]!.id
    expect(store.memories[0]!.text).toBe('I prefer short answers.')
    expect(await store.setText(id, 'I prefer very short answers.')).toBe(true)
    expect(env.fake.callsOf('updateMemory')).toEqual([[{ id, text: 'I prefer very short answers.' }]])
    expect(store.byId(id)!.text).toBe('I prefer very short answers.')
    // Only a remembered answer can answer cards: the fake refuses, as Go does.
    expect(await store.setAutoAnswer(id, true)).toBe(false)
    expect(store.errors[id]).toBe('Only a remembered answer can answer cards.')
    expect(await store.create(' ')).toBe(false)
    expect(store.errors[ADDING]).toBeTruthy()
    await store.create('Second.')
    expect(await store.remove(id)).toBe(true)
    expect(store.memories.map((m) => m.text)).toEqual(['Second.'])
    env.fake.failNext('deleteAllMemories', 'disk full', 500)
    expect(await store.removeAll()).toBe(false)
    expect(store.errors[DELETING_ALL]).toBe('disk full')
    expect(await store.removeAll()).toBe(true)
    expect(store.memories).toEqual([])
    expect(env.fake.storedMemories).toEqual([])
  })
})

describe('remembering an answer', () => {
  function twoQuestions() {
    env.fake.addConversation({ id: 'c1' })
    return env.fake.addCard(
      makeCard({
        question_id: 'q1',
        conversationId: 'c1',
        questions: [
          q({ question: 'Which language?', header: 'Language', options: [{ label: 'Go' }, { label: 'Rust' }] }),
          q({ question: 'Which editor?', header: 'Editor', options: [{ label: 'Vim' }, { label: 'VS Code' }] }),
        ],
      }),
    )
  }

  it('sends remember with the answer; the memories it made are listed, and "Answer like this next time" marks its own', async () => {
    const card = twoQuestions()
    const questions = useQuestionsStore()
    questions.upsert(card)
    const ok = await questions.respond(
      'c1',
      {
        question_id: 'q1',
        action: 'submit',
        answers: { 'Which language?': { selected: ['Go'] }, 'Which editor?': { selected: ['Vim'] } },
        remember: ['Which language?', 'Which editor?'],
      },
      { autoAnswer: ['Which editor?'] },
    )
    expect(ok).toBe(true)
    await settle()
    expect(env.fake.callsOf('respond')[0]![0]).toMatchObject({ remember: ['Which language?', 'Which editor?'] })
    const store = useMemoryStore()
    expect(store.memories.map((m) => [m.text, m.auto_answer]).sort()).toEqual([
      ['Editor: Which editor? — Vim', true],
      ['Language: Which language? — Go', false],
    ])
    const editor = store.ofQuestion('q1', card.questions[1]!, 2)!
    expect(env.fake.callsOf('updateMemory')).toEqual([[{ id: editor.id, auto_answer: true }]])
    expect(store.ofQuestion('q1', card.questions[0]!, 2)!.text).toBe('Language: Which language? — Go')
  })

  it('marks "Answer like this next time" even when memory:changed starts another load meanwhile', async () => {
    // The race seen under load: the event's load made afterAnswer's own
    // load stale, and the memories the answer made were never found.
    const card = twoQuestions()
    const questions = useQuestionsStore()
    questions.upsert(card)
    const store = useMemoryStore()
    await store.load()
    const off = connectEvents()
    try {
      env.fake.latency = 5 // every call waits, so the loads overlap
      const ok = await questions.respond(
        'c1',
        {
          question_id: 'q1',
          action: 'submit',
          answers: { 'Which language?': { selected: ['Go'] }, 'Which editor?': { selected: ['Vim'] } },
          remember: ['Which language?', 'Which editor?'],
        },
        { autoAnswer: ['Which language?', 'Which editor?'] },
      )
      expect(ok).toBe(true)
      void store.load() // a memory:changed arriving now
      await vi.waitFor(() => expect(env.fake.storedMemories.filter((m) => m.auto_answer)).toHaveLength(2))
      await vi.waitFor(() => expect(store.memories.filter((m) => m.auto_answer)).toHaveLength(2))
    } finally {
      off()
    }
  })

  it('sets no auto-answer for a question that was not remembered, and none when the answer was refused', async () => {
    const card = twoQuestions()
    const questions = useQuestionsStore()
    questions.upsert(card)
    env.fake.failNext('respond', 'the card has no question "Which OS?" to remember', 400)
    expect(await questions.respond('c1', { question_id: 'q1', action: 'submit', answers: {}, remember: ['Which OS?'] }, { autoAnswer: ['Which OS?'] })).toBe(false)
    await questions.respond(
      'c1',
      { question_id: 'q1', action: 'submit', answers: { 'Which language?': { selected: ['Go'] }, 'Which editor?': { selected: ['Vim'] } }, remember: ['Which language?'] },
      { autoAnswer: ['Which editor?'] },
    )
    await settle()
    expect(env.fake.callsOf('updateMemory')).toEqual([])
    expect(useMemoryStore().memories.map((m) => m.text)).toEqual(['Language: Which language? — Go'])
  })
})
