// Memory (SPEC §14) as the cards and Settings see it: the model's `remember`
// approval card, cards answered from memory, and which memory was made from
// which question of a card.
import type { Card, Memory, Question } from '../types'
import { ANSWERED_BY_MEMORY } from '../types'

/** The name of the model's tool that proposes a memory (an approval card "Remember this?"). */
export const REMEMBER_TOOL = 'remember'

/** Whether a card is the approval of the model's `remember` tool (Parley's own, not an MCP tool of that name). */
export function isRememberCard(card: Pick<Card, 'kind' | 'source' | 'tool'>): boolean {
  return card.kind === 'approval' && card.source?.type === 'model' && (card.tool?.name ?? card.source?.tool) === REMEMBER_TOOL
}

/** The text a remember card proposes (its arguments' `text`). */
export function rememberText(args: unknown): string {
  const text = args && typeof args === 'object' ? (args as { text?: unknown }).text : undefined
  return typeof text === 'string' ? text : ''
}

/** Whether a card was answered at once from the user's memories. */
export function answeredFromMemory(card: Pick<Card, 'answered_by'>): boolean {
  return card.answered_by === ANSWERED_BY_MEMORY
}

/** How a memory made from an answer begins (Go's memory.FromAnswer): "<header>: <question> — ". */
export function answerMemoryPrefix(q: Question): string {
  const header = (q.header ?? '').trim()
  return `${header ? `${header}: ` : ''}${q.question.trim()} — `
}

/**
 * The memory made from question `q` of the card `questionId`, if it is
 * still kept: a card's answer memories name the card; with several
 * questions, the text says which (until the user edits it).
 */
export function memoryOfQuestion(memories: readonly Memory[], questionId: string, q: Question, questionCount: number): Memory | undefined {
  const fromCard = memories.filter((m) => m.source.type === 'answer' && m.source.question_id === questionId)
  if (fromCard.length === 1 && questionCount === 1) return fromCard[0]
  const prefix = answerMemoryPrefix(q)
  return fromCard.find((m) => m.text.startsWith(prefix))
}

/** Memories whose text contains every word of the query (any case). */
export function filterMemories(memories: readonly Memory[], query: string): Memory[] {
  const words = query.toLocaleLowerCase().split(/\s+/).filter(Boolean)
  if (!words.length) return [...memories]
  return memories.filter((m) => {
    const text = m.text.toLocaleLowerCase()
    return words.every((w) => text.includes(w))
  })
}
