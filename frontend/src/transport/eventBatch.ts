// Events that reach the page back to back are applied in one batch (issue
// #42). A run sends its events in bursts: the user's message stored, the
// run's state, the assistant's call, the card, the state again, a few
// milliseconds apart. Each arrives as its own task; applied one by one, each
// made Vue patch the page (and the browser often lay it out and paint it)
// before the next was even looked at, and the card waited behind them.
// Here an event only joins the queue; one task soon after applies every
// event queued by then, in the order they came, and Vue patches once.
//
// setTimeout(0), not a MessageChannel: WebKitGTK routes MessagePort messages
// through another process; a zero timer is a task of the page's own loop
// (no clamp until timers nest). A hidden page gets its events at once:
// browsers hold a hidden page's timers for up to a second, and a page that
// paints nothing has nothing to batch for (a card arriving in the
// background must still notify at once).
//
// A card (question:ask) is what the user waits for: it is applied in the task
// it arrived in, with the events queued before it, not in a task after. A
// page that has just drawn the user's message often has its next frame due
// by then, and the browser ran that frame before the batch's task, so the
// card missed it and waited a whole refresh more (issue #42: a frame between
// the event and the batch in about one card in seven). Events after it go to
// the next batch.

type Delivery = () => void
export type Schedule = (fn: () => void) => void

export interface EventBatch {
  /**
   * Queues one event's delivery; it runs with the rest of its batch. `now`:
   * the batch is applied at once, this one last (a card).
   */
  push(deliver: Delivery, now?: boolean): void
  /** Applies what is queued now (the batch's task, or a caller that cannot wait). */
  flush(): void
}

const timerTask: Schedule = (fn) => void setTimeout(fn, 0)

const pageHidden = (): boolean => typeof document !== 'undefined' && document.visibilityState === 'hidden'

/** A batch whose queued events are applied in a task `schedule` runs (at once while `hidden()`). */
export function createEventBatch(schedule: Schedule = timerTask, hidden: () => boolean = pageHidden): EventBatch {
  let queue: Delivery[] = []
  let scheduled = false
  const flush = (): void => {
    scheduled = false
    const list = queue
    queue = []
    for (const deliver of list) {
      try {
        deliver()
      } catch (err) {
        console.error('parley: an event handler failed', err)
      }
    }
  }
  return {
    push(deliver, now = false) {
      queue.push(deliver)
      if (now || hidden()) {
        flush() // what was queued first, then this one, in order
        return
      }
      if (scheduled) return
      scheduled = true
      schedule(flush)
    },
    flush,
  }
}

/** The events applied at once, with what was queued before them (a card). */
export const APPLIED_AT_ONCE: ReadonlySet<string> = new Set(['question:ask'])

/** Delivers each event at once (unit tests: a fake window or stream emits and looks at once). */
export const immediate: EventBatch = {
  push: (deliver) => deliver(),
  flush: () => {},
}

let shared: EventBatch | null = null
let override: EventBatch | null = null

/** The batch the transports deliver events through (one for the page). */
export function eventBatch(): EventBatch {
  return override ?? (shared ??= createEventBatch())
}

/** Replaces the page's batch (tests: `immediate`); null restores the real one. */
export function useEventBatch(batch: EventBatch | null): void {
  override = batch
}
