// Builds what the chat shows, in order, from the messages and the cards of a
// conversation. Cards are keyed by question_id so the same component instance
// is kept (moved, never re-created) while text streams around it.
//
// A card belongs to the tool call that asked it: the pair (run_id,
// tool_call_id). Models reuse call ids across turns (the demo model sends
// call_demo_1 every time), so the call id alone is not enough; the run id
// tells the calls apart. Where a side has no run id (an older backend, a
// transport that sends none), the oldest card of that call id not placed yet
// is taken. A card whose call is not in the list (yet) goes after the last
// message of its run, or else at the end; such cards keep their created order.
import type { Card, Message } from '../types'
import { ASK_TOOL } from '../types'
import { cardFromToolResult, isAnswerable, questionsFromArguments } from './cards'

// `branches`: the messages at branch points (siblings > 1) that the item
// shows the `< 2/3 >` switcher of: its own message, a message before it that
// shows nothing (an assistant message with only tool calls), and for a card
// the tool result on the path (`result`, a changed answer is its sibling).
export type TimelineItem =
  | { kind: 'user'; key: string; message: Message; branches?: Message[] }
  | { kind: 'assistant'; key: string; message: Message; branches?: Message[] }
  | { kind: 'tool'; key: string; message: Message; branches?: Message[] }
  | { kind: 'card'; key: string; card: Card; readonly: boolean; branches?: Message[]; result?: Message }
  | { kind: 'stream'; key: string }

export const STREAM_KEY = 'stream'

export function cardKey(questionId: string): string {
  return `q:${questionId}`
}

function createdMs(c: Card): number {
  const t = Date.parse(c.created_at)
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t
}

/** Cards oldest first; the given order breaks ties (Array.prototype.sort is stable). */
function byCreated(cards: Card[]): Card[] {
  return [...cards].sort((a, b) => {
    const d = createdMs(a) - createdMs(b)
    return Number.isNaN(d) ? 0 : d
  })
}

interface AskCall {
  arguments: string
  /** The card placed at this call, if one was found. */
  card?: Card
}

export function buildTimeline(messages: Message[], cards: Card[], streaming: boolean): TimelineItem[] {
  const items: TimelineItem[] = []
  const sorted = byCreated(cards)
  const byCall = new Map<string, Card[]>()
  for (const c of sorted) {
    if (!c.tool_call_id) continue
    const list = byCall.get(c.tool_call_id)
    if (list) list.push(c)
    else byCall.set(c.tool_call_id, [c])
  }
  const placed = new Set<string>()
  // The latest ask_user_question call of each call id: the tool result that
  // follows answers the call made just before it.
  const askCalls = new Map<string, AskCall>()
  // run_id -> number of items once the run's last message was added.
  const runEnd = new Map<string, number>()

  /** The card of call `callId` made in run `runId`; undefined when none fits. */
  const findCard = (callId: string, runId: string | undefined): Card | undefined => {
    const list = byCall.get(callId)
    if (!list) return undefined
    if (runId) {
      // A run may ask twice with the same id: the oldest card not placed yet first.
      const exact = list.find((c) => c.run_id === runId && !placed.has(c.question_id)) ?? list.find((c) => c.run_id === runId)
      if (exact) return exact
    }
    // Without a run id on one side, the oldest card of this call id not yet placed.
    return list.find((c) => !placed.has(c.question_id) && (!runId || !c.run_id))
  }

  const placeCard = (card: Card) => {
    if (placed.has(card.question_id)) return
    placed.add(card.question_id)
    push({ kind: 'card', key: cardKey(card.question_id), card, readonly: false })
  }

  // Branch points not shown yet: they go with the next item.
  let carried: Message[] = []
  const cardItems = new Map<string, TimelineItem & { kind: 'card' }>()
  const push = (item: TimelineItem) => {
    if (item.kind !== 'stream' && carried.length) {
      item.branches = [...(item.branches ?? []), ...carried]
      carried = []
    }
    if (item.kind === 'card') cardItems.set(item.card.question_id, item)
    items.push(item)
  }

  for (const m of messages) {
    if (m.role === 'system') continue
    if (m.siblings > 1) carried.push(m)
    if (m.role === 'user') {
      push({ kind: 'user', key: `m:${m.id}`, message: m })
    } else if (m.role === 'assistant') {
      // A reply that thought shows its thinking, even with nothing else to show (SPEC §9).
      if ((m.content && m.content.trim()) || m.reasoning) push({ kind: 'assistant', key: `m:${m.id}`, message: m })
      for (const tc of m.tool_calls ?? []) {
        if (tc.name !== ASK_TOOL) {
          askCalls.delete(tc.id)
          // An MCP tool's approval and the elicitations it asked for (SPEC §6) go with its call.
          for (const c of byCall.get(tc.id) ?? []) {
            if (c.kind !== 'question' && !placed.has(c.question_id) && (!m.run_id || !c.run_id || c.run_id === m.run_id)) placeCard(c)
          }
          continue
        }
        const card = findCard(tc.id, m.run_id)
        askCalls.set(tc.id, { arguments: tc.arguments, card })
        if (card) placeCard(card)
      }
    } else {
      // tool results
      const call = m.tool_call_id ? askCalls.get(m.tool_call_id) : undefined
      const isAsk = m.tool_name === ASK_TOOL || !!call
      let shown = false
      if (isAsk) {
        const card = call?.card ?? (m.tool_call_id ? findCard(m.tool_call_id, m.run_id) : undefined)
        if (card) {
          placeCard(card)
          const item = cardItems.get(card.question_id)
          if (item) {
            // The card shows its answer on this branch (a changed answer is a sibling result).
            item.result = m
            if (carried.includes(m)) {
              item.branches = [...(item.branches ?? []), m]
              carried = carried.filter((x) => x !== m)
            }
          }
          shown = true
        } else {
          const rebuilt = cardFromToolResult(m, questionsFromArguments(call?.arguments), m.conversationId ?? '')
          if (rebuilt) {
            push({ kind: 'card', key: `t:${m.id}`, card: rebuilt, readonly: true, result: m })
            shown = true
          }
        }
        if (m.tool_call_id) askCalls.delete(m.tool_call_id)
      }
      if (!shown) push({ kind: 'tool', key: `m:${m.id}`, message: m })
    }
    if (m.run_id) runEnd.set(m.run_id, items.length)
  }

  if (streaming) items.push({ kind: 'stream', key: STREAM_KEY })

  // Cards not tied to a message (asked before their message arrived, asked by
  // a helper agent, or without a tool_call_id): after the last message of
  // their run, or else last; oldest first either way.
  // A closed card of a run that is not on the shown path belongs to another
  // branch (an edited message, a regenerated reply): it is not shown here.
  const otherBranch = (c: Card) => !!c.run_id && runEnd.size > 0 && !runEnd.has(c.run_id) && !isAnswerable(c.status, c.kind)
  const rest = sorted.filter((c) => !placed.has(c.question_id) && !otherBranch(c))
  if (!rest.length) return items
  const after = new Map<number, Card[]>()
  const tail: Card[] = []
  for (const c of rest) {
    placed.add(c.question_id)
    const at = c.run_id ? runEnd.get(c.run_id) : undefined
    if (at === undefined) {
      tail.push(c)
      continue
    }
    const list = after.get(at)
    if (list) list.push(c)
    else after.set(at, [c])
  }
  const cardItem = (card: Card): TimelineItem => ({ kind: 'card', key: cardKey(card.question_id), card, readonly: false })
  const out: TimelineItem[] = []
  for (let i = 0; i <= items.length; i++) {
    for (const c of after.get(i) ?? []) out.push(cardItem(c))
    if (i < items.length) out.push(items[i]!)
  }
  for (const c of tail) out.push(cardItem(c))
  return out
}
