// Question cards across all conversations: the inbox (pending cards), each
// conversation's cards, drafts per card id (they survive switching
// conversations) and the respond actions. Updated by question:ask and
// question:resolved.
import { defineStore } from 'pinia'
import { markRaw, toRaw } from 'vue'
import type { Answers, Card, CardStatus, QuestionEvent, RespondRequest } from '../types'
import { useTransport, type TransportError } from '../transport'
import { answerText, byCreated, cardFromEvent, emptyDraft, isAnswerable, normalizeCard, type CardDraft } from '../lib/cards'
import type { McpCardDraft } from '../lib/mcpCards'
import { cardTrace } from '../lib/cardTrace'
import { t } from '../i18n'
import { eventsDuringLoadsPerStore } from '../lib/eventsDuringLoads'
import { attempt, loadInto } from './asyncState'
import { useMemoryStore } from './memory'

/** The answers as Go stores them: one text per question. */
function answerTexts(answers: Answers): Record<string, string> {
  return Object.fromEntries(Object.entries(answers).map(([q, a]) => [q, answerText(a)]))
}

interface State {
  /** Every card by question_id. Changed only through putCard and dropCard. */
  cards: Record<string, Card>
  /** Bumped on every change to `cards`: what the lists of all cards track. */
  cardsVersion: number
  drafts: Record<string, CardDraft>
  /** Drafts of approval and elicitation cards (SPEC §6), by question_id. */
  mcpDrafts: Record<string, McpCardDraft>
  /** Last respond error per card (shown on the card). */
  respondErrors: Record<string, string | null>
  /** A respond call is on its way. */
  sending: Record<string, boolean>
  loadError: string | null
  /** The card the UI should scroll to and focus (set by the inbox). */
  focusRequest: { questionId: string; nonce: number } | null
  /** Deleted conversations: cards of theirs that arrive late are ignored. */
  forgotten: Record<string, true>
}

/** The status a card takes when the backend accepted `req` (before its event says so). */
export function statusAfter(card: Card, req: RespondRequest): CardStatus {
  switch (req.action) {
    case 'submit':
      return card.status === 'timed_out' ? 'answered_late' : 'answered'
    case 'approve':
      return 'approved'
    case 'reject':
      return 'rejected'
    case 'accept':
      return 'accepted'
    case 'decline':
    case 'skip':
      return 'declined'
    default:
      return 'cancelled'
  }
}

/** The card list of a conversation without cards (one, so it never reads as changed). */
const NO_CARDS = Object.freeze([] as Card[]) as Card[]

/**
 * The cards events brought (as the store took them) while a conversation's
 * list was on its way: the list, read before, must not overwrite them (a card
 * resolved meanwhile would read pending again).
 */
const cardsDuringLoads = eventsDuringLoadsPerStore<string, Card>()

/**
 * The cards, as plain objects, for the lists over all of them. Cards are kept
 * raw (markRaw: a card is only ever replaced, never changed in place) and
 * the lists track `cardsVersion` alone: read through the reactive record,
 * every card event cost a pass over all cards in memory with each card and
 * each field read tracked (issue #42: ~1 ms a card event with 50 cards in
 * memory, 5 ms with 500, in the task that shows the card).
 */
function allCards(state: State): Card[] {
  void state.cardsVersion
  return Object.values(toRaw(state.cards))
}

export const useQuestionsStore = defineStore('questions', {
  state: (): State => ({
    cards: {},
    cardsVersion: 0,
    drafts: {},
    mcpDrafts: {},
    respondErrors: {},
    sending: {},
    loadError: null,
    focusRequest: null,
    forgotten: {},
  }),

  getters: {
    /** Pending cards across all conversations, oldest first. */
    pendingCards(state): Card[] {
      return allCards(state)
        .filter((c) => c.status === 'pending')
        .sort(byCreated)
    },
    inboxCount(): number {
      return this.pendingCards.length
    },
    /**
     * Every conversation's cards, oldest first, grouped in one pass: a card
     * event costs one pass over the cards, not one per conversation shown.
     */
    cardsByConversation(state): Map<string, Card[]> {
      const byId = new Map<string, Card[]>()
      for (const c of allCards(state)) {
        const list = byId.get(c.conversationId)
        if (list) list.push(c)
        else byId.set(c.conversationId, [c])
      }
      for (const list of byId.values()) list.sort(byCreated)
      return byId
    },
    /** Pending cards per conversation. */
    pendingCounts(): Map<string, number> {
      const counts = new Map<string, number>()
      for (const c of this.pendingCards) counts.set(c.conversationId, (counts.get(c.conversationId) ?? 0) + 1)
      return counts
    },
    /** A conversation's cards, oldest first (the same list while none of them changes). */
    cardsFor() {
      return (conversationId: string): Card[] => this.cardsByConversation.get(conversationId) ?? NO_CARDS
    },
    pendingCountFor() {
      return (conversationId: string): number => this.pendingCounts.get(conversationId) ?? 0
    },
  },

  actions: {
    /** Keeps a card (raw: see allCards). */
    putCard(card: Card): void {
      this.cards[card.question_id] = markRaw(card)
      this.cardsVersion++
    },

    dropCard(questionId: string): void {
      if (!(questionId in this.cards)) return
      delete this.cards[questionId]
      this.cardsVersion++
    },

    /** Adds or updates a card; a card never goes back to pending once resolved. */
    upsert(raw: Card): Card {
      const card = normalizeCard(raw)
      if (this.forgotten[card.conversationId]) return card
      const prev = this.cards[card.question_id]
      if (prev) {
        const regress = prev.status !== 'pending' && card.status === 'pending'
        const lateRegress = prev.status === 'answered_late' && card.status === 'timed_out'
        const merged: Card = { ...prev, ...card }
        if (regress || lateRegress) merged.status = prev.status
        if (!card.answers && prev.answers) merged.answers = prev.answers
        if (!card.comments && prev.comments) merged.comments = prev.comments
        this.putCard(merged)
      } else {
        this.putCard(card)
      }
      const now = this.cards[card.question_id]!
      if (!isAnswerable(now.status, now.kind)) {
        delete this.drafts[now.question_id]
        delete this.mcpDrafts[now.question_id]
        delete this.respondErrors[now.question_id]
      }
      return now
    },

    onQuestionEvent(payload: QuestionEvent | { conversationId: string; card: Card }): void {
      const card = cardFromEvent(payload)
      if (card) cardsDuringLoads(this).record(card.question_id, this.upsert(card))
    },

    /** Replaces the set of pending cards with the server's (the inbox). */
    loadPending(): Promise<void> {
      return loadInto(this, { error: 'loadError' }, async () => {
        const list = await useTransport().questions({ status: 'pending' })
        const ids = new Set(list.map((c) => c.question_id))
        for (const c of list) this.upsert(c)
        // Cards we thought pending that the server no longer lists were
        // resolved while we were not listening: fetch their real state lazily.
        for (const c of Object.values(this.cards)) {
          if (c.status === 'pending' && !ids.has(c.question_id)) void this.loadForConversation(c.conversationId)
        }
      })
    },

    /** Loads a conversation's cards. A failure sets `loadError`; success leaves it to the inbox's load. */
    async loadForConversation(conversationId: string): Promise<void> {
      const done = await attempt(this, {}, () =>
        cardsDuringLoads(this).load(
          () => useTransport().conversationQuestions({ id: conversationId }),
          (list, newer) => {
            if (this.forgotten[conversationId]) return
            for (const c of list) {
              const card = normalizeCard({ ...c, conversationId: c.conversationId || conversationId })
              // The server is the truth for a conversation's own list, except
              // for what an event brought while the list was on its way.
              const now: Card = { ...this.cards[card.question_id], ...card, ...newer.get(card.question_id) }
              this.putCard(now)
              if (!isAnswerable(now.status, now.kind)) {
                delete this.drafts[now.question_id]
                delete this.mcpDrafts[now.question_id]
              }
            }
          },
        ),
      )
      if (!done.ok) this.loadError = done.error
    },

    /**
     * Lets go of the settled cards of a conversation the user left (they
     * are loaded again with it). Cards still waiting, being sent or with a
     * draft stay: the inbox lists them and the user's answers are kept.
     */
    releaseConversation(conversationId: string): void {
      for (const c of Object.values(this.cards)) {
        const id = c.question_id
        if (c.conversationId !== conversationId || c.status === 'pending' || this.sending[id] || this.drafts[id] || this.mcpDrafts[id]) continue
        this.dropCard(id)
        delete this.respondErrors[id]
      }
    },

    /** Drops a deleted conversation's cards (and drafts) from the inbox. */
    forgetConversation(conversationId: string): void {
      this.forgotten[conversationId] = true
      for (const c of Object.values(this.cards)) {
        if (c.conversationId === conversationId) {
          this.dropCard(c.question_id)
          delete this.drafts[c.question_id]
          delete this.mcpDrafts[c.question_id]
          delete this.respondErrors[c.question_id]
          delete this.sending[c.question_id]
        }
      }
    },

    /** The draft for a card, created on first use. */
    ensureDraft(questionId: string, questionCount: number): CardDraft {
      let d = this.drafts[questionId]
      if (!d || d.answers.length !== questionCount) {
        d = emptyDraft(questionCount)
        this.drafts[questionId] = d
      }
      return this.drafts[questionId]!
    },

    /** The draft of an approval or elicitation card, made by `init` on first use. */
    ensureMcpDraft(questionId: string, init: () => McpCardDraft): McpCardDraft {
      if (!this.mcpDrafts[questionId]) this.mcpDrafts[questionId] = init()
      return this.mcpDrafts[questionId]!
    },

    clearDraft(questionId: string): void {
      delete this.drafts[questionId]
    },

    /**
     * Sends the user's response; resolves true when the backend took it.
     * `autoAnswer` names questions of `req.remember` whose memory answers
     * the same question next time (SPEC §14): set once the answer is in.
     */
    async respond(conversationId: string, req: RespondRequest, opts: { autoAnswer?: readonly string[] } = {}): Promise<boolean> {
      const id = req.question_id
      const failed = (e: TransportError): string => {
        if (e.status === 409) {
          void this.loadForConversation(conversationId)
          return t('questions.errors.alreadyClosed')
        }
        return e.status === 404 ? t('questions.errors.gone') : e.message
      }
      const done = await attempt(this, { key: id, busy: 'sending', error: 'respondErrors', failed }, async () => {
        // The answer's request leaves first; the trace's report of the
        // Submit (its time is the click's, taken before) goes after it.
        const sent = useTransport().respond({ id: conversationId, ...req })
        cardTrace().submitted(id)
        const card = await sent
        // What the answer settled is newer than a conversation's list on its
        // way (read before it, it would show the card waiting again).
        const settled = (c: Card) => cardsDuringLoads(this).record(id, this.upsert(c))
        if (card && typeof card === 'object' && card.question_id) {
          settled(card)
        } else if (this.cards[id]) {
          const prev = this.cards[id]!
          const status = statusAfter(prev, req)
          // Until question:resolved brings the stored answers, keep what was sent.
          settled({
            ...prev,
            status,
            ...(req.answers ? { answers: answerTexts(req.answers) } : {}),
            ...(req.comments ? { comments: req.comments } : {}),
            ...(req.arguments !== undefined ? { approved_arguments: req.arguments } : {}),
            ...(req.reason ? { reason: req.reason } : {}),
            ...(req.always ? { always: true } : {}),
            ...(req.content !== undefined ? { content: req.content } : {}),
          })
        }
      })
      if (done.ok && req.remember?.length) {
        const card = this.cards[id]
        const autoAnswer = (opts.autoAnswer ?? []).filter((q) => req.remember!.includes(q))
        const memory = useMemoryStore()
        if (card && autoAnswer.length) void memory.afterAnswer(card, autoAnswer)
        else void memory.ensureLoaded()
      }
      return done.ok
    },

    /** Asks the chat view to scroll to a card and focus it. */
    requestFocus(questionId: string): void {
      this.focusRequest = { questionId, nonce: (this.focusRequest?.nonce ?? 0) + 1 }
    },
  },
})
