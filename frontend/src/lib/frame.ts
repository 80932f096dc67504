// One batch of UI work per animation frame. Streamed text arrives hundreds
// of times a second; components note that something changed and do the work
// (render, then scroll) once, in the next frame.
//
// Tasks are keyed: scheduling the same key again before the frame runs only
// replaces its function. `update` tasks run first, in the order they were
// first scheduled; `measure` tasks run after Vue has applied the DOM changes
// the updates caused (Vue's nextTick), so they read layout once, on a DOM
// that is up to date, and write after reading.
//
// requestAnimationFrame does not fire in hidden tabs (nor in every test
// DOM), so a timer runs the frame if no animation frame came first.
import { nextTick, ref, watch, type Ref } from 'vue'

type Task = () => void
export type FramePhase = 'update' | 'measure'

/** How long to wait for an animation frame before running the tasks anyway. */
export const FRAME_FALLBACK_MS = 100

/**
 * The least time between two renders of streamed text (StreamPace): every
 * other frame at 60 Hz, ~30 renders a second, a few tokens each at the
 * rates local models stream. Each render of a reply lays out and paints its
 * last block and what holds it: 8 ms of the page's main thread early in a
 * fast stream, 13 ms 76 KB into it, on the two-core bench machine. Rendered
 * every frame, 500 tokens/s kept the page's thread busy half the time and
 * it missed frames (issue #42, bench (d): main-thread CPU over the 30 s
 * stream 15.9-16.4 s, paced 12.4-13.4 s; the longest frame gap 66.7 ms in
 * three runs of four, paced 50.0-50.1 ms in four of four).
 */
export const STREAM_RENDER_GAP_MS = 25

/** Frames run so far (each flushFrame, in an animation frame or not, is one). */
let framesRun = 0

/**
 * The pace of something rendered again and again while it streams: at most
 * once every STREAM_RENDER_GAP_MS, and never in two frames in a row, so that
 * a render whose frame ran long (a busy machine) is followed by a frame with
 * nothing of it, and the page catches up instead of missing frames.
 */
export class StreamPace {
  private at = -Infinity
  private frame = -Infinity

  /** Whether a render may happen now; if so, it counts as done. */
  take(): boolean {
    const now = performance.now()
    if (framesRun - this.frame < 2 || now - this.at < STREAM_RENDER_GAP_MS) return false
    this.at = now
    this.frame = framesRun
    return true
  }
}

const updates = new Map<unknown, Task>()
const measures = new Map<unknown, Task>()

/**
 * A wake-up in the next animation frame, or on a timer where frames do not
 * come. `afterFrame`: in a task after that frame (it has been painted), not in it.
 */
class Wakeup {
  private raf: number | null = null
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly fire: () => void,
    private readonly afterFrame = false,
  ) {}

  schedule(): void {
    if (this.raf !== null || this.timer !== null) return
    if (typeof requestAnimationFrame === 'function')
      this.raf = requestAnimationFrame(() => {
        this.raf = null
        if (!this.afterFrame) return this.fire()
        if (this.timer !== null) clearTimeout(this.timer)
        this.timer = setTimeout(this.fire, 0)
      })
    this.timer = setTimeout(this.fire, FRAME_FALLBACK_MS)
  }

  cancel(): void {
    if (this.raf !== null && typeof cancelAnimationFrame === 'function') cancelAnimationFrame(this.raf)
    if (this.timer !== null) clearTimeout(this.timer)
    this.raf = null
    this.timer = null
  }
}

const frame = new Wakeup(() => void flushFrame())

function runAll(tasks: Map<unknown, Task>): void {
  const list = [...tasks.values()]
  tasks.clear()
  for (const fn of list) {
    try {
      fn()
    } catch (err) {
      console.error('frame task failed:', err)
    }
  }
}

/** Runs `fn` in the next frame (once, however often it is scheduled before). */
export function onNextFrame(key: unknown, fn: Task, phase: FramePhase = 'update'): void {
  ;(phase === 'update' ? updates : measures).set(key, fn)
  frame.schedule()
}

/** Drops a task scheduled under `key` (a component going away). */
export function cancelFrameTask(key: unknown): void {
  updates.delete(key)
  measures.delete(key)
  if (!updates.size && !measures.size) frame.cancel()
}

/**
 * Runs the pending tasks now: updates at once, measures after Vue's next DOM
 * flush. The returned promise resolves once both have run. Tasks scheduled
 * while they run wait for the next frame.
 */
export function flushFrame(): Promise<void> {
  framesRun++
  frame.cancel()
  if (!updates.size && !measures.size) return Promise.resolve()
  runAll(updates)
  if (!measures.size) return Promise.resolve()
  const pending = new Map(measures)
  measures.clear()
  return nextTick(() => runAll(pending))
}

/** Whether tasks wait for a frame. */
export function framePending(): boolean {
  return updates.size > 0 || measures.size > 0
}

// ---- after the paint -----------------------------------------------------------
// Work a new thing does not need before it is seen (moving focus into it,
// which lays the page out at once; the window title's count) runs in a task
// after the next frame, so the frame that shows it does not wait for it.

/**
 * Tasks that run together in one timer task: what `run` runs, or `arm`'s
 * timer `hops` timer tasks later. Adding while it runs waits for the next run.
 */
class TimerBatch {
  private readonly tasks = new Map<symbol, Task>()
  private timer: ReturnType<typeof setTimeout> | null = null

  get size(): number {
    return this.tasks.size
  }

  add(fn: Task): void {
    this.tasks.set(Symbol('task'), fn)
  }

  /** Moves `from`'s tasks to the end of this batch. */
  takeAll(from: TimerBatch): void {
    for (const [key, fn] of from.tasks) this.tasks.set(key, fn)
    from.tasks.clear()
  }

  /** Runs the batch `hops` timer tasks from now, unless a run is already armed. */
  arm(hops = 1): void {
    if (this.timer !== null) return
    const hop = (left: number): void => {
      this.timer = setTimeout(() => (left > 1 ? hop(left - 1) : this.run()), 0)
    }
    hop(hops)
  }

  readonly run = (): void => {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    runAll(this.tasks)
  }
}

const afterPaintTasks = new TimerBatch()
const painted = new Wakeup(runAfterPaint, true)

function runAfterPaint(): void {
  painted.cancel()
  afterPaintTasks.run()
}

/** Runs `fn` in a task after the next frame has been painted (or after FRAME_FALLBACK_MS without frames). */
export function afterPaint(fn: Task): void {
  afterPaintTasks.add(fn)
  painted.schedule()
}

// Work nothing waits for, not even right after the paint (buttons shown only
// on hover or focus), runs in a task of its own after the after-paint task:
// what came in meanwhile goes first (the user's first key in a card just
// painted, the run's next event). In the after-paint task, a card's
// messages' buttons were most of it (Chromium: ~4 of ~7 ms, before the
// focus move; issue #42).
const laterTasks = new TimerBatch()

/** Runs `fn` in a task after the after-paint task of the next frame. */
export function afterPaintLater(fn: Task): void {
  laterTasks.add(fn)
  afterPaint(() => {
    if (laterTasks.size) laterTasks.arm()
  })
}

/**
 * A flag that follows `on`, but turns true only after the next frame (in a
 * task after the after-paint task; false at once): for what a new thing
 * shows only on hover or focus, made after the frame that shows the thing.
 * `now`: true from the start when `on` is (something already there, not new).
 */
export function trueAfterPaint(on: () => boolean, now = false): Ref<boolean> {
  const flag = ref(now && on())
  watch(
    on,
    (yes) => {
      flag.value = false
      if (yes) afterPaintLater(() => (flag.value = on()))
    },
    { immediate: !flag.value },
  )
  return flag
}

// ---- after the frame that shows it ------------------------------------------
// afterPaint's batch takes work until its task runs, which can be after the
// next frame has begun: on Chromium, after input, that task may come after a
// new card's event. The card's focus move, asked for as the card mounted,
// then ran before the card's frame and delayed it (bench traces: 21 of 40
// rounds; the move lays the page out, 4-5 ms). Work asked for with
// afterShownPaint waits for a frame that begins after it was asked for: the
// frame that shows what asked for it, which its change requested anyway (it
// asks for no frame of its own). It runs two tasks after that frame, so that
// what was posted as the frame ended goes first (the user's first key, the
// run's next event).

const shownWaiting = new TimerBatch() // their frame has not begun (never armed)
const shownPainted = new TimerBatch() // their frame began: after its paint
const shownFrame = new Wakeup(() => {
  shownFrame.cancel()
  shownPainted.takeAll(shownWaiting)
  shownPainted.arm(2)
})

/** Runs `fn` two tasks after the next frame that begins after this call has been painted (or after FRAME_FALLBACK_MS without frames). */
export function afterShownPaint(fn: Task): void {
  shownWaiting.add(fn)
  shownFrame.schedule()
}

/** Runs the tasks waiting for a paint now, and those after them (tests: the frame comes when they say). */
export function flushAfterPaint(): void {
  shownFrame.cancel()
  shownPainted.takeAll(shownWaiting)
  shownPainted.run()
  runAfterPaint()
  laterTasks.run()
}
