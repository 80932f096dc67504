// A Timeline kept between builds (the chat list's) gives what a timeline
// built from nothing gives, after any sequence of changes the stores make:
// messages added, replaced or cut (a branch switch), the list loaded again,
// cards asked, answered, released or reordered, a stream starting and
// ending. And an item whose content did not change is the same object as in
// the list before (its component is then not rendered again).
import { describe, expect, it } from 'vitest'
import { buildTimeline, Timeline, type TimelineItem } from './timeline'
import { makeCard } from '../test-utils'
import type { Card, CardKind, CardStatus, Message } from '../types'

/** A small seeded generator (mulberry32): a failing seed fails the same way again. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!
  return { next, int, pick }
}

const ARGS = JSON.stringify({ questions: [{ question: 'Size?', options: ['S', 'M'] }] })
const RUNS = ['r1', 'r2', 'r3', undefined] as const
const CALLS = ['call_1', 'call_2', 'call_demo_1'] as const
const TOOLS = ['ask_user_question', 'ask_user_question', 'web_search'] as const
const STATUSES: CardStatus[] = ['pending', 'answered', 'declined', 'cancelled', 'timed_out']
const KINDS: CardKind[] = ['question', 'question', 'approval', 'elicitation']

/** What an item shows, by identity of what it was made from (not of the item itself). */
function shape(items: TimelineItem[]) {
  return items.map((i) =>
    i.kind === 'stream'
      ? { key: i.key }
      : i.kind === 'card'
        ? { key: i.key, card: i.readonly ? JSON.stringify(i.card) : i.card, readonly: i.readonly, result: i.result, branches: i.branches }
        : { key: i.key, message: i.message, branches: i.branches },
  )
}

function scenario(seed: number, steps: number) {
  const r = rng(seed)
  let seq = 0
  let messages: Message[] = []
  let cards: Card[] = []
  let streaming = false
  const message = (): Message => {
    const id = `m${++seq}`
    const run = r.pick(RUNS)
    const siblings = r.int(5) === 0 ? 2 : 1
    const base = { id, content: '', created_at: '', parent_id: messages.at(-1)?.id ?? '', siblings, sibling_index: siblings - 1, ...(run ? { run_id: run } : {}) }
    switch (r.int(4)) {
      case 0:
        return { ...base, role: 'user', content: `question ${seq}` }
      case 1: {
        const n = 1 + r.int(2)
        const tool_calls = Array.from({ length: n }, () => ({ id: r.pick(CALLS), name: r.pick(TOOLS), arguments: ARGS }))
        return { ...base, role: 'assistant', content: r.int(2) ? `reply ${seq}` : '', tool_calls }
      }
      case 2:
        return { ...base, role: 'assistant', content: r.int(4) ? `reply ${seq}` : ' ' }
      default: {
        const answered = r.int(3) > 0
        return { ...base, role: 'tool', tool_call_id: r.pick(CALLS), tool_name: r.pick(TOOLS), content: answered ? '{"answers":{"Size?":"M"}}' : 'The user declined to answer.' }
      }
    }
  }
  const card = (): Card => {
    const run = r.pick(RUNS)
    return makeCard({
      question_id: `q${++seq}`,
      conversationId: 'c',
      kind: r.pick(KINDS),
      status: r.pick(STATUSES),
      created_at: `2026-01-01T10:00:${String(r.int(60)).padStart(2, '0')}.000Z`,
      ...(r.int(6) ? { tool_call_id: r.pick(CALLS) } : {}),
      ...(run ? { run_id: run } : {}),
    })
  }
  // The changes the stores make; each replaces what it changes.
  const changes = [
    () => (messages = [...messages, message()]),
    () => (messages = [...messages, message()]),
    () => (messages = [...messages, message(), message(), message()]),
    () => {
      if (!messages.length) return
      const i = messages.length - 1 - r.int(Math.min(3, messages.length))
      messages = messages.map((m, j) => (j === i ? { ...m, content: m.content + ' edited' } : m))
    },
    () => {
      if (!messages.length) return
      const i = r.int(messages.length)
      messages = messages.map((m, j) => (j === i ? { ...m, siblings: m.siblings > 1 ? 1 : 2 } : m))
    },
    () => (messages = messages.slice(0, r.int(messages.length + 1))), // a branch switch, a retry
    () => (messages = messages.map((m) => ({ ...m }))), // loaded again
    () => (cards = [...cards, card()]),
    () => (cards = [...cards, card()]),
    () => {
      if (!cards.length) return
      const i = r.int(cards.length)
      cards = cards.map((c, j) => (j === i ? { ...c, status: r.pick(STATUSES) } : c))
    },
    () => {
      if (!cards.length) return
      const i = r.int(cards.length)
      cards = cards.filter((_, j) => j !== i)
    },
    () => (cards = [...cards].reverse()),
    () => (streaming = !streaming),
    () => {}, // another store's change: nothing here changed
  ]
  const timeline = new Timeline()
  let before: TimelineItem[] = []
  for (let step = 0; step < steps; step++) {
    r.pick(changes)()
    const items = timeline.build(messages, cards, streaming)
    const fresh = buildTimeline(messages, cards, streaming)
    expect(shape(items), `seed ${seed}, step ${step}`).toEqual(shape(fresh))
    // The item of a key that shows the same thing is the same object.
    const old = new Map(before.map((i) => [i.key, i]))
    for (const item of items) {
      const prev = old.get(item.key)
      if (!prev) continue
      const same = JSON.stringify(shape([prev])) === JSON.stringify(shape([item])) && sameRefs(prev, item)
      if (same) expect(item, `seed ${seed}, step ${step}: ${item.key} made again`).toBe(prev)
    }
    before = items
  }
}

function sameRefs(a: TimelineItem, b: TimelineItem): boolean {
  if (a.kind === 'stream' || b.kind === 'stream') return a.kind === b.kind
  const br = (x?: Message[]) => x ?? []
  if (br(a.branches).length !== br(b.branches).length || br(a.branches).some((m, i) => m !== br(b.branches)[i])) return false
  if (a.kind === 'card' && b.kind === 'card') return a.card === b.card && a.result === b.result && a.readonly === b.readonly
  return a.kind !== 'card' && b.kind !== 'card' && a.message === b.message
}

describe('Timeline kept between builds', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 20260101, 424242]) {
    it(`gives the timeline built from nothing, and keeps unchanged items (seed ${seed})`, () => scenario(seed, 400))
  }

  it('returns the same list when nothing it shows changed', () => {
    const t = new Timeline()
    const messages: Message[] = [{ id: 'u', role: 'user', content: 'hi', created_at: '', parent_id: '', siblings: 1, sibling_index: 0 }]
    const cards = [makeCard({ question_id: 'q1' })]
    const first = t.build(messages, cards, false)
    expect(t.build([...messages], [...cards], false)).toBe(first)
    expect(t.build(messages, cards, true)).not.toBe(first)
  })

  it('walks again only from the first message a change touches', () => {
    // Each message counts the walks that read it.
    const reads = new Map<string, number>()
    const counted = (id: string, role: 'user' | 'assistant'): Message => {
      const m = { id, content: `text ${id}`, created_at: '', parent_id: '', siblings: 1, sibling_index: 0 } as Message
      return Object.defineProperty(m, 'role', { get: () => (reads.set(id, (reads.get(id) ?? 0) + 1), role), enumerable: true })
    }
    const messages = Array.from({ length: 1000 }, (_, i) => counted(`m${i}`, i % 2 ? 'assistant' : 'user'))
    const t = new Timeline()
    const first = t.build(messages, [], false)
    reads.clear()
    const second = t.build([...messages, counted('m1000', 'user')], [], false)
    expect(second).toHaveLength(1001)
    expect([...reads.keys()]).toEqual(['m1000'])
    first.forEach((item, i) => expect(second[i]).toBe(item))

    // A message replaced near the end: the walk starts there.
    reads.clear()
    const list = [...messages, counted('m1000', 'user')]
    list[998] = counted('m998', 'user')
    t.build(list, [], false)
    expect([...reads.keys()].sort()).toEqual(['m1000', 'm998', 'm999'])

    // A card of a call named by a message: the walk starts at that message.
    const withCall = [...list, Object.assign(counted('m1001', 'assistant'), { tool_calls: [{ id: 'call_9', name: 'ask_user_question', arguments: '{}' }] }), counted('m1002', 'user')]
    t.build(withCall, [], false)
    reads.clear()
    const items = t.build(withCall, [makeCard({ question_id: 'q9', conversationId: 'c', tool_call_id: 'call_9' })], false)
    expect([...reads.keys()].sort()).toEqual(['m1001', 'm1002'])
    expect(items.map((i) => i.key).slice(-3)).toEqual(['m:m1001', 'q:q9', 'm:m1002'])
  })
})
