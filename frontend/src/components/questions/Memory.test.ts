// Memory on the cards (SPEC §14): "Remember my answer" and "Answer like
// this next time" on a question card and its review step, sent with the
// answer; the remembered state once answered; a card answered from memory,
// shown as such, with "See memory" and "Ask me instead" (a fork, as
// "Change answer"); and the model's `remember` tool as "Remember this?".
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import QuestionCard from './QuestionCard.vue'
import MessageList from '../chat/MessageList.vue'
import type { Card, Message, RespondRequest } from '../../types'
import { makeCard, mountInBody, q, resetDom, settle, setupEnv, type TestEnv } from '../../test-utils'
import { useQuestionsStore } from '../../stores/questions'
import { useSettingsStore } from '../../stores/settings'
import { useMemoryStore } from '../../stores/memory'
import { useChatStore } from '../../stores/chat'
import { cardSummary } from '../../lib/cards'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  resetDom()
})

const twoQuestions = (partial: Partial<Card> = {}) =>
  makeCard({
    question_id: 'q2',
    questions: [
      q({ question: 'Which language?', header: 'Language', options: [{ label: 'Go' }, { label: 'Rust' }] }),
      q({ question: 'Which editor?', header: 'Editor', options: [{ label: 'Vim' }, { label: 'VS Code' }] }),
    ],
    ...partial,
  })

function mountCard(card: Card, props: Record<string, unknown> = {}): VueWrapper {
  w = mount(QuestionCard, { props: { card, ...props }, global: { plugins: [env.pinia] }, attachTo: document.body })
  return w
}
const emitted = (x: VueWrapper) => (x.emitted('respond') ?? []) as [RespondRequest, { autoAnswer?: string[] }?][]
const option = (x: VueWrapper, label: string) => x.findAll<HTMLInputElement>('input[data-option]').find((i) => i.element.closest('label')?.textContent?.includes(label))!

describe('"Remember my answer" on a question card', () => {
  it('is off by default; ticked, it sends remember with the answer, and "Answer like this next time" goes with it', async () => {
    const x = mountCard(makeCard())
    expect(x.find('[data-testid="remember-checkbox"]').exists()).toBe(true)
    expect(x.find('[data-testid="auto-answer-checkbox"]').exists()).toBe(false) // only once remembering
    await option(x, 'SQLite').setValue(true)
    await x.find('[data-testid="remember-checkbox"]').setValue(true)
    expect(x.find('[data-testid="remember-answer"]').text()).toContain('Parley keeps this answer for later conversations')
    await x.find('[data-testid="auto-answer-checkbox"]').setValue(true)
    expect(x.find('[data-testid="remember-answer"]').text()).toContain('When the same question comes again, Parley answers it for you')
    await x.find('form').trigger('submit')
    expect(emitted(x)).toEqual([
      [{ question_id: 'card-1', action: 'submit', answers: { 'Which database?': { selected: ['SQLite'] } }, remember: ['Which database?'] }, { autoAnswer: ['Which database?'] }],
    ])
  })

  it('sends no remember when not ticked, and unticking it unticks "Answer like this next time"', async () => {
    const x = mountCard(makeCard())
    await option(x, 'SQLite').setValue(true)
    await x.find('[data-testid="remember-checkbox"]').setValue(true)
    await x.find('[data-testid="auto-answer-checkbox"]').setValue(true)
    await x.find('[data-testid="remember-checkbox"]').setValue(false)
    expect(x.find('[data-testid="auto-answer-checkbox"]').exists()).toBe(false)
    await x.find('form').trigger('submit')
    expect(emitted(x)).toEqual([[{ question_id: 'card-1', action: 'submit', answers: { 'Which database?': { selected: ['SQLite'] } } }]])
  })

  it('is on every step and on the review step, per question, named after it', async () => {
    const x = mountCard(twoQuestions())
    await option(x, 'Go').setValue(true)
    await x.find('[data-testid="remember-checkbox"]').setValue(true)
    await x.find('[data-testid="primary"]').trigger('click') // Next
    await option(x, 'Vim').setValue(true)
    expect(x.find<HTMLInputElement>('[data-testid="remember-checkbox"]').element.checked).toBe(false) // its own
    await x.find('[data-testid="primary"]').trigger('click') // Review
    const boxes = x.findAll<HTMLInputElement>('[data-testid="remember-checkbox"]')
    expect(boxes.map((b) => [b.attributes('aria-label'), b.element.checked])).toEqual([
      ['Remember my answer to: Which language?', true],
      ['Remember my answer to: Which editor?', false],
    ])
    await boxes[1]!.setValue(true)
    const autos = x.findAll<HTMLInputElement>('[data-testid="auto-answer-checkbox"]')
    expect(autos.map((a) => a.attributes('aria-label'))).toEqual(['Answer like this next time: Which language?', 'Answer like this next time: Which editor?'])
    await autos[1]!.setValue(true)
    await x.find('[data-testid="primary"]').trigger('click') // Submit answers
    expect(emitted(x)).toEqual([
      [
        { question_id: 'q2', action: 'submit', answers: { 'Which language?': { selected: ['Go'] }, 'Which editor?': { selected: ['Vim'] } }, remember: ['Which language?', 'Which editor?'] },
        { autoAnswer: ['Which editor?'] },
      ],
    ])
  })

  it('is not offered while memory is off, nor when changing an earlier answer (a fork keeps no memory)', async () => {
    useSettingsStore().settings = { ...env.fake.settings, memory: 'off' }
    const x = mountCard(makeCard())
    expect(x.find('[data-testid="remember-answer"]').exists()).toBe(false)
    x.unmount()
    useSettingsStore().settings = { ...env.fake.settings, memory: 'on' }
    const y = mountCard(makeCard(), { changing: true })
    expect(y.find('[data-testid="remember-answer"]').exists()).toBe(false)
  })

  it('in the chat: the answer is sent with remember; the card then says it is remembered and answers next time, with a link to it', async () => {
    const card = twoQuestions({ conversationId: 'c1' })
    env.fake.addConversation({ id: 'c1' })
    env.fake.addCard(card)
    useQuestionsStore().upsert(card)
    const list = await mountInBody({ components: { MessageList }, template: '<MessageList conversation-id="c1" />' }, env)
    await option(list, 'Rust').setValue(true)
    await list.find('[data-testid="remember-checkbox"]').setValue(true)
    await list.find('[data-testid="auto-answer-checkbox"]').setValue(true)
    await list.find('[data-testid="primary"]').trigger('click')
    await option(list, 'Vim').setValue(true)
    await list.find('[data-testid="primary"]').trigger('click')
    await list.find('[data-testid="primary"]').trigger('click')
    await settle()
    expect((env.fake.callsOf('respond')[0]![0] as RespondRequest).remember).toEqual(['Which language?'])
    const memory = useMemoryStore()
    const made = memory.memories.find((m) => m.text === 'Language: Which language? — Rust')!
    expect(env.fake.callsOf('updateMemory')).toEqual([[{ id: made.id, auto_answer: true }]])
    const marks = list.findAll('[data-testid="remembered"]')
    expect(marks).toHaveLength(1)
    expect(marks[0]!.text()).toContain('Remembered · answers this next time')
    await marks[0]!.find('[data-testid="see-memory"]').trigger('click')
    expect(useSettingsStore().panelOpen).toBe(true)
    expect(useSettingsStore().panelSection).toBe('memory')
    expect(memory.focusId).toBe(made.id)
  })
})

describe('a card answered from memory', () => {
  async function showAnswered() {
    env.fake.addConversation({ id: 'c1' })
    const card = makeCard({
      question_id: 'qm',
      conversationId: 'c1',
      status: 'answered',
      run_id: 'r1',
      tool_call_id: 'call_1',
      answers: { 'Colour?': 'Red' },
      answered_by: 'memory',
      memory_id: 'm7',
      memory_ids: { 'Colour?': 'm7' },
      questions: [q({ question: 'Colour?', options: [{ label: 'Red' }, { label: 'Blue' }] })],
    })
    env.fake.addCard(card)
    const messages: (Partial<Message> & Pick<Message, 'id' | 'role'>)[] = [
      { id: 'u1', role: 'user', content: 'paint it', run_id: 'r1' },
      { id: 'a1', role: 'assistant', content: '', run_id: 'r1', tool_calls: [{ id: 'call_1', name: 'ask_user_question', arguments: '{}' }] },
      { id: 't1', role: 'tool', run_id: 'r1', tool_call_id: 'call_1', tool_name: 'ask_user_question', content: '{"answers":{"Colour?":"Red"}}' },
      { id: 'a2', role: 'assistant', content: 'Red it is', run_id: 'r1' },
    ]
    for (const m of messages) env.fake.addMessage('c1', m)
    await useChatStore().open('c1')
    return mountInBody({ components: { MessageList }, template: '<MessageList conversation-id="c1" />' }, env)
  }

  it('says so, with the remembered answer and a link to the memory in Settings', async () => {
    const list = await showAnswered()
    const card = list.find('[data-testid="question-card"]')
    expect(card.find('[data-testid="answered-from-memory"]').text()).toContain('Answered from memory')
    expect(card.find('[data-testid="card-answers"]').text()).toContain('Red')
    await card.find('[data-testid="see-memory"]').trigger('click')
    expect(useSettingsStore().panelSection).toBe('memory')
    expect(useMemoryStore().focusId).toBe('m7')
  })

  it('"Ask me instead" reopens it with the remembered answer; the new answer is sent as a fork and the branch is the user’s own', async () => {
    const list = await showAnswered()
    expect(list.find('[data-testid="change-answer"]').exists()).toBe(false)
    const ask = list.find('[data-testid="ask-me-instead"]')
    expect(ask.text()).toBe('Ask me instead')
    await ask.trigger('click')
    await settle()
    const editor = list.find('[data-testid="change-answer-card"]')
    expect(editor.find('[data-testid="answered-from-memory"]').exists()).toBe(false)
    expect(option(editor as unknown as VueWrapper, 'Red').element.checked).toBe(true)
    await option(editor as unknown as VueWrapper, 'Blue').setValue(true)
    await editor.find('[data-testid="primary"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('forkQuestion')).toEqual([[{ id: 'c1', question_id: 'qm', answers: { 'Colour?': { selected: ['Blue'] } } }]])
    expect(env.fake.callsOf('respond')).toEqual([])
    expect(list.find('[data-testid="change-answer-card"]').exists()).toBe(false)
    // Once the conversation is read again (the run's end), the new branch (2/2) shows the user's answer, not "from memory"
    // (the first branch still does: e2e/memory.test.mjs, the fake keeps no branches).
    env.fake.setState('c1', 'idle')
    await useChatStore().open('c1')
    await settle()
    expect(list.find('[data-testid="branch-position"]').text()).toBe('2/2')
    expect(list.find('[data-testid="answered-from-memory"]').exists()).toBe(false)
    expect(list.find('[data-testid="card-answers"]').text()).toContain('Blue')
    expect(list.find('[data-testid="change-answer"]').exists()).toBe(true)
  })
})

describe('an agent’s card answered from memory', () => {
  // The agent's tool call already returned with the answer (SPEC §10): there
  // is no run of Parley's to go on from another answer, and the service
  // refuses to fork an agent's conversation. So neither "Ask me instead" nor
  // "Change answer" is offered; "See memory" stays (turn auto-answer off there).
  it('offers "See memory", not "Ask me instead"', async () => {
    env.fake.addConversation({ id: 'c1', agent: 'claude-code' })
    env.fake.addCard(
      makeCard({
        question_id: 'qa',
        conversationId: 'c1',
        status: 'answered',
        source: { type: 'agent', agent: 'claude-code' },
        answers: { 'Colour?': 'Red' },
        answered_by: 'memory',
        memory_id: 'm8',
        memory_ids: { 'Colour?': 'm8' },
        questions: [q({ question: 'Colour?', options: [{ label: 'Red' }, { label: 'Blue' }] })],
      }),
    )
    await useChatStore().open('c1')
    const list = await mountInBody({ components: { MessageList }, template: '<MessageList conversation-id="c1" />' }, env)
    expect(list.find('[data-testid="answered-from-memory"]').exists()).toBe(true)
    expect(list.find('[data-testid="see-memory"]').exists()).toBe(true)
    expect(list.find('[data-testid="ask-me-instead"]').exists()).toBe(false)
    expect(list.find('[data-testid="change-answer"]').exists()).toBe(false)
  })
})

describe('the remember tool: "Remember this?"', () => {
  function rememberCard(partial: Partial<Card> = {}): Card {
    return makeCard({
      question_id: 'rm-1',
      conversationId: 'c1',
      kind: 'approval',
      source: { type: 'model', tool: 'remember' },
      questions: [],
      tool: {
        server: 'Parley',
        name: 'remember',
        description: 'Remember this?',
        arguments: { text: 'The user deploys with Docker.' },
        input_schema: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 500 } } },
      },
      ...partial,
    })
  }
  async function show(card: Card) {
    env.fake.addConversation({ id: 'c1' })
    env.fake.addCard(card)
    useQuestionsStore().upsert(card)
    return mountInBody({ components: { MessageList }, template: '<MessageList conversation-id="c1" />' }, env)
  }
  const sent = () => env.fake.callsOf('respond').map((c) => {
    const { id: _id, ...req } = c[0] as Record<string, unknown>
    return req
  })

  it('is titled "Remember this?" with the text in a labelled textarea, not "Allow remember from Parley?"', async () => {
    const list = await show(rememberCard())
    const card = list.find('[data-testid="approval-card"]')
    expect(card.find('h2').text()).toBe('Remember this?')
    expect(card.text()).not.toContain('Allow')
    expect(card.find('[data-testid="approve-always"]').exists()).toBe(false)
    expect(card.find('[data-testid="approval-arguments"]').exists()).toBe(false)
    const area = card.find<HTMLTextAreaElement>('[data-testid="remember-text"]')
    expect(area.element.value).toBe('The user deploys with Docker.')
    expect(document.querySelector(`label[for="${area.attributes('id')}"]`)?.textContent).toBe('What to remember')
    expect(cardSummary(rememberCard())).toBe('Remember this?')
  })

  it('approves the proposal as is, without arguments', async () => {
    const list = await show(rememberCard())
    await list.find('[data-testid="remember-approve"]').trigger('click')
    await settle()
    expect(sent()).toEqual([{ question_id: 'rm-1', action: 'approve' }])
    expect(list.find('[data-testid="remember-outcome"]').text()).toContain('Remembered.')
    expect(list.find('[data-testid="remember-outcome-text"]').text()).toBe('The user deploys with Docker.')
  })

  it('approves an edited text (Enter in the textarea), sent as the arguments', async () => {
    const list = await show(rememberCard())
    const area = list.find('[data-testid="remember-text"]')
    await area.setValue('  The user deploys with Docker Compose. ')
    await area.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(sent()).toEqual([{ question_id: 'rm-1', action: 'approve', arguments: { text: 'The user deploys with Docker Compose.' } }])
    expect(list.find('[data-testid="remember-outcome-text"]').text()).toBe('The user deploys with Docker Compose.')
  })

  it('refuses an empty text, and "Don\'t remember" rejects', async () => {
    const list = await show(rememberCard())
    await list.find('[data-testid="remember-text"]').setValue('   ')
    await list.find('[data-testid="remember-approve"]').trigger('click')
    await settle()
    expect(sent()).toEqual([])
    expect(list.find('[data-testid="remember-error"]').text()).toBe('Write what to remember.')
    await list.find('[data-testid="remember-reject"]').trigger('click')
    await settle()
    expect(sent()).toEqual([{ question_id: 'rm-1', action: 'reject' }])
    expect(list.find('[data-testid="remember-outcome"]').text()).toContain('Not remembered.')
  })

  it('an MCP tool that happens to be called remember keeps the usual approval card', async () => {
    const list = await show(rememberCard({ source: { type: 'mcp', server: 'notes', tool: 'remember' }, tool: { server: 'notes', name: 'remember', description: '', arguments: { text: 'x' }, input_schema: { type: 'object' } } }))
    expect(list.find('[data-testid="approval-card"] h2').text()).toBe('Allow notes to run remember?')
    expect(list.find('[data-testid="remember-text"]').exists()).toBe(false)
  })
})
