// (d) and (f) of the UI latency bench (bench/ui-latency.mjs): the page
// while a model streams STREAM_RATE tokens a second (long tasks, frame gaps,
// main-thread CPU, how soon the last token shows), and while a model thinks
// and then answers (the same, and the JS heap after forced collections).
import { launchChromium } from '../frontend/e2e/helpers.mjs'
import { waitUntil, sleep } from '../frontend/e2e/util.mjs'
import { recordFigure } from './figures.mjs'
import { ms } from './stats.mjs'
import { CATCHUP_SECONDS, STREAM_RATE, STREAM_SECONDS, THINK_ANSWER_SECONDS, THINK_STREAM_SECONDS, now } from './ui-knobs.mjs'
import { newChatPage, traceTaskCpu } from './ui-page.mjs'

// (d) In its own Chromium: a renderer that cannot keep up may stay blocked
// long after the stream, and is then simply killed.
// record: whether the figures go to the summary (not for the run of (g)).
export async function longStream(server, model, record = true) {
  const browser = await launchChromium()
  try {
    const page = await newChatPage(browser, server)
    await page.evaluate(() => {
      const now = () => performance.timeOrigin + performance.now()
      const b = (window.__stream = { longtasks: [], gaps: [], frames: 0, running: true, shownAt: null, updates: 0, firstUpdate: null, lastUpdate: null })
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) b.longtasks.push({ start: e.startTime, duration: e.duration })
      }).observe({ type: 'longtask', buffered: true })
      // The longest gap between frames, whatever its length: the figure
      // (g) compares with the same run's idle one, which a max over the
      // gaps above 50 ms alone made 0 against 50.1 (an infinite ratio).
      b.longestGap = 0
      let last = performance.now()
      const frame = (t) => {
        b.frames++
        if (t - last > 50) b.gaps.push({ at: last, ms: t - last })
        b.longestGap = Math.max(b.longestGap, t - last)
        last = t
        if (b.running) requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
      // The last token is looked for in the reply's last Markdown block only.
      // Read whole (textContent of the bubble) on every mutation, the reply's
      // text, 76 KB by the end, came out of the page as a new string ~60
      // times a second: the bench's own garbage, which made the page collect
      // for 35-45 ms of main-thread CPU a few times a stream (in a trace:
      // V8.GCPhantomHandleProcessingCallback, the freeing of those strings).
      // Whether a change may have shown the end: one in a Markdown block whose
      // text has it, or one that added blocks. Only then is the page searched
      // (a search of the whole document on every change of the stream was the
      // bench's own work in the page's frames: ~10 % of them, 76 KB in).
      const endMayShow = (records) => records.some((r) => {
        const block = (r.target.nodeType === 1 ? r.target : r.target.parentElement)?.closest('.md-block')
        if (block) return block.textContent.includes('END-OF-STREAM')
        return [...r.addedNodes].some((n) => n.nodeType === 1 && (n.matches('.md-block') || !!n.querySelector('.md-block')))
      })
      const mo = new MutationObserver((records) => {
        if (!endMayShow(records)) return
        const el = [...document.querySelectorAll('[data-testid=assistant-message], [data-testid=streaming-message]')].at(-1)
        const lastBlock = el && [...el.querySelectorAll('.md-block')].at(-1)
        if (lastBlock && lastBlock.textContent.includes('END-OF-STREAM')) {
          b.shownAt = now()
          mo.disconnect()
        }
      })
      mo.observe(document, { childList: true, subtree: true, characterData: true })
      // How often the streaming bubble changed (one observer callback per DOM update batch).
      const updates = new MutationObserver((records) => {
        if (!b.running || !records.some((r) => r.target instanceof Node && (r.target.parentElement ?? r.target).closest?.('[data-testid=streaming-message]'))) return
        b.updates++
        b.firstUpdate ??= performance.now()
        b.lastUpdate = performance.now()
      })
      updates.observe(document, { childList: true, subtree: true, characterData: true })
    })
    const startPerf = await page.evaluate(() => performance.now())
    const cpu = await traceTaskCpu(page, 'stream')

    // Responsiveness probe: one evaluate at a time; how long each waits for the main thread.
    const probe = { max: 0, pendingSince: null, stop: false }
    const prober = (async () => {
      while (!probe.stop) {
        probe.pendingSince = now()
        await page.evaluate(() => 0).catch(() => {})
        probe.max = Math.max(probe.max, now() - probe.pendingSince)
        probe.pendingSince = null
        await sleep(200)
      }
    })()

    model.state.stream = null // a stream of an earlier run is not this one's
    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('stream')
    await composer.press('Enter')
    await waitUntil(() => model.state.stream, { timeout: (STREAM_SECONDS + 30) * 1000, interval: 200, what: 'the model stream to end' })
    const tEnd = model.state.stream.end
    const caughtUp = await waitUntil(async () => {
      if (probe.pendingSince !== null) return null // main thread busy: cannot ask
      return Promise.race([page.evaluate(() => window.__stream.shownAt), sleep(1000).then(() => null)])
    }, { timeout: CATCHUP_SECONDS * 1000, interval: 250, what: 'the UI to show the last token' }).catch(() => null)
    const blockedNow = probe.pendingSince !== null ? now() - probe.pendingSince : 0
    let r = { responsive: false }
    if (caughtUp) {
      await sleep(500)
      r = await page.evaluate((since) => {
        const b = window.__stream
        b.running = false
        const lts = b.longtasks.filter((x) => x.start >= since)
        return {
          responsive: true,
          longtasks: lts.length,
          longMax: Math.max(0, ...lts.map((x) => x.duration)),
          longTotal: lts.reduce((s, x) => s + x.duration, 0),
          over100: lts.filter((x) => x.duration > 100).length,
          detail: lts.map((x) => ({ at: Math.round(x.start - since), ms: Math.round(x.duration) })),
          gaps: b.gaps.length,
          gapMax: b.longestGap,
          // Where each gap began (ms since the run was set up, just before the send): the send's first frames or the stream's.
          gapDetail: b.gaps.map((g) => ({ at: Math.round(g.at - since), ms: Math.round(g.ms) })),
          frames: b.frames,
          updates: b.updates,
          updateSeconds: b.lastUpdate && b.firstUpdate ? (b.lastUpdate - b.firstUpdate) / 1000 : 0,
          textLength: [...document.querySelectorAll('[data-testid=assistant-message]')].at(-1)?.textContent.length ?? 0,
        }
      }, startPerf)
    }
    probe.stop = true
    Object.assign(r, await cpu.stop())
    const s = model.state.stream
    const note = r.responsive
      ? `${r.longtasks} long tasks, ${r.gaps} frame gaps > 50 ms${r.gaps ? ` (at ${r.gapDetail.map((g) => `${g.at} ms`).join(', ')} into the run)` : ''}, longest frame gap ${ms(r.gapMax)}, ${STREAM_RATE} tokens/s for ${STREAM_SECONDS} s; ` +
        `main-thread CPU: ${r.cpuLong} tasks over 50 ms, longest ${ms(r.cpuMax)}, all tasks ${ms(r.cpuTotal)}`
      : `the UI had not caught up ${CATCHUP_SECONDS} s after the stream`
    if (record) recordFigure({ id: 'stream500.longtask.max', label: `longest task while streaming ${STREAM_RATE} tokens/s (Chromium)`,
      value: r.responsive ? r.longMax : null, unit: 'ms', target: 50, cmp: '<=', note })
    if (record) recordFigure({ id: 'stream500.framegap.max', label: `longest frame gap while streaming ${STREAM_RATE} tokens/s (Chromium)`,
      value: r.responsive ? r.gapMax : null, unit: 'ms', target: 50, cmp: '<=', note })
    if (record) recordFigure({ id: 'stream500.longtasks', label: `long tasks (> 50 ms) while streaming ${STREAM_RATE} tokens/s (Chromium)`,
      value: r.responsive ? r.longtasks : null, unit: 'tasks', target: 0, cmp: '<=', note })
    return {
      ...r, tokens: s.sent, seconds: (s.end - s.start) / 1000, rate: s.sent / ((s.end - s.start) / 1000),
      endLag: caughtUp ? caughtUp - tEnd : null, probeMax: Math.max(probe.max, blockedNow), stillBlocked: blockedNow,
    }
  } finally {
    await browser.close()
  }
}

// (f) In its own Chromium too.
export async function thinkingStream(server, model) {
  const browser = await launchChromium()
  try {
    const page = await newChatPage(browser, server)
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable')
    await page.evaluate(() => {
      const now = () => performance.timeOrigin + performance.now()
      const b = (window.__think = { longtasks: [], frames: [], shownAt: null, thinkingShown: false, running: true })
      // Every frame's time: the gaps are judged after, leaving out the forced collections.
      const frame = (t) => {
        b.frames.push(t)
        if (b.running) requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) b.longtasks.push({ start: e.startTime, duration: e.duration })
      }).observe({ type: 'longtask', buffered: true })
      const endMayShow = (records) => records.some((r) => {
        const block = (r.target.nodeType === 1 ? r.target : r.target.parentElement)?.closest('.md-block')
        if (block) return block.textContent.includes('END-OF-STREAM')
        return [...r.addedNodes].some((n) => n.nodeType === 1 && (n.matches('.md-block') || !!n.querySelector('.md-block')))
      })
      const mo = new MutationObserver((records) => {
        b.thinkingShown ||= !!document.querySelector('[data-testid=thinking-live-text] .thinking-piece')
        // As in (d), only after a change that may show it, and the reply's last block only (the bubble also holds 60 s of thinking).
        if (!endMayShow(records)) return
        const el = [...document.querySelectorAll('[data-testid=assistant-message], [data-testid=streaming-message]')].at(-1)
        const lastBlock = el && [...el.querySelectorAll('.md-block')].at(-1)
        if (lastBlock && lastBlock.textContent.includes('END-OF-STREAM')) {
          b.shownAt = now()
          mo.disconnect()
        }
      })
      mo.observe(document, { childList: true, subtree: true, characterData: true })
    })
    const startPerf = await page.evaluate(() => performance.now())
    const cpu = await traceTaskCpu(page, 'thinking')
    // A forced collection is a long task of its own: the tasks inside one are left out.
    const gcWindows = []
    const heap = async () => {
      const a = await page.evaluate(() => (performance.mark('bench-skip-start'), performance.now()))
      await cdp.send('HeapProfiler.collectGarbage')
      const { metrics } = await cdp.send('Performance.getMetrics')
      const b = await page.evaluate(() => (performance.mark('bench-skip-end'), performance.now()))
      gcWindows.push([a, b])
      const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]))
      return { mb: m.JSHeapUsedSize / 1048576, nodes: m.Nodes }
    }

    const composer = page.getByRole('textbox', { name: 'Message' })
    await composer.fill('think-stream')
    await composer.press('Enter')
    await waitUntil(() => model.state.thinking, { timeout: 30000, what: 'the thinking stream to start' })
    await sleep(Math.max(0, model.state.thinking.start + 10000 - now()))
    const at10 = await heap()
    await waitUntil(() => model.state.thinking.thinkEnd, { timeout: (THINK_STREAM_SECONDS + 30) * 1000, interval: 200, what: 'the thinking to end' })
    const thinkEndPerf = (await page.evaluate(() => performance.now())) - startPerf
    const atThinkEnd = await heap()
    await waitUntil(() => model.state.thinking.end, { timeout: (THINK_ANSWER_SECONDS + 30) * 1000, interval: 200, what: 'the answer to end' })
    const caughtUp = await waitUntil(() => Promise.race([page.evaluate(() => window.__think.shownAt), sleep(1000).then(() => null)]),
      { timeout: CATCHUP_SECONDS * 1000, interval: 250, what: 'the UI to show the last token' }).catch(() => null)
    await sleep(500)
    const atEnd = await heap()
    const r = await page.evaluate(({ since, windows }) => {
      const b = window.__think
      const inGc = (x) => windows.some(([a, z]) => x.start + x.duration >= a && x.start <= z)
      const lts = b.longtasks.filter((x) => x.start >= since && !inGc(x))
      b.running = false
      const gaps = []
      let longest = 0 // as in (d): the longest gap between frames, whatever its length
      for (let i = 1; i < b.frames.length; i++) {
        const gap = { start: b.frames[i - 1], duration: b.frames[i] - b.frames[i - 1] }
        if (gap.start < since || inGc(gap)) continue
        longest = Math.max(longest, gap.duration)
        if (gap.duration > 50) gaps.push(gap)
      }
      return { longtasks: lts.length, longMax: Math.max(0, ...lts.map((x) => x.duration)), thinkingShown: b.thinkingShown,
        gaps: gaps.length, gapMax: longest,
        gapAt: gaps.map((g) => Math.round(g.start - since)),
        detail: lts.map((x) => ({ at: Math.round(x.start - since), ms: Math.round(x.duration) })) }
    }, { since: startPerf, windows: gcWindows })
    Object.assign(r, await cpu.stop())
    const t = model.state.thinking
    const growth = atThinkEnd.mb - at10.mb
    const note = `${STREAM_RATE} thinking tokens/s for ${THINK_STREAM_SECONDS} s, then answer tokens for ${THINK_ANSWER_SECONDS} s; ` +
      `JS heap after GC ${at10.mb.toFixed(1)} MB at 10 s, ${atThinkEnd.mb.toFixed(1)} MB at the end of the thinking, ${atEnd.mb.toFixed(1)} MB after the answer; ` +
      `DOM nodes ${at10.nodes} / ${atThinkEnd.nodes} / ${atEnd.nodes}; main-thread CPU: ${r.cpuLong} tasks over 50 ms, longest ${ms(r.cpuMax)}, all tasks ${ms(r.cpuTotal)}` +
      (caughtUp ? '' : '; the UI had not caught up')
    recordFigure({ id: 'think500.longtask.max', label: `longest task while a model thinks then answers at ${STREAM_RATE} tokens/s (Chromium)`,
      value: caughtUp ? r.longMax : null, unit: 'ms', target: 50, cmp: '<=', note })
    recordFigure({ id: 'think500.framegap.max', label: `longest frame gap while a model thinks then answers at ${STREAM_RATE} tokens/s (Chromium)`,
      value: caughtUp ? r.gapMax : null, unit: 'ms', target: 50, cmp: '<=', note: `${r.gaps} frame gaps over 50 ms (forced collections left out${r.gaps ? `; at ${r.gapAt.map((a) => `${a} ms`).join(', ')} into the run` : ''}); ` + note })
    recordFigure({ id: 'think500.longtasks', label: `long tasks (> 50 ms) while a model thinks then answers (Chromium)`,
      value: caughtUp ? r.longtasks : null, unit: 'tasks', target: 0, cmp: '<=', note })
    recordFigure({ id: 'think500.heap.growth', label: `JS heap growth over ${THINK_STREAM_SECONDS - 10} s of thinking (after GC, Chromium)`,
      value: growth, unit: 'MB', target: 2, cmp: '<=', note })
    return { ...r, caughtUp: !!caughtUp, at10, atThinkEnd, atEnd, growth, tokens: t.sent, endLag: caughtUp ? caughtUp - t.end : null,
      thinkEndAt: Math.round(thinkEndPerf), gcWindows: gcWindows.map(([a, z]) => [Math.round(a - startPerf), Math.round(z - startPerf)]) }
  } finally {
    await browser.close()
  }
}
