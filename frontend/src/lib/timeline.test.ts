import { describe, expect, it } from 'vitest'
import { buildTimeline, STREAM_KEY, Timeline } from './timeline'
import { cardFromEvent, normalizeQuestion, questionsFromArguments } from './cards'
import { makeCard } from '../test-utils'
import type { Message } from '../types'

const msg = (m: Partial<Message> & Pick<Message, 'id' | 'role'>): Message => ({ content: '', created_at: '', parent_id: '', siblings: 1, sibling_index: 0, ...m })
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

describe('buildTimeline with call ids reused across runs', () => {
  const ask = (id: string, run: string | undefined, callId = 'call_demo_1', created = '') =>
    msg({ id, role: 'assistant', content: `asking in ${run}`, run_id: run, created_at: created, tool_calls: [{ id: callId, name: 'ask_user_question', arguments: askArgs }] })
  const result = (id: string, run: string | undefined, content = 'The user declined to answer.', callId = 'call_demo_1') =>
    msg({ id, role: 'tool', tool_name: 'ask_user_question', tool_call_id: callId, run_id: run, content })
  const keys = (items: ReturnType<typeof buildTimeline>) => items.map((i) => i.key)

  it('places two cards with the same tool_call_id at the calls of their own runs', () => {
    const first = makeCard({ question_id: 'q1', run_id: 'r1', tool_call_id: 'call_demo_1', status: 'declined', created_at: '2026-01-01T10:00:00Z' })
    const second = makeCard({ question_id: 'q2', run_id: 'r2', tool_call_id: 'call_demo_1', status: 'pending', created_at: '2026-01-01T10:05:00Z' })
    const messages = [
      msg({ id: 'u1', role: 'user', content: 'plan a party', run_id: 'r1' }),
      ask('a1', 'r1'),
      result('t1', 'r1'),
      msg({ id: 'a1b', role: 'assistant', content: 'No problem', run_id: 'r1' }),
      msg({ id: 'u2', role: 'user', content: 'plan the menu', run_id: 'r2' }),
      ask('a2', 'r2'),
    ]
    const expected = ['m:u1', 'm:a1', 'q:q1', 'm:a1b', 'm:u2', 'm:a2', 'q:q2']
    expect(keys(buildTimeline(messages, [first, second], false))).toEqual(expected)
    // whatever order the store hands the cards over in
    expect(keys(buildTimeline(messages, [second, first], false))).toEqual(expected)
    // the same once the second card is answered and the run goes on
    const answered = { ...second, status: 'answered' as const }
    const more = [...messages, result('t2', 'r2', '{"answers":{"Size?":"M"}}'), msg({ id: 'a2b', role: 'assistant', content: 'Menu done', run_id: 'r2' })]
    expect(keys(buildTimeline(more, [answered, first], false))).toEqual([...expected, 'm:a2b'])
  })

  it('does not give a card to a call of another run', () => {
    // r1's messages are not loaded; its card must not take r2's call.
    const old = makeCard({ question_id: 'q1', run_id: 'r1', tool_call_id: 'call_demo_1', status: 'declined', created_at: '2026-01-01T10:00:00Z' })
    const items = buildTimeline([msg({ id: 'u2', role: 'user', content: 'menu', run_id: 'r2' }), ask('a2', 'r2'), result('t2', 'r2')], [old], false)
    // r2's result is shown as r2's own (rebuilt, read-only) card; r1's closed
    // card is of a branch not shown (SPEC §7), so it is left out
    expect(keys(items)).toEqual(['m:u2', 'm:a2', 't:t2'])
    // while it can still be answered it is shown, last
    expect(keys(buildTimeline([msg({ id: 'u2', role: 'user', content: 'menu', run_id: 'r2' })], [{ ...old, status: 'pending' }], false))).toEqual(['m:u2', 'q:q1'])
  })

  it('without run ids, each call takes the oldest card of its id not placed yet', () => {
    const first = makeCard({ question_id: 'q1', tool_call_id: 'call_demo_1', status: 'declined', created_at: '2026-01-01T10:00:00Z' })
    const second = makeCard({ question_id: 'q2', tool_call_id: 'call_demo_1', created_at: '2026-01-01T10:05:00Z' })
    const messages = [ask('a1', undefined), result('t1', undefined), msg({ id: 'u2', role: 'user', content: 'again' }), ask('a2', undefined)]
    expect(keys(buildTimeline(messages, [second, first], false))).toEqual(['m:a1', 'q:q1', 'm:u2', 'm:a2', 'q:q2'])
  })

  it('matches a card without a run id to a message with one, and the other way round', () => {
    const noRun = makeCard({ question_id: 'q1', tool_call_id: 'c1' })
    expect(keys(buildTimeline([ask('a1', 'r1', 'c1')], [noRun], false))).toEqual(['m:a1', 'q:q1'])
    const withRun = makeCard({ question_id: 'q1', tool_call_id: 'c1', run_id: 'r1' })
    expect(keys(buildTimeline([ask('a1', undefined, 'c1')], [withRun], false))).toEqual(['m:a1', 'q:q1'])
  })

  it('puts a card whose call is not found after the last message of its run, oldest first', () => {
    const b = makeCard({ question_id: 'qb', run_id: 'r1', tool_call_id: 'sub_2', created_at: '2026-01-01T10:02:00Z' })
    const a = makeCard({ question_id: 'qa', run_id: 'r1', tool_call_id: 'sub_1', created_at: '2026-01-01T10:01:00Z' })
    const loose = makeCard({ question_id: 'qx', created_at: '2026-01-01T09:00:00Z' })
    const messages = [
      msg({ id: 'u1', role: 'user', content: 'research', run_id: 'r1' }),
      msg({ id: 'a1', role: 'assistant', content: 'asking helpers', run_id: 'r1', tool_calls: [{ id: 'spawn', name: 'spawn_agents', arguments: '{}' }] }),
      msg({ id: 'u2', role: 'user', content: 'next', run_id: 'r2' }),
      msg({ id: 'a2', role: 'assistant', content: 'ok', run_id: 'r2' }),
    ]
    expect(keys(buildTimeline(messages, [b, loose, a], true))).toEqual(['m:u1', 'm:a1', 'q:qa', 'q:qb', 'm:u2', 'm:a2', STREAM_KEY, 'q:qx'])
  })

  it('orders loose cards by their time to the digit, cards of unknown time last', () => {
    const later = makeCard({ question_id: 'later', created_at: '2026-01-01T10:00:05.120000001Z' })
    const earlier = makeCard({ question_id: 'earlier', created_at: '2026-01-01T10:00:05.12Z' })
    const unknown = makeCard({ question_id: 'unknown', created_at: '' })
    const messages = [msg({ id: 'u1', role: 'user', content: 'hi' })]
    expect(keys(buildTimeline(messages, [unknown, later, earlier], false))).toEqual(['m:u1', 'q:earlier', 'q:later', 'q:unknown'])
  })

  it("keys the stream as its reply's stored message will be, so that one entry shows both", () => {
    const tl = new Timeline()
    const user = msg({ id: 'u1', role: 'user', content: 'hi' })
    const streaming = tl.build([user], [], 'a1')
    expect(keys(streaming)).toEqual(['m:u1', 'm:a1'])
    expect(streaming[1]!.kind).toBe('stream')
    // The same item while nothing changes (the entry is not rendered again).
    expect(tl.build([user], [], 'a1')[1]).toBe(streaming[1])
    const done = tl.build([user, msg({ id: 'a1', role: 'assistant', content: 'hello' })], [], false)
    expect(done.map((i) => [i.kind, i.key])).toEqual([
      ['user', 'm:u1'],
      ['assistant', 'm:a1'],
    ])
    // A stream whose id an item has already (or of no known id) keeps its own key.
    expect(keys(tl.build([user, msg({ id: 'a1', role: 'assistant', content: 'hello' })], [], 'a1'))).toEqual(['m:u1', 'm:a1', STREAM_KEY])
    expect(keys(buildTimeline([user], [], true))).toEqual(['m:u1', STREAM_KEY])
  })

  it('a run that asks twice with the same id gets both cards in order', () => {
    const one = makeCard({ question_id: 'q1', run_id: 'r1', tool_call_id: 'c', status: 'answered', created_at: '2026-01-01T10:00:00Z' })
    const two = makeCard({ question_id: 'q2', run_id: 'r1', tool_call_id: 'c', created_at: '2026-01-01T10:01:00Z' })
    const messages = [ask('a1', 'r1', 'c'), result('t1', 'r1', '{"answers":{"Size?":"M"}}', 'c'), ask('a2', 'r1', 'c')]
    expect(keys(buildTimeline(messages, [two, one], false))).toEqual(['m:a1', 'q:q1', 'm:a2', 'q:q2'])
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

describe('buildTimeline on a branched conversation (SPEC §7)', () => {
  const branched = (m: Partial<Message> & Pick<Message, 'id' | 'role'>, ids: string[]): Message =>
    msg({ ...m, siblings: ids.length, sibling_index: ids.indexOf(m.id), sibling_ids: ids })

  it('gives each item the branch points it switches: its own, or a hidden message before it', () => {
    const items = buildTimeline(
      [
        branched({ id: 'u1b', role: 'user', content: 'edited' }, ['u1', 'u1b']),
        // A reply that starts with a bare tool call: its switcher goes with what shows next.
        branched({ id: 'a1b', role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'web_search', arguments: '{}' }] }, ['a1', 'a1b']),
        msg({ id: 't1', role: 'tool', tool_name: 'web_search', tool_call_id: 'c1', content: 'found' }),
        msg({ id: 'a2', role: 'assistant', content: 'done' }),
      ],
      [],
      false,
    )
    expect(items.map((i) => [i.key, i.kind === 'stream' ? [] : (i.branches ?? []).map((m) => m.id)])).toEqual([
      ['m:u1b', ['u1b']],
      ['m:t1', ['a1b']],
      ['m:a2', []],
    ])
  })

  it('a card gets the tool result of the path: a changed answer switches on it', () => {
    const card = makeCard({ question_id: 'q1', run_id: 'r1', tool_call_id: 'call-1', status: 'answered', answers: { 'Which database?': 'SQLite' } })
    const items = buildTimeline(
      [
        msg({ id: 'u', role: 'user', content: 'hi', run_id: 'r1' }),
        msg({ id: 'a', role: 'assistant', content: 'one question', run_id: 'r1', tool_calls: [{ id: 'call-1', name: 'ask_user_question', arguments: askArgs }] }),
        branched({ id: 't2', role: 'tool', tool_name: 'ask_user_question', tool_call_id: 'call-1', run_id: 'r1', content: '{"answers":{"Which database?":"Postgres"}}' }, ['t1', 't2']),
        msg({ id: 'a2', role: 'assistant', content: 'Postgres then', run_id: 'r2' }),
      ],
      [card],
      false,
    )
    expect(items.map((i) => i.key)).toEqual(['m:u', 'm:a', 'q:q1', 'm:a2'])
    const cardItem = items[2]!
    expect(cardItem.kind === 'card' && cardItem.result?.id).toBe('t2')
    expect(cardItem.kind === 'card' && cardItem.branches?.map((m) => m.id)).toEqual(['t2'])
  })
})
