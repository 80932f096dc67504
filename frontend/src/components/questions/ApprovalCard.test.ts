// The approval card (SPEC §6) in the chat's message list, answered through
// the questions store and the fake transport: what it shows, approve,
// approve always, edit as a form or as raw JSON (syntax checked here, a 422
// from the backend shown without losing the edit), reject with a reason,
// cancel, and how resolved cards read.
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

const ECHO_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string', description: 'Message to echo' }, times: { type: 'integer', minimum: 1 }, loud: { type: 'boolean' } },
  required: ['message'],
}

function approvalCard(partial: Partial<Card> = {}): Card {
  return makeCard({
    question_id: 'ap-1',
    kind: 'approval',
    source: { type: 'mcp', server: 'everything', tool: 'echo' },
    questions: [],
    tool: { server: 'everything', name: 'echo', description: 'Echoes back the input <b>as is</b>', arguments: { message: 'hello', times: 2 }, input_schema: ECHO_SCHEMA },
    ...partial,
  })
}

async function show(card: Card): Promise<VueWrapper> {
  env.fake.addConversation({ id: card.conversationId })
  env.fake.addCard(card)
  useQuestionsStore().upsert(card)
  return mountInBody({ components: { MessageList }, template: `<MessageList conversation-id="${card.conversationId}" />` }, env)
}

const card = (w: VueWrapper) => w.find('[data-testid="approval-card"]')
const click = async (w: VueWrapper, id: string) => {
  await w.find(`[data-testid="${id}"]`).trigger('click')
  await settle()
}
/** The responses sent, without the conversation's id (the request's `id`). */
const sent = () => env.fake.callsOf('respond').map((c) => {
  const { id: _id, ...req } = c[0] as Record<string, unknown>
  return req
})

describe('ApprovalCard', () => {
  it("an agent's permission request names the agent, offers no \"Approve always\" and says who reads the reason", async () => {
    const w = await show(approvalCard({
      source: { type: 'agent', agent: 'claude-code' },
      tool: { server: '', name: 'Bash', description: '', arguments: { command: 'rm -rf build' }, input_schema: { type: 'object' } },
    }))
    expect(card(w).find('h2').text()).toBe('Allow claude-code to run Bash?')
    expect(w.find('[data-testid="approval-who"]').text()).toBe('claude-code wants to run Bash')
    expect(w.find('[data-testid="approve-always"]').exists()).toBe(false)
    await click(w, 'approval-reject')
    expect(w.find('.reject-label').text()).toContain('the agent sees it')
  })

  it('names the server, the tool and its description, and shows the arguments as pretty JSON (text only)', async () => {
    const w = await show(approvalCard())
    expect(card(w).find('h2').text()).toBe('Allow everything to run echo?')
    expect(w.find('[data-testid="approval-who"]').text()).toBe('everything wants to run echo')
    expect(w.find('[data-testid="approval-description"]').text()).toBe('Echoes back the input <b>as is</b>')
    expect(w.find('[data-testid="approval-description"] b').exists()).toBe(false)
    expect(w.find('[data-testid="approval-arguments"]').text()).toBe('{\n  "message": "hello",\n  "times": 2\n}')
    expect(document.activeElement).toBe(card(w).element)
  })

  it('approves with the model\'s arguments', async () => {
    const w = await show(approvalCard())
    await click(w, 'approve')
    expect(sent()).toEqual([{ question_id: 'ap-1', action: 'approve' }])
    expect(card(w).attributes('data-status')).toBe('approved')
    expect(w.find('[data-testid="approval-outcome"]').text()).toContain('Approved.')
  })

  it('approves always', async () => {
    const w = await show(approvalCard())
    await click(w, 'approve-always')
    expect(sent()).toEqual([{ question_id: 'ap-1', action: 'approve', always: true }])
    expect(w.find('[data-testid="approval-outcome"]').text()).toContain('From now on this tool runs without asking.')
  })

  it('edits a simple schema as a form and approves the typed arguments', async () => {
    const w = await show(approvalCard())
    await click(w, 'approval-edit')
    const form = w.find('[data-testid="approval-form"]')
    expect(form.exists()).toBe(true)
    const msg = form.find('[data-field="message"] input')
    expect((msg.element as HTMLInputElement).value).toBe('hello')
    expect(document.activeElement).toBe(msg.element)
    await msg.setValue('edited text')
    await form.find('[data-field="times"] input').setValue('x')
    await click(w, 'approve')
    expect(w.find('[data-field="times"] [data-testid="field-error"]').text()).toBe('Enter a whole number.')
    expect(sent()).toEqual([])
    await form.find('[data-field="times"] input').setValue('3')
    await form.findAll('[data-field="loud"] input')[0]!.setValue(true)
    await click(w, 'approve')
    expect(sent()).toEqual([{ question_id: 'ap-1', action: 'approve', arguments: { message: 'edited text', times: 3, loud: true } }])
    const outcome = w.find('[data-testid="approval-outcome"]')
    expect(outcome.text()).toContain('Approved with edited arguments.')
    expect(outcome.find('[data-testid="outcome-arguments"]').text()).toContain('"edited text"')
  })

  it('falls back to raw JSON for a complex schema, checks the syntax, and keeps the edit on a 422', async () => {
    const w = await show(
      approvalCard({
        tool: {
          server: 'fs',
          name: 'write_file',
          description: 'Writes a file',
          arguments: { path: '/tmp/a', options: { mode: 'w' } },
          input_schema: { type: 'object', properties: { path: { type: 'string' }, options: { type: 'object' } } },
        },
      }),
    )
    await click(w, 'approval-edit')
    expect(w.find('[data-testid="approval-form"]').exists()).toBe(false)
    const ta = w.find('[data-testid="approval-json"]')
    expect((ta.element as HTMLTextAreaElement).value).toBe('{\n  "path": "/tmp/a",\n  "options": {\n    "mode": "w"\n  }\n}')
    await ta.setValue('{"path": "/tmp/b",')
    await click(w, 'approve')
    expect(w.find('[data-testid="json-error"]').text()).toMatch(/^Not valid JSON/)
    await ta.setValue('[1]')
    await click(w, 'approve')
    expect(w.find('[data-testid="json-error"]').text()).toBe('The arguments must be a JSON object ({ … }).')
    expect(sent()).toEqual([])

    await ta.setValue('{"path": 5}')
    env.fake.failNext('respond', 'arguments: path: expected string, got number', 422)
    await click(w, 'approve')
    expect(w.find('[data-testid="respond-error"]').text()).toBe('arguments: path: expected string, got number')
    expect(card(w).attributes('data-status')).toBe('pending')
    expect((w.find('[data-testid="approval-json"]').element as HTMLTextAreaElement).value).toBe('{"path": 5}')

    await w.find('[data-testid="approval-json"]').setValue('{"path": "/tmp/b"}')
    await click(w, 'approve')
    expect(sent().at(-1)).toEqual({ question_id: 'ap-1', action: 'approve', arguments: { path: '/tmp/b' } })
    expect(card(w).attributes('data-status')).toBe('approved')
  })

  it('rejects with an optional reason', async () => {
    const w = await show(approvalCard())
    await click(w, 'approval-reject')
    await w.find('[data-testid="reject-reason"]').setValue('  Not this file  ')
    await click(w, 'reject-confirm')
    expect(sent()).toEqual([{ question_id: 'ap-1', action: 'reject', reason: 'Not this file' }])
    expect(w.find('[data-testid="outcome-reason"]').text()).toBe('Reason: Not this file')
    expect(w.find('[data-testid="approval-outcome"]').text()).toContain('Rejected: the tool did not run.')
  })

  it('cancels after a confirmation (Escape asks)', async () => {
    const w = await show(approvalCard())
    await card(w).trigger('keydown', { key: 'Escape' })
    expect(w.find('[data-testid="cancel-confirm"]').text()).toContain('The tool does not run')
    await click(w, 'confirm-cancel')
    expect(sent()).toEqual([{ question_id: 'ap-1', action: 'cancel' }])
    expect(w.find('[data-testid="approval-outcome"]').text()).toContain('Cancelled: the tool did not run and the reply stopped.')
  })

  it('shows resolved cards with their outcome, and a timed-out card cannot be approved late', async () => {
    const w = await show(approvalCard({ status: 'timed_out' }))
    expect(card(w).attributes('data-status')).toBe('timed_out')
    expect(w.find('[data-testid="approve"]').exists()).toBe(false)
    expect(w.find('[data-testid="approval-outcome"]').text()).toContain('Timed out: the tool did not run.')
    expect(card(w).find('h2').text()).toBe('Tool call: everything · echo')
  })

  it('shows a stored approval with edited arguments and a stored rejection reason', async () => {
    const w = await show(approvalCard({ status: 'approved', approved_arguments: { message: 'changed' } }))
    expect(w.find('[data-testid="approval-outcome"]').text()).toContain('Approved with edited arguments.')
    expect(w.find('[data-testid="outcome-arguments"]').text()).toContain('changed')
    resetDom()
    env = setupEnv()
    const r = await show(approvalCard({ question_id: 'ap-2', status: 'rejected', reason: 'no' }))
    expect(r.find('[data-testid="outcome-reason"]').text()).toBe('Reason: no')
  })
})
