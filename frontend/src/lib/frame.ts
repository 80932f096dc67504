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
import { nextTick } from 'vue'

type Task = () => void
export type FramePhase = 'update' | 'measure'

/** How long to wait for an animation frame before running the tasks anyway. */
export const FRAME_FALLBACK_MS = 100

const updates = new Map<unknown, Task>()
const measures = new Map<unknown, Task>()
let rafId: number | null = null
let timerId: ReturnType<typeof setTimeout> | null = null

function cancelScheduled(): void {
  if (rafId !== null && typeof cancelAnimationFrame === 'function') cancelAnimationFrame(rafId)
  if (timerId !== null) clearTimeout(timerId)
  rafId = null
  timerId = null
}

function ensureScheduled(): void {
  if (rafId !== null || timerId !== null) return
  if (typeof requestAnimationFrame === 'function') rafId = requestAnimationFrame(() => flushFrame())
  timerId = setTimeout(() => flushFrame(), FRAME_FALLBACK_MS)
}

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
  ensureScheduled()
}

/** Drops a task scheduled under `key` (a component going away). */
export function cancelFrameTask(key: unknown): void {
  updates.delete(key)
  measures.delete(key)
  if (!updates.size && !measures.size) cancelScheduled()
}

/**
 * Runs the pending tasks now: updates at once, measures after Vue's next DOM
 * flush. The returned promise resolves once both have run. Tasks scheduled
 * while they run wait for the next frame.
 */
export function flushFrame(): Promise<void> {
  cancelScheduled()
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
