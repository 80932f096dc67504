// Plain helpers for conversation control (SPEC §7): cutting the visible path
// where a new branch starts, the error texts of the branch calls, and the
// draft that reopens an answered card with its old answer.
import type { Question } from '../types'
import { emptyDraft, type CardDraft } from './cards'

/** The messages of a path before the message `id` (all of them when it is not there). */
export function pathBefore<T extends { id: string }>(list: T[], id: string): T[] {
  const at = list.findIndex((m) => m.id === id)
  return at < 0 ? [...list] : list.slice(0, at)
}

/** The messages of a path up to and including `id` ("" = none of them). */
export function pathThrough<T extends { id: string }>(list: T[], id: string): T[] {
  if (!id) return []
  const at = list.findIndex((m) => m.id === id)
  return at < 0 ? [...list] : list.slice(0, at + 1)
}

export const BUSY_TEXT = 'The assistant is still working on this conversation. Stop it first, or wait.'

/** What went wrong with a branch call, for the user ("edit your message", "regenerate the reply"…). */
export function branchErrorText(what: string, err: { message: string; status?: number }): string {
  if (err.status === 409) return BUSY_TEXT
  if (err.status === 404) return `Couldn't ${what}: it is no longer in this conversation (${err.message}).`
  return `Couldn't ${what}: ${err.message}`
}

/**
 * A card draft holding an earlier answer, as Go stored it: one text per
 * question (SPEC §1: labels, then free text, joined with ", ").
 */
export function draftFromAnswers(questions: Question[], answers: Record<string, string> | undefined, comments?: string): CardDraft {
  const draft = emptyDraft(questions.length)
  questions.forEach((q, i) => {
    const text = (answers?.[q.question] ?? '').trim()
    const d = draft.answers[i]!
    if (!text) return
    const labels = q.options.map((o) => o.label)
    if (labels.includes(text)) {
      d.selected = [text]
      return
    }
    if (q.multiSelect) {
      // Labels first, in the question's order; what follows them is the free text.
      let rest = text
      for (const label of labels) {
        if (rest === label || rest.startsWith(label + ', ')) {
          d.selected.push(label)
          rest = rest.slice(label.length + 2)
        }
      }
      rest = rest.trim()
      if (rest) {
        d.customOn = true
        d.custom = rest
      }
      return
    }
    d.customOn = true
    d.custom = text
  })
  if (comments) {
    draft.comments = comments
    draft.showComments = true
  }
  return draft
}
