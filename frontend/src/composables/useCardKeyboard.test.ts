// The card's key rules on their own, against real DOM fields: Escape, Enter
// (Shift/Alt/Ctrl), the step tabs' arrows, number keys and option arrows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { nextTick } from 'vue'
import type { Question } from '../types'
import { keysHint, useCardKeyboard, type CardKeyboardOptions } from './useCardKeyboard'

interface State {
  active: boolean
  confirming: boolean
  late: boolean
  step: number
  selected: string[]
  otherOn: boolean
  calls: string[]
  said: string[]
}

const question = (partial: Partial<Question> = {}): Question => ({
  question: 'Which database?',
  options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  multiSelect: false,
  allowCustom: true,
  ...partial,
})

let root: HTMLElement
let state: State
let q: Question | undefined

beforeEach(() => {
  root = document.createElement('section')
  root.innerHTML = `
    <button role="tab" id="t-0">1</button><button role="tab" id="t-1">2</button><button role="tab" id="t-2">Review</button>
    <input type="radio" name="q" value="Postgres" data-option />
    <input type="radio" name="q" value="SQLite" data-option />
    <input type="radio" name="q" value="" data-option data-other />
    <input type="text" data-other-input />
    <textarea data-comments></textarea>
    <button type="button" data-testid="skip">Skip</button>`
  document.body.appendChild(root)
  state = { active: true, confirming: false, late: false, step: 0, selected: [], otherOn: false, calls: [], said: [] }
  q = question()
  const opts: CardKeyboardOptions = {
    root,
    active: () => state.active,
    confirming: () => state.confirming,
    late: () => state.late,
    keepAnswering: () => state.calls.push('keepAnswering'),
    notNow: () => state.calls.push('notNow'),
    askCancel: () => state.calls.push('askCancel'),
    primary: () => state.calls.push('primary'),
    step: () => state.step,
    count: () => 2,
    setStep: (i) => {
      state.step = i
    },
    tabId: (i) => `t-${i}`,
    question: () => q,
    isSelected: (label) => state.selected.includes(label),
    choose: (label) => {
      state.calls.push(`choose ${label}`)
      state.selected = state.selected.includes(label) ? state.selected.filter((l) => l !== label) : [label]
    },
    otherOn: () => state.otherOn,
    setOther: (on) => {
      state.calls.push(`other ${on}`)
      state.otherOn = on
    },
    announce: (t) => state.said.push(t),
  }
  const { onKeydown } = useCardKeyboard(opts)
  root.addEventListener('keydown', onKeydown)
})
afterEach(() => {
  document.body.innerHTML = ''
})

const el = (selector: string) => root.querySelector<HTMLElement>(selector)!
const radios = () => Array.from(root.querySelectorAll<HTMLInputElement>('input[type="radio"]'))

/** Presses a key on an element; returns the event (defaultPrevented tells if the card took it). */
function press(target: HTMLElement, key: string, opts: KeyboardEventInit = {}): KeyboardEvent {
  const ev = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...opts })
  target.dispatchEvent(ev)
  return ev
}

describe('useCardKeyboard: Escape', () => {
  it('asks to cancel, closes the confirmation when open, and leaves a late answer when late', () => {
    const ev = press(radios()[0]!, 'Escape')
    expect(ev.defaultPrevented).toBe(true)
    state.confirming = true
    press(radios()[0]!, 'Escape')
    state.confirming = false
    state.late = true
    press(el('[data-comments]'), 'Escape')
    expect(state.calls).toEqual(['askCancel', 'keepAnswering', 'notNow'])
  })

  it('does not reach the page (the chat would stop the reply)', () => {
    let reached = false
    document.body.addEventListener('keydown', () => (reached = true))
    press(radios()[0]!, 'Escape')
    expect(reached).toBe(false)
  })
})

describe('useCardKeyboard: Enter', () => {
  it('Enter and Ctrl/Cmd+Enter in a field or on an option do the primary action', () => {
    for (const [target, opts] of [
      [el('[data-comments]'), {}],
      [el('[data-comments]'), { ctrlKey: true }],
      [el('[data-other-input]'), { metaKey: true }],
      [radios()[1]!, {}],
    ] as const) {
      expect(press(target, 'Enter', opts).defaultPrevented).toBe(true)
    }
    expect(state.calls).toEqual(['primary', 'primary', 'primary', 'primary'])
  })

  it('Shift+Enter and Alt+Enter are left to the field, and Enter on a button is the button', () => {
    expect(press(el('[data-comments]'), 'Enter', { shiftKey: true }).defaultPrevented).toBe(false)
    expect(press(el('[data-comments]'), 'Enter', { altKey: true }).defaultPrevented).toBe(false)
    expect(press(el('[data-testid="skip"]'), 'Enter').defaultPrevented).toBe(false)
    expect(state.calls).toEqual([])
  })

  it('does nothing while the cancel confirmation is open, while composing text, or with no form', () => {
    state.confirming = true
    press(el('[data-comments]'), 'Enter')
    state.confirming = false
    press(el('[data-comments]'), 'Enter', { isComposing: true })
    state.active = false
    press(el('[data-comments]'), 'Enter')
    press(radios()[0]!, 'Escape')
    expect(state.calls).toEqual([])
  })
})

describe('useCardKeyboard: number keys', () => {
  it('1..n choose an option and say so; the next number chooses Other', async () => {
    expect(press(radios()[0]!, '2').defaultPrevented).toBe(true)
    await nextTick()
    expect(document.activeElement).toBe(radios()[1])
    press(radios()[1]!, '3')
    await nextTick()
    expect(document.activeElement).toBe(el('[data-other-input]'))
    expect(state.calls).toEqual(['choose SQLite', 'other true'])
    expect(state.said).toEqual(['Selected: SQLite', 'Other selected. Type your answer.'])
  })

  it('toggles options and Other when several may be chosen', () => {
    q = question({ multiSelect: true })
    press(radios()[0]!, '1')
    press(radios()[0]!, '1')
    state.otherOn = true
    press(radios()[0]!, '3')
    expect(state.calls).toEqual(['choose Postgres', 'choose Postgres', 'other false'])
    expect(state.said).toEqual(['Selected: Postgres', 'Unselected: Postgres', 'Other unselected.'])
  })

  it('are typed, not taken, in text fields, with modifiers, past the options, or on the review', () => {
    expect(press(el('[data-other-input]'), '1').defaultPrevented).toBe(false)
    expect(press(el('[data-comments]'), '2').defaultPrevented).toBe(false)
    expect(press(radios()[0]!, '1', { ctrlKey: true }).defaultPrevented).toBe(false)
    expect(press(radios()[0]!, '4').defaultPrevented).toBe(false)
    q = question({ allowCustom: false })
    expect(press(radios()[0]!, '3').defaultPrevented).toBe(false)
    q = undefined
    expect(press(radios()[0]!, '1').defaultPrevented).toBe(false)
    expect(state.calls).toEqual([])
  })
})

describe('useCardKeyboard: arrows', () => {
  it('move between the step tabs and the review, wrapping, with Home and End', async () => {
    press(el('#t-0'), 'ArrowRight')
    expect(state.step).toBe(1)
    await nextTick()
    expect(document.activeElement).toBe(el('#t-1'))
    press(el('#t-1'), 'ArrowRight')
    expect(state.step).toBe(2)
    press(el('#t-2'), 'ArrowRight')
    expect(state.step).toBe(0)
    press(el('#t-0'), 'ArrowLeft')
    expect(state.step).toBe(2)
    press(el('#t-2'), 'Home')
    expect(state.step).toBe(0)
    press(el('#t-0'), 'End')
    expect(state.step).toBe(2)
    expect(state.said).toEqual([
      'Question 2 of 2.',
      'Review your answers.',
      'Question 1 of 2.',
      'Review your answers.',
      'Question 1 of 2.',
      'Review your answers.',
    ])
  })

  it('move between options, wrapping, and choose the radio moved to', () => {
    const [first, second, other] = radios()
    first!.focus()
    expect(press(first!, 'ArrowDown').defaultPrevented).toBe(true)
    expect(document.activeElement).toBe(second)
    expect(second!.checked).toBe(true)
    press(second!, 'ArrowRight')
    expect(document.activeElement).toBe(other)
    press(other!, 'ArrowDown')
    expect(document.activeElement).toBe(first)
    press(first!, 'ArrowUp')
    expect(document.activeElement).toBe(other)
    expect(other!.checked).toBe(true)
  })
})

describe('keysHint', () => {
  it('says what Enter does on the step, and Shift+Enter in multi-line fields', () => {
    expect(keysHint('Next', false)).toBe('Enter for the next question')
    expect(keysHint('Review', false)).toBe('Enter to review your answers')
    expect(keysHint('Submit', false)).toBe('Enter to submit')
    expect(keysHint('Submit answers', true)).toBe('Enter to submit · Shift+Enter for a new line')
  })
})
