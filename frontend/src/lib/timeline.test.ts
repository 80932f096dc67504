import { describe, expect, it } from 'vitest'
import { buildTimeline } from './timeline'
import { cardFromEvent, normalizeQuestion, questionsFromArguments } from './cards'
import { makeCard } from '../test-utils'
import type { Message } from '../types'

const msg = (m: Partial<Message> & Pick<Message, 'id' | 'role'>): Message => ({ content: '', created_at: '', ...m })
const askArgs = JSON.stringify({ questions: [{ question: 'Size?', options: ['S', 'M'] }] })

describe('buildTimeline', () => {
  it('places a card right after the assistant message that asked it, once', () => {
    const card = makeCard({ question_id: 'q1', tool_call_id: 'call-1', status: 'answered', answers: { 'Which database?': 'SQLite' } })
    const items = buildTimeline(
      [
        msg({ id: 'u', role: 'user', content: 'hi' }),
        msg({ id: 'a', role: 'assistant', content: 'one question', tool_calls: [{ id: 'call-1', name: 'ask_user_question', arguments: askArgs }] }),
        msg({ id: 't', role: 'tool', tool_name: 'ask_user_question', tool_call_id: 'call-1', content: '{"answers":{"Which database?":"SQLite"}}' }),
        msg({ id: 'a2', role: 'assistant', content: 'thanks' }),
      ],
      [card],
      false,
    )
    expect(items.map((i) => i.key)).toEqual(['m:u', 'm:a', 'q:q1', 'm:a2'])
  })

  it('puts cards not tied to a message after the streaming text', () => {
    const items = buildTimeline([msg({ id: 'u', role: 'user', content: 'hi' })], [makeCard({ question_id: 'q1' })], true)
    expect(items.map((i) => i.kind)).toEqual(['user', 'stream', 'card'])
  })

  it('rebuilds a read-only card from history when the card itself is unknown', () => {
    const items = buildTimeline(
      [
        msg({ id: 'a', role: 'assistant', content: '', tool_calls: [{ id: 'c9', name: 'ask_user_question', arguments: askArgs }] }),
        msg({ id: 't', role: 'tool', tool_name: 'ask_user_question', tool_call_id: 'c9', content: '{"answers":{"Size?":"M"},"comments":"fits"}' }),
        msg({ id: 'x', role: 'tool', tool_name: 'web_search', tool_call_id: 'c10', content: 'results' }),
      ],
      [],
      false,
    )
    expect(items).toHaveLength(2)
    const first = items[0]!
    expect(first.kind).toBe('card')
    if (first.kind !== 'card') return
    expect(first.readonly).toBe(true)
    expect(first.card.status).toBe('answered')
    expect(first.card.answers).toEqual({ 'Size?': 'M' })
    expect(first.card.comments).toBe('fits')
    expect(first.card.questions[0]!.options).toEqual([{ label: 'S' }, { label: 'M' }])
    expect(items[1]!.kind).toBe('tool')
  })

  it('shows an ask_user_question input error as a plain tool result', () => {
    const items = buildTimeline(
      [
        msg({ id: 'a', role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'ask_user_question', arguments: askArgs }] }),
        msg({ id: 't', role: 'tool', tool_name: 'ask_user_question', tool_call_id: 'c1', content: 'invalid input: questions[0].options must have 2-4 items (got 5)' }),
      ],
      [],
      false,
    )
    expect(items.map((i) => i.kind)).toEqual(['tool'])
  })
})

describe('card normalization', () => {
  it('accepts the single-question form and plain-string options', () => {
    const qs = questionsFromArguments('{"question":"Pick","options":["a","b"],"allowCustom":false,"customPlaceholder":"p"}')
    expect(qs).toEqual([{ question: 'Pick', options: [{ label: 'a' }, { label: 'b' }], multiSelect: false, allowCustom: false, placeholder: 'p' }])
  })

  it('forces allowCustom for open-ended questions and no multiSelect', () => {
    expect(normalizeQuestion({ question: 'Why?', options: [], allowCustom: false, multiSelect: true })).toMatchObject({ allowCustom: true, multiSelect: false })
  })

  it('reads the card from either event shape', () => {
    expect(cardFromEvent(makeCard())!.question_id).toBe('card-1')
    expect(cardFromEvent({ conversationId: 'c', card: { ...makeCard(), conversationId: '' } })!.conversationId).toBe('c')
    expect(cardFromEvent({ conversationId: 'c' } as never)).toBeNull()
  })
})
