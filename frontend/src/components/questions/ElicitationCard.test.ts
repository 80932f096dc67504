// The elicitation card (SPEC §6) in the chat's message list, answered
// through the questions store and the fake transport: form mode with every
// field type as steps of the card, typed content, required fields, a 422
// that keeps the input; URL mode with the domain highlighted, a punycode
// warning and nothing opened until "Open" is clicked; and outcomes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VueWrapper } from '@vue/test-utils'
import MessageList from '../chat/MessageList.vue'
import type { Card } from '../../types'
import { makeCard, mountInBody, resetDom, settle, setupEnv, type TestEnv } from '../../test-utils'
import { useQuestionsStore } from '../../stores/questions'

let env: TestEnv
beforeEach(() => {
  env = setupEnv()
})
afterEach(resetDom)

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    email: { type: 'string', format: 'email', title: 'Email' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150, default: 30 },
    agree: { type: 'boolean', title: 'Agree?' },
    colour: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue', 'cyan', 'magenta', 'yellow'] },
    size: { type: 'string', title: 'Size', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['x', 'y', 'z'] } },
  },
  required: ['name', 'email', 'colour'],
}

function elicitation(partial: Partial<Card> = {}): Card {
  return makeCard({
    question_id: 'el-1',
    kind: 'elicitation',
    source: { type: 'mcp', server: 'everything', tool: 'trigger-elicitation-request' },
    questions: [],
    server: 'everything',
    message: 'Please tell us about yourself',
    mode: 'form',
    schema: SCHEMA,
    ...partial,
  })
}

async function show(card: Card): Promise<VueWrapper> {
  env.fake.addConversation({ id: card.conversationId })
  env.fake.addCard(card)
  useQuestionsStore().upsert(card)
  return mountInBody({ components: { MessageList }, template: `<MessageList conversation-id="${card.conversationId}" />` }, env)
}

const card = (w: VueWrapper) => w.find('[data-testid="elicitation-card"]')
const click = async (w: VueWrapper, id: string) => {
  await w.find(`[data-testid="${id}"]`).trigger('click')
  await settle()
}
const primary = async (w: VueWrapper) => {
  await w.find('form').trigger('submit')
  await settle()
}
const stepTitle = (w: VueWrapper) => w.find('[data-card-question] .sfield-name').text()
/** The responses sent, without the conversation's id (the request's `id`). */
const sent = () => env.fake.callsOf('respond').map((c) => {
  const { id: _id, ...req } = c[0] as Record<string, unknown>
  return req
})

describe('ElicitationCard, form mode', () => {
  it('names the server, shows its message and the non-sensitive note, one step per property in order', async () => {
    const w = await show(elicitation())
    expect(card(w).find('h2').text()).toBe('everything asks for information')
    expect(w.find('[data-testid="elicitation-message"]').text()).toBe('Please tell us about yourself')
    expect(w.find('[data-testid="elicitation-note"]').text()).toContain('“everything”')
    expect(w.find('[data-testid="elicitation-note"]').text()).toContain('non-sensitive')
    expect(w.findAll('[role="tab"] .step-label').map((t) => t.text())).toEqual(['Name', 'Email', 'Age', 'Agree?', 'Colour', 'Size', 'Tags', 'Review'])
    expect(stepTitle(w)).toBe('Name *')
    expect(document.activeElement).toBe(w.find('[data-field="name"] input').element)
  })

  it('answers every field type, step by step, and accepts with values typed per schema', async () => {
    const w = await show(elicitation())
    // Required: the step does not move on while empty.
    await primary(w)
    expect(w.find('[data-testid="field-error"]').text()).toBe('This field is required.')
    await w.find('[data-field="name"] input').setValue('Ann')
    await primary(w)
    expect(stepTitle(w)).toBe('Email *')
    const email = w.find('[data-field="email"] input')
    expect(email.attributes('type')).toBe('email')
    await email.setValue('ann@')
    await primary(w)
    expect(w.find('[data-testid="field-error"]').text()).toContain('email address')
    await email.setValue('ann@example.com')
    await primary(w)
    // A default is pre-filled.
    expect((w.find('[data-field="age"] input').element as HTMLInputElement).value).toBe('30')
    await w.find('[data-field="age"] input').setValue('41')
    await primary(w)
    // Booleans as Yes/No.
    expect(w.findAll('[data-field="agree"] .opt-label').map((l) => l.text())).toEqual(['Yes', 'No'])
    await w.findAll('[data-field="agree"] input')[0]!.setValue(true)
    await primary(w)
    // More than four options; the number keys pick them.
    expect(w.findAll('[data-field="colour"] input[type="radio"]')).toHaveLength(6)
    await card(w).trigger('keydown', { key: '6' })
    await primary(w)
    expect(w.findAll('[data-field="size"] .opt-label').map((l) => l.text())).toEqual(['Small', 'Large'])
    await w.findAll('[data-field="size"] input')[1]!.setValue(true)
    await primary(w)
    const tags = w.findAll('[data-field="tags"] input[type="checkbox"]')
    await tags[2]!.setValue(true)
    await tags[0]!.setValue(true)
    await primary(w)
    // The review lists everything with option titles.
    expect(w.findAll('[data-testid="review-value"]').map((v) => v.text())).toEqual(['Ann', 'ann@example.com', '41', 'Yes', 'yellow', 'Large', 'x, z'])
    await primary(w)
    expect(sent()).toEqual([
      {
        question_id: 'el-1',
        action: 'accept',
        content: { name: 'Ann', email: 'ann@example.com', age: 41, agree: true, colour: 'yellow', size: 'l', tags: ['x', 'z'] },
      },
    ])
    expect(card(w).attributes('data-status')).toBe('accepted')
    const out = w.find('[data-testid="outcome-values"]')
    expect(out.text()).toContain('Large')
    expect(out.text()).toContain('x, z')
  })

  it('leaves out optional fields left empty and jumps to the first missing required one', async () => {
    const w = await show(elicitation())
    // The age default counts as answered: its tab is ticked.
    expect(w.findAll('[role="tab"] .step-num').map((n) => n.text())).toEqual(['1', '2', '✓', '4', '5', '6', '7'])
    await w.findAll('[role="tab"]').at(-1)!.trigger('click')
    await primary(w)
    expect(sent()).toEqual([])
    expect(w.find('[data-testid="elicitation-review"]').text()).toContain('This field is required.')
    await w.findAll('[role="tab"]')[0]!.trigger('click')
    await w.find('[data-field="name"] input').setValue('Bo')
    await w.findAll('[role="tab"]')[1]!.trigger('click')
    await w.find('[data-field="email"] input').setValue('bo@example.com')
    await w.findAll('[role="tab"]')[4]!.trigger('click')
    await w.findAll('[data-field="colour"] input')[0]!.setValue(true)
    await w.findAll('[role="tab"]').at(-1)!.trigger('click')
    await primary(w)
    expect(sent()).toEqual([{ question_id: 'el-1', action: 'accept', content: { name: 'Bo', email: 'bo@example.com', age: 30, colour: 'red' } }])
  })

  it('shows a 422 from the backend and keeps every value', async () => {
    const w = await show(elicitation({ schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }))
    expect(w.findAll('[role="tab"]')).toHaveLength(0)
    await w.find('[data-field="name"] input').setValue('Zed')
    env.fake.failNext('respond', 'content.name: must be at least 5 characters', 422)
    await primary(w)
    expect(w.find('[data-testid="respond-error"]').text()).toBe('content.name: must be at least 5 characters')
    expect((w.find('[data-field="name"] input').element as HTMLInputElement).value).toBe('Zed')
    expect(card(w).attributes('data-status')).toBe('pending')
  })

  it('declines, and cancels after a confirmation', async () => {
    const w = await show(elicitation())
    await click(w, 'decline')
    expect(sent()).toEqual([{ question_id: 'el-1', action: 'decline' }])
    expect(card(w).find('[data-testid="card-status"]').text()).toBe('Declined')
    expect(w.find('[data-testid="elicitation-outcome"]').text()).toBe('Declined: nothing was sent.')
    resetDom()
    env = setupEnv()
    const c = await show(elicitation({ question_id: 'el-2' }))
    await click(c, 'cancel')
    await click(c, 'confirm-cancel')
    expect(sent()).toEqual([{ question_id: 'el-2', action: 'cancel' }])
  })

  it('keeps the draft when the card is shown again (switching conversations)', async () => {
    const w = await show(elicitation())
    await w.find('[data-field="name"] input').setValue('Kept')
    w.unmount()
    const again = await mountInBody({ components: { MessageList }, template: '<MessageList conversation-id="conv-1" />' }, env)
    expect((again.find('[data-field="name"] input').element as HTMLInputElement).value).toBe('Kept')
  })

  it('shows resolved cards: values, timed out, and a request that ended when Parley closed', async () => {
    const w = await show(elicitation({ status: 'accepted', content: { name: 'Ann', agree: false, size: 's' } }))
    const out = w.find('[data-testid="outcome-values"]')
    expect(out.findAll('dt').map((d) => d.text())).toEqual(['Name', 'Agree?', 'Size'])
    expect(out.findAll('dd').map((d) => d.text())).toEqual(['Ann', 'No', 'Small'])
    resetDom()
    env = setupEnv()
    const t = await show(elicitation({ question_id: 'el-3', status: 'timed_out' }))
    expect(t.find('[data-testid="elicitation-outcome"]').text()).toContain('Timed out')
    expect(t.find('form').exists()).toBe(false)
    resetDom()
    env = setupEnv()
    const r = await show(elicitation({ question_id: 'el-4', status: 'cancelled', reason: "The server's request ended when Parley closed." }))
    expect(r.find('[data-testid="ended-by-restart"]').text()).toBe("The server's request ended when Parley closed.")
  })

  it('says when the schema cannot be shown', async () => {
    const w = await show(elicitation({ schema: { type: 'object', properties: { deep: { type: 'object' }, name: { type: 'string' } } } }))
    expect(w.find('[data-testid="schema-problem"]').text()).toContain('deep')
  })
})

describe('ElicitationCard, URL mode', () => {
  const urlCard = (url: string, partial: Partial<Card> = {}) =>
    elicitation({ mode: 'url', schema: undefined, url, message: 'Sign in to continue', ...partial })

  it('shows the full URL with its domain highlighted, and opens it only on click', async () => {
    const w = await show(urlCard('https://auth.example.com/oauth/start?state=abc'))
    expect(card(w).find('h2').text()).toBe('everything asks you to open a link')
    expect(w.find('[data-testid="elicitation-url"]').text()).toBe('https://auth.example.com/oauth/start?state=abc')
    expect(w.find('[data-testid="url-host"]').element.tagName).toBe('MARK')
    expect(w.find('[data-testid="url-host"]').text()).toBe('auth.example.com')
    expect(w.find('[data-testid="punycode-warning"]').exists()).toBe(false)
    expect(w.find('[data-testid="elicitation-note"]').exists()).toBe(false)
    expect(env.fake.opened).toEqual([])
    await click(w, 'elicitation-open')
    expect(env.fake.opened).toEqual(['https://auth.example.com/oauth/start?state=abc'])
    await primary(w)
    expect(sent()).toEqual([{ question_id: 'el-1', action: 'accept' }])
    expect(w.find('[data-testid="elicitation-outcome"]').text()).toBe('Accepted.')
  })

  it('warns for a punycode domain and a user@ part, and refuses to open other schemes', async () => {
    const w = await show(urlCard('https://paypal.com@xn--pypal-4ve.com/login'))
    expect(w.find('[data-testid="url-host"]').text()).toBe('xn--pypal-4ve.com')
    expect(w.find('[data-testid="punycode-warning"]').text()).toContain('punycode')
    expect(w.find('[data-testid="userinfo-warning"]').exists()).toBe(true)
    resetDom()
    env = setupEnv()
    const j = await show(urlCard('javascript:alert(1)', { question_id: 'el-5' }))
    expect((j.find('[data-testid="elicitation-open"]').element as HTMLButtonElement).disabled).toBe(true)
    await click(j, 'elicitation-open')
    expect(env.fake.opened).toEqual([])
  })
})
