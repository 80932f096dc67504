// How the FakeTransport (./fake.ts) resolves a card: it checks an answer
// like the Go side (SPEC §1: options, one or many, free text, lengths) and
// marks the card answered, declined or cancelled.
import type { AnswerInput, Card, RespondRequest } from '../types'
import { answerText, COMMENTS_MAX, CUSTOM_MAX } from '../lib/cards'
import { parseObjectSchema } from '../lib/schemaForm'
import { TransportError } from './transport'

const MCP_ACTIONS: Record<'approval' | 'elicitation', string[]> = {
  approval: ['approve', 'reject', 'cancel'],
  elicitation: ['accept', 'decline', 'skip', 'cancel'],
}

/** Approval and elicitation cards (SPEC §6); content is checked for required fields and types. */
function resolveMcpCard(card: Card, req: RespondRequest): void {
  const kind = card.kind as 'approval' | 'elicitation'
  if (!MCP_ACTIONS[kind].includes(req.action)) throw new TransportError(`action "${req.action}" is not valid for an ${kind} card`, 422)
  switch (req.action) {
    case 'approve':
      if (req.arguments !== undefined && (typeof req.arguments !== 'object' || req.arguments === null || Array.isArray(req.arguments))) {
        throw new TransportError('arguments must be a JSON object', 422)
      }
      card.status = 'approved'
      if (req.arguments !== undefined) card.approved_arguments = req.arguments
      if (req.always) card.always = true
      break
    case 'reject':
      card.status = 'rejected'
      if (req.reason) card.reason = req.reason
      break
    case 'accept': {
      const content = (req.content ?? {}) as Record<string, unknown>
      if (card.mode !== 'url') {
        for (const f of parseObjectSchema(card.schema).fields) {
          const v = content[f.key]
          if (v === undefined) {
            if (f.required) throw new TransportError(`content.${f.key} is required`, 422)
            continue
          }
          const ok = f.kind === 'multi' ? Array.isArray(v) : f.kind === 'boolean' ? typeof v === 'boolean' : f.kind === 'number' || f.kind === 'integer' ? typeof v === 'number' : typeof v === 'string'
          if (!ok) throw new TransportError(`content.${f.key} has the wrong type`, 422)
        }
        card.content = content
      }
      card.status = 'accepted'
      break
    }
    case 'decline':
    case 'skip':
      card.status = 'declined'
      break
    default:
      card.status = 'cancelled'
  }
  card.answered_at = new Date().toISOString()
}

/** Applies a response to a pending (or, `late`, a timed-out) card; throws a 422 TransportError on a bad answer. */
export function resolveCard(card: Card, req: RespondRequest, late: boolean): void {
  if (card.kind === 'approval' || card.kind === 'elicitation') {
    resolveMcpCard(card, req)
    return
  }
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
