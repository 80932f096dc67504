// UI latency benchmarks of Parley: the real `parley serve` (build/bin/parley)
// talking to a tiny scripted OpenAI-compatible model server in this process
// (streaming like llama.cpp), with the built UI in Chromium.
//
//   (a) model's first tool-call chunk -> question card painted in Chromium
//   (b) Submit click in Chromium -> the next request at the model server
//   (c) SSE fan-out with 20 connected clients: model chunk -> event at all 20
//   (d) 500 streamed tokens/s for BENCH_STREAM_SECONDS (default 30): long
//       tasks (PerformanceObserver 'longtask') and frame gaps in Chromium
//   (e) opening a conversation of 5,000 messages: click -> last message shown
//   (f) a thinking model (SPEC §9): 500 thinking tokens/s for
//       BENCH_THINK_STREAM_SECONDS (default 60) in Ollama's `reasoning`
//       field, then 500 answer tokens/s for BENCH_THINK_ANSWER_SECONDS (30):
//       long tasks, and the page's JS heap after a forced garbage collection
//       10 s into the thinking, at its end and after the answer (flat: the
//       thinking block does not render the whole message per token)
//   (g) (a), (b) and (d) again while Parley indexes a folder of
//       BENCH_INDEX_FILES (20,000) Markdown files of BENCH_INDEX_FILE_BYTES
//       (4,000) bytes each (SPEC §11: the chat stays responsive while a
//       collection indexes): a collection of the folder, made again each
//       time it is done, so the indexing goes on all along; the card rounds
//       in BENCH_INDEX_TURNS (5) turns of each (idle first, then indexing
//       first, by turns), pooled
//
// Prints figures; asserts nothing about timings. Knobs: BENCH_ROUNDS (50),
// BENCH_THINK_MS (150: a second set of card rounds where the model thinks that
// long before its call; 0 skips it), BENCH_WARMUP (3), BENCH_CLIENTS (20), BENCH_STREAM_SECONDS (30),
// BENCH_STREAM_RATE (500), BENCH_MESSAGES (5000), BENCH_SEND_PROFILE (a file: a Chromium
// trace of the sends in (e)), BENCH_PROFILE (a file: a Chromium
// trace of the card rounds, for bench/profile-tasks.mjs), PARLEY_BIN, CHROMIUM_PATH,
// PARLEY_ARTIFACTS (results JSON goes there).
//
// Its parts: ui-knobs.mjs (the knobs), ui-model-server.mjs (the scripted
// model server), ui-page.mjs (driving the page), ui-cards.mjs (a, b),
// ui-fanout.mjs (c), ui-streams.mjs (d, f), ui-open-conversation.mjs (e),
// ui-indexing.mjs (g) and ui-report.mjs (the table and the figures); the
// floor is bench/floor.mjs (with the second bound's bare chat page, issue #42).
import { launchChromium } from '../frontend/e2e/helpers.mjs'
import { saveArtifact, startTempServe } from '../frontend/e2e/util.mjs'
import { chatFloorRounds, floorRounds, postRounds } from './floor.mjs'
import { stats } from './stats.mjs'
import { submitBound } from './bounds.mjs'
import { cardRounds, enterToEvent, pageBound, traceTables } from './ui-cards.mjs'
import { fanout } from './ui-fanout.mjs'
import { duringIndexing } from './ui-indexing.mjs'
import { CLIENTS, FANOUT_CHUNKS, MESSAGES, ONLY, ROUNDS, STREAM_RATE, STREAM_SECONDS, THINK_ANSWER_SECONDS, THINK_MS, THINK_STREAM_SECONDS, WARMUP, log } from './ui-knobs.mjs'
import { startModel } from './ui-model-server.mjs'
import { bigConversation } from './ui-open-conversation.mjs'
import { reportLines, recordFigures } from './ui-report.mjs'
import { longStream, thinkingStream } from './ui-streams.mjs'

async function main() {
  const model = await startModel()
  if (process.env.BENCH_TRACE !== '0') process.env.PARLEY_TRACE = '1' // inherited by parley serve
  const server = await startTempServe({
    extraArgs: ['--base-url', `http://127.0.0.1:${model.port}/v1`, '--model', 'bench', '--question-timeout', '0'],
  })
  let browser
  const results = { rounds: ROUNDS, clients: CLIENTS, streamSeconds: STREAM_SECONDS, streamRate: STREAM_RATE, messages: MESSAGES }
  try {
    const { body } = await server.api('GET', '/api/v1/settings')
    const put = await server.api('PUT', '/api/v1/settings', { ...body, rate_limit_seconds: 0, onboarded: true, demo_mode: false })
    if (put.status !== 200) throw new Error('settings: ' + JSON.stringify(put.body))
    browser = await launchChromium()
    results.chromium = browser.version()

    if (ONLY.includes('a')) {
      log(`(a)+(b) ${WARMUP} warm-up + ${ROUNDS} card rounds`)
      results.cards = await cardRounds(browser, server, model)
      // The floor on this machine, now: a bare page in the same Chromium
      // appending one element per SSE event (bench/floor.mjs).
      log(`(a) floor: ${WARMUP} warm-up + ${ROUNDS} events to a bare page`)
      const fl = await floorRounds(browser, { rounds: ROUNDS, warmup: WARMUP })
      // And a bare page's answer: click -> its POST at its server.
      log(`(b) floor: ${WARMUP} warm-up + ${ROUNDS} POSTs from a bare page`)
      const posts = await postRounds(browser, { rounds: ROUNDS, warmup: WARMUP })
      results.floor = { a: stats(fl.paint), aDom: stats(fl.dom), post: stats(posts) }
      if (process.env.PARLEY_TRACE === '1') {
        results.trace = await traceTables(server, results.cards.measured)
        results.bound = pageBound(results.trace.records, fl.dom, fl.paint)
        results.submitBound = submitBound(results.trace.records, posts)
        // The second bound: Parley's Go path with a bare chat page on top
        // (it draws the user's message on Enter, then gets the card's event
        // as long after it as Parley did; bench/floor.mjs).
        const afterEnter = enterToEvent(results.trace.records)
        if (afterEnter.length) {
          log(`(a) chat floor: ${WARMUP} warm-up + ${ROUNDS} rounds of a bare chat page`)
          const chat = await chatFloorRounds(browser, { rounds: ROUNDS, warmup: WARMUP, afterEnter })
          results.floor.chatDom = stats(chat.dom)
          results.floor.chatPaint = stats(chat.paint)
          results.floor.afterEnter = stats(afterEnter)
          results.chatBound = pageBound(results.trace.records, chat.dom, chat.paint)
        }
      }
      // The same with a model that thinks before its first token, as real
      // ones do: the card then does not arrive while the page is still
      // showing the user's own message (see the trace's page_received hop).
      if (THINK_MS > 0) {
        log(`(a') ${WARMUP} warm-up + ${ROUNDS} card rounds, the model thinking ${THINK_MS} ms before the call`)
        model.state.thinkMs = THINK_MS
        results.cardsThinking = await cardRounds(browser, server, model, 10000)
        model.state.thinkMs = 0
      }
    }
    if (ONLY.includes('c')) {
      log(`(c) SSE fan-out to ${CLIENTS} clients, ${FANOUT_CHUNKS} chunks`)
      results.fanout = await fanout(server, model)
    }
    if (ONLY.includes('d')) {
      log(`(d) streaming ${STREAM_RATE} tokens/s for ${STREAM_SECONDS} s`)
      results.stream = await longStream(server, model)
    }
    if (ONLY.includes('e')) {
      log(`(e) opening a ${MESSAGES}-message conversation`)
      results.big = await bigConversation(browser, server)
    }
    if (ONLY.includes('f')) {
      log(`(f) a model thinking ${THINK_STREAM_SECONDS} s then answering ${THINK_ANSWER_SECONDS} s at ${STREAM_RATE} tokens/s`)
      results.thinking = await thinkingStream(server, model)
    }
    if (ONLY.includes('g')) {
      results.indexing = await duringIndexing(browser, server, model)
    }
  } finally {
    await browser?.close()
    await server.stop()
    await model.close()
  }
  if (model.state.unexpected.length) log('unexpected model server requests:', model.state.unexpected.join(', '))

  console.log(reportLines(results).join('\n'))
  recordFigures(results)
  const path = await saveArtifact('bench-ui-latency.json', JSON.stringify(results, null, 2))
  log('results saved to', path)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
