// The page's side of the card trace (backend/trace, the latency bench of
// issue 17): when the backend says tracing is on (health.trace), the page
// marks when each question card was received, held by the store, put in the
// DOM and painted, when the user submitted it, and when the user's message
// whose run asked it was sent, and reports the marks to Go through the
// transport. Off, every hook returns at once.
//
// Times are epoch ms (performance.timeOrigin + performance.now()), the clock
// Go's marks use too.
import type { TraceMark } from '../api/wire.gen'

export type PageHop =
  | 'page_send'
  | 'page_enter_done'
  | 'page_frame_start'
  | 'page_frame_end'
  | 'page_received'
  | 'page_store'
  | 'page_dom'
  | 'page_card_frame'
  | 'page_paint'
  | 'page_submit'

export interface TraceEnv {
  now(): number
  /** Runs after Vue has patched the DOM (nextTick). */
  afterRender(fn: () => void): void
  /** Runs once the next frame has been painted (rAF, then a task). */
  afterPaint(fn: () => void): void
  /** Runs fn when the next frame begins (rAF). Absent: the card's frame is not marked. */
  frame?(fn: () => void): void
  /**
   * Calls start when the next frame begins (rAF) and end in a task after it
   * (it has been painted). Absent: the send's frame is not marked.
   */
  nextFrame?(start: () => void, end: () => void): void
  /** Whether the card's element is in the document. */
  inDOM(cardId: string): boolean
  /**
   * Runs fn when the page has nothing else to do (the marks' report: the
   * trace must not be a task in front of the page's own work, nor of what a
   * bench measures after the paint). Absent: at once.
   */
  whenIdle?(fn: () => void): void
  /** Listens to the page's input (capture phase): returns the card an input event was in. */
  onInput?(fn: (cardId: string, at: number) => void): () => void
}

export interface CardTrace {
  readonly enabled: boolean
  /**
   * The user sent a message (its run may ask a card): the next card received
   * gets it as page_send, with the page's steps after it: the send's task
   * done (page_enter_done) and its frame (page_frame_start, page_frame_end).
   */
  sent(): void
  /** question:ask reached the page's handler. */
  received(cardId: string): void
  /** The store holds the card: marks page_store, then the DOM and paint when the card is shown. */
  stored(cardId: string): void
  /** The user submitted the card (the store's respond): marks the last keydown/click in it, or now. */
  submitted(cardId: string): void
  dispose(): void
}

/** Input older than this before the respond call is not its Submit. */
const INPUT_WINDOW_MS = 1000

function browserEnv(nextTick: (fn: () => void) => void): TraceEnv {
  return {
    now: () => performance.timeOrigin + performance.now(),
    afterRender: nextTick,
    afterPaint: (fn) => requestAnimationFrame(() => setTimeout(fn, 0)),
    frame: (fn) => void requestAnimationFrame(fn),
    nextFrame: (start, end) =>
      requestAnimationFrame(() => {
        start()
        setTimeout(end, 0)
      }),
    inDOM: (id) => document.querySelector(`[data-question-id="${id.replace(/["\\]/g, '\\$&')}"]`) !== null,
    whenIdle: (fn) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 1000 }) : setTimeout(fn, 50)),
    onInput: (fn) => {
      const handler = (e: Event) => {
        if (e instanceof KeyboardEvent && e.key !== 'Enter') return
        const el = e.target instanceof Element ? e.target.closest('[data-question-id]') : null
        const id = el?.getAttribute('data-question-id')
        if (id) fn(id, performance.timeOrigin + performance.now())
      }
      document.addEventListener('keydown', handler, true)
      document.addEventListener('click', handler, true)
      return () => {
        document.removeEventListener('keydown', handler, true)
        document.removeEventListener('click', handler, true)
      }
    },
  }
}

const off: CardTrace = { enabled: false, sent() {}, received() {}, stored() {}, submitted() {}, dispose() {} }

/**
 * A recorder that sends its marks with report (the transport's reportTrace),
 * one batch per card once it is painted (or not shown) and one per Submit.
 */
export function createCardTrace(report: (marks: TraceMark[]) => Promise<void>, env: TraceEnv): CardTrace {
  const pending = new Map<string, TraceMark[]>()
  const lastInput = new Map<string, number>()
  const send = (marks: TraceMark[]) => {
    if (!marks.length) return
    const go = () => void report(marks).catch(() => {}) // best effort: the bench notices missing hops
    if (env.whenIdle) env.whenIdle(go)
    else go()
  }
  const mark = (key: string, hop: PageHop, at = env.now()) => {
    let list = pending.get(key)
    if (!list) pending.set(key, (list = []))
    list.push({ key, hop, at })
  }
  const flush = (key: string) => {
    const list = pending.get(key)
    pending.delete(key)
    const sent = sendMarks.get(key)
    sendMarks.delete(key)
    if (!list) return
    // The send's marks, its steps in by then (its task and frame come before the card's paint); all in time order.
    if (sent) list.push(...sent.map((s) => ({ ...s, key })))
    send(list.sort((a, b) => a.at - b.at))
  }
  const stopInput = env.onInput?.((id, at) => lastInput.set(id, at))
  // The last send's marks (page_send, then its steps as they come); the
  // next card received takes them (a later send starts a list of its own).
  let lastSend: Omit<TraceMark, 'key'>[] | undefined
  const sendMarks = new Map<string, Omit<TraceMark, 'key'>[]>()
  return {
    enabled: true,
    sent() {
      const steps: Omit<TraceMark, 'key'>[] = (lastSend = [{ hop: 'page_send', at: env.now() }])
      const step = (hop: PageHop) => () => void steps.push({ hop, at: env.now() })
      env.afterRender(step('page_enter_done'))
      env.nextFrame?.(step('page_frame_start'), step('page_frame_end'))
    },
    received(id) {
      // Only the first card after a send: a later one of the same run came
      // for another reason (an answer, a second question).
      if (lastSend) sendMarks.set(id, lastSend)
      lastSend = undefined
      mark(id, 'page_received')
    },
    stored(id) {
      if (!pending.has(id)) return // not a card this page received (a reload, say)
      mark(id, 'page_store')
      env.afterRender(() => {
        if (!env.inDOM(id)) return flush(id) // another conversation is open
        mark(id, 'page_dom')
        // The card's frame: its start splits the wait for it from its work.
        env.frame?.(() => mark(id, 'page_card_frame'))
        env.afterPaint(() => {
          mark(id, 'page_paint')
          flush(id)
        })
      })
    },
    submitted(id) {
      const now = env.now()
      const at = lastInput.get(id)
      lastInput.delete(id)
      send([{ key: id, hop: 'page_submit', at: at !== undefined && now - at <= INPUT_WINDOW_MS ? at : now }])
    },
    dispose() {
      stopInput?.()
      pending.clear()
      sendMarks.clear()
    },
  }
}

let current: CardTrace = off

/** The page's recorder (a no-op until enableCardTrace). */
export function cardTrace(): CardTrace {
  return current
}

/** Turns the page's recorder on (once; health.trace said so). */
export function enableCardTrace(report: (marks: TraceMark[]) => Promise<void>, nextTick: (fn: () => void) => void, env?: TraceEnv): CardTrace {
  if (!current.enabled) current = createCardTrace(report, env ?? browserEnv(nextTick))
  return current
}

/** Turns it off again (tests). */
export function disableCardTrace(): void {
  current.dispose()
  current = off
}
