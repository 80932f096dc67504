// Driving the page of the UI latency bench (bench/ui-latency.mjs): a
// logged-in chat page in Chromium, waiting for a run to end, and the
// Chromium traces taken around its rounds.
import { login } from '../frontend/e2e/serve.mjs'
import { waitUntil } from '../frontend/e2e/util.mjs'
import { log } from './ui-knobs.mjs'
import { mainThreadTasks } from './main-tasks.mjs'

export async function conversationIdle(server, id) {
  await waitUntil(async () => (await server.api('GET', `/api/v1/conversations/${id}`)).body.state === 'idle', {
    interval: 20, timeout: 15000, what: `conversation ${id} idle`,
  })
}

export async function newChatPage(browser, server) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  page.on('pageerror', (e) => log('page error:', e.message))
  await login(page, server)
  // A person types once the page is shown and settled, not in its first few
  // hundred milliseconds: the run starts after the page's start-up work
  // (texts and Markdown warmed up while idle, frontend/src/main.ts), which
  // otherwise lands in the first send's task.
  await waitUntil(() => page.evaluate(() => performance.getEntriesByName('parley:ready').length > 0), {
    interval: 50, timeout: 15000, what: 'the page ready (its parley:ready mark)',
  })
  return page
}

// BENCH_PROFILE=file: a Chromium trace of the card rounds (timeline and JS
// samples), written as JSON; bench/profile-tasks.mjs prints its tasks.
export async function startProfile(page) {
  const cdp = await page.context().newCDPSession(page)
  const events = []
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value))
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r))
  await cdp.send('Tracing.start', {
    categories: PROFILE_CATEGORIES,
    transferMode: 'ReportEvents',
  })
  return {
    async stop(file) {
      await cdp.send('Tracing.end')
      await complete
      const { writeFile } = await import('node:fs/promises')
      await writeFile(file, JSON.stringify(events))
      log('profile written to', file, events.length, 'events')
    },
  }
}


// How much of its main thread's CPU each task of the page took (a Chromium
// trace of top-level tasks). A task can be long on a busy machine only
// because the renderer waited for a core: CPU time tells work from waiting.
// Tasks between the page's performance marks `bench-skip-start` and
// `bench-skip-end` (a forced garbage collection) are left out.
// BENCH_TRACE_DIR=dir: the whole trace (timeline and JS samples) is also
// written there as <name>.json, for `node bench/profile-tasks.mjs <file> top`.
export async function traceTaskCpu(page, name = 'page') {
  const cdp = await page.context().newCDPSession(page)
  const keepAll = !!process.env.BENCH_TRACE_DIR
  const events = []
  const all = []
  cdp.on('Tracing.dataCollected', (d) => {
    for (const e of d.value) {
      if (keepAll) all.push(e)
      if (e.ph === 'M' || /RunTask$|MicrotaskCheckpoint$/.test(e.name) || /^bench-skip-/.test(e.name)) events.push(e)
    }
  })
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r))
  const categories = keepAll ? PROFILE_CATEGORIES : 'toplevel,blink.user_timing'
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' })
  return {
    async stop() {
      await cdp.send('Tracing.end')
      await complete
      if (keepAll) {
        const { mkdir, writeFile } = await import('node:fs/promises')
        const file = `${process.env.BENCH_TRACE_DIR}/${name}.json`
        await mkdir(process.env.BENCH_TRACE_DIR, { recursive: true })
        await writeFile(file, JSON.stringify(all))
        log('trace written to', file)
      }
      const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`))
      const starts = events.filter((e) => e.name === 'bench-skip-start').map((e) => e.ts).sort((a, b) => a - b)
      const ends = events.filter((e) => e.name === 'bench-skip-end').map((e) => e.ts).sort((a, b) => a - b)
      const skipped = (e) => starts.some((s, i) => e.ts + (e.dur ?? 0) >= s && e.ts <= (ends[i] ?? Infinity))
      const cpu = [...main].flatMap((key) => mainThreadTasks(events, key)).filter((e) => !skipped(e)).map((e) => (e.tdur ?? 0) / 1000)
      return { cpuLong: cpu.filter((t) => t > 50).length, cpuMax: cpu.reduce((a, b) => Math.max(a, b), 0), cpuTotal: cpu.reduce((a, b) => a + b, 0) }
    },
  }
}

// BENCH_TRACE_CATEGORIES: other trace categories for BENCH_TRACE_DIR and
// BENCH_PROFILE (e.g. without the JS sampler, whose cost inflates the tasks).
const PROFILE_CATEGORIES = process.env.BENCH_TRACE_CATEGORIES || 'toplevel,devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,disabled-by-default-v8.cpu_profiler,blink.user_timing'

// (d) In its own Chromium: a renderer that cannot keep up may stay blocked
// long after the stream, and is then simply killed.
