// Enter in the card's text fields: one rule everywhere (Enter or Ctrl/Cmd+
// Enter moves on or submits, Shift+Enter adds a line), said in a hint under
// each field.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount, type VueWrapper } from '@vue/test-utils'
import { nextTick } from 'vue'
import QuestionCard from './QuestionCard.vue'
import type { Card, RespondRequest } from '../../types'
import { makeCard, q, setupEnv, type TestEnv } from '../../test-utils'

let env: TestEnv
let wrapper: VueWrapper | null = null

beforeEach(() => {
  env = setupEnv()
})
afterEach(() => {
  wrapper?.unmount()
  wrapper = null
  document.body.innerHTML = ''
})

function mountCard(card: Card): VueWrapper {
  wrapper = mount(QuestionCard, { props: { card }, global: { plugins: [env.pinia] }, attachTo: document.body })
  return wrapper
}

const responses = (w: VueWrapper): RespondRequest[] => (w.emitted('respond') ?? []).map((args) => args[0] as RespondRequest)

/** Presses Enter in a field the way a browser does: the textarea adds a line unless the key is prevented. */
async function pressEnter(w: VueWrapper, selector: string, opts: { shiftKey?: boolean; ctrlKey?: boolean; metaKey?: boolean } = {}): Promise<boolean> {
  const el = w.find(selector).element as HTMLTextAreaElement | HTMLInputElement
  const ev = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...opts })
  el.dispatchEvent(ev)
  if (!ev.defaultPrevented && el.tagName === 'TEXTAREA') {
    el.value += '\n'
    el.dispatchEvent(new Event('input'))
  }
  await nextTick()
  return ev.defaultPrevented
}

/** The hint the field points to with aria-describedby. */
function hintOf(w: VueWrapper, selector: string): string {
  const ids = (w.find(selector).attributes('aria-describedby') ?? '').split(/\s+/)
  const hint = ids.map((id) => document.getElementById(id)).find((el) => el?.dataset.testid === 'keys-hint')
  return hint?.textContent?.trim() ?? ''
}

const NAME = 'What should the project be called?'
const openCard = () => makeCard({ question_id: 'open-1', questions: [q({ question: NAME, options: [], placeholder: 'A short name' })] })
const twoOpen = () =>
  makeCard({
    question_id: 'two-open',
    questions: [q({ question: 'First?', options: [] }), q({ question: 'Second?', options: [{ label: 'A' }, { label: 'B' }] })],
  })

describe('QuestionCard: Enter in text fields', () => {
  it('a free-text-only question: Shift+Enter adds a line, Enter submits, and the hint under the field says so', async () => {
    const w = mountCard(openCard())
    await w.find('textarea[data-open-input]').setValue('two')
    expect(await pressEnter(w, 'textarea[data-open-input]', { shiftKey: true })).toBe(false)
    await w.find('textarea[data-open-input]').setValue((w.find('textarea[data-open-input]').element as HTMLTextAreaElement).value + 'lines')
    expect(responses(w)).toHaveLength(0)
    expect(hintOf(w, 'textarea[data-open-input]')).toBe('Enter to submit · Shift+Enter for a new line')

    expect(await pressEnter(w, 'textarea[data-open-input]')).toBe(true)
    expect(responses(w)).toEqual([{ question_id: 'open-1', action: 'submit', answers: { [NAME]: { selected: [], custom: 'two\nlines' } } }])
  })

  it('Ctrl+Enter and Cmd+Enter still submit from a text area', async () => {
    for (const mod of [{ ctrlKey: true }, { metaKey: true }]) {
      const w = mountCard(openCard())
      await w.find('textarea[data-open-input]').setValue('Atlas')
      expect(await pressEnter(w, 'textarea[data-open-input]', mod)).toBe(true)
      expect(responses(w)).toHaveLength(1)
      w.unmount()
      wrapper = null
    }
  })

  it('Enter in "Other" moves on just like Enter in a text area, and both hints say where it goes', async () => {
    const w = mountCard(twoOpen())
    expect(hintOf(w, 'textarea[data-open-input]')).toBe('Enter for the next question · Shift+Enter for a new line')
    await w.find('textarea[data-open-input]').setValue('Something')
    expect(await pressEnter(w, 'textarea[data-open-input]')).toBe(true)
    expect(w.text()).toContain('Second?')

    // Step 2 of 2: "Other" is a one-line field; Enter goes to the review.
    expect(hintOf(w, 'input[data-other-input]')).toBe('Enter to review your answers')
    await w.find('input[data-other-input]').setValue('C')
    expect(await pressEnter(w, 'input[data-other-input]')).toBe(true)
    expect(w.find('[data-review-heading]').exists()).toBe(true)
    expect(responses(w)).toHaveLength(0)
  })

  it('the comment field follows the same rule', async () => {
    const w = mountCard(makeCard())
    await w.find('input[type="radio"]').setValue(true)
    await w.find('[data-testid="add-comment"]').trigger('click')
    await nextTick()
    expect(hintOf(w, 'textarea[data-comments]')).toBe('Enter to submit · Shift+Enter for a new line')
    await w.find('textarea[data-comments]').setValue('first')
    expect(await pressEnter(w, 'textarea[data-comments]', { shiftKey: true })).toBe(false)
    expect(responses(w)).toHaveLength(0)
    expect(await pressEnter(w, 'textarea[data-comments]')).toBe(true)
    expect(responses(w)[0]!.comments).toBe('first')
  })
})
