// Builds what the chat shows, in order, from the messages and the cards of a
// conversation. Cards are keyed by question_id so the same component instance
// is kept (moved, never re-created) while text streams around it.
import type { Card, Message } from '../types'
import { ASK_TOOL } from '../types'
import { cardFromToolResult, questionsFromArguments } from './cards'

export type TimelineItem =
  | { kind: 'user'; key: string; message: Message }
  | { kind: 'assistant'; key: string; message: Message }
  | { kind: 'tool'; key: string; message: Message }
  | { kind: 'card'; key: string; card: Card; readonly: boolean }
  | { kind: 'stream'; key: string }

export const STREAM_KEY = 'stream'

export function cardKey(questionId: string): string {
  return `q:${questionId}`
}

export function buildTimeline(messages: Message[], cards: Card[], streaming: boolean): TimelineItem[] {
  const items: TimelineItem[] = []
  const byCall = new Map<string, Card>()
  for (const c of cards) if (c.tool_call_id) byCall.set(c.tool_call_id, c)
  const placed = new Set<string>()
  const askCalls = new Map<string, string>() // tool_call_id -> arguments

  const placeCard = (card: Card) => {
    if (placed.has(card.question_id)) return
    placed.add(card.question_id)
    items.push({ kind: 'card', key: cardKey(card.question_id), card, readonly: false })
  }

  for (const m of messages) {
    if (m.role === 'system') continue
    if (m.role === 'user') {
      items.push({ kind: 'user', key: `m:${m.id}`, message: m })
      continue
    }
    if (m.role === 'assistant') {
      if (m.content && m.content.trim()) items.push({ kind: 'assistant', key: `m:${m.id}`, message: m })
      for (const tc of m.tool_calls ?? []) {
        if (tc.name !== ASK_TOOL) continue
        askCalls.set(tc.id, tc.arguments)
        const card = byCall.get(tc.id)
        if (card) placeCard(card)
      }
      continue
    }
    // tool results
    const isAsk = m.tool_name === ASK_TOOL || (!!m.tool_call_id && askCalls.has(m.tool_call_id))
    if (isAsk) {
      const card = m.tool_call_id ? byCall.get(m.tool_call_id) : undefined
      if (card) {
        placeCard(card)
        continue
      }
      const rebuilt = cardFromToolResult(m, questionsFromArguments(m.tool_call_id ? askCalls.get(m.tool_call_id) : undefined), m.conversationId ?? '')
      if (rebuilt) {
        items.push({ kind: 'card', key: `t:${m.id}`, card: rebuilt, readonly: true })
        continue
      }
    }
    items.push({ kind: 'tool', key: `m:${m.id}`, message: m })
  }

  if (streaming) items.push({ kind: 'stream', key: STREAM_KEY })
  // Cards not tied to a message yet (asked while the model was still
  // streaming, or without a tool_call_id) come last, oldest first.
  for (const c of cards) placeCard(c)
  return items
}
