// The report of the UI latency bench (bench/ui-latency.mjs): the table it
// prints from its results, and the figures it records for the summary of
// `make bench` (bench/figures.mjs, bench/summary.mjs).
import { recordFigure } from './figures.mjs'
import { ms } from './stats.mjs'
import { enterFigures, formatHopTable, formatSinceTable } from './trace-table.mjs'
import { indexingRatioLines, recordIndexingRatios } from './ui-indexing.mjs'
import { CATCHUP_SECONDS, CLIENTS, MESSAGES, STREAM_RATE, THINK_ANSWER_SECONDS, THINK_MS, THINK_STREAM_SECONDS } from './ui-knobs.mjs'

/** The printed report of results, as lines. */
export function reportLines(results) {
  const { cards, fanout: f, stream: s, big, thinking: th } = results
  const row = (name, st) => `${name.padEnd(52)} ${String(st.n).padStart(5)} ${ms(st.p50).padStart(9)} ${ms(st.p95).padStart(9)} ${ms(st.max).padStart(9)}`
  const lines = [
    '',
    `Parley UI latency — parley serve + Chromium ${results.chromium}, scripted model server (llama.cpp-style SSE)`,
    `${'measure'.padEnd(52)} ${'n'.padStart(5)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'max'.padStart(9)}`,
  ]
  if (cards) {
    lines.push(row('(a) tool-call chunk -> card painted', cards.a), row('    tool-call chunk -> card in the DOM', cards.aDom))
    if (results.floor) {
      lines.push(row('    floor (bare page, SSE event -> element): painted', results.floor.a),
        row('    floor: in the DOM', results.floor.aDom))
    }
    lines.push(row('(b) Submit click -> next model request', cards.b))
    if (results.cardsThinking) {
      const ct = results.cardsThinking
      lines.push(row(`(a') the model thinks ${THINK_MS} ms: card painted`, ct.a), row('     ... card in the DOM', ct.aDom))
    }
  }
  if (f) {
    lines.push(row(`(c) SSE: model chunk -> delta at all ${CLIENTS} clients`, f.all), row('    SSE: model chunk -> delta at first client', f.first),
      row(`    SSE: spread first..last of ${CLIENTS} clients`, f.spread), '',
      `(c) ${f.events} delta events received in all; chunks not seen by every client: ${f.incomplete}${f.errors.length ? '; errors: ' + f.errors.join('; ') : ''}`)
  }
  if (s) {
    const head = `(d) streamed ${s.tokens} tokens in ${s.seconds.toFixed(1)} s (${s.rate.toFixed(0)} tokens/s); longest wait for the page's main thread ${ms(s.probeMax)}`
    if (s.responsive) {
      lines.push(head + `; long tasks ${s.longtasks} (max ${ms(s.longMax)}, total ${ms(s.longTotal)}, over 100 ms: ${s.over100}); ` +
        `frame gaps > 50 ms: ${s.gaps}, longest frame gap ${ms(s.gapMax)}, of ${s.frames} frames; last token shown ${ms(s.endLag)} after the model sent it; ` +
        `main-thread CPU: ${s.cpuLong} tasks over 50 ms, longest ${ms(s.cpuMax)}, all tasks ${ms(s.cpuTotal)}; the streaming bubble changed ${s.updates} times (${s.updateSeconds ? (s.updates / s.updateSeconds).toFixed(0) : '-'}/s); final message ${s.textLength} characters`)
    } else {
      lines.push(head + `; the UI had not shown the last token ${CATCHUP_SECONDS} s after the stream ended ` +
        `(main thread blocked for ${ms(s.stillBlocked)} at that point): long tasks could not be read`)
    }
  }
  if (big) {
    lines.push(`(e) ${MESSAGES}-message conversation: imported in ${ms(big.importMs)}; click -> last message painted: first ${ms(big.first.paint)} ` +
      `(DOM ${ms(big.first.dom)}), again p50 ${ms(big.again.p50)} / max ${ms(big.again.max)} (n=${big.again.n}); ` +
      `${big.rendered} messages rendered (windowed); longest task while opening ${ms(big.longMax)}; main-thread CPU: ${big.cpuLong} tasks over 50 ms, longest ${ms(big.cpuMax)}`)
    lines.push(`    sending in it: Enter -> the message painted p50 ${ms(big.sendLong.p50)}, p95 ${ms(big.sendLong.p95)} (n=${big.sendLong.n}); ` +
      `in a conversation of two messages p50 ${ms(big.sendSmall.p50)}, p95 ${ms(big.sendSmall.p95)}; p95 ratio ${(big.sendLong.p95 / big.sendSmall.p95).toFixed(2)}×`)
  }
  if (th) {
    lines.push(`(f) thinking ${THINK_STREAM_SECONDS} s then answering ${THINK_ANSWER_SECONDS} s at ${STREAM_RATE} tokens/s (${th.tokens} tokens): ` +
      (th.caughtUp ? `long tasks ${th.longtasks} (max ${ms(th.longMax)}); frame gaps > 50 ms: ${th.gaps}, longest frame gap ${ms(th.gapMax)}; last token shown ${ms(th.endLag)} after the model sent it; ` : 'the UI had not caught up; ') +
      `main-thread CPU (forced collections left out): ${th.cpuLong} tasks over 50 ms, longest ${ms(th.cpuMax)}, all tasks ${ms(th.cpuTotal)}; ` +
      `JS heap after GC ${th.at10.mb.toFixed(1)} MB at 10 s, ${th.atThinkEnd.mb.toFixed(1)} MB when the thinking ended (growth ${th.growth.toFixed(2)} MB), ` +
      `${th.atEnd.mb.toFixed(1)} MB after the answer; DOM nodes ${th.at10.nodes} / ${th.atThinkEnd.nodes} / ${th.atEnd.nodes}` +
      (th.thinkingShown ? '' : '; the thinking block never showed text'))
  }
  const ix = results.indexing
  if (ix) {
    const still = (p) => p.turns
      ? `indexing in ${p.turns} turns (beside as many with nothing indexing, each side first by turns): ${p.indexed} files indexed by ${p.collections} collection(s)`
      : `indexing all along: ${p.indexed} files indexed by ${p.collections} collection(s) made one after another`
    lines.push('', `(g) while a folder of ${ix.files} Markdown files (${ix.fileBytes} bytes each) indexes:`)
    if (ix.cardsIdle) {
      lines.push(row('(g) idle: tool-call chunk -> card painted', ix.cardsIdle.a), row('    idle: tool-call chunk -> card in the DOM', ix.cardsIdle.aDom),
        row('    idle: Submit click -> next model request', ix.cardsIdle.b))
    }
    if (ix.cards) {
      lines.push(row('(g) tool-call chunk -> card painted', ix.cards.a), row('    tool-call chunk -> card in the DOM', ix.cards.aDom),
        row('    Submit click -> next model request', ix.cards.b), `    cards: ${still(ix.cardsIndexing)}`)
    }
    if (ix.streamIdle) {
      const st = ix.streamIdle
      lines.push(`(g) idle: streamed ${st.tokens} tokens (${st.rate.toFixed(0)} tokens/s): ` + (st.responsive
        ? `long tasks ${st.longtasks} (max ${ms(st.longMax)}); frame gaps > 50 ms: ${st.gaps}, longest frame gap ${ms(st.gapMax)}`
        : 'the UI had not caught up'))
    }
    if (ix.stream) {
      const st = ix.stream
      lines.push(`(g) streamed ${st.tokens} tokens (${st.rate.toFixed(0)} tokens/s): ` + (st.responsive
        ? `long tasks ${st.longtasks} (max ${ms(st.longMax)}); frame gaps > 50 ms: ${st.gaps}, longest frame gap ${ms(st.gapMax)}; last token shown ${ms(st.endLag)} after the model sent it`
        : 'the UI had not caught up') + `; ${still(ix.streamIndexing)}`)
    }
    lines.push(...indexingRatioLines(ix))
  }
  if (results.trace) {
    lines.push('', formatHopTable('(a) the card trace, hop by hop (+ = since the hop before, cum = since the model server wrote the first tool-call chunk):', results.trace.card),
      '', formatSinceTable('(a) the page from the send (ms since the Enter in the page):', results.trace.send ?? []),
      '', formatHopTable('(b) Submit -> next model request, hop by hop (cum = since the Submit click in the page):', results.trace.submit))
  }
  if (results.bound) {
    const b = results.bound
    lines.push('', `(a) the best a page could do here: Parley's Go path (model server's write -> card event written) p50 ${ms(b.goPath.p50)}, p95 ${ms(b.goPath.p95)}; ` +
      `with the bare page on top p95 ${ms(b.sum.p95)} in the DOM = ${b.ratio.toFixed(2)}× the floor, ${ms(b.paintSum?.p95)} painted; ` +
      `Parley's card is ${(results.cards.aDom.p95 / b.sum.p95).toFixed(2)}× that in the DOM, ${b.paintSum ? (results.cards.a.p95 / b.paintSum.p95).toFixed(2) : '-'}× painted`)
  }
  if (results.chatBound) {
    const b = results.chatBound
    lines.push(`(a) second bound, a bare chat page (Enter draws the user's message and POSTs; the card's event comes p50 ${ms(results.floor.afterEnter.p50)} after the Enter, as Parley's did): ` +
      `its element in the DOM p95 ${ms(results.floor.chatDom.p95)}, painted ${ms(results.floor.chatPaint.p95)}; with Parley's Go path under it p95 ${ms(b.sum.p95)} in the DOM, ${ms(b.paintSum?.p95)} painted; ` +
      `Parley's card is ${(results.cards.aDom.p95 / b.sum.p95).toFixed(2)}× that in the DOM, ${b.paintSum ? (results.cards.a.p95 / b.paintSum.p95).toFixed(2) : '-'}× painted`)
  }
  if (results.submitBound) {
    const b = results.submitBound
    lines.push(`(b) the best a page could do here: Parley's Go path (answer received -> next model request) p95 ${ms(b.goPath.p95)}; a bare page's click -> POST p95 ${ms(b.post.p95)}; ` +
      `both p95 ${ms(b.sum.p95)}; Parley's Submit is ${(results.cards.b.p95 / b.sum.p95).toFixed(2)}× that`)
  }
  lines.push('')
  return lines
}

/** Records the figures of (a), (b) and (g); (d), (e) and (f) recorded theirs as they ran. */
export function recordFigures(results) {
  const { cards } = results
  const ix = results.indexing
  if (cards) {
    const note = (st) => `p50 ${st.p50.toFixed(1)} ms, n=${st.n}; Chromium ${results.chromium}`
    // No millisecond targets: bench/summary.mjs judges these as ratios to the floor.
    recordFigure({ id: 'card.dom.p95', label: 'tool-call chunk -> card in the DOM, p95 (Chromium)', value: cards.aDom.p95, unit: 'ms', note: note(cards.aDom) })
    recordFigure({ id: 'card.paint.p95', label: 'tool-call chunk -> card painted, p95 (Chromium)', value: cards.a.p95, unit: 'ms', note: note(cards.a) })
    if (results.floor) {
      const fl = results.floor
      recordFigure({ id: 'card.dom.floor.p95', label: 'floor: SSE event -> element in the DOM, p95 (bare page, Chromium)', value: fl.aDom.p95, unit: 'ms', note: note(fl.aDom) })
      recordFigure({ id: 'card.paint.floor.p95', label: 'floor: SSE event -> element painted, p95 (bare page, Chromium)', value: fl.a.p95, unit: 'ms', note: note(fl.a) })
    }
    if (results.cardsThinking) {
      const ct = results.cardsThinking
      recordFigure({ id: 'card.dom.p95.thinking', label: `card in the DOM, p95, model thinking ${THINK_MS} ms (Chromium)`, value: ct.aDom.p95, unit: 'ms', note: note(ct.aDom) })
      recordFigure({ id: 'card.paint.p95.thinking', label: `card painted, p95, model thinking ${THINK_MS} ms (Chromium)`, value: ct.a.p95, unit: 'ms', note: note(ct.a) })
    }
    if (results.bound) {
      const b = results.bound
      const boundNote = `Go path p95 ${b.goPath.p95.toFixed(1)} ms with the bare page's every round on top`
      recordFigure({ id: 'card.dom.bound.p95', label: 'card in the DOM: Go path + bare page, p95 (Chromium)', value: b.sum.p95, unit: 'ms', note: boundNote })
      if (b.paintSum) recordFigure({ id: 'card.paint.bound.p95', label: 'card painted: Go path + bare page, p95 (Chromium)', value: b.paintSum.p95, unit: 'ms', note: boundNote })
      recordFigure({ id: 'card.dom.bound.ratio', label: 'card in the DOM: Go path + bare page / floor, p95 (the best ratio a page can reach, Chromium)', value: results.bound.ratio, unit: '×',
        note: `Go path p95 ${results.bound.goPath.p95.toFixed(1)} ms; with the bare page on top p95 ${results.bound.sum.p95.toFixed(1)} ms` })
    }
    if (results.chatBound) {
      const b = results.chatBound
      const chatNote = `Go path p95 ${b.goPath.p95.toFixed(1)} ms with the bare chat page's every round on top (its card ${results.floor.afterEnter.p50.toFixed(1)} ms after its Enter, p50)`
      recordFigure({ id: 'card.dom.chatbound.p95', label: 'card in the DOM: Go path + bare chat page, p95 (Chromium)', value: b.sum.p95, unit: 'ms', note: chatNote })
      if (b.paintSum) recordFigure({ id: 'card.paint.chatbound.p95', label: 'card painted: Go path + bare chat page, p95 (Chromium)', value: b.paintSum.p95, unit: 'ms', note: chatNote })
    }
    if (results.trace?.send) for (const f of enterFigures(results.trace.send, '', 'Chromium')) recordFigure(f)
    recordFigure({ id: 'submit.next.p95', label: 'Submit click -> next model request, p95 (Chromium)', value: cards.b.p95, unit: 'ms', note: note(cards.b) })
    if (results.submitBound) {
      const b = results.submitBound
      recordFigure({ id: 'submit.bound.p95', label: 'Submit: Go respond -> request + bare page POST, p95 (Chromium)', value: b.sum.p95, unit: 'ms',
        note: `Go path p95 ${b.goPath.p95.toFixed(1)} ms, bare POST p95 ${b.post.p95.toFixed(1)} ms` })
    }
  }
  if (ix?.cards) {
    const note = (st, p) => `p50 ${st.p50.toFixed(1)} ms, n=${st.n}; ${p.indexed} files indexed meanwhile`
    // No millisecond targets: bench/summary.mjs judges each against the same figure with nothing indexing.
    recordFigure({ id: 'indexing.card.dom.p95', label: `while ${ix.files} files index: card in the DOM, p95`, value: ix.cards.aDom.p95, unit: 'ms', note: note(ix.cards.aDom, ix.cardsIndexing) })
    recordFigure({ id: 'indexing.card.paint.p95', label: `while ${ix.files} files index: card painted, p95`, value: ix.cards.a.p95, unit: 'ms', note: note(ix.cards.a, ix.cardsIndexing) })
    recordFigure({ id: 'indexing.submit.next.p95', label: `while ${ix.files} files index: Submit -> next model request, p95`, value: ix.cards.b.p95, unit: 'ms', note: note(ix.cards.b, ix.cardsIndexing) })
  }
  if (ix) recordIndexingRatios(ix)
  if (ix?.stream?.responsive) {
    const p = ix.streamIndexing
    recordFigure({ id: 'indexing.stream.longtask.max', label: `while ${ix.files} files index: streaming, longest task`, value: ix.stream.longMax, unit: 'ms', target: 50, cmp: '<=', note: `${ix.stream.longtasks} long tasks; ${p.indexed} files indexed meanwhile` })
    recordFigure({ id: 'indexing.stream.framegap.max', label: `while ${ix.files} files index: streaming, longest frame gap`, value: ix.stream.gapMax, unit: 'ms', note: `${ix.stream.gaps} gaps over 50 ms; ${p.indexed} files indexed meanwhile` })
  }
}
