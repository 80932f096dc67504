// The keys of a question card (SPEC §1), in one place:
// - Escape closes the cancel confirmation, else leaves a late answer, else asks to cancel;
// - Enter (or Ctrl/Cmd+Enter) anywhere but on a button or link moves on or submits;
//   Shift+Enter (a new line) and Alt+Enter are left to the field;
// - on the step tabs, arrows/Home/End move between the steps and the review;
// - outside text fields, 1..n pick an option and n+1 toggles "Other";
// - on an option, arrows move to the next/previous option (a radio is also chosen).
import { nextTick, toValue, type MaybeRefOrGetter } from 'vue'
import type { Question } from '../types'
import { t } from '../i18n'

export interface CardKeyboardOptions {
  /** The card's root element: focus moves stay inside it. */
  root: MaybeRefOrGetter<HTMLElement | null>
  /** The form is shown; no key does anything otherwise. */
  active: () => boolean
  /** The "Cancel this question?" confirmation is open. */
  confirming: () => boolean
  /** The user is answering a timed-out card late. */
  late: () => boolean
  keepAnswering: () => void
  notNow: () => void
  askCancel: () => void
  /** Enter: the primary action (next step, review or submit). */
  primary: () => void
  /** The shown step (`count` is the review) and the number of questions. */
  step: () => number
  count: () => number
  /** Shows step `i` (without announcing or focusing). */
  setStep: (i: number) => void
  /** The id of step tab `i`. */
  tabId: (i: number) => string
  /** The shown question; undefined on the review. */
  question: () => Question | undefined
  isSelected: (label: string) => boolean
  choose: (label: string) => void
  otherOn: () => boolean
  setOther: (on: boolean) => void
  announce: (text: string) => void
}

/** A field where typing (digits, Enter) belongs to the field. */
export function isTextField(el: HTMLElement): boolean {
  if (el.tagName === 'TEXTAREA') return true
  return el.tagName === 'INPUT' && ['text', 'search', ''].includes((el as HTMLInputElement).type)
}

const TAB_KEYS = ['ArrowRight', 'ArrowLeft', 'Home', 'End']
const OPTION_KEYS = ['ArrowDown', 'ArrowRight', 'ArrowUp', 'ArrowLeft']

export function useCardKeyboard(o: CardKeyboardOptions): { onKeydown: (e: KeyboardEvent) => void } {
  const options = () => Array.from(toValue(o.root)?.querySelectorAll<HTMLInputElement>('[data-option]') ?? [])

  function moveFocus(target: HTMLElement, delta: number): void {
    const group = options()
    const i = group.indexOf(target as HTMLInputElement)
    if (i < 0 || !group.length) return
    const nextEl = group[(i + delta + group.length) % group.length]!
    nextEl.focus()
    if (nextEl.type === 'radio') nextEl.click()
  }

  function onTabKey(key: string): void {
    const n = o.count() + 1
    const i = o.step()
    const to = key === 'ArrowRight' ? (i + 1) % n : key === 'ArrowLeft' ? (i - 1 + n) % n : key === 'Home' ? 0 : n - 1
    o.setStep(to)
    o.announce(to === o.count() ? t('questions.card.reviewAnnounce') : t('questions.card.stepAnnounce', { n: to + 1, count: o.count() }))
    void nextTick(() => document.getElementById(o.tabId(to))?.focus())
  }

  function onNumberKey(e: KeyboardEvent, q: Question): void {
    const n = Number(e.key)
    if (n <= q.options.length) {
      e.preventDefault()
      const label = q.options[n - 1]!.label
      o.choose(label)
      o.announce(o.isSelected(label) ? t('questions.card.selected', { label }) : t('questions.card.unselected', { label }))
      void nextTick(() => options()[n - 1]?.focus())
    } else if (n === q.options.length + 1 && q.allowCustom) {
      e.preventDefault()
      o.setOther(q.multiSelect ? !o.otherOn() : true)
      o.announce(o.otherOn() ? t('questions.card.otherSelected') : t('questions.card.otherUnselected'))
      void nextTick(() => toValue(o.root)?.querySelector<HTMLElement>(o.otherOn() ? '[data-other-input]' : '[data-other]')?.focus())
    }
  }

  function onKeydown(e: KeyboardEvent): void {
    if (!o.active() || e.isComposing) return
    const target = e.target as HTMLElement
    if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      if (o.confirming()) o.keepAnswering()
      else if (o.late()) o.notNow()
      else o.askCancel()
      return
    }
    if (o.confirming()) return
    if (e.key === 'Enter') {
      // One rule for every field of the card, said under each text field:
      // Enter (or Ctrl/Cmd+Enter) moves on or submits; Shift+Enter adds a line.
      if (e.shiftKey || e.altKey || target.tagName === 'BUTTON' || target.tagName === 'A') return
      e.preventDefault()
      o.primary()
      return
    }
    if (target.getAttribute('role') === 'tab' && TAB_KEYS.includes(e.key)) {
      // WAI-ARIA tabs: arrows move between the steps (and the review).
      e.preventDefault()
      onTabKey(e.key)
      return
    }
    if (isTextField(target) || e.ctrlKey || e.metaKey || e.altKey) return
    const q = o.question()
    if (q && /^[1-9]$/.test(e.key) && q.options.length > 0) {
      onNumberKey(e, q)
      return
    }
    if (target.hasAttribute('data-option') && OPTION_KEYS.includes(e.key)) {
      e.preventDefault()
      moveFocus(target, e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : -1)
    }
  }

  return { onKeydown }
}

/** The keys hint under a text field: what Enter does there, given the primary button's label (in the current language). */
export function keysHint(primaryLabel: string, multiline: boolean): string {
  const does =
    primaryLabel === t('questions.card.next') ? 'next' : primaryLabel === t('questions.card.review') ? 'review' : 'submit'
  return t(multiline ? `questions.keys.${does}Multiline` : `questions.keys.${does}`)
}
