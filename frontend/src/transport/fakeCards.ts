// How the FakeTransport (./fake.ts) resolves a card: it checks an answer
// like the Go side (SPEC §1: options, one or many, free text, lengths) and
// marks the card answered, declined or cancelled.
import type { AnswerInput, Card, RespondRequest } from '../types'
import { answerText, COMMENTS_MAX, CUSTOM_MAX } from '../lib/cards'
import { TransportError } from './transport'

/** Applies a response to a pending (or, `late`, a timed-out) card; throws a 422 TransportError on a bad answer. */
export function resolveCard(card: Card, req: RespondRequest, late: boolean): void {
  if (req.action === 'submit') {
    const joined: Record<string, string> = {}
    for (const [i, q] of card.questions.entries()) {
      const a: AnswerInput | undefined = req.answers?.[q.question]
      const where = `answers[${i}]`
      const selected = a?.selected ?? []
      for (const l of selected) {
        if (!q.options.some((o) => o.label === l)) throw new TransportError(`${where}: "${l}" is not an option`, 422)
      }
      if (!q.multiSelect && selected.length > 1) throw new TransportError(`${where}: choose at most one option`, 422)
      const custom = a?.custom?.trim() ?? ''
      if (custom && !q.allowCustom) throw new TransportError(`${where}: free text is not allowed`, 422)
      if (custom.length > CUSTOM_MAX) throw new TransportError(`${where}: free text must be 1-${CUSTOM_MAX} characters`, 422)
      if (!selected.length && !custom) throw new TransportError(`${where}: every question needs an answer`, 422)
      joined[q.question] = answerText({ selected, custom })
    }
    if ((req.comments ?? '').length > COMMENTS_MAX) throw new TransportError(`comments must be at most ${COMMENTS_MAX} characters`, 422)
    card.status = late ? 'answered_late' : 'answered'
    card.answers = joined
    if (req.comments) card.comments = req.comments
    card.answered_at = new Date().toISOString()
  } else if (req.action === 'decline') {
    card.status = 'declined'
  } else {
    card.status = 'cancelled'
  }
}
