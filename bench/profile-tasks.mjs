// Prints what the page's main thread did in card rounds, from a Chromium
// trace written by bench/ui-latency.mjs with BENCH_PROFILE=<file>: for each
// chosen round, every task from the Enter keydown on (start relative to the
// keydown, duration, and what took the time inside it: script, microtasks,
// style, layout, paint). Tasks under 0.3 ms are left out.
//
//   node bench/profile-tasks.mjs <trace.json> [rounds, e.g. 10,40] [window ms, 60]
//
// With `top` instead of rounds (a trace written with BENCH_TRACE_DIR, e.g. of
// a stream): the N tasks that took the most CPU, what took the time inside
// each, and the JS functions the samples were in (self time).
//
//   node bench/profile-tasks.mjs <trace.json> top [N, 10]
import { readFileSync } from 'node:fs'
import { mainThreadTasks } from './main-tasks.mjs'

const [file, roundsArg = '10,40', windowArg = '60'] = process.argv.slice(2)
if (!file) {
  console.error('usage: node bench/profile-tasks.mjs <trace.json> [rounds] [window ms]')
  process.exit(2)
}
const events = JSON.parse(readFileSync(file, 'utf8'))
const rendererMains = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`))
const perThread = {}
for (const e of events) {
  const k = `${e.pid}:${e.tid}`
  if (rendererMains.has(k)) perThread[k] = (perThread[k] || 0) + 1
}
// The page's renderer is the busiest renderer main thread.
const main = Object.entries(perThread).sort((a, b) => b[1] - a[1])[0]?.[0]
if (!main) throw new Error(`${file}: no renderer main thread in the trace`)
const xs = events.filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts)
const tasks = mainThreadTasks(events, main)
const keydowns = xs.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'keydown')
const SHOWN = ['RunMicrotasks', 'FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'HitTest']

function inside(task) {
  const sums = {}
  for (const e of xs) {
    if (e === task || e.ts < task.ts || e.ts + e.dur > task.ts + task.dur || !SHOWN.includes(e.name)) continue
    const name = e.name === 'EventDispatch' ? `EventDispatch:${e.args?.data?.type}` : e.name
    sums[name] = (sums[name] || 0) + e.dur / 1000
  }
  return Object.entries(sums).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(', ')
}

// The JS samples of the trace: [{ ts (µs, trace clock), fn }] of the main thread.
function jsSamples() {
  const out = []
  const byId = new Map()
  // The profile of the main thread: its chunks come from the profiler's own thread.
  const [pid, tid] = main.split(':').map(Number)
  const profile = events.find((e) => e.name === 'Profile' && e.pid === pid && e.tid === tid)
  if (!profile) return out
  let ts = profile.args?.data?.startTime ?? 0
  for (const e of events) {
    if (e.name !== 'ProfileChunk' || e.pid !== pid || e.id !== profile.id) continue
    const p = e.args?.data?.cpuProfile ?? {}
    for (const n of p.nodes ?? []) {
      const f = n.callFrame ?? {}
      byId.set(n.id, `${f.functionName || '(anonymous)'} ${(f.url || '').split('/').pop()}:${f.lineNumber ?? ''}`)
    }
    const deltas = e.args?.data?.timeDeltas ?? []
    ;(p.samples ?? []).forEach((id, i) => {
      ts += deltas[i] ?? 0
      out.push({ ts, id })
    })
  }
  return out.map((x) => ({ ts: x.ts, fn: byId.get(x.id) ?? String(x.id) }))
}

function topTasks(n) {
  const samples = jsSamples()
  const ranked = tasks.filter((t) => t.tdur !== undefined).sort((a, b) => b.tdur - a.tdur).slice(0, n)
  const t0 = tasks[0]?.ts ?? 0
  for (const t of ranked) {
    console.log(`--- at ${((t.ts - t0) / 1000).toFixed(0)} ms: CPU ${(t.tdur / 1000).toFixed(1)} ms, wall ${(t.dur / 1000).toFixed(1)} ms; ${inside(t)}`)
    const self = {}
    for (const s of samples) if (s.ts >= t.ts && s.ts <= t.ts + t.dur) self[s.fn] = (self[s.fn] || 0) + 1
    const hot = Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 8)
    if (hot.length) console.log('    samples: ' + hot.map(([f, c]) => `${f} ×${c}`).join(', '))
  }
}

if (roundsArg === 'top') {
  topTasks(Number(windowArg === '60' ? 10 : windowArg))
  process.exit(0)
}

for (const r of roundsArg.split(',').map(Number)) {
  const k = keydowns[r]
  if (!k) {
    console.log(`round ${r}: not in the trace (${keydowns.length} rounds)`)
    continue
  }
  console.log(`--- round ${r} (ms since the Enter keydown, task duration, inside; nested events can overlap)`)
  for (const t of tasks) {
    if (t.ts + t.dur < k.ts - 1000 || t.dur < 300) continue
    if (t.ts > k.ts + Number(windowArg) * 1000) break
    console.log(`${((t.ts - k.ts) / 1000).toFixed(1).padStart(7)} ${(t.dur / 1000).toFixed(1).padStart(6)}  ${inside(t)}`)
  }
}
