// Card kinds of SPEC §6 in the shared card helpers: statuses survive
// normalizing, only model questions can be answered late, and the inbox and
// notifications say what each kind asks.
import { describe, expect, it } from 'vitest'
import { cardSummary, isAnswerable, normalizeCard } from './cards'
import { notificationBody } from './attention'
import { statusAfter } from '../stores/questions'
import { makeCard } from '../test-utils'

describe('card kinds', () => {
  it('keeps the approval and elicitation statuses and kinds from the wire', () => {
    for (const status of ['approved', 'rejected', 'accepted'] as const) expect(normalizeCard(makeCard({ status, kind: 'approval' })).status).toBe(status)
    expect(normalizeCard(makeCard({ status: 'bogus' as never })).status).toBe('pending')
    expect(normalizeCard({ ...makeCard(), kind: undefined as never, source: null }).kind).toBe('question')
    expect(normalizeCard({ ...makeCard(), kind: undefined as never, source: null }).source).toEqual({ type: 'model' })
  })

  it('lets only a model question be answered after its timeout', () => {
    expect(isAnswerable('timed_out', 'question')).toBe(true)
    expect(isAnswerable('timed_out', 'approval')).toBe(false)
    expect(isAnswerable('timed_out', 'elicitation')).toBe(false)
    expect(isAnswerable('pending', 'approval')).toBe(true)
  })

  it('summarizes each kind for the inbox and notifications', () => {
    const approval = makeCard({ kind: 'approval', questions: [], tool: { server: 'fs', name: 'write_file', description: '', arguments: {}, input_schema: {} } })
    expect(cardSummary(approval)).toBe('Allow fs to run write_file?')
    const form = makeCard({ kind: 'elicitation', questions: [], server: 'everything', mode: 'form', message: 'Your details?' })
    expect(cardSummary(form)).toBe('everything asks: Your details?')
    expect(notificationBody(form)).toBe('everything asks: Your details?')
    expect(cardSummary({ ...form, mode: 'url', message: '' })).toBe('everything asks you to open a link')
    expect(cardSummary(makeCard())).toBe('Which database?')
    // An agent's request_permission (SPEC §10): the agent asks, not a server.
    const agentApproval = makeCard({ kind: 'approval', questions: [], source: { type: 'agent', agent: 'claude-code' }, tool: { server: '', name: 'Bash', description: '', arguments: {}, input_schema: {} } })
    expect(cardSummary(agentApproval)).toBe('Allow claude-code to run Bash?')
  })

  it('knows the status each action leads to', () => {
    const c = makeCard()
    expect(statusAfter(c, { question_id: 'x', action: 'approve' })).toBe('approved')
    expect(statusAfter(c, { question_id: 'x', action: 'reject' })).toBe('rejected')
    expect(statusAfter(c, { question_id: 'x', action: 'accept' })).toBe('accepted')
    expect(statusAfter(c, { question_id: 'x', action: 'decline' })).toBe('declined')
    expect(statusAfter({ ...c, status: 'timed_out' }, { question_id: 'x', action: 'submit' })).toBe('answered_late')
  })
})
