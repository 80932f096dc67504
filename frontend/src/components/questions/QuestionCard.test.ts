import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { nextTick } from 'vue'
import QuestionCard from './QuestionCard.vue'
import type { Card, RespondRequest } from '../../types'
import { makeCard, q, setupEnv, type TestEnv } from '../../test-utils'
import { useQuestionsStore } from '../../stores/questions'
import { afterPaint, flushAfterPaint } from '../../lib/frame'
import { setLanguage } from '../../i18n'

let env: TestEnv
let wrapper: VueWrapper | null = null

beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  wrapper?.unmount()
  wrapper = null
  document.body.innerHTML = ''
  vi.useRealTimers()
})

function mountCard(card: Card, props: Record<string, unknown> = {}): VueWrapper {
  wrapper = mount(QuestionCard, {
    props: { card, ...props },
    global: { plugins: [env.pinia] },
    attachTo: document.body,
  })
  return wrapper
}

function responses(w: VueWrapper): RespondRequest[] {
  return (w.emitted('respond') ?? []).map((args) => args[0] as RespondRequest)
}

const submit = (w: VueWrapper) => w.find('form').trigger('submit')
const key = (w: VueWrapper, k: string, opts: Record<string, unknown> = {}) => w.find('section').trigger('keydown', { key: k, ...opts })
const radios = (w: VueWrapper) => w.findAll<HTMLInputElement>('input[type="radio"]')
const checkboxes = (w: VueWrapper) => w.findAll<HTMLInputElement>('input[type="checkbox"][data-option]')

const multiCard = () =>
  makeCard({
    question_id: 'multi-1',
    questions: [
      q({
        question: 'Which features?',
        header: 'Features',
        multiSelect: true,
        options: [{ label: 'Auth' }, { label: 'Search' }, { label: 'Billing' }],
      }),
    ],
  })

const openCard = () =>
  makeCard({
    question_id: 'open-1',
    questions: [q({ question: 'What should the project be called?', options: [], placeholder: 'A short name' })],
  })

const fourCard = () =>
  makeCard({
    question_id: 'four-1',
    questions: [
      q({ question: 'Language?', header: 'Lang', options: [{ label: 'Go' }, { label: 'Rust' }] }),
      q({ question: 'Targets?', header: 'Targets', multiSelect: true, options: [{ label: 'Linux' }, { label: 'macOS' }, { label: 'Windows' }] }),
      q({ question: 'Licence?', header: 'Licence', allowCustom: false, options: [{ label: 'MIT' }, { label: 'Apache-2.0' }] }),
      q({ question: 'Anything else we should know?', options: [] }),
    ],
  })

describe('QuestionCard: structure and accessibility', () => {
  it('shows the question in a fieldset legend, a radiogroup with labelled radios, descriptions and the header chip', () => {
    const w = mountCard(makeCard())
    const fieldset = w.find('fieldset')
    expect(fieldset.attributes('role')).toBe('radiogroup')
    expect(fieldset.find('legend').text()).toContain('Which database?')
    expect(w.find('.chip').text()).toBe('Database')
    const r = radios(w)
    // 3 options + Other, all in one named group, each inside its label
    expect(r).toHaveLength(4)
    expect(new Set(r.map((x) => x.attributes('name'))).size).toBe(1)
    for (const input of r) expect(input.element.closest('label')).not.toBeNull()
    expect(r[0]!.element.closest('label')!.textContent).toContain('Postgres')
    const descId = r[0]!.attributes('aria-describedby')!
    expect(document.getElementById(descId)!.textContent).toBe('Relational, battle-tested')
    expect(r[2]!.attributes('aria-describedby')).toBeUndefined()
    // Other free text with its label and counter
    const other = w.find('input[type="text"]')
    expect(other.attributes('aria-label')).toBe('Other answer')
    expect(other.attributes('maxlength')).toBe('1000')
    expect(w.find('.counter').text()).toContain('0 / 1000')
    // live region and a labelled region
    expect(w.find('[aria-live="polite"]').exists()).toBe(true)
    const section = w.find('section')
    expect(document.getElementById(section.attributes('aria-labelledby')!)!.textContent).toContain('question')
  })

  it('uses checkboxes in a group with a hint for multi-select', () => {
    const w = mountCard(multiCard())
    const fieldset = w.find('fieldset')
    expect(fieldset.attributes('role')).toBeUndefined() // a fieldset is a group
    expect(checkboxes(w)).toHaveLength(4)
    expect(radios(w)).toHaveLength(0)
    expect(document.getElementById(fieldset.attributes('aria-describedby')!)!.textContent).toBe('Choose all that apply.')
  })

  it('moves focus into the card once it has been painted, not before', async () => {
    ;(document.activeElement as HTMLElement | null)?.blur()
    const w = mountCard(makeCard())
    await nextTick()
    await nextTick()
    // Focusing lays the page out at once: the frame that shows the card does not wait for it.
    expect(document.activeElement).toBe(document.body)
    flushAfterPaint()
    await nextTick()
    expect(document.activeElement).toBe(radios(w)[0]!.element)
  })

  it("moves focus after the card's own frame, not with work of a frame begun before it came", async () => {
    ;(document.activeElement as HTMLElement | null)?.blur()
    vi.useFakeTimers()
    const frames: FrameRequestCallback[] = []
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb))
    vi.stubGlobal('cancelAnimationFrame', () => {})
    try {
      // The send's frame has begun; the task after it has not run yet.
      afterPaint(() => {})
      frames.shift()!(0)
      const w = mountCard(makeCard())
      await nextTick()
      await nextTick()
      vi.advanceTimersByTime(2) // the send's after-paint task
      await nextTick()
      expect(document.activeElement).toBe(document.body) // the card's frame has not come: its layout must not wait for the focus
      frames.splice(0).forEach((f) => f(0)) // the card's frame
      vi.advanceTimersByTime(2)
      await nextTick()
      expect(document.activeElement).toBe(radios(w)[0]!.element)
    } finally {
      flushAfterPaint()
      vi.unstubAllGlobals()
    }
  })

  it('leaves focus where the user moved it before the card was painted', async () => {
    const w = mountCard(makeCard())
    await nextTick()
    const other = document.createElement('button')
    document.body.appendChild(other)
    other.focus()
    flushAfterPaint()
    await nextTick()
    expect(document.activeElement).toBe(other)
    expect(w.find('[data-option]').exists()).toBe(true)
    other.remove()
  })

  it('does not steal focus from text the user is typing elsewhere', async () => {
    const other = document.createElement('textarea')
    other.value = 'half a sentence'
    document.body.appendChild(other)
    other.focus()
    mountCard(makeCard())
    await nextTick()
    await nextTick()
    expect(document.activeElement).toBe(other)
  })

  it('renders question and option text as plain text, never as HTML', () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(1)</script>[x](javascript:alert(1))'
    const w = mountCard(
      makeCard({
        questions: [
          q({
            question: `Pick ${evil}`,
            header: '<b>h</b>',
            options: [
              { label: `A ${evil}`, description: `<a href="javascript:alert(1)">d</a>` },
              { label: '<svg onload=alert(1)>' },
            ],
            placeholder: '<img src=x onerror=alert(2)>',
          }),
        ],
      }),
    )
    const el = w.element as HTMLElement
    expect(el.querySelector('img, script, svg, b, a')).toBeNull()
    expect(el.querySelector('[onerror], [onload]')).toBeNull()
    expect(el.querySelector('[href^="javascript:"]')).toBeNull()
    expect(w.find('legend').text()).toContain('<img src=x onerror=alert(1)>')
    expect(w.text()).toContain('<svg onload=alert(1)>')
  })
})

describe('QuestionCard: who asks', () => {
  const agentCard = (agent: string, partial: Partial<Card> = {}) => makeCard({ source: { type: 'agent', agent }, ...partial })
  const title = (w: VueWrapper) => w.find('.qcard-title').text()
  /** Mounts the card in place of the one before. */
  const fresh = (card: Card) => {
    wrapper?.unmount()
    wrapper = null
    return mountCard(card)
  }
  const accessibleName = (w: VueWrapper) => document.getElementById(w.find('section').attributes('aria-labelledby')!)!.textContent

  it("an agent's card (SPEC §10) is headed with the agent's name", () => {
    const w = mountCard(agentCard('parley ask'))
    expect(title(w)).toBe('parley ask has a question')
    expect(accessibleName(w)).toBe('parley ask has a question')
    expect(title(fresh(agentCard('claude-code', { questions: fourCard().questions })))).toBe('claude-code has 4 questions')
    expect(title(fresh(agentCard('claude-code', { status: 'answered', answers: { 'Which database?': 'SQLite' } })))).toBe('Question from claude-code')
  })

  it("the assistant's own card keeps its heading", () => {
    expect(title(fresh(makeCard()))).toBe('The assistant has a question')
    expect(title(fresh(fourCard()))).toBe('The assistant has 4 questions')
    expect(title(fresh(makeCard({ status: 'answered', answers: { 'Which database?': 'SQLite' } })))).toBe('Question from the assistant')
  })

  it("renders the agent's name as text, never as HTML", () => {
    const w = mountCard(agentCard('<img src=x onerror=alert(1)>'))
    expect(w.find('.qcard-title img').exists()).toBe(false)
    expect(title(w)).toBe('<img src=x onerror=alert(1)> has a question')
  })

  it("names the agent in the interface's language", async () => {
    await setLanguage('de')
    try {
      expect(title(fresh(agentCard('claude-code')))).toBe('claude-code hat eine Frage')
      expect(title(fresh(agentCard('claude-code', { questions: fourCard().questions })))).toBe('claude-code hat 4 Fragen')
      expect(title(fresh(makeCard()))).toBe('Der Assistent hat eine Frage')
    } finally {
      await setLanguage('en')
    }
  })
})

describe('QuestionCard: answering', () => {
  it('emits the exact respond body for a single-select answer', async () => {
    const w = mountCard(makeCard())
    await radios(w)[1]!.setValue(true)
    await w.find('[data-testid="primary"]').trigger('click')
    expect(responses(w)).toStrictEqual([
      { question_id: 'card-1', action: 'submit', answers: { 'Which database?': { selected: ['SQLite'] } } },
    ])
  })

  it('sends trimmed "Other" text instead of a label, choosing Other when typing', async () => {
    const w = mountCard(makeCard())
    await radios(w)[0]!.setValue(true)
    await w.find('input[type="text"]').setValue('  CockroachDB  ')
    expect(radios(w)[3]!.element.checked).toBe(true)
    expect(radios(w)[0]!.element.checked).toBe(false)
    expect(w.find('.counter').text()).toContain('11 / 1000')
    await submit(w)
    expect(responses(w)).toStrictEqual([
      { question_id: 'card-1', action: 'submit', answers: { 'Which database?': { selected: [], custom: 'CockroachDB' } } },
    ])
  })

  it('sends every ticked label in option order plus Other for multi-select', async () => {
    const w = mountCard(multiCard())
    await checkboxes(w)[2]!.setValue(true) // Billing first
    await checkboxes(w)[0]!.setValue(true) // then Auth
    await checkboxes(w)[3]!.setValue(true) // Other
    await w.find('input[type="text"]').setValue('Exports')
    await submit(w)
    expect(responses(w)).toStrictEqual([
      { question_id: 'multi-1', action: 'submit', answers: { 'Which features?': { selected: ['Auth', 'Billing'], custom: 'Exports' } } },
    ])
  })

  it('unticks a multi-select option when clicked again', async () => {
    const w = mountCard(multiCard())
    await checkboxes(w)[0]!.setValue(true)
    await checkboxes(w)[1]!.setValue(true)
    await checkboxes(w)[0]!.setValue(false)
    await submit(w)
    expect(responses(w)[0]!.answers).toStrictEqual({ 'Which features?': { selected: ['Search'] } })
  })

  it('uses a text field for an open-ended question', async () => {
    const w = mountCard(openCard())
    expect(radios(w)).toHaveLength(0)
    const ta = w.find('textarea[data-open-input]')
    expect(ta.attributes('placeholder')).toBe('A short name')
    expect(document.getElementById(ta.attributes('aria-labelledby')!)!.textContent).toContain('What should the project be called?')
    await ta.setValue('Parley')
    await submit(w)
    expect(responses(w)).toStrictEqual([
      { question_id: 'open-1', action: 'submit', answers: { 'What should the project be called?': { selected: [], custom: 'Parley' } } },
    ])
  })

  it('adds optional comments to the body only when given', async () => {
    const w = mountCard(makeCard())
    await radios(w)[0]!.setValue(true)
    await w.find('[data-testid="add-comment"]').trigger('click')
    const comments = w.find('textarea[data-comments]')
    expect(comments.attributes('maxlength')).toBe('2000')
    await comments.setValue('  needs to run offline ')
    await submit(w)
    expect(responses(w)).toStrictEqual([
      {
        question_id: 'card-1',
        action: 'submit',
        answers: { 'Which database?': { selected: ['Postgres'] } },
        comments: 'needs to run offline',
      },
    ])
  })

  it('emits decline for Skip', async () => {
    const w = mountCard(makeCard())
    await w.find('[data-testid="skip"]').trigger('click')
    expect(responses(w)).toStrictEqual([{ question_id: 'card-1', action: 'decline' }])
    expect(w.find('[data-testid="card-status"]').text()).toBe('Skipped')
  })
})

describe('QuestionCard: validation', () => {
  it('requires an answer and shows why', async () => {
    const w = mountCard(makeCard())
    await submit(w)
    expect(responses(w)).toHaveLength(0)
    const err = w.find('[data-testid="field-error"]')
    expect(err.text()).toBe('Choose an option, or write your own in “Other”.')
    expect(err.attributes('role')).toBe('alert')
    expect(w.find('fieldset').attributes('aria-invalid')).toBe('true')
    // fixing it clears the message
    await radios(w)[0]!.setValue(true)
    expect(w.find('[data-testid="field-error"]').exists()).toBe(false)
  })

  it('says "Choose an option." when there is no Other', async () => {
    const w = mountCard(makeCard({ questions: [q({ question: 'Yes or no?', allowCustom: false, options: [{ label: 'Yes' }, { label: 'No' }] })] }))
    expect(w.find('input[type="text"]').exists()).toBe(false)
    await submit(w)
    expect(w.find('[data-testid="field-error"]').text()).toBe('Choose an option.')
  })

  it('refuses an empty "Other"', async () => {
    const w = mountCard(makeCard())
    await radios(w)[3]!.setValue(true)
    await w.find('input[type="text"]').setValue('   ')
    await submit(w)
    expect(responses(w)).toHaveLength(0)
    expect(w.find('[data-testid="field-error"]').text()).toBe('Write your answer in “Other”, or choose an option.')
  })

  it('refuses "Other" text over 1000 characters and shows the count', async () => {
    const w = mountCard(makeCard())
    await w.find('input[type="text"]').setValue('x'.repeat(1001))
    expect(w.find('.counter').text()).toContain('1001 / 1000')
    expect(w.find('.counter').classes()).toContain('over')
    await submit(w)
    expect(responses(w)).toHaveLength(0)
    expect(w.find('[data-testid="field-error"]').text()).toBe('Your answer is too long: 1001 of 1000 characters.')
  })

  it('accepts exactly 1000 characters', async () => {
    const w = mountCard(makeCard())
    await w.find('input[type="text"]').setValue('y'.repeat(1000))
    await submit(w)
    expect(responses(w)[0]!.answers!['Which database?']!.custom).toHaveLength(1000)
  })

  it('requires text for an open-ended question', async () => {
    const w = mountCard(openCard())
    await submit(w)
    expect(responses(w)).toHaveLength(0)
    expect(w.find('[data-testid="field-error"]').text()).toBe('Write an answer.')
  })

  it('asks for at least one option in multi-select', async () => {
    const w = mountCard(multiCard())
    await submit(w)
    expect(w.find('[data-testid="field-error"]').text()).toBe('Choose at least one option, or write your own in “Other”.')
  })

  it('limits comments to 2000 characters', async () => {
    const w = mountCard(makeCard())
    await radios(w)[0]!.setValue(true)
    await w.find('[data-testid="add-comment"]').trigger('click')
    await w.find('textarea[data-comments]').setValue('c'.repeat(2001))
    await submit(w)
    expect(responses(w)).toHaveLength(0)
    expect(w.text()).toContain('Your comment is too long: 2001 of 2000 characters.')
  })
})

describe('QuestionCard: several questions', () => {
  it('walks through steps, validates each, reviews and submits all four answers', async () => {
    const w = mountCard(fourCard())
    const tabs = w.findAll('[role="tab"]')
    expect(tabs.map((t) => t.text())).toEqual(['1Lang', '2Targets', '3Licence', '4Question 4', 'Review'])
    expect(tabs[0]!.attributes('aria-selected')).toBe('true')
    expect(w.find('legend').text()).toContain('Question 1 of 4')
    expect(w.find('[data-testid="primary"]').text()).toBe('Next')

    // Next without an answer: stays, with a message
    await submit(w)
    expect(w.find('legend').text()).toContain('Language?')
    expect(w.find('[data-testid="field-error"]').text()).toBe('Choose an option, or write your own in “Other”.')

    await key(w, '2') // Rust
    expect(radios(w)[1]!.element.checked).toBe(true)
    await key(w, 'Enter')
    expect(w.find('legend').text()).toContain('Targets?')

    await key(w, '1')
    await key(w, '3')
    expect(checkboxes(w).map((c) => c.element.checked)).toEqual([true, false, true, false])
    await w.find('[data-testid="primary"]').trigger('click')

    expect(w.find('legend').text()).toContain('Licence?')
    await radios(w)[0]!.setValue(true)
    await submit(w)

    expect(w.find('[data-testid="primary"]').text()).toBe('Review')
    await w.find('textarea[data-open-input]').setValue('Ship it by Friday')
    await submit(w)

    // review step
    expect(w.find('.review').exists()).toBe(true)
    expect(w.find('.review').text()).toContain('Rust')
    expect(w.find('.review').text()).toContain('Linux, Windows')
    expect(w.find('.review').text()).toContain('Ship it by Friday')
    expect(w.find('[data-testid="primary"]').text()).toBe('Submit answers')
    expect(responses(w)).toHaveLength(0)
    await key(w, 'Enter')
    expect(responses(w)).toStrictEqual([
      {
        question_id: 'four-1',
        action: 'submit',
        answers: {
          'Language?': { selected: ['Rust'] },
          'Targets?': { selected: ['Linux', 'Windows'] },
          'Licence?': { selected: ['MIT'] },
          'Anything else we should know?': { selected: [], custom: 'Ship it by Friday' },
        },
      },
    ])
  })

  it('arrow keys move between the step tabs', async () => {
    const w = mountCard(fourCard())
    const tab = (i: number) => w.findAll('[role="tab"]')[i]!
    await tab(0).trigger('keydown', { key: 'ArrowRight' })
    expect(tab(1).attributes('aria-selected')).toBe('true')
    expect(tab(1).attributes('tabindex')).toBe('0')
    expect(tab(0).attributes('tabindex')).toBe('-1')
    expect(document.activeElement).toBe(tab(1).element)
    expect(w.find('legend').text()).toContain('Targets?')
    await tab(1).trigger('keydown', { key: 'End' })
    expect(w.find('.review').exists()).toBe(true)
    await tab(4).trigger('keydown', { key: 'ArrowRight' })
    expect(w.find('legend').text()).toContain('Language?')
  })

  it('lets the user go back, and edit from the review', async () => {
    const w = mountCard(fourCard())
    await key(w, '1')
    await submit(w)
    await w.find('[data-testid="back"]').trigger('click')
    expect(w.find('legend').text()).toContain('Language?')
    expect(radios(w)[0]!.element.checked).toBe(true) // kept
    const tabs = w.findAll('[role="tab"]')
    await tabs[4]!.trigger('click')
    const edit = w.findAll('.review button').find((b) => b.text() === 'Edit')!
    expect(edit.attributes('aria-label')).toBe('Edit answer 1: Language?')
    await edit.trigger('click')
    expect(w.find('legend').text()).toContain('Language?')
  })

  it('refuses to submit from the review while answers are missing', async () => {
    const w = mountCard(fourCard())
    await key(w, '2')
    await w.findAll('[role="tab"]')[4]!.trigger('click')
    expect(w.find('.review').text()).toContain('Not answered yet')
    await submit(w)
    expect(responses(w)).toHaveLength(0)
    expect(w.find('[data-testid="summary-error"]').text()).toBe('Answer every question before submitting.')
    expect(w.findAll('[role="tab"]')[1]!.classes()).toContain('invalid')
  })
})

describe('QuestionCard: keyboard', () => {
  it('number keys pick options, and the next number chooses Other', async () => {
    const w = mountCard(makeCard())
    await key(w, '3')
    expect(radios(w)[2]!.element.checked).toBe(true)
    await key(w, '1')
    expect(radios(w)[0]!.element.checked).toBe(true)
    expect(radios(w)[2]!.element.checked).toBe(false)
    await key(w, '9') // no such option: nothing changes
    expect(radios(w)[0]!.element.checked).toBe(true)
    await key(w, '4')
    await nextTick()
    expect(radios(w)[3]!.element.checked).toBe(true)
    expect(document.activeElement).toBe(w.find('input[type="text"]').element)
  })

  it('number keys do nothing while typing in a text field', async () => {
    const w = mountCard(makeCard())
    await w.find('input[type="text"]').trigger('keydown', { key: '1' })
    expect(radios(w)[0]!.element.checked).toBe(false)
  })

  it('arrow keys move between options', async () => {
    const w = mountCard(multiCard())
    await nextTick()
    await checkboxes(w)[0]!.trigger('keydown', { key: 'ArrowDown' })
    expect(document.activeElement).toBe(checkboxes(w)[1]!.element)
    await checkboxes(w)[1]!.trigger('keydown', { key: 'ArrowUp' })
    expect(document.activeElement).toBe(checkboxes(w)[0]!.element)
  })

  it('Enter submits; Enter in the Other field submits too', async () => {
    const w = mountCard(makeCard())
    await key(w, '2')
    await radios(w)[1]!.trigger('keydown', { key: 'Enter' })
    expect(responses(w)).toHaveLength(1)

    wrapper!.unmount()
    const w2 = mountCard(makeCard({ question_id: 'card-2' }))
    const other = w2.find('input[type="text"]')
    await other.setValue('DuckDB')
    await other.trigger('keydown', { key: 'Enter' })
    expect(responses(w2)[0]!.answers).toStrictEqual({ 'Which database?': { selected: [], custom: 'DuckDB' } })
  })

  it('Esc asks to confirm; Esc again keeps answering; confirming cancels', async () => {
    const w = mountCard(makeCard())
    await key(w, 'Escape')
    const confirm = w.find('[data-testid="cancel-confirm"]')
    expect(confirm.exists()).toBe(true)
    expect(confirm.attributes('role')).toBe('alertdialog')
    expect(confirm.text()).toContain('Cancel this question?')
    await nextTick()
    expect((document.activeElement as HTMLElement).textContent).toContain('Keep answering')
    expect(responses(w)).toHaveLength(0)

    await key(w, 'Escape')
    expect(w.find('[data-testid="cancel-confirm"]').exists()).toBe(false)
    expect(responses(w)).toHaveLength(0)

    await key(w, 'Escape')
    await w.find('[data-testid="confirm-cancel"]').trigger('click')
    expect(responses(w)).toStrictEqual([{ question_id: 'card-1', action: 'cancel' }])
    expect(w.find('[data-testid="card-status"]').text()).toBe('Cancelled')
  })

  it('the Cancel button asks for the same confirmation', async () => {
    const w = mountCard(makeCard())
    await w.find('[data-testid="cancel"]').trigger('click')
    expect(responses(w)).toHaveLength(0)
    expect(w.find('[data-testid="cancel-confirm"]').exists()).toBe(true)
  })
})

describe('QuestionCard: after answering', () => {
  it('becomes read-only right after submitting and shows the answers', async () => {
    const w = mountCard(makeCard())
    await key(w, '1')
    await w.find('[data-testid="add-comment"]').trigger('click')
    await w.find('textarea[data-comments]').setValue('prefer managed')
    await submit(w)
    expect(w.findAll('input').length).toBe(0)
    expect(w.find('form').exists()).toBe(false)
    expect(w.find('[data-testid="card-answers"]').text()).toContain('Which database?')
    expect(w.find('[data-testid="card-answers"]').text()).toContain('Postgres')
    expect(w.find('[data-testid="card-answers"]').text()).toContain('prefer managed')
    expect(w.find('[data-testid="card-status"]').text()).toBe('Answered')
    expect(w.find('[data-testid="live"]').text()).toBe('Answer sent.')
  })

  it('shows "Sending…" while busy and becomes editable again on a respond error', async () => {
    const w = mountCard(makeCard())
    await key(w, '2')
    await submit(w)
    await w.setProps({ busy: true })
    expect(w.find('[data-testid="card-status"]').text()).toBe('Sending…')
    await w.setProps({ busy: false, error: 'answers[0]: "x" is not an option' })
    expect(w.find('form').exists()).toBe(true)
    expect(w.find('[data-testid="respond-error"]').text()).toBe('answers[0]: "x" is not an option')
    expect(radios(w)[1]!.element.checked).toBe(true) // the draft is kept
  })

  it('shows stored answers (joined text from Go) for an answered card', () => {
    const w = mountCard(makeCard({ status: 'answered', answers: { 'Which database?': 'SQLite, embedded' }, comments: 'thanks' }))
    expect(w.find('form').exists()).toBe(false)
    expect(w.find('dd').text()).toBe('SQLite, embedded')
    expect(w.text()).toContain('thanks')
    expect(w.find('[data-testid="card-status"]').text()).toBe('Answered')
  })

  it.each([
    ['declined', 'Skipped'],
    ['cancelled', 'Cancelled'],
    ['answered_late', 'Answered late'],
    ['superseded', 'Superseded'],
  ] as const)('shows status %s as "%s" read-only', (status, label) => {
    const w = mountCard(makeCard({ status }))
    expect(w.find('form').exists()).toBe(false)
    expect(w.find('[data-testid="card-status"]').text()).toBe(label)
  })

  it('shows a timed-out card from history read-only when told to', () => {
    const w = mountCard(makeCard({ status: 'timed_out' }), { readonly: true })
    expect(w.find('[data-testid="card-status"]').text()).toBe('Timed out')
    expect(w.find('dd').text()).toBe('No answer (timed out)')
    expect(w.find('[data-testid="answer-anyway"]').exists()).toBe(false)
  })
})

describe('QuestionCard: countdown and late answers', () => {
  it('counts down to expires_at and then offers "Answer anyway", which still submits', async () => {
    vi.useFakeTimers()
    vi.setSystemTime(new Date('2026-03-01T12:00:00.000Z'))
    const w = mountCard(makeCard({ expires_at: '2026-03-01T12:03:00.000Z' }))
    expect(w.find('[data-testid="countdown"]').text()).toContain('3:00 left')
    await vi.advanceTimersByTimeAsync(1000)
    expect(w.find('[data-testid="countdown"]').text()).toContain('2:59 left')
    expect(w.find('[data-testid="countdown"]').classes()).not.toContain('urgent')
    await vi.advanceTimersByTimeAsync(120_000)
    expect(w.find('[data-testid="countdown"]').text()).toContain('0:59 left')
    expect(w.find('[data-testid="countdown"]').classes()).toContain('urgent')
    await vi.advanceTimersByTimeAsync(59_000)
    expect(w.find('[data-testid="countdown"]').exists()).toBe(false)
    expect(w.find('form').exists()).toBe(false)
    const notice = w.find('[data-testid="expired-notice"]')
    expect(notice.text()).toContain('Time is up.')
    expect(notice.text()).toContain('Which database?')

    await w.find('[data-testid="answer-anyway"]').trigger('click')
    expect(w.find('form').exists()).toBe(true)
    expect(w.text()).toContain('sent as a new message')
    await key(w, '1')
    await submit(w)
    expect(responses(w)).toStrictEqual([
      { question_id: 'card-1', action: 'submit', answers: { 'Which database?': { selected: ['Postgres'] } } },
    ])
  })

  it('offers "Answer anyway" for a card with status timed_out and marks it answered late', async () => {
    const w = mountCard(makeCard({ status: 'timed_out', expires_at: '2020-01-01T00:00:00.000Z' }))
    expect(w.find('[data-testid="expired-notice"]').text()).toContain('This question timed out.')
    await w.find('[data-testid="answer-anyway"]').trigger('click')
    await key(w, '2')
    await submit(w)
    expect(responses(w)[0]).toStrictEqual({ question_id: 'card-1', action: 'submit', answers: { 'Which database?': { selected: ['SQLite'] } } })
    expect(w.find('[data-testid="card-status"]').text()).toBe('Answered late')
  })

  it('"Not now" and Esc go back to the notice without cancelling', async () => {
    const w = mountCard(makeCard({ status: 'timed_out' }))
    await w.find('[data-testid="answer-anyway"]').trigger('click')
    await key(w, 'Escape')
    expect(w.find('[data-testid="expired-notice"]').exists()).toBe(true)
    await w.find('[data-testid="answer-anyway"]').trigger('click')
    await w.find('[data-testid="not-now"]').trigger('click')
    expect(w.find('[data-testid="expired-notice"]').exists()).toBe(true)
    expect(responses(w)).toHaveLength(0)
  })

  it('shows no countdown without expires_at', () => {
    const w = mountCard(makeCard({ expires_at: null }))
    expect(w.find('[data-testid="countdown"]').exists()).toBe(false)
  })
})

describe('QuestionCard: drafts', () => {
  it('keeps selections, Other text, comments and step in the store across re-mounts', async () => {
    const card = fourCard()
    let w = mountCard(card)
    await key(w, '2')
    await submit(w) // to step 2
    await key(w, '3')
    w.unmount()
    wrapper = null

    const store = useQuestionsStore()
    expect(store.drafts['four-1']!.step).toBe(1)
    expect(store.drafts['four-1']!.answers[0]!.selected).toEqual(['Rust'])

    w = mountCard(card)
    expect(w.find('legend').text()).toContain('Targets?')
    expect(checkboxes(w)[2]!.element.checked).toBe(true)
    await w.findAll('[role="tab"]')[0]!.trigger('click')
    expect(radios(w)[1]!.element.checked).toBe(true)
  })
})
