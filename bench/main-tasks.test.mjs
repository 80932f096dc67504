import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mainThreadTasks } from './main-tasks.mjs'

const ev = (name, ts, dur, tid = 1) => ({ name, ph: 'X', ts, dur, tdur: dur, pid: 7, tid })

test('a microtask checkpoint outside any task counts as a task, one inside a task does not', () => {
  const events = [
    ev('ThreadControllerImpl::RunTask', 0, 10),
    ev('BlinkScheduler_PerformMicrotaskCheckpoint', 5, 3), // the task's own
    ev('BlinkScheduler_PerformMicrotaskCheckpoint', 20, 200), // after a fetch's body: its own task
    ev('ThreadControllerImpl::RunTask', 300, 4),
    ev('ThreadControllerImpl::RunTask', 0, 500, 2), // another thread
    ev('FunctionCall', 30, 100),
    { name: 'ThreadControllerImpl::RunTask', ph: 'B', ts: 400, pid: 7, tid: 1 },
  ]
  const tasks = mainThreadTasks(events, '7:1')
  assert.deepEqual(tasks.map((t) => [t.name, t.ts, t.dur]), [
    ['ThreadControllerImpl::RunTask', 0, 10],
    ['BlinkScheduler_PerformMicrotaskCheckpoint', 20, 200],
    ['ThreadControllerImpl::RunTask', 300, 4],
  ])
})
