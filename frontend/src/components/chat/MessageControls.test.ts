// The controls under messages (SPEC §7): edit in place, regenerate (also
// with another model), the `< 2/3 >` switcher, copy, and "Change answer" on
// an answered card, in the real MessageList against the fake transport.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import MessageList from './MessageList.vue'
import { makeCard, q, setupEnv, settle, type TestEnv } from '../../test-utils'
import { OPEN_WINDOW, useChatStore } from '../../stores/chat'
import type { Message } from '../../types'
import { flushAfterPaint } from '../../lib/frame'

let env: TestEnv
let w: VueWrapper | null = null
beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  w?.unmount()
  w = null
  document.body.innerHTML = ''
})

async function mountList(messages: (Partial<Message> & Pick<Message, 'id' | 'role'>)[]) {
  env.fake.addConversation({ id: 'c1' })
  for (const m of messages) env.fake.addMessage('c1', m)
  await useChatStore().open('c1')
  w = mount(MessageList, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
  await settle()
  return w
}

const chatOf = () => [
  { id: 'u1', role: 'user' as const, content: 'first' },
  { id: 'a1', role: 'assistant' as const, content: '**bold** reply' },
  { id: 'u2', role: 'user' as const, content: 'second' },
  { id: 'a2', role: 'assistant' as const, content: 're: second', siblings: 3, sibling_index: 1, sibling_ids: ['a2x', 'a2', 'a2z'] },
]

describe('the buttons under a message', () => {
  it("come at once under stored messages, and under a message just sent in a task after the frame that shows it", async () => {
    env.fake.addConversation({ id: 'c1' })
    for (const m of chatOf()) env.fake.addMessage('c1', m)
    const chat = useChatStore()
    await chat.open('c1')
    w = mount(MessageList, { props: { conversationId: 'c1' }, global: { plugins: [env.pinia] }, attachTo: document.body })
    await flushPromises()
    const copies = () => w!.findAll('.msg-item-user').map((m) => m.findAll('.msg-actions [data-testid]').map((b) => b.attributes('data-testid')))
    expect(copies()).toEqual([
      ['copy-message', 'edit-message'],
      ['copy-message', 'edit-message'],
    ])
    await chat.send('third', 'c1')
    await flushPromises()
    expect(w.findAll('[data-testid="user-message"]').map((m) => m.text())).toEqual(['first', 'second', 'third'])
    expect(copies()[2]).toEqual([])
    flushAfterPaint()
    await flushPromises()
    expect(copies()[2]).toEqual(['copy-message'])
    // Stored (the run's echo, with a card's batch): edit after the next paint.
    chat.onDone({ conversationId: 'c1', id: 'u3', role: 'user', content: 'third' })
    await flushPromises()
    expect(copies()[2]).toEqual(['copy-message'])
    flushAfterPaint()
    await flushPromises()
    expect(copies()[2]).toEqual(['copy-message', 'edit-message'])
  })
})

describe('editing a sent message', () => {
  it('opens a textarea with the text: Shift+Enter adds a line, Enter sends a new version, Escape cancels', async () => {
    const list = await mountList(chatOf())
    const edits = list.findAll('[data-testid="edit-message"]')
    expect(edits).toHaveLength(2)
    await edits[1]!.trigger('click')
    const area = list.find<HTMLTextAreaElement>('[data-testid="edit-text"]')
    expect(area.element.value).toBe('second')
    expect(document.activeElement).toBe(area.element)
    // Escape cancels without sending.
    await area.trigger('keydown', { key: 'Escape' })
    expect(list.find('[data-testid="edit-text"]').exists()).toBe(false)
    expect(list.findAll('[data-testid="user-message"]').map((m) => m.text())).toEqual(['first', 'second'])

    await list.findAll('[data-testid="edit-message"]')[1]!.trigger('click')
    const again = list.find<HTMLTextAreaElement>('[data-testid="edit-text"]')
    await again.setValue('second, better')
    await again.trigger('keydown', { key: 'Enter', shiftKey: true })
    expect(env.fake.callsOf('send')).toEqual([])
    await again.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(env.fake.callsOf('send')).toEqual([[{ id: 'c1', content: 'second, better', parent_id: 'a1' }]])
    expect(list.find('[data-testid="edit-text"]').exists()).toBe(false)
    expect(list.findAll('[data-testid="user-message"]').map((m) => m.text())).toEqual(['first', 'second, better'])
    // The new version shows where it is among its siblings.
    expect(list.find('[data-testid="branch-position"]').attributes('aria-label')).toBe('2 of 2')
  })

  it('keeps what the user typed when the edit fails, and is refused while a run is active', async () => {
    const list = await mountList(chatOf())
    await list.findAll('[data-testid="edit-message"]')[0]!.trigger('click')
    await list.find('[data-testid="edit-text"]').setValue('first, rewritten')
    env.fake.failNext('send', 'model server unreachable', 502)
    await list.find('[data-testid="message-editor"]').trigger('submit')
    await settle()
    expect(list.find<HTMLTextAreaElement>('[data-testid="edit-text"]').element.value).toBe('first, rewritten')
    expect(useChatStore().errors.c1).toBe("Couldn't send your edited message: model server unreachable")
    expect(list.findAll('[data-testid="assistant-message"]')).toHaveLength(2)
    await list.find('[data-testid="edit-cancel"]').trigger('click')

    useChatStore().runStates.c1 = 'streaming'
    await settle()
    const edits = list.findAll('[data-testid="edit-message"]')
    expect(edits.length).toBeGreaterThan(1)
    expect(edits.every((b) => b.attributes('data-run-gated') !== undefined)).toBe(true)
    expect(list.find('[data-testid="regenerate"]').attributes('data-run-gated')).toBeDefined()
    // A focused one says it is unavailable and why (and keeps the focus) ...
    const busy = 'The assistant is still working on this conversation. Stop it first, or wait.'
    await edits[0]!.trigger('focus')
    expect(edits[0]!.attributes('aria-disabled')).toBe('true')
    expect(edits[0]!.attributes('title')).toBe(busy)
    expect(edits[1]!.attributes('aria-disabled')).toBeUndefined()
    expect(edits[1]!.attributes('title')).toBeUndefined()
    // ... and so does one pointed at (CSS dims it), until the pointer leaves;
    // the regenerate pair follows a pointer anywhere on it.
    await edits[1]!.trigger('pointerenter')
    expect(edits[1]!.attributes('aria-disabled')).toBe('true')
    await edits[1]!.trigger('pointerleave')
    expect(edits[1]!.attributes('aria-disabled')).toBeUndefined()
    await list.find('.regen').trigger('pointerenter')
    expect(list.find('[data-testid="regenerate"]').attributes('aria-disabled')).toBe('true')
    expect(list.find('[data-testid="regenerate-with"]').attributes('aria-disabled')).toBe('true')
    expect(list.find('[data-testid="regenerate-with"]').attributes('title')).toBe(busy)
    // Nothing else marks the run on the list (it would restyle every action).
    expect(list.find('[data-testid="message-list"]').attributes('data-busy')).toBeUndefined()
    // ... and the actions are refused, the conversation saying why (a tap
    // on a touch screen leaves no pointer resting on the button).
    useChatStore().errors.c1 = null
    await edits[0]!.trigger('click')
    await list.find('[data-testid="regenerate"]').trigger('click')
    await list.find('[data-testid="regenerate-with"]').trigger('click')
    await settle()
    expect(list.find('[data-testid="edit-text"]').exists()).toBe(false)
    expect(list.find('[data-testid="regenerate-menu"]').exists()).toBe(false)
    expect(env.fake.callsOf('regenerate')).toEqual([])
    expect(useChatStore().errors.c1).toBe(busy)
    // When the run ends they are available again.
    useChatStore().runStates.c1 = 'idle'
    await settle()
    expect(edits[0]!.attributes('aria-disabled')).toBeUndefined()
    expect(list.find('[data-testid="regenerate"]').attributes('aria-disabled')).toBeUndefined()
    await edits[0]!.trigger('click')
    expect(list.find('[data-testid="edit-text"]').exists()).toBe(true)
  })
})

describe('branch switcher', () => {
  it('shows 2/3 with labelled buttons and switches to the sibling before or after', async () => {
    const list = await mountList(chatOf())
    const sw = list.find('[data-testid="branch-switcher"]')
    expect(sw.find('[data-testid="branch-position"]').text()).toBe('2/3')
    expect(sw.find('[data-testid="branch-position"]').attributes('aria-label')).toBe('2 of 3')
    expect(sw.find('[data-testid="branch-prev"]').attributes('aria-label')).toBe('Previous version')
    expect(sw.find('[data-testid="branch-next"]').attributes('aria-label')).toBe('Next version')
    const spy = vi.spyOn(env.fake, 'selectBranch').mockImplementation(async () => ({
      ...(await env.fake.getConversation({ id: 'c1' })),
      messages: [
        ...chatOf().slice(0, 3).map((m) => ({ ...m, conversationId: 'c1', created_at: '', parent_id: '', siblings: 1, sibling_index: 0 })),
        { id: 'a2z', conversationId: 'c1', role: 'assistant', content: 'third version', created_at: '', parent_id: 'u2', siblings: 3, sibling_index: 2, sibling_ids: ['a2x', 'a2', 'a2z'] },
      ],
    }))
    await sw.find('[data-testid="branch-next"]').trigger('click')
    await settle()
    expect(spy).toHaveBeenCalledWith({ id: 'c1', message_id: 'a2z', last: OPEN_WINDOW })
    expect(list.findAll('[data-testid="assistant-message"]').at(-1)!.text()).toBe('third version')
    expect(list.find('[data-testid="branch-position"]').text()).toBe('3/3')
    expect(list.find('[data-testid="branch-next"]').attributes('disabled')).toBeDefined()
    await list.find('[data-testid="branch-prev"]').trigger('click')
    expect(spy).toHaveBeenLastCalledWith({ id: 'c1', message_id: 'a2', last: OPEN_WINDOW })
  })
})

describe('regenerate and copy', () => {
  it('regenerates a reply, or with a model picked from the menu (tools marked)', async () => {
    const list = await mountList(chatOf())
    await list.findAll('[data-testid="regenerate"]')[0]!.trigger('click')
    await settle()
    expect(env.fake.callsOf('regenerate')).toEqual([[{ id: 'c1', message_id: 'a1' }]])
    expect(list.findAll('[data-testid="assistant-message"]')).toHaveLength(0)
    useChatStore().runStates.c1 = 'idle'
    env.fake.setState('c1', 'idle')
    env.fake.addMessage('c1', { id: 'a1b', role: 'assistant', content: 'again', siblings: 2, sibling_index: 1, sibling_ids: ['a1', 'a1b'] })
    await useChatStore().open('c1')
    await settle()
    await list.find('[data-testid="regenerate-with"]').trigger('click')
    await settle()
    const menu = list.find('[data-testid="regenerate-menu"]')
    expect(menu.findAll('[role="menuitem"]').map((b) => b.text())).toEqual(['qwen3tools', 'llama3.2tools', 'gemma2'])
    await menu.find('[data-model="gemma2"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('regenerate').at(-1)).toEqual([{ id: 'c1', message_id: 'a1b', model: 'gemma2' }])
    expect(list.find('[data-testid="regenerate-menu"]').exists()).toBe(false)
  })

  it('copies a reply as its Markdown source and a user message, with "Copied" feedback', async () => {
    const list = await mountList(chatOf())
    const copies = list.findAll('[data-testid="copy-message"]')
    expect(copies).toHaveLength(4)
    await copies[1]!.trigger('click')
    await settle()
    expect(env.fake.copied).toEqual(['**bold** reply'])
    expect(copies[1]!.text()).toBe('Copied')
    await copies[0]!.trigger('click')
    expect(env.fake.copied).toEqual(['**bold** reply', 'first'])
  })
})

describe('changing an answer', () => {
  it('reopens the answered card with the answer of this branch; submitting forks, keeping the old answer reachable', async () => {
    env.fake.addConversation({ id: 'c1' })
    const card = makeCard({
      question_id: 'q1',
      conversationId: 'c1',
      status: 'answered',
      run_id: 'r1',
      tool_call_id: 'call_1',
      answers: { 'Colour?': 'Red' },
      questions: [q({ question: 'Colour?', options: [{ label: 'Red' }, { label: 'Blue' }] })],
    })
    env.fake.addCard(card)
    await mountList([
      { id: 'u1', role: 'user', content: 'ask me', run_id: 'r1' },
      { id: 'a1', role: 'assistant', content: '', run_id: 'r1', tool_calls: [{ id: 'call_1', name: 'ask_user_question', arguments: '{}' }] },
      // This branch's answer is Blue (an earlier change); Red is its sibling.
      { id: 't2', role: 'tool', run_id: 'r1', tool_call_id: 'call_1', tool_name: 'ask_user_question', content: '{"answers":{"Colour?":"Blue"}}', siblings: 2, sibling_index: 1, sibling_ids: ['t1', 't2'] },
      { id: 'a2', role: 'assistant', content: 'Blue it is', run_id: 'r2' },
    ])
    const list = w!
    expect(list.find('[data-testid="question-card"]').text()).toContain('Blue')
    expect(list.find('[data-testid="change-answer-row"] [data-testid="branch-position"]').text()).toBe('2/2')
    await list.find('[data-testid="change-answer"]').trigger('click')
    await settle()
    const editor = list.find('[data-testid="change-answer-card"]')
    const checked = editor.findAll<HTMLInputElement>('input[data-option]').filter((i) => i.element.checked)
    expect(checked.map((i) => i.element.closest('label')?.textContent)).toEqual([expect.stringContaining('Blue')])
    expect(editor.find('[data-testid="skip"]').exists()).toBe(false)
    // Pick Red again: a new branch.
    const red = editor.findAll<HTMLInputElement>('input[data-option]').find((i) => i.element.closest('label')?.textContent?.includes('Red'))!
    await red.setValue(true)
    await editor.find('[data-testid="primary"]').trigger('click')
    await settle()
    expect(env.fake.callsOf('forkQuestion')).toEqual([[{ id: 'c1', question_id: 'q1', answers: { 'Colour?': { selected: ['Red'] } } }]])
    expect(list.find('[data-testid="change-answer-card"]').exists()).toBe(false)
    expect(list.findAll('[data-testid="assistant-message"]')).toHaveLength(0)
  })

  it('a refused answer stays in the reopened card with the reason; "Keep my answer" closes it', async () => {
    env.fake.addConversation({ id: 'c1' })
    env.fake.addCard(
      makeCard({ question_id: 'q1', conversationId: 'c1', status: 'answered', run_id: 'r1', tool_call_id: 'call_1', answers: { 'Name?': 'Ann' }, questions: [q({ question: 'Name?' })] }),
    )
    await mountList([
      { id: 'u1', role: 'user', content: 'ask me', run_id: 'r1' },
      { id: 'a1', role: 'assistant', content: '', run_id: 'r1', tool_calls: [{ id: 'call_1', name: 'ask_user_question', arguments: '{}' }] },
      { id: 't1', role: 'tool', run_id: 'r1', tool_call_id: 'call_1', tool_name: 'ask_user_question', content: '{"answers":{"Name?":"Ann"}}' },
    ])
    const list = w!
    await list.find('[data-testid="change-answer"]').trigger('click')
    await settle()
    const text = list.find<HTMLTextAreaElement | HTMLInputElement>('[data-testid="change-answer-card"] [data-open-input]')
    expect(text.element.value).toBe('Ann')
    await text.setValue('Annabel')
    env.fake.failNext('forkQuestion', 'answer for "Name?" is too long', 422)
    await list.find('[data-testid="change-answer-card"] [data-testid="primary"]').trigger('click')
    await settle()
    expect(list.find('[data-testid="change-answer-card"] [data-testid="respond-error"]').text()).toBe('answer for "Name?" is too long')
    expect(list.find<HTMLInputElement>('[data-testid="change-answer-card"] [data-open-input]').element.value).toBe('Annabel')
    expect(list.findAll('[data-testid="tool-result"], [data-testid="question-card"]')).toHaveLength(1)
    await list.find('[data-testid="keep-answer"]').trigger('click')
    expect(list.find('[data-testid="change-answer-card"]').exists()).toBe(false)
  })
})
