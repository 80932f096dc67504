// Card helpers shared by the questions store, QuestionCard and the fake
// transport: normalizing cards from the wire, drafts, client-side validation
// mirroring SPEC §1, and building the exact respond body of SPEC §4.
import type { AnswerInput, Answers, Card, CardKind, CardStatus, Message, Question, QuestionEvent, QuestionOption } from '../types'
import { CARD_KINDS, CARD_STATUSES } from '../types'
import { t } from '../i18n'
import { isRememberCard } from './memory'
import { olderFirst, timeKey, type TimeKey } from './times'

export const CUSTOM_MAX = 1000
export const COMMENTS_MAX = 2000

/** What the user has entered so far for one question. */
export interface QuestionDraft {
  /** Selected option labels. */
  selected: string[]
  /** "Other" is chosen (for open-ended questions the text field is always on). */
  customOn: boolean
  custom: string
  /** "Remember my answer" (SPEC §14): sent as `remember`. */
  remember?: boolean
  /** "Answer like this next time": the memory answers the same question by itself. */
  autoAnswer?: boolean
}

/** Everything entered into one card, kept in the store by question_id. */
export interface CardDraft {
  /** Current step; equal to questions.length means the review step. */
  step: number
  answers: QuestionDraft[]
  comments: string
  showComments: boolean
  /** The user chose "Answer anyway" on an expired card. */
  late: boolean
}

export function emptyDraft(questionCount: number): CardDraft {
  return {
    step: 0,
    answers: Array.from({ length: questionCount }, () => ({ selected: [], customOn: false, custom: '' })),
    comments: '',
    showComments: false,
    late: false,
  }
}


function str(v: unknown): string {
  return typeof v === 'string' ? v : v == null ? '' : String(v)
}

function normalizeOption(o: unknown): QuestionOption | null {
  if (typeof o === 'string') return o ? { label: o } : null
  if (o && typeof o === 'object') {
    const label = str((o as { label?: unknown }).label)
    if (!label) return null
    const description = str((o as { description?: unknown }).description)
    return description ? { label, description } : { label }
  }
  return null
}

/** Normalizes one question the way SPEC §1 describes (lenient where safe). */
export function normalizeQuestion(q: unknown): Question {
  const raw = (q && typeof q === 'object' ? q : {}) as Record<string, unknown>
  const options = (Array.isArray(raw.options) ? raw.options : []).map(normalizeOption).filter((o): o is QuestionOption => !!o)
  const placeholder = str(raw.placeholder ?? raw.customPlaceholder)
  const header = str(raw.header)
  const out: Question = {
    question: str(raw.question),
    options,
    multiSelect: options.length > 0 && raw.multiSelect === true,
    allowCustom: options.length === 0 ? true : raw.allowCustom !== false,
  }
  if (header) out.header = header
  if (placeholder) out.placeholder = placeholder
  return out
}

/** Questions from ask_user_question arguments (either input form). */
export function questionsFromArguments(args: unknown): Question[] {
  let v: unknown = args
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v)
    } catch {
      return []
    }
  }
  if (!v || typeof v !== 'object') return []
  const obj = v as Record<string, unknown>
  if (Array.isArray(obj.questions)) return obj.questions.map(normalizeQuestion).filter((q) => q.question)
  if (typeof obj.question === 'string') return [normalizeQuestion(obj)].filter((q) => q.question)
  return []
}

/**
 * When a card was asked, read once per card object: a card is replaced,
 * never changed in place, and the lists of cards are sorted again on every
 * card event.
 */
const createdAt = new WeakMap<Card, TimeKey>()
function createdKey(c: Card): TimeKey {
  let key = createdAt.get(c)
  if (key === undefined) createdAt.set(c, (key = timeKey(c.created_at)))
  return key
}

/**
 * Orders cards oldest first, to the digit, cards of unknown time last, for
 * Array.prototype.sort (stable: equal times keep their order; lib/times).
 */
export function byCreated(a: Card, b: Card): number {
  return olderFirst(createdKey(a), createdKey(b))
}

/** A card from the wire, with every field the UI relies on present. */
export function normalizeCard(raw: Card): Card {
  const status = CARD_STATUSES.includes(raw.status) ? raw.status : 'pending'
  const kind: CardKind = CARD_KINDS.includes(raw.kind) ? raw.kind : 'question'
  return {
    ...raw,
    status,
    kind,
    source: raw.source ?? (kind === 'question' ? { type: 'model' } : null),
    questions: (raw.questions ?? []).map(normalizeQuestion),
    created_at: raw.created_at ?? new Date().toISOString(),
    expires_at: raw.expires_at ?? null,
  }
}

/** The card in a question:ask / question:resolved payload. */
/** Go sends the card itself; a card nested as `card` is accepted too. */
export function cardFromEvent(payload: QuestionEvent | { conversationId: string; card: Card } | null | undefined): Card | null {
  if (!payload || typeof payload !== 'object') return null
  if ('question_id' in payload && payload.question_id) return normalizeCard(payload)
  const nested = (payload as { card?: Card; question?: Card }).card ?? (payload as { question?: Card }).question
  if (nested && typeof nested === 'object' && nested.question_id) {
    return normalizeCard({ ...nested, conversationId: nested.conversationId || (payload as { conversationId: string }).conversationId })
  }
  return null
}

/**
 * Whether the card can still take an answer: pending, or (a model's question
 * only) late after a timeout. A timed-out approval or elicitation is over:
 * the tool did not run, the server got `cancel`.
 */
export function isAnswerable(status: CardStatus, kind: CardKind = 'question'): boolean {
  return status === 'pending' || (status === 'timed_out' && kind === 'question')
}

/** Whether a card's status is an answer (in time or late). */
export function isAnswered(status: CardStatus | 'sending'): boolean {
  return status === 'answered' || status === 'answered_late'
}

/**
 * Whether a card has an answer a user could change (SPEC §7 "Change
 * answer"): a question card, answered. Who may change it (not in a read-only
 * view, not an agent's card) is the view's to say.
 */
export function hasChangeableAnswer(card: Pick<Card, 'kind' | 'status'>): boolean {
  return card.kind === 'question' && isAnswered(card.status)
}

/** The agent that filed a card (SPEC §10: source {type:'agent', agent}), or '' for the assistant's own and MCP servers' cards. */
export function cardAgent(card: Pick<Card, 'source'>): string {
  return card.source?.type === 'agent' ? (card.source.agent ?? '').trim() : ''
}

/**
 * Who asks, for an agent's card: "claude-code has a question", "claude-code
 * has 2 questions" (the card's title, the inbox, the notification). The name
 * is the agent's own text: shown as text, never as HTML.
 */
export function agentHeading(agent: string, count: number): string {
  return t('questions.header.agentHas', { agent, count: Math.max(1, count) })
}

/** One line saying what a card asks (the inbox, notifications). */
export function cardSummary(card: Card): string {
  if (isRememberCard(card)) return t('memory.card.title')
  if (card.kind === 'approval') {
    const server = cardAgent(card) || card.tool?.server || card.source?.server || t('questions.summary.aServer')
    const tool = card.tool?.name || card.source?.tool || t('questions.summary.aTool')
    return t('questions.summary.approval', { server, tool })
  }
  if (card.kind === 'elicitation') {
    const server = card.server || card.source?.server || t('questions.summary.aServer')
    const msg = (card.message ?? '').trim()
    if (card.mode === 'url') return msg ? t('questions.summary.openLinkSaying', { server, message: msg }) : t('questions.summary.openLink', { server })
    return msg ? t('questions.summary.asks', { server, message: msg }) : t('questions.summary.asksInfo', { server })
  }
  return card.questions?.[0]?.question ?? ''
}

const STATUSES: readonly CardStatus[] = ['pending', 'answered', 'declined', 'cancelled', 'timed_out', 'answered_late', 'superseded', 'approved', 'rejected', 'accepted']

/** A card's status in words, in the current language. */
export function statusLabel(status: CardStatus): string {
  return STATUSES.includes(status) ? t(`questions.status.${status}`) : status
}

/** One stored answer as display text. */
export function answerText(v: string | AnswerInput | undefined | null): string {
  if (v == null) return ''
  if (typeof v === 'string') return v
  const parts = [...(v.selected ?? [])]
  if (v.custom && v.custom.trim()) parts.push(v.custom.trim())
  return parts.join(', ')
}

/** Validation of one question's draft; returns the message to show, or null. */
export function validateQuestion(q: Question, d: QuestionDraft | undefined): string | null {
  const draft = d ?? { selected: [], customOn: false, custom: '' }
  const openEnded = q.options.length === 0
  const customUsed = openEnded || (q.allowCustom && draft.customOn)
  const text = draft.custom.trim()
  if (customUsed && text.length > CUSTOM_MAX) {
    return t('questions.errors.answerTooLong', { length: text.length, max: CUSTOM_MAX })
  }
  if (openEnded) return text ? null : t('questions.errors.writeAnswer')
  const labels = draft.selected.filter((l) => q.options.some((o) => o.label === l))
  if (customUsed && !text) {
    return labels.length && q.multiSelect
      ? t('questions.errors.otherEmptyMulti')
      : t('questions.errors.otherEmpty')
  }
  if (!labels.length && !customUsed) {
    if (q.multiSelect) return q.allowCustom ? t('questions.errors.chooseSomeOrOther') : t('questions.errors.chooseSome')
    return q.allowCustom ? t('questions.errors.chooseOneOrOther') : t('questions.errors.chooseOne')
  }
  if (!q.multiSelect && labels.length > 1) return t('questions.errors.onlyOne')
  return null
}

export function validateComments(comments: string): string | null {
  const n = comments.trim().length
  return n > COMMENTS_MAX ? t('questions.errors.commentTooLong', { length: n, max: COMMENTS_MAX }) : null
}

/** The answer to one question in the respond body shape. */
export function buildAnswer(q: Question, d: QuestionDraft): AnswerInput {
  const openEnded = q.options.length === 0
  // Keep the question's option order, whatever order they were clicked in.
  const selected = openEnded ? [] : q.options.map((o) => o.label).filter((l) => d.selected.includes(l))
  const out: AnswerInput = { selected: q.multiSelect ? selected : selected.slice(0, 1) }
  if (openEnded || (q.allowCustom && d.customOn)) {
    const text = d.custom.trim()
    if (text) out.custom = text
  }
  if (!q.multiSelect && out.custom !== undefined) out.selected = []
  return out
}

export function buildAnswers(questions: Question[], draft: CardDraft): Answers {
  const answers: Answers = {}
  questions.forEach((q, i) => {
    answers[q.question] = buildAnswer(q, draft.answers[i] ?? { selected: [], customOn: false, custom: '' })
  })
  return answers
}

/**
 * For an ask_user_question tool message whose card is unknown: a read-only
 * card rebuilt from the call's arguments and the tool result text (SPEC §1
 * result formats). Null when the result is not a user outcome (e.g. an
 * input error the model received).
 */
export function cardFromToolResult(msg: Message, questions: Question[], conversationId: string): Card | null {
  if (!questions.length) return null
  const content = msg.content ?? ''
  let status: CardStatus | null = null
  let answers: Record<string, string> | undefined
  let comments: string | undefined
  try {
    const parsed = JSON.parse(content) as { answers?: Record<string, unknown>; comments?: unknown }
    if (parsed && typeof parsed === 'object' && parsed.answers && typeof parsed.answers === 'object') {
      status = 'answered'
      answers = {}
      for (const [k, v] of Object.entries(parsed.answers)) answers[k] = str(v)
      if (typeof parsed.comments === 'string' && parsed.comments) comments = parsed.comments
    }
  } catch {
    // not JSON: one of the text outcomes
  }
  if (!status) {
    if (/user cancelled/i.test(content)) status = 'cancelled'
    else if (/declined/i.test(content)) status = 'declined'
    else if (/timed out/i.test(content)) status = 'timed_out'
  }
  if (!status) return null
  return {
    question_id: `tool:${msg.tool_call_id || msg.id}`,
    conversationId,
    status,
    questions,
    created_at: msg.created_at,
    expires_at: null,
    tool_call_id: msg.tool_call_id,
    kind: 'question',
    source: { type: 'model' },
    ...(answers ? { answers } : {}),
    ...(comments ? { comments } : {}),
  }
}
