// The tasks of a page's main thread in a Chromium trace, shared by the
// benches' CPU figures (bench/ui-page.mjs) and bench/profile-tasks.mjs.
//
// A task is a top-level ThreadControllerImpl::RunTask, or a microtask
// checkpoint that ran outside one: Blink runs the promise reactions of a
// fetch whose body has just arrived (`await res.json()`, then everything
// the page does with it) in a checkpoint of its own, which is its own long
// task (the PerformanceObserver counts it) but no RunTask. Counting only
// RunTasks left the open of a 5,000-message conversation's main work out of
// its CPU figure. Both are in the trace category `toplevel`.
const TASK = 'ThreadControllerImpl::RunTask'
const CHECKPOINT = 'BlinkScheduler_PerformMicrotaskCheckpoint'

// mainThreadTasks(events, key): the complete ('X') top-level task events
// of the thread `pid:tid`, in time order; a checkpoint inside a task is
// part of that task, not another.
export function mainThreadTasks(events, key) {
  const xs = events
    .filter((e) => e.ph === 'X' && e.dur !== undefined && (e.name === TASK || e.name === CHECKPOINT) && `${e.pid}:${e.tid}` === key)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur)
  const out = []
  let end = -Infinity
  for (const e of xs) {
    if (e.ts < end) continue // inside the task before it
    out.push(e)
    end = e.ts + e.dur
  }
  return out
}
