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
//
// The list is built incrementally (Timeline): the chat list is rebuilt on
// every store change while a run goes (a sent message, a state, a card), and
// walking the whole conversation each time is the page's own work racing the
// card. A Timeline remembers its walk and how to undo each message's part of
// it; a change walks again only from the first message it touches (a message
// added or replaced, or a message naming the call of a card that changed).
// An item that did not change is the same object as in the previous list, so
// the component showing it is not rendered again.
import type { Card, Message } from '../types'
import { ASK_TOOL } from '../types'
import { byCreated, cardFromToolResult, isAnswerable, questionsFromArguments } from './cards'

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

type CardItem = TimelineItem & { kind: 'card' }

/** The stream's key when the reply's id is not known (or already shown). */
export const STREAM_KEY = 'stream'

/**
 * What build() is told of the stream: none (false), one (true), or one
 * whose reply's message id is known. The stream then has the key its stored
 * message will have (`m:<id>`), so that the entry showing the stream shows
 * the stored message when the reply is done: patched, not made again.
 */
export type StreamShown = boolean | string

export function cardKey(questionId: string): string {
  return `q:${questionId}`
}

interface AskCall {
  arguments: string
  /** The card placed at this call, if one was found. */
  card?: Card
}

/** The whole timeline of a conversation, built from nothing. */
export function buildTimeline(messages: readonly Message[], cards: readonly Card[], streaming: StreamShown): TimelineItem[] {
  return new Timeline().build(messages, cards, streaming)
}

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === b) return true
  if (!a || !b || a.length !== b.length) return false
  return a.every((x, i) => x === b[i])
}

/** Two items show the same thing (the older one can stand for the newer). */
function sameItem(a: TimelineItem, b: TimelineItem): boolean {
  if (a.kind !== b.kind || a.key !== b.key) return false
  if (a.kind === 'stream' || b.kind === 'stream') return true
  if (!sameList(a.branches, b.branches)) return false
  if (a.kind === 'card' && b.kind === 'card') return a.card === b.card && a.readonly === b.readonly && a.result === b.result
  return a.kind !== 'card' && b.kind !== 'card' && a.message === b.message
}

/**
 * A conversation's timeline kept between builds: build() returns what
 * buildTimeline would, doing only the work the change since the last build
 * asks for. Messages and cards must be replaced, never changed in place (the
 * stores do so), as changes are found by identity.
 */
export class Timeline {
  // ---- the walk over the messages, and its undo log ----
  /** The messages walked, in order. */
  private walked: Message[] = []
  /** The items the walk made (the stream and the loose cards come after). */
  private items: TimelineItem[] = []
  private placed = new Set<string>()
  /** The latest ask_user_question call of each call id: the tool result that follows answers it. */
  private askCalls = new Map<string, AskCall>()
  /** run_id -> number of items once the run's last message was walked. */
  private runEnd = new Map<string, number>()
  /** Branch points not shown yet: they go with the next item. */
  private carried: readonly Message[] = []
  /** question_id -> index in items of its card. */
  private cardAt = new Map<string, number>()
  /** call id -> index of the first walked message that names it. */
  private callFirst = new Map<string, number>()
  /** Undoes one change of the walk (newest last). */
  private undo: (() => void)[] = []
  /** marks[i]: the undo log's length before message i was walked. */
  private marks: number[] = []
  /** Indexes in items written since the last build (or restored by an undo). */
  private touched = new Set<number>()

  // ---- the cards ----
  private cards: readonly Card[] = []
  private sorted: Card[] = []
  private byCall = new Map<string, Card[]>()

  // ---- what the last build returned ----
  private out: TimelineItem[] = []
  private outStreaming: StreamShown = false
  /** The stream's item last returned (the same object while its key is). */
  private streamItem: TimelineItem | null = null
  /** key -> the item last returned with that key. */
  private shown = new Map<string, TimelineItem>()
  /** Read-only cards rebuilt from a tool result, by the result (and the call's arguments). */
  private rebuilt = new WeakMap<Message, { args: string | undefined; card: Card | null }>()

  build(messages: readonly Message[], cards: readonly Card[], streaming: StreamShown): TimelineItem[] {
    // The first message that is not the one walked there.
    let from = 0
    for (const m of messages) {
      if (from >= this.walked.length || m !== this.walked[from]) break
      from++
    }
    const messagesSame = from === messages.length && from === this.walked.length
    if (!sameList(cards, this.cards)) {
      this.cards = [...cards]
      // The store gives them sorted already (a pass, then, for a stable sort).
      this.sorted = [...cards].sort(byCreated)
      const byCall = new Map<string, Card[]>()
      for (const c of this.sorted) {
        if (!c.tool_call_id) continue
        const list = byCall.get(c.tool_call_id)
        if (list) list.push(c)
        else byCall.set(c.tool_call_id, [c])
      }
      // The walk saw the cards only through byCall: where a call's cards
      // changed, it is walked again from the first message naming the call.
      for (const id of new Set([...byCall.keys(), ...this.byCall.keys()])) {
        if (sameList(byCall.get(id), this.byCall.get(id))) continue
        const at = this.callFirst.get(id)
        if (at !== undefined && at < from) from = at
      }
      this.byCall = byCall
    } else if (messagesSame && streaming === this.outStreaming && this.out.length) {
      return this.out
    }
    this.rollBack(from)
    for (let i = from; i < messages.length; i++) this.walk(messages[i]!, i)
    return this.publish(streaming, from === 0)
  }

  // ---- undoable changes ----

  private rollBack(to: number): void {
    if (to >= this.walked.length) return
    const mark = this.marks[to]!
    while (this.undo.length > mark) this.undo.pop()!()
    this.walked.length = to
    this.marks.length = to
  }

  private setIn<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
    const had = map.has(key)
    const old = map.get(key)
    if (value === undefined) map.delete(key)
    else map.set(key, value)
    this.undo.push(had ? () => map.set(key, old as V) : () => map.delete(key))
  }

  private setCarried(list: readonly Message[]): void {
    const old = this.carried
    this.carried = list
    this.undo.push(() => (this.carried = old))
  }

  private pushItem(item: TimelineItem): void {
    const at = this.items.length
    this.items.push(item)
    this.touched.add(at)
    this.undo.push(() => {
      this.items.pop()
    })
  }

  private replaceItem(at: number, item: TimelineItem): void {
    const old = this.items[at]!
    this.items[at] = item
    this.touched.add(at)
    this.undo.push(() => {
      this.items[at] = old
      this.touched.add(at)
    })
  }

  // ---- the walk ----

  /** The card of call `callId` made in run `runId`; undefined when none fits. */
  private findCard(callId: string, runId: string | undefined): Card | undefined {
    const list = this.byCall.get(callId)
    if (!list) return undefined
    if (runId) {
      // A run may ask twice with the same id: the oldest card not placed yet first.
      const exact = list.find((c) => c.run_id === runId && !this.placed.has(c.question_id)) ?? list.find((c) => c.run_id === runId)
      if (exact) return exact
    }
    // Without a run id on one side, the oldest card of this call id not yet placed.
    return list.find((c) => !this.placed.has(c.question_id) && (!runId || !c.run_id))
  }

  private push(item: TimelineItem): void {
    if (item.kind !== 'stream' && this.carried.length) {
      item = { ...item, branches: [...(item.branches ?? []), ...this.carried] }
      this.setCarried([])
    }
    if (item.kind === 'card') this.setIn(this.cardAt, item.card.question_id, this.items.length)
    this.pushItem(item)
  }

  private placeCard(card: Card): void {
    if (this.placed.has(card.question_id)) return
    this.placed.add(card.question_id)
    this.undo.push(() => this.placed.delete(card.question_id))
    this.push({ kind: 'card', key: cardKey(card.question_id), card, readonly: false })
  }

  private nameCall(callId: string, index: number): void {
    if (!this.callFirst.has(callId)) this.setIn(this.callFirst, callId, index)
  }

  /** A read-only card rebuilt from an ask_user_question result (the same object while neither changes). */
  private rebuild(m: Message, args: string | undefined): Card | null {
    const hit = this.rebuilt.get(m)
    if (hit && hit.args === args) return hit.card
    const card = cardFromToolResult(m, questionsFromArguments(args), m.conversationId ?? '')
    this.rebuilt.set(m, { args, card })
    return card
  }

  private walk(m: Message, index: number): void {
    this.marks.push(this.undo.length)
    this.walked.push(m)
    if (m.role === 'system') return
    if (m.siblings > 1) this.setCarried([...this.carried, m])
    if (m.role === 'user') {
      this.push({ kind: 'user', key: `m:${m.viewKey ?? m.id}`, message: m })
    } else if (m.role === 'assistant') {
      // A reply that thought shows its thinking, even with nothing else to show (SPEC §9).
      if ((m.content && m.content.trim()) || m.reasoning) this.push({ kind: 'assistant', key: `m:${m.id}`, message: m })
      for (const tc of m.tool_calls ?? []) {
        this.nameCall(tc.id, index)
        if (tc.name !== ASK_TOOL) {
          this.setIn(this.askCalls, tc.id, undefined)
          // An MCP tool's approval and the elicitations it asked for (SPEC §6) go with its call.
          for (const c of this.byCall.get(tc.id) ?? []) {
            if (c.kind !== 'question' && !this.placed.has(c.question_id) && (!m.run_id || !c.run_id || c.run_id === m.run_id)) this.placeCard(c)
          }
          continue
        }
        const card = this.findCard(tc.id, m.run_id)
        this.setIn(this.askCalls, tc.id, { arguments: tc.arguments, card })
        if (card) this.placeCard(card)
      }
    } else {
      // tool results
      if (m.tool_call_id) this.nameCall(m.tool_call_id, index)
      const call = m.tool_call_id ? this.askCalls.get(m.tool_call_id) : undefined
      const isAsk = m.tool_name === ASK_TOOL || !!call
      let shown = false
      if (isAsk) {
        const card = call?.card ?? (m.tool_call_id ? this.findCard(m.tool_call_id, m.run_id) : undefined)
        if (card) {
          this.placeCard(card)
          const at = this.cardAt.get(card.question_id)
          const item = at === undefined ? undefined : (this.items[at] as CardItem)
          if (item) {
            // The card shows its answer on this branch (a changed answer is a sibling result).
            let branches = item.branches
            if (this.carried.includes(m)) {
              branches = [...(branches ?? []), m]
              this.setCarried(this.carried.filter((x) => x !== m))
            }
            this.replaceItem(at!, { ...item, result: m, ...(branches ? { branches } : {}) })
          }
          shown = true
        } else {
          const rebuilt = this.rebuild(m, call?.arguments)
          if (rebuilt) {
            this.push({ kind: 'card', key: `t:${m.id}`, card: rebuilt, readonly: true, result: m })
            shown = true
          }
        }
        if (m.tool_call_id) this.setIn(this.askCalls, m.tool_call_id, undefined)
      }
      if (!shown) this.push({ kind: 'tool', key: `m:${m.id}`, message: m })
    }
    if (m.run_id) this.setIn(this.runEnd, m.run_id, this.items.length)
  }

  // ---- the list shown ----

  /** An item as shown: the one shown before under its key when nothing in it changed. */
  private intern(item: TimelineItem): TimelineItem {
    const before = this.shown.get(item.key)
    if (before && before !== item && sameItem(before, item)) return before
    this.shown.set(item.key, item)
    return item
  }

  /** The stream's item: keyed by its reply's message id, unless an item has that key already. */
  private streamOf(streaming: string | true): TimelineItem {
    let key = STREAM_KEY
    if (typeof streaming === 'string') {
      const own = `m:${streaming}`
      // From the end: a message of the stream's id would be among the last.
      let taken = false
      for (let i = this.items.length - 1; i >= 0 && !taken; i--) taken = this.items[i]!.key === own
      if (!taken) key = own
    }
    if (this.streamItem?.key !== key) this.streamItem = Object.freeze({ kind: 'stream', key })
    return this.streamItem
  }

  private publish(streaming: StreamShown, rebuiltAll: boolean): TimelineItem[] {
    // Nothing shown yet (a conversation just opened): no item to stand for a
    // new one; the keys are recorded once, below, not item by item.
    const first = this.shown.size === 0
    if (!first) {
      for (const at of this.touched) {
        const item = this.items[at]
        if (item) this.items[at] = this.intern(item)
      }
    }
    this.touched.clear()
    const items = streaming ? [...this.items, this.streamOf(streaming)] : [...this.items]

    // Cards not tied to a message (asked before their message arrived, asked by
    // a helper agent, or without a tool_call_id): after the last message of
    // their run, or else last; oldest first either way.
    // A closed card of a run that is not on the shown path belongs to another
    // branch (an edited message, a regenerated reply): it is not shown here.
    const runEnd = this.runEnd
    const otherBranch = (c: Card) => !!c.run_id && runEnd.size > 0 && !runEnd.has(c.run_id) && !isAnswerable(c.status, c.kind)
    const rest = this.sorted.filter((c) => !this.placed.has(c.question_id) && !otherBranch(c))
    let out = items
    if (rest.length) {
      const after = new Map<number, Card[]>()
      const tail: Card[] = []
      for (const c of rest) {
        const at = c.run_id ? runEnd.get(c.run_id) : undefined
        if (at === undefined) {
          tail.push(c)
          continue
        }
        const list = after.get(at)
        if (list) list.push(c)
        else after.set(at, [c])
      }
      const cardItem = (card: Card): TimelineItem => this.intern({ kind: 'card', key: cardKey(card.question_id), card, readonly: false })
      // The cards go in before the item at their place; the items between are copied in slices.
      out = []
      let copied = 0
      for (const at of [...after.keys()].sort((a, b) => a - b)) {
        out = out.concat(items.slice(copied, at), after.get(at)!.map(cardItem))
        copied = at
      }
      out = out.concat(items.slice(copied), tail.map(cardItem))
    }
    if (first || rebuiltAll || this.shown.size > 2 * out.length + 32) {
      // Let go of the items of keys no longer shown (another conversation, a left branch).
      this.shown = new Map(out.map((i) => [i.key, i]))
    }
    this.out = out
    this.outStreaming = streaming
    return out
  }
}
